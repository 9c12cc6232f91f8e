/* SPDX-License-Identifier: BSD-3-Clause */
/* Abrupt rate changes of one counter: a penalised segmentation of the folded
 * cloud into straight pieces. */
#ifndef TF_FOLD_CHANGEPOINTS_H
#define TF_FOLD_CHANGEPOINTS_H

#include <stddef.h>

#include "cloud.h"
#include "common/tf_error.h"

typedef struct tf_changepoint {
    double x;                          /* normalised time */
    double slope_before, slope_after;  /* of the normalised curve */
} tf_changepoint;

/* Finds the changes of slope of the cloud whose relative size
 * |s2 - s1| / max(s1, s2) is at least min_change.  *out is malloc'ed
 * (NULL when none), sorted by x. */
int tf_changepoints_find(const tf_fold_cloud *cl, double min_change, tf_changepoint **out,
                         size_t *n, tf_error *err);

/* Relocates a change near x on a fitted curve (G grid values over [0, 1]):
 * where the straight lines fitted to the curve on each side, away from the
 * change and from its neighbours lo < x < hi, cross.  Returns x when the
 * lines do not cross within 3 % of it.  *slope_before/after get the slopes
 * of those lines. */
double tf_changepoint_refine(const double *curve, size_t grid, double x, double lo, double hi,
                             double *slope_before, double *slope_after);

/* Settles a change at x on a fitted curve (G grid values over [0, 1])
 * among the changes of all counters (candidates, n of them, any order):
 * the position, x itself or a candidate within 6 % of it, where a
 * continuous broken line fits the curve best, on each side up to the
 * middle of the way to the change's neighbours lo < x < hi (at most 10 %
 * long).  A weak change (a small change of a low rate) is located on the
 * raw cloud far less precisely than a strong one of another counter at
 * the same place; unsettled, it stays a boundary of its own a few % away
 * and the change is reported twice.  *slope_before/after get the broken
 * line's slopes (untouched when the curve is too short to fit). */
double tf_changepoint_settle(const double *curve, size_t grid, double x, double lo, double hi,
                             const double *candidates, size_t n, double *slope_before,
                             double *slope_after);

/* Merges change points of several counters (sorted x values, n of them)
 * closer than `distance` into their mean, in place; returns the new count. */
size_t tf_changepoints_merge(double *x, size_t n, double distance);

#endif
