/* SPDX-License-Identifier: BSD-3-Clause */
/* Counter fits on threads (tf_parallel_for): each thread has its own view
 * slot and writes only its counters' outputs and error; the error reported
 * is the lowest counter's, as on one thread. */
#include "config.h"

#include "fit_threads.h"

#include <stdlib.h>

#include "common/tf_parallel.h"

struct job {
    uint32_t first, step;
    tf_fold_view view;
    void *view_arg;
    const double *boundaries;
    size_t nb;
    const tf_fit_options *o;
    tf_fit_output *out;
    int *rc;                  /* [nc] each counter's status */
    tf_error *errs;           /* [nc] each counter's error */
};

static void fit_one(void *arg, unsigned k, unsigned slot)
{
    struct job *j = arg;
    uint32_t c = j->first + k * j->step;
    tf_fold_cloud cl;
    j->view(j->view_arg, slot, c, &cl);
    tf_error_clear(&j->errs[c]);
    j->rc[c] = tf_fit_counter(&cl, j->boundaries, j->nb, j->o, &j->out[c], &j->errs[c]);
}

int tf_fit_counters(uint32_t first, uint32_t step, uint32_t nc, unsigned threads,
                    tf_fold_view view, void *view_arg, const double *boundaries, size_t nb,
                    const tf_fit_options *o, tf_fit_output *out, tf_error *err)
{
    uint32_t mine = first < nc ? (nc - first + step - 1) / step : 0;
    int *rc = calloc(nc + 1, sizeof *rc);
    tf_error *errs = calloc(nc + 1, sizeof *errs);
    if (!rc || !errs) {
        free(rc);
        free(errs);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the fits");
    }
    struct job j = {
        .first = first, .step = step, .view = view, .view_arg = view_arg,
        .boundaries = boundaries, .nb = nb, .o = o, .out = out, .rc = rc, .errs = errs,
    };
    tf_parallel_for(mine, threads, fit_one, &j);
    int status = 0;
    for (uint32_t c = first; c < nc && status == 0; c += step)
        if (rc[c] < 0) {
            status = rc[c];
            *err = errs[c];
        }
    free(rc);
    free(errs);
    return status;
}
