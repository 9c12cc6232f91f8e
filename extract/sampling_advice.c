/* SPDX-License-Identifier: BSD-3-Clause */
/* The sampling period against a region's instances (sampling_advice.h). */
#include "sampling_advice.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instances.h"

#define SAMPLE_CHUNK 65536
/* The recorder's shortest period (record/tf_options.c, "period"). */
#define PERIOD_MIN_NS 10000
/* Below this, the advice warns of the cost: at the 21 to 66 us a sample
 * measured on a virtual machine (docs/algorithms.md, "The recording's
 * cost per sample"), a 100 us period costs a fifth of the run or more. */
#define SLOW_PERIOD_NS 100000

bool tf_sampling_coarse(const tf_sampling_density *d)
{
    return d->instances >= 2 && 2 * d->unsampled > d->instances;
}

uint64_t tf_sampling_period_for(double duration_ns)
{
    double want = duration_ns / TF_SAMPLING_WANTED;
    if (!(want > PERIOD_MIN_NS))
        return PERIOD_MIN_NS;
    if (want > 1e18)
        want = 1e18;
    uint64_t w = (uint64_t)want, decade = 1;
    while (decade <= w / 10)
        decade *= 10;
    return w >= 5 * decade ? 5 * decade : w >= 2 * decade ? 2 * decade : decade;
}

void tf_sampling_period_text(uint64_t ns, char *buf, size_t size)
{
    if (ns % 1000000000 == 0)
        snprintf(buf, size, "%" PRIu64 "s", ns / 1000000000);
    else if (ns % 1000000 == 0)
        snprintf(buf, size, "%" PRIu64 "ms", ns / 1000000);
    else if (ns % 1000 == 0)
        snprintf(buf, size, "%" PRIu64 "us", ns / 1000);
    else
        snprintf(buf, size, "%" PRIu64 "ns", ns);
}

void tf_sampling_advice(const tf_sampling_density *d, char *buf, size_t size)
{
    char period[32], length[48];
    uint64_t p = tf_sampling_period_for(d->duration_ns);
    tf_sampling_period_text(p, period, sizeof period);
    const char *clock = d->cpu_time ? " of CPU" : "";
    if (d->duration_ns >= 1e6)
        snprintf(length, sizeof length, "%.1f ms%s", d->duration_ns / 1e6, clock);
    else
        snprintf(length, sizeof length, "%.0f us%s", d->duration_ns / 1e3, clock);
    snprintf(buf, size, "the sampling period is too coarse for these instances (%s each), and "
             "the fold has few points: record with --period %s (about %d samples an "
             "instance%s)", length, period, TF_SAMPLING_WANTED,
             p < SLOW_PERIOD_NS ? "; a period this short slows the program: each sample "
             "stops it for some microseconds, tens on a virtual machine" : "");
}

/* Marks the instances in[0..n) of one thread (by begin) that hold one of
 * its samples. */
static int mark_sampled(tf_trace *tr, const tf_instance *in, size_t n, tf_sample *buf,
                        bool *sampled, tf_error *err)
{
    tf_sample_cursor *c;
    int rc = tf_samples_open(tr, in[0].proc, in[0].thread, &c, err);
    if (rc < 0)
        return rc;
    size_t k = 0, got;
    while (k < n && (rc = tf_samples_read(c, buf, NULL, SAMPLE_CHUNK, &got, err)) == 0 && got) {
        for (size_t i = 0; i < got && k < n; i++) {
            while (k < n && in[k].end <= buf[i].time)
                k++;
            if (k < n && in[k].begin <= buf[i].time)
                sampled[k] = true;
        }
    }
    tf_samples_close(c);
    return rc;
}

/* The thread's CPU time in an instance, from the CPU-time counter read at
 * its begin and end; false when the process has no such counter or either
 * read is missing. */
static bool cpu_time(const tf_trace *tr, const tf_instance *in, uint64_t *ns)
{
    const tf_process *p = tf_trace_process(tr, in->proc);
    const tf_thread *th = &p->threads[in->thread];
    for (uint32_t c = 0; c < p->ncounters; c++) {
        if (strcmp(tf_trace_string(tr, p->counters[c].name), TF_SAMPLING_CPU_COUNTER))
            continue;
        uint64_t b = th->event_counters[in->begin_event * p->ncounters + c];
        uint64_t e = th->event_counters[in->end_event * p->ncounters + c];
        if (b == TF_NOVALUE || e == TF_NOVALUE || e < b)
            return false;
        *ns = e - b;
        return true;
    }
    return false;
}

static int by_duration(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return (a > b) - (a < b);
}

int tf_sampling_density_of(tf_trace *tr, uint32_t region, tf_sampling_density *d,
                           tf_error *err)
{
    *d = (tf_sampling_density){0};
    tf_instance *all;
    size_t nall;
    int rc = tf_instances_find(tr, region, &all, &nall, err);
    if (rc < 0)
        return rc;
    /* the complete ones, still in (process, thread, begin) order */
    size_t n = 0;
    for (size_t i = 0; i < nall; i++)
        if (all[i].status == TF_INSTANCE_COMPLETE)
            all[n++] = all[i];
    bool *sampled = calloc(n + 1, sizeof *sampled);
    uint64_t *durations = malloc((n + 1) * sizeof *durations);
    tf_sample *buf = malloc(SAMPLE_CHUNK * sizeof *buf);
    if (!sampled || !durations || !buf)
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory counting the samples of %zu instances", n);
    for (size_t first = 0, last; rc == 0 && first < n; first = last) {
        for (last = first + 1; last < n && all[last].proc == all[first].proc &&
                               all[last].thread == all[first].thread;)
            last++;
        rc = mark_sampled(tr, all + first, last - first, buf, sampled + first, err);
    }
    if (rc == 0 && n) {
        d->cpu_time = true;
        for (size_t i = 0; i < n && d->cpu_time; i++)
            d->cpu_time = cpu_time(tr, &all[i], &durations[i]);
        for (size_t i = 0; i < n; i++) {
            if (!d->cpu_time)
                durations[i] = all[i].end - all[i].begin;
            d->unsampled += !sampled[i];
        }
        qsort(durations, n, sizeof *durations, by_duration);
        d->instances = n;
        d->duration_ns = (double)durations[n / 2];
    }
    free(buf);
    free(durations);
    free(sampled);
    free(all);
    return rc;
}
