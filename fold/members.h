/* SPDX-License-Identifier: BSD-3-Clause */
/* The instances of a group and their points as one process holds them:
 * alone, every point; in a team, the points of its own share of the
 * instances, the others' ranges empty.  The fold takes a group's members
 * out of every instance's points, drops some of them, and measures how far
 * each strays from a curve, the same way on every rank (fold_engine.c, and
 * a team's members, fold_team_points.c). */
#ifndef TF_FOLD_MEMBERS_H
#define TF_FOLD_MEMBERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extract/fold_input.h"
#include "common/tf_error.h"

typedef struct tf_fold_members {
    size_t n;
    uint32_t *rows;           /* [n] rows in the region's instances, sorted */
    size_t *first;            /* [n+1] member i's points [first[i], first[i+1]) */
    tf_fold_points points;
} tf_fold_members;

void tf_fold_members_free(tf_fold_members *m);

/* Copies members pick[0..n) of src (indexes into src, ascending) into dst,
 * their points after one another. */
int  tf_fold_members_copy(const tf_fold_members *src, const size_t *pick, size_t n,
                          uint32_t nc, tf_fold_members *dst, tf_error *err);

/* Keeps the members with keep[i] set, moving their points down in place. */
void tf_fold_members_compact(tf_fold_members *m, const uint8_t *keep, uint32_t nc);

/* The members rows[0..n) (sorted) of `all`, whose members are every
 * instance (all->rows[i] == i): with `take` (the only group) all's points
 * become m's in place and all is emptied; otherwise they are copied. */
int  tf_fold_members_gather(tf_fold_members *all, const uint32_t *rows, size_t n, bool take,
                            uint32_t nc, tf_fold_members *m, tf_error *err);

/* Moves len points from src (rows `src_stride` apart in y) at `from` to
 * dst (rows `dst_stride` apart) at `at`; the ranges may overlap. */
void tf_fold_points_move(tf_fold_points *dst, size_t dst_stride, size_t at,
                         const tf_fold_points *src, size_t src_stride, size_t from, size_t len,
                         uint32_t nc);

/* The largest distance of each of members [lo, hi) from `curve` (grid
 * values on [0, 1]) in counter c's values, into dev[i - lo]; -1 for a
 * member without a value of it.  The curve shape rule's measure
 * (docs/algorithms.md, "Outliers"). */
void tf_fold_members_deviation(const tf_fold_members *m, size_t lo, size_t hi, uint32_t c,
                               const double *curve, size_t grid, double *dev);

/* Of n instances (rows[i], or i when rows is NULL, ascending), the run
 * [*lo, *hi) that share[] files in share w: shares follow the instances'
 * order, so each share's instances are one run. */
void tf_fold_share_span(const uint32_t *share, const uint32_t *rows, size_t n, uint32_t w,
                        size_t *lo, size_t *hi);

#endif
