/* SPDX-License-Identifier: BSD-3-Clause */
/* Step counters and totals per iteration (fold_steps.h). */
#include "config.h"

#include "fold_steps.h"

#include <math.h>
#include <stdlib.h>

struct steps {
    uint32_t ncounters;
    size_t  *valued, *inside;   /* [ncounters] */
};

static int count_steps(void *arg, const tf_fold_points *pt, size_t first, tf_error *err)
{
    (void)first;
    (void)err;
    struct steps *s = arg;
    if (!pt->y)
        return 0;   /* points without counter values (an analysis's own) */
    for (uint32_t c = 0; c < s->ncounters; c++) {
        const float *y = pt->y + (size_t)c * pt->n;
        for (size_t i = 0; i < pt->n; i++)
            if (isfinite(y[i])) {
                s->valued[c]++;
                s->inside[c] += tf_fold_value_inside(y[i]);
            }
    }
    return 0;
}

int tf_fold_group_steps(const tf_fold_region *r, const tf_fold_group *g, bool *step,
                        tf_error *err)
{
    uint32_t nc = r->ncounters;
    struct steps s = { nc, calloc(nc + 1, sizeof *s.valued), calloc(nc + 1, sizeof *s.inside) };
    int rc = s.valued && s.inside
                 ? tf_fold_group_each_part(g, TF_FOLD_COL_Y, count_steps, &s, err)
                 : tf_fail(err, TF_ERR_NOMEM, "out of memory for the step counters of region %s",
                           r->name);
    for (uint32_t c = 0; c < nc; c++)
        step[c] = rc == 0 && tf_fold_counter_stepwise(s.valued[c], s.inside[c]);
    free(s.valued);
    free(s.inside);
    return rc;
}

double tf_fold_group_total(const tf_fold_region *r, const tf_fold_group *g, uint32_t c,
                           size_t *n)
{
    double sum = 0;
    size_t count = 0;
    for (size_t i = 0; i < r->ninstances; i++) {
        const tf_fold_instance *in = &r->instances[i];
        uint64_t d = r->counter_delta[i * r->ncounters + c];
        if (in->status == TF_FOLD_USED && in->group == (int32_t)g->index && d != TF_NOVALUE) {
            sum += (double)d;
            count++;
        }
    }
    if (n)
        *n = count;
    return count ? sum / (double)count : NAN;
}
