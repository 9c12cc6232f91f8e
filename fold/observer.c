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

#include "robust.h"

#define SIGNIFICANCE 3.0
/* The standard error of a median of n normal values is this times σ/√n. */
#define MEDIAN_SE 1.2533

double tf_fold_observer_cost(const double *value, const uint64_t *samples, size_t n,
                             double *work, double *spread)
{
    *spread = 0;
    double *scratch = work + n;
    size_t n0 = 0;
    for (size_t i = 0; i < n; i++)
        if (!samples[i])
            work[n0++] = value[i];
    size_t n1 = n - n0;
    if (n0 < TF_OBSERVER_MIN_INSTANCES || n1 < TF_OBSERVER_MIN_INSTANCES)
        return 0;
    double m0, mad0, cost, mad1;
    tf_median_mad(work, n0, scratch, &m0, &mad0);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (samples[i])
            work[k++] = (value[i] - m0) / (double)samples[i];
    tf_median_mad(work, n1, scratch, &cost, &mad1);
    double s0 = TF_MAD_SCALE * mad0, s1 = TF_MAD_SCALE * mad1;
    double se = MEDIAN_SE * sqrt(s1 * s1 / (double)n1 + s0 * s0 / (double)n0);
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

/* The cost of one measure (counter c, or the duration when c is the
 * number of counters) over the used instances; instances without the
 * measure are left out. */
static double cost_of(const tf_fold_region *r, uint32_t c, double *value, uint64_t *samples,
                      double *work, double *spread)
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
    return tf_fold_observer_cost(value, samples, n, work, spread);
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
        double cost = cost_of(r, c, value, samples, work, &spread);
        if (c < nc) {
            r->observer_events[c] = cost;
        } else {
            r->observer_ns = cost;
            r->observer_spread_ns = spread;
        }
    }
    free(value);
    free(work);
    free(samples);
    return rc;
}

void tf_fold_observer_apply(tf_fold_region *r, const size_t *first, tf_fold_points *pts)
{
    uint32_t nc = r->ncounters;
    /* c = nc: the duration, with the points' x */
    for (uint32_t c = 0; c <= nc; c++) {
        double cost = c < nc ? r->observer_events[c] : r->observer_ns;
        if (cost == 0)
            continue;
        for (size_t i = 0; i < r->ninstances; i++) {
            tf_fold_instance *in = &r->instances[i];
            uint64_t k = in->samples;
            uint64_t *delta = c < nc ? &r->counter_delta[i * nc + c] : &in->duration;
            if (in->status != TF_FOLD_USED || !k || *delta == TF_NOVALUE || *delta == 0)
                continue;
            double total = (double)*delta, net = net_of(total, k, cost);
            if (isnan(net))
                continue;
            float *f = c < nc ? pts->y + (size_t)c * pts->n : pts->x;
            for (size_t p = first[i]; p < first[i + 1]; p++)
                if (!isnan(f[p]))
                    f[p] = moved(f[p], p - first[i], total, net, cost);
            *delta = (uint64_t)llround(net);
        }
    }
}
