/* SPDX-License-Identifier: BSD-3-Clause */
/* The order of the analysis's steps (tf_analysis_compute): the samples
 * sorted by x, then the progression, phases, rates, waiting shares,
 * objects, streams, levels and advice (analysis_steps.h).  In a file of its own
 * so that analysis.c, which owns the analysis's data, and the steps, which
 * use it, do not call each other. */
#include "analysis.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "advice.h"
#include "analysis_steps.h"
#include "formats/trace.h"

static int by_x(const void *pa, const void *pb)
{
    const tf_analysis_sample *p = pa, *q = pb;
    return (p->x > q->x) - (p->x < q->x);
}

/* Sorts v[0..n), whose x lie in the coarse bucket that starts at key k0 of
 * `keys` keys over [0, 1], through tmp: a counting sort on those fine keys
 * (about one sample each), then insertion within a key, or qsort when
 * crowded (many equal x).  The counts are end[0..span]; span covers the
 * bucket's keys. */
static void sort_bucket(tf_analysis_sample *v, size_t n, double keys, size_t k0, size_t *end,
                        size_t span, tf_analysis_sample *tmp)
{
    memset(end, 0, (span + 1) * sizeof *end);
    for (size_t i = 0; i < n; i++)
        end[(size_t)(v[i].x * keys) - k0 + 1]++;
    for (size_t k = 1; k <= span; k++)
        end[k] += end[k - 1];
    for (size_t i = 0; i < n; i++)
        tmp[end[(size_t)(v[i].x * keys) - k0]++] = v[i];
    memcpy(v, tmp, n * sizeof *v);
    /* end[k] is now the end of key k */
    for (size_t k = 0, first = 0; k < span; first = end[k], k++) {
        size_t m = end[k] - first;
        if (m > 32) {
            qsort(v + first, m, sizeof *v, by_x);
            continue;
        }
        for (size_t i = first + 1; i < end[k]; i++) {
            tf_analysis_sample s = v[i];
            size_t j = i;
            for (; j > first && v[j - 1].x > s.x; j--)
                v[j] = v[j - 1];
            v[j] = s;
        }
    }
}

/* Sorts the samples by x with bucket sorts: x lies in [0, 1], so
 * TF_ANALYSIS_COARSE buckets and then n keys of width 1/n (about one sample
 * each) sort in O(n) (a comparison sort of millions of samples dominated
 * the analysis, and a single pass over n keys its cache misses).  Equal x
 * share their buckets and keys.  Samples already grouped by bucket stay
 * where they are: the stable pass into buckets would leave them so. */
static int sort_by_x(tf_analysis *a, tf_error *err)
{
    size_t n = a->nsamples;
    double keys = (double)(n - 1), coarse = TF_ANALYSIS_COARSE - 1;
    size_t start[TF_ANALYSIS_COARSE + 1] = {0}, largest = 0, span = 0, prev = 0;
    bool grouped = true;
    for (size_t i = 0; i < n; i++) {
        size_t b = tf_analysis_coarse_bucket(a->samples[i].x);
        start[b + 1]++;
        grouped = grouped && b >= prev;
        prev = b;
    }
    for (size_t b = 1; b <= TF_ANALYSIS_COARSE; b++) {
        largest = start[b] > largest ? start[b] : largest;
        start[b] += start[b - 1];
    }
    /* The keys of a coarse bucket: x * keys over an x range of 1/coarse. */
    span = (size_t)(keys / coarse) + 3;
    tf_analysis_sample *out = grouped ? a->samples : malloc((n + 1) * sizeof *out);
    tf_analysis_sample *tmp = malloc((largest + 1) * sizeof *tmp);
    size_t *end = malloc((span + 1) * sizeof *end);
    if (!out || !tmp || !end) {
        if (!grouped)
            free(out);
        free(tmp);
        free(end);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory sorting %zu samples", n);
    }
    if (grouped)
        memmove(start, start + 1, TF_ANALYSIS_COARSE * sizeof *start);
    else
        for (size_t i = 0; i < n; i++)
            out[start[tf_analysis_coarse_bucket(a->samples[i].x)]++] = a->samples[i];
    /* start[b] is now the end of coarse bucket b */
    for (size_t b = 0, first = 0; b < TF_ANALYSIS_COARSE; first = start[b], b++) {
        size_t k0 = SIZE_MAX;
        for (size_t i = first; i < start[b]; i++) {
            size_t k = (size_t)(out[i].x * keys);
            k0 = k < k0 ? k : k0;
        }
        if (start[b] - first > 1)
            sort_bucket(out + first, start[b] - first, keys, k0, end, span, tmp);
    }
    free(tmp);
    free(end);
    if (!grouped) {
        free(a->samples);
        a->samples = out;
    }
    return 0;
}

int tf_analysis_compute(tf_analysis *a, const tf_analysis_counter *counters, size_t ncounters,
                        const double *change_points, size_t nchange_points,
                        const tf_analysis_params *params, tf_error *err)
{
    tf_analysis_params defaults;
    if (!params) {
        tf_analysis_params_default(&defaults);
        params = &defaults;
    }
    for (size_t i = 0; i < a->nsamples; i++)
        if (!(a->samples[i].x >= 0 && a->samples[i].x <= 1))
            return tf_fail(err, TF_ERR_USAGE, "folded sample %zu has x = %g, outside [0, 1]", i,
                           a->samples[i].x);
    int rc;
    if (a->nsamples > 1 && (rc = sort_by_x(a, err)))
        return rc;
    bool timer_only = false;
    for (size_t i = 0; i < a->nsamples && !timer_only; i++)
        timer_only = a->samples[i].kind == TF_SAMPLE_TIMER && a->samples[i].routine != TF_ANALYSIS_NONE;
    for (size_t i = 0; i < a->nsamples; i++) {
        uint32_t r = a->samples[i].routine;
        a->samples[i].waiting = r != TF_ANALYSIS_NONE && r < a->nroutines && a->routines[r].waiting;
    }
    if ((rc = tf_analysis_progression(a, params, timer_only, err)) ||
        (rc = tf_analysis_phases(a, counters, ncounters, change_points, nchange_points, params,
                              timer_only, err)) ||
        (rc = tf_analysis_phase_rates(a, counters, ncounters, err)))
        return rc;
    tf_analysis_waiting_shares(a, timer_only);
    for (size_t c = 0; c < a->ncounters; c++)
        free(a->counter_names[c]);
    free(a->counter_names);
    a->ncounters = 0;
    a->counter_names = ncounters ? calloc(ncounters, sizeof *a->counter_names) : NULL;
    if (ncounters && !a->counter_names)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for counter names");
    for (size_t c = 0; c < ncounters; c++, a->ncounters++)
        if (!(a->counter_names[c] = strdup(counters[c].name)))
            return tf_fail(err, TF_ERR_NOMEM, "out of memory for counter names");
    tf_analysis_objects_count(a);
    if ((rc = tf_analysis_streams(a, params, err)) || (rc = tf_analysis_levels(a, err)))
        return rc;
    free(a->advice);
    a->advice = NULL;
    return tf_analysis_advice_find(a, params, &a->advice, &a->nadvice, &a->advice_untried, err);
}
