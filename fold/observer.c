/* SPDX-License-Identifier: BSD-3-Clause */
/* The recording's cost per sample: the instances without samples give the
 * measure's level and jitter (median m0, scaled MAD s0), each sampled
 * instance its excess over m0 per sample, and the median of those excesses
 * is the cost, taken when it is significant: above SIGNIFICANCE standard
 * errors of itself and of m0.  Not when it merely exceeds the jitter: a
 * cost below one instance's jitter still moves every sample alike, and a
 * counter's curve bends where its rate is low (a pause's 100 branch misses
 * against 3800 an instance made the rates 30 % wrong in a synthetic test). */
#include "observer.h"

#include <math.h>
#include <stdlib.h>

#include "preempt.h"
#include "robust.h"

#define SIGNIFICANCE 3.0
/* The standard error of a median of n normal values is this times σ/√n. */
#define MEDIAN_SE 1.2533

/* The median excess per sample of the sampled instances over the median
 * of the others: the cost's estimate, with its standard error *se and the
 * excesses' scaled MAD *spread; NAN with too few instances of either
 * kind. */
static double excess_per_sample(const double *value, const uint64_t *samples, size_t n,
                                double *work, double *se, double *spread)
{
    double *scratch = work + n;
    size_t n0 = 0;
    for (size_t i = 0; i < n; i++)
        if (!samples[i])
            work[n0++] = value[i];
    size_t n1 = n - n0;
    if (n0 < TF_OBSERVER_MIN_INSTANCES || n1 < TF_OBSERVER_MIN_INSTANCES)
        return NAN;
    double m0, mad0, cost, mad1;
    tf_median_mad(work, n0, scratch, &m0, &mad0);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (samples[i])
            work[k++] = (value[i] - m0) / (double)samples[i];
    tf_median_mad(work, n1, scratch, &cost, &mad1);
    double s0 = TF_MAD_SCALE * mad0, s1 = TF_MAD_SCALE * mad1;
    *se = MEDIAN_SE * sqrt(s1 * s1 / (double)n1 + s0 * s0 / (double)n0);
    *spread = s1;
    return cost;
}

double tf_fold_observer_cost(const double *value, const uint64_t *samples, size_t n,
                             double *work, double *spread)
{
    double se, s1;
    double cost = excess_per_sample(value, samples, n, work, &se, &s1);
    *spread = 0;
    if (!(cost > SIGNIFICANCE * se))
        return 0;
    *spread = s1;
    return cost;
}

/* Instance i's measure after its k samples' cost: NAN when it would not
 * stay positive (the instance is then left as it is). */
static double net_of(double value, uint64_t k, double cost)
{
    double net = value - (double)k * cost;
    return net > 0 ? net : NAN;
}

/* A point's fraction f of an instance's measure `total` that holds k
 * samples, the point being the (j+1)-th of them, after the cost. */
static float moved(float f, size_t j, double total, double net, double cost)
{
    double v = ((double)f * total - ((double)j + 0.5) * cost) / net;
    return (float)(v < 0 ? 0 : v > 1 ? 1 : v);
}

/* One measure (counter c, or the duration when c is the number of
 * counters) of the used instances into value, their samples into samples;
 * instances without the measure are left out.  Returns how many. */
static size_t collect(const tf_fold_region *r, uint32_t c, double *value, uint64_t *samples)
{
    size_t n = 0;
    for (size_t i = 0; i < r->ninstances; i++) {
        if (r->instances[i].status != TF_FOLD_USED)
            continue;
        double v = (double)r->instances[i].duration;
        if (c < r->ncounters) {
            uint64_t d = r->counter_delta[i * r->ncounters + c];
            if (d == TF_NOVALUE || d == 0)
                continue;
            v = (double)d;
        }
        value[n] = v;
        samples[n++] = r->instances[i].samples;
    }
    return n;
}

