/* SPDX-License-Identifier: BSD-3-Clause */
/* The fits of a group's counters spread over threads of this process.
 * Each counter is fitted whole by one thread, with the same call as on one
 * thread, so the results do not depend on the number of threads, bit for
 * bit (docs/algorithms.md, "Threads"). */
#ifndef TF_FOLD_FIT_THREADS_H
#define TF_FOLD_FIT_THREADS_H

#include <stddef.h>
#include <stdint.h>

#include "cloud.h"
#include "fit.h"
#include "common/tf_error.h"

/* Counter c's cloud of the fit in progress, into *cl.  slot (0 to the
 * number of threads - 1) names the caller's buffers: what the view builds
 * for one slot stays valid until that slot's next call, whatever the other
 * slots do. */
typedef void (*tf_fold_view)(void *arg, unsigned slot, uint32_t c, tf_fold_cloud *cl);

/* Fits counters first, first + step, ... below nc into out[c] (its rows
 * allocated by the caller) on up to `threads` threads (tf_parallel_for).
 * Returns 0, or the error of the lowest counter whose fit failed (the
 * others are still fitted). */
int tf_fit_counters(uint32_t first, uint32_t step, uint32_t nc, unsigned threads,
                    tf_fold_view view, void *view_arg, const double *boundaries, size_t nb,
                    const tf_fit_options *o, tf_fit_output *out, tf_error *err);

#endif
