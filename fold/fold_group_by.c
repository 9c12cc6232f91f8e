/* SPDX-License-Identifier: BSD-3-Clause */
/* Grouping instances by rank or host (docs/commands/fold.md, --group-by):
 * each process gets a number, and every instance takes its process's. */
#include "fold_group_by.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int tf_fold_group_by_parse(const char *name)
{
    static const char *const names[] = {"duration", "rank", "host"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(name, names[i]))
            return (int)i;
    return -1;
}

static int cmp_key(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* By rank: the position of the process's rank among the distinct ranks,
 * ascending (a process without a rank is keyed by its index). */
static uint32_t number_by_rank(const tf_trace *tr, uint32_t np, int64_t *sorted, int32_t *num)
{
    for (uint32_t p = 0; p < np; p++) {
        const tf_process *pr = tf_trace_process(tr, p);
        sorted[p] = pr->rank >= 0 ? pr->rank : (int64_t)p;
    }
    int64_t *key = sorted + np;
    memcpy(key, sorted, np * sizeof *key);
    qsort(sorted, np, sizeof *sorted, cmp_key);
    uint32_t n = 0;
    for (uint32_t p = 0; p < np; p++)
        if (n == 0 || sorted[n - 1] != sorted[p])
            sorted[n++] = sorted[p];
    for (uint32_t p = 0; p < np; p++) {
        const int64_t *hit = bsearch(&key[p], sorted, n, sizeof *sorted, cmp_key);
        num[p] = (int32_t)(hit - sorted);
    }
    return n;
}

/* By host: hosts numbered in the order of their first process. */
static uint32_t number_by_host(const tf_trace *tr, uint32_t np, int32_t *num)
{
    uint32_t n = 0;
    for (uint32_t p = 0; p < np; p++) {
        const char *host = tf_trace_process(tr, p)->host;
        uint32_t q = 0;
        while (q < p && strcmp(tf_trace_process(tr, q)->host, host))
            q++;
        num[p] = q < p ? num[q] : (int32_t)n++;
    }
    return n;
}

int tf_fold_group_by_process(const tf_trace *tr, const tf_fold_instance *ins,
                             const uint32_t *cand, size_t n, enum tf_fold_group_by by,
                             int32_t *group, uint32_t *ngroups, tf_error *err)
{
    uint32_t np = tf_trace_nprocesses(tr);
    int32_t *num = malloc((np + 1) * sizeof *num);
    int64_t *keys = malloc((2 * (size_t)np + 1) * sizeof *keys);
    if (!num || !keys) {
        free(num);
        free(keys);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory grouping %" PRIu32 " processes", np);
    }
    uint32_t all = by == TF_GROUP_BY_HOST ? number_by_host(tr, np, num)
                                          : number_by_rank(tr, np, keys, num);
    /* Only values that have instances become groups, numbered densely in
     * the same order. */
    int32_t *dense = (int32_t *)keys;
    memset(dense, 0, (all + 1) * sizeof *dense);
    for (size_t k = 0; k < n; k++)
        dense[num[ins[cand[k]].proc] + 1] = 1;
    for (uint32_t g = 1; g <= all; g++)
        dense[g] += dense[g - 1];
    for (size_t k = 0; k < n; k++)
        group[k] = dense[num[ins[cand[k]].proc]];
    *ngroups = (uint32_t)dense[all];
    free(num);
    free(keys);
    return 0;
}
