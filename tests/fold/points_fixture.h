/* SPDX-License-Identifier: BSD-3-Clause */
/* Folded points for the tests: compared column by column, and a group's
 * points served as parts (fold_result.h, tf_fold_parts) cut
 * where a test says, each part a copy of its columns made in the
 * consumer's room when it is taken, in arrays of the part's size that
 * replace the room's: a consumer that reads beyond its part, keeps one
 * after taking the next, or leaves its room unfreed reads freed or
 * foreign memory or leaks it (the sanitizer build checks). */
#ifndef TF_TESTS_POINTS_FIXTURE_H
#define TF_TESTS_POINTS_FIXTURE_H

#include <stddef.h>

#include "fold/fold_result.h"

typedef struct split_parts {
    tf_fold_parts parts;
    const tf_fold_points *all;   /* y rows all->n apart */
    unsigned ncounters;
    const size_t *cuts;          /* [parts.n + 1]: 0, ..., all->n */
    size_t taken;
} split_parts;

/* Asserts (cmocka) that p and q hold the same n points of nc counters,
 * y rows n apart in both. */
void assert_points_equal(const tf_fold_points *p, const tf_fold_points *q, unsigned nc);

/* Every part of g's points, in order, into *out (allocated). */
int points_of_parts(const tf_fold_group *g, unsigned nc, tf_fold_points *out, tf_error *err);

/* s serves all as the parts [cuts[k], cuts[k + 1]) for k < nparts. */
void split_parts_init(split_parts *s, const tf_fold_points *all, unsigned ncounters,
                      const size_t *cuts, size_t nparts);

#endif
