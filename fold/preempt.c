/* SPDX-License-Identifier: BSD-3-Clause */
/* The CPU share of each instance and the preempted ones (preempt.h). */
#include "preempt.h"

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "robust.h"
#include "formats/trace.h"

bool tf_fold_is_cpu_time(const char *name)
{
    return tf_fold_cpu_time_rank(name) >= 0;
}

int tf_fold_cpu_time_counter(const tf_fold_region *r)
{
    int best = -1, best_rank = INT_MAX;
    for (uint32_t c = 0; c < r->ncounters; c++) {
        int rank = tf_fold_cpu_time_rank(r->counter_names[c]);
        if (rank >= 0 && rank < best_rank) {
            best = (int)c;
            best_rank = rank;
        }
    }
    return best;
}

/* Instance i's CPU share, NaN when it has none. */
static double cpu_share(const tf_fold_region *r, size_t i, int c)
{
    const tf_fold_instance *ins = &r->instances[i];
    uint64_t cpu = r->counter_delta[i * r->ncounters + (uint32_t)c];
    if (ins->status != TF_FOLD_USED || ins->duration == 0 || cpu == TF_NOVALUE)
        return NAN;
    return (double)cpu / (double)ins->duration;
}

/* Instance i folded in CPU time: its points' x from the CPU-time
 * counter's folded value (left where that has none). */
static void fold_in_cpu_time(tf_fold_region *r, size_t i, int c, const size_t *first,
                             tf_fold_points *pts)
{
    const float *y = pts->y + (size_t)c * pts->n;
    for (size_t k = first[i]; k < first[i + 1]; k++)
        if (!isnan(y[k]))
            pts->x[k] = y[k];
    r->instances[i].duration = r->counter_delta[i * r->ncounters + (uint32_t)c];
}

int tf_fold_preempted(tf_fold_region *r, enum tf_fold_preempted mode, bool per_process,
                      const size_t *first, tf_fold_points *pts, tf_error *err)
{
    int c = tf_fold_cpu_time_counter(r);
    if (c < 0)
        return 0;
    /* the shares grouped by key, the process when per_process, by a
     * counting sort: key k's are share[end[k - 1] .. end[k]) */
    uint32_t nkeys = 1;
    for (size_t i = 0; i < r->ninstances && per_process; i++)
        if (r->instances[i].proc >= nkeys)
            nkeys = r->instances[i].proc + 1;
    double *share = malloc((r->ninstances + 1) * sizeof *share);
    double *ref = malloc(nkeys * sizeof *ref);
    size_t *end = calloc(nkeys, sizeof *end);
    if (!share || !ref || !end) {
        free(share);
        free(ref);
        free(end);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory measuring CPU shares");
    }
    size_t n = 0;
    for (size_t i = 0; i < r->ninstances; i++)
        if (!isnan(cpu_share(r, i, c))) {
            end[per_process ? r->instances[i].proc : 0]++;
            n++;
        }
    for (uint32_t k = 1; k < nkeys; k++)
        end[k] += end[k - 1];
    for (size_t i = r->ninstances; i-- > 0;) {   /* filled from the ends down */
        double v = cpu_share(r, i, c);
        if (!isnan(v))
            share[--end[per_process ? r->instances[i].proc : 0]] = v;
    }
    /* end[k] is now where key k's shares begin */
    for (uint32_t k = 0; k < nkeys; k++) {
        size_t b = end[k], e = k + 1 < nkeys ? end[k + 1] : n;
        ref[k] = e - b < TF_PREEMPT_MIN_INSTANCES
                     ? NAN : tf_quantile_inplace(share + b, e - b, TF_PREEMPT_REFERENCE);
    }
    double all = n < TF_PREEMPT_MIN_INSTANCES ? NAN
                                              : tf_quantile_inplace(share, n, TF_PREEMPT_REFERENCE);
    free(share);
    free(end);
    for (size_t i = 0; i < r->ninstances && !isnan(all); i++) {
        double s = cpu_share(r, i, c);
        /* a process with too few instances of its own: the run's reference */
        double own = ref[per_process ? r->instances[i].proc : 0];
        double below = (1 - TF_PREEMPT_LOSS) * (isnan(own) ? all : own);
        if (isnan(s) || s >= below)
            continue;
        tf_fold_instance *ins = &r->instances[i];
        ins->reason = TF_FOLD_REASON_PREEMPTED;
        if (mode == TF_PREEMPTED_EXCLUDE)
            ins->status = TF_FOLD_EXCLUDED;
        else
            fold_in_cpu_time(r, i, c, first, pts);
    }
    free(ref);
    return 0;
}
