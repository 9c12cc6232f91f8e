/* SPDX-License-Identifier: BSD-3-Clause */
/* Folding one region of a trace: extraction, grouping, filtering, fitting. */
#ifndef TF_FOLD_ENGINE_H
#define TF_FOLD_ENGINE_H

#include <stdint.h>

#include "fold_result.h"
#include "fold_team.h"
#include "formats/trace.h"

/* Progress of the long steps ("reading samples", "fitting"). */
typedef void (*tf_fold_progress)(void *arg, const char *what, uint64_t done, uint64_t total);

/* The threads a fold with p uses (p->threads, or by default one per CPU
 * alone and 1 in a team, whose ranks are what shares the CPUs). */
unsigned tf_fold_threads(const tf_fold_params *p, const tf_fold_team *team);

/* Folds region (a string id) of tr with parameters p into *out (one region).
 * Fails with TF_ERR_NOTFOUND when the region has no instance and TF_ERR_DATA
 * when fewer than 2 instances are usable.  team: the members that share the
 * fits, this process leading them (the result is the same, bit for bit);
 * NULL folds alone. */
int tf_fold_trace(tf_trace *tr, uint32_t region, const tf_fold_params *p,
                  const tf_fold_team *team, tf_fold_progress progress, void *progress_arg,
                  tf_fold_result **out, tf_error *err);

#endif