int tf_fold_observer_measure(tf_fold_region *r, tf_error *err)
{
    uint32_t nc = r->ncounters;
    size_t n = r->ninstances;
    r->observer_events = calloc(nc + 1, sizeof *r->observer_events);
    double *value = malloc((n + 1) * sizeof *value), *work = malloc((2 * n + 1) * sizeof *work);
    uint64_t *samples = malloc((n + 1) * sizeof *samples);
    int rc = 0;
    if (!r->observer_events || !value || !work || !samples)
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory measuring the recording's cost");
    for (uint32_t c = 0; rc == 0 && c <= nc; c++) {
        double spread;
        double cost = tf_fold_observer_cost(value, samples, collect(r, c, value, samples), work,
                                            &spread);
        if (c < nc) {
            r->observer_events[c] = cost;
        } else {
            r->observer_ns = cost;
            r->observer_spread_ns = spread;
        }
    }
    /* A CPU-time counter's cost is the CPU part of the duration's: once
     * the duration's is significant, the counter's own estimate without a
     * bar of its own, within 0 and the duration's (the CPU time where it
     * cannot be told); none without the duration's.  Each against its own
     * bar, the two disagreed: a recorded 0.9 ms step lost 66 µs a sample
     * from its durations (3.05 standard errors) and none from its task
     * clock (64.5 µs, 2.99), and ran at 1.08 CPU-seconds a second. */
    for (uint32_t c = 0; rc == 0 && c < nc; c++) {
        if (!tf_fold_is_cpu_time(r->counter_names[c]))
            continue;
        double se, spread, cpu = 0;
        if (r->observer_ns > 0) {
            cpu = excess_per_sample(value, samples, collect(r, c, value, samples), work, &se,
                                    &spread);
            cpu = isnan(cpu) ? r->observer_ns : fmin(fmax(cpu, 0), r->observer_ns);
        }
        r->observer_events[c] = cpu;
    }
    free(value);
    free(work);
    free(samples);
    return rc;
}

/* Takes k costs out of an instance's measure *total and moves its points
 * f[from..to) alike; a measure that would not stay positive is left as it
 * is. */
static void take_out(uint64_t *total, uint64_t k, double cost, float *f, size_t from, size_t to)
{
    double net = net_of((double)*total, k, cost);
    if (isnan(net))
        return;
    for (size_t p = from; p < to; p++)
        if (!isnan(f[p]))
            f[p] = moved(f[p], p - from, (double)*total, net, cost);
    *total = (uint64_t)llround(net);
}

/* The wall time each of instance i's k samples cost it: their CPU time
 * and, of the off-CPU rest, no more than the instance spent off the CPU
 * (its duration less its CPU time, counter cpu), so that the correction
 * never leaves an instance more CPU time than wall time when it had
 * less. */
static double duration_cost(const tf_fold_region *r, size_t i, int cpu, uint64_t k)
{
    uint64_t t = cpu >= 0 ? r->counter_delta[i * r->ncounters + (uint32_t)cpu] : TF_NOVALUE;
    if (t == TF_NOVALUE)
        return r->observer_ns;
    double on = r->observer_events[cpu], off = r->observer_ns - on;
    double idle = (double)r->instances[i].duration - (double)t;
    return on + fmin(off, fmax(idle, 0) / (double)k);
}

void tf_fold_observer_apply(tf_fold_region *r, int cpu, const size_t *first, tf_fold_points *pts)
{
    uint32_t nc = r->ncounters;
    for (size_t i = 0; i < r->ninstances; i++) {
        tf_fold_instance *in = &r->instances[i];
        uint64_t k = in->samples;
        if (in->status != TF_FOLD_USED || !k)
            continue;
        /* the duration first: its cost rests on the CPU time before the
         * CPU time's own cost is taken out */
        if (r->observer_ns > 0 && in->duration > 0)
            take_out(&in->duration, k, duration_cost(r, i, cpu, k), pts->x, first[i],
                     first[i + 1]);
        for (uint32_t c = 0; c < nc; c++) {
            uint64_t *delta = &r->counter_delta[i * nc + c];
            if (r->observer_events[c] != 0 && *delta != TF_NOVALUE && *delta != 0)
                take_out(delta, k, r->observer_events[c], pts->y + (size_t)c * pts->n, first[i],
                         first[i + 1]);
        }
    }
}
