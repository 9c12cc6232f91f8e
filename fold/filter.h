/* SPDX-License-Identifier: BSD-3-Clause */
/* Which instances are folded: grouping by duration, and the outlier rules
 * on duration and on the shape of the counter curves. */
#ifndef TF_FOLD_FILTER_H
#define TF_FOLD_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include "fold_result.h"

/* Splits n durations into groups, numbered by increasing duration:
 * wanted = 1 keeps one group; wanted > 1 cuts at the wanted-1 widest gaps
 * of the sorted log-durations; wanted = 0 (automatic) splits where the
 * log-durations are clearly bimodal (the best two-class split has medians
 * more than SEPARATION robust standard deviations apart, each side at
 * least a tenth of the instances), at most 4 groups.  Every group keeps at
 * least 2 instances.  group[] gets the group of each duration. */
int tf_fold_group_durations(const double *duration, size_t n, uint32_t wanted, int32_t *group,
                            uint32_t *ngroups, tf_error *err);

/* Duration rule over n durations: out[i] = 1 for an outlier under the
 * filter (robust: log d farther than k scales from the median log
 * duration, the scale being the scaled MAD of d's side of the median, at
 * least 1 %; mad15: |d - median| > 1.5 unscaled MADs; none: nothing), and
 * score[i] = the robust rule's distance in scales.  extra (NULL: none)
 * widens duration i's scale to sqrt(scale² + extra[i] / d²): the variance
 * (ns²) of what was taken out of it (observer.h). */
int tf_fold_filter_durations(const double *duration, const double *extra, size_t n,
                             enum tf_fold_filter filter,
                             double k, uint8_t *out, double *score, tf_error *err);

/* Robust z-scores of n deviations ((v - median) / scale, one-sided: only
 * large deviations count), into z; the scale is that of the upper side, as
 * the duration rule's (the larger of its scaled MAD and its tail's
 * reach), but at least min_scale (noise-free data would otherwise make
 * rounding errors look like outliers).  extra (NULL: none) widens value
 * i's scale to sqrt(scale² + extra[i]): the variance it owes to what was
 * taken out of its instance (observer.h). */
int tf_fold_robust_z(const double *v, const double *extra, size_t n, double min_scale, double *z,
                     tf_error *err);

#endif
