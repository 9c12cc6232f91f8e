/* SPDX-License-Identifier: BSD-3-Clause */
/* Counters that move in one step per instance (tf_fold_counter_stepwise),
 * and their totals per iteration: one computation for every output that
 * gives them (the report's totals, totals.csv, the rate columns of the
 * CSV files left empty for them, the phases' rates). */
#ifndef TF_FOLD_STEPS_H
#define TF_FOLD_STEPS_H

#include <stdbool.h>
#include <stddef.h>

#include "fold_result.h"

/* step[c] (r->ncounters of them): whether counter c of group g moves in
 * one step per instance, from the group's folded points (all its parts). */
int tf_fold_group_steps(const tf_fold_region *r, const tf_fold_group *g, bool *step,
                        tf_error *err);

/* Counter c's mean total per instance over group g's used instances that
 * measured it (counter_delta: exact, with or without samples), NAN when
 * none did; *n (may be NULL) gets how many did. */
double tf_fold_group_total(const tf_fold_region *r, const tf_fold_group *g, uint32_t c,
                           size_t *n);

#endif
