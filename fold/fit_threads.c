/* SPDX-License-Identifier: BSD-3-Clause */
/* Counter fits on threads: the threads take the next counter from a shared
 * atomic index until none is left, so a counter whose fit is long (sparse
 * sampling takes the pooled fit) does not hold up the others.  Each thread
 * has its own view slot and writes only its counters' outputs and error;
 * the error reported is the lowest counter's, as on one thread. */
#include "config.h"

#include "fit_threads.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

struct job {
    uint32_t first, step, nc;
    tf_fold_view view;
    void *view_arg;
    const double *boundaries;
    size_t nb;
    const tf_fit_options *o;
    tf_fit_output *out;
    atomic_uint next;         /* index of the next counter to take, in steps */
    int *rc;                  /* [nc] each counter's status */
    tf_error *errs;           /* [nc] each counter's error */
};

struct worker {
    struct job *job;
    unsigned slot;
};

static void *work(void *arg)
{
    const struct worker *w = arg;
    struct job *j = w->job;
    for (;;) {
        uint32_t k = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed);
        uint64_t c = j->first + (uint64_t)k * j->step;
        if (c >= j->nc)
            return NULL;
        tf_fold_cloud cl;
        j->view(j->view_arg, w->slot, (uint32_t)c, &cl);
        tf_error_clear(&j->errs[c]);
        j->rc[c] = tf_fit_counter(&cl, j->boundaries, j->nb, j->o, &j->out[c], &j->errs[c]);
    }
}

int tf_fit_counters(uint32_t first, uint32_t step, uint32_t nc, unsigned threads,
                    tf_fold_view view, void *view_arg, const double *boundaries, size_t nb,
                    const tf_fit_options *o, tf_fit_output *out, tf_error *err)
{
    uint32_t mine = first < nc ? (nc - first + step - 1) / step : 0;
    if (threads > mine)
        threads = mine;
    if (threads <= 1) {
        int rc = 0;
        for (uint32_t c = first; c < nc && rc == 0; c += step) {
            tf_fold_cloud cl;
            view(view_arg, 0, c, &cl);
            rc = tf_fit_counter(&cl, boundaries, nb, o, &out[c], err);
        }
        return rc;
    }
    int *rc = calloc(nc, sizeof *rc);
    tf_error *errs = calloc(nc, sizeof *errs);
    pthread_t *tid = calloc(threads, sizeof *tid);
    struct worker *w = calloc(threads, sizeof *w);
    if (!rc || !errs || !tid || !w) {
        free(rc);
        free(errs);
        free(tid);
        free(w);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the fits' threads");
    }
    struct job j = {
        .first = first, .step = step, .nc = nc, .view = view, .view_arg = view_arg,
        .boundaries = boundaries, .nb = nb, .o = o, .out = out, .rc = rc, .errs = errs,
    };
    atomic_init(&j.next, 0);
    unsigned started = 1;
    for (unsigned t = 1; t < threads; t++) {
        w[started] = (struct worker){ .job = &j, .slot = started };
        if (pthread_create(&tid[started], NULL, work, &w[started]) == 0)
            started++;
    }
    w[0] = (struct worker){ .job = &j, .slot = 0 };
    work(&w[0]);
    for (unsigned t = 1; t < started; t++)
        pthread_join(tid[t], NULL);
    int status = 0;
    for (uint32_t c = first; c < nc && status == 0; c += step)
        if (rc[c] < 0) {
            status = rc[c];
            *err = errs[c];
        }
    free(rc);
    free(errs);
    free(tid);
    free(w);
    return status;
}

unsigned tf_fit_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    int n = CPU_COUNT(&set);
    return n > 0 ? (unsigned)n : 1;
}
