/* SPDX-License-Identifier: BSD-3-Clause */
/* Robust location and scale: the median and the median absolute deviation
 * (MAD), on which instance filtering and grouping rest. */
#ifndef TF_FOLD_ROBUST_H
#define TF_FOLD_ROBUST_H

#include <stddef.h>

/* Factor that makes the MAD a consistent estimator of the standard deviation
 * of normal data: 1/Φ⁻¹(3/4) (Rousseeuw and Croux, 1993). */
#define TF_MAD_SCALE 1.4826

/* Median of v[0..n) (n > 0); reorders v. */
double tf_median_inplace(double *v, size_t n);
/* Median and unscaled MAD of v[0..n); work holds n doubles; v is kept. */
void tf_median_mad(const double *v, size_t n, double *work, double *median, double *mad);
/* The q-quantile (0..1) of v[0..n) by linear interpolation; reorders v. */
double tf_quantile_inplace(double *v, size_t n, double q);

#endif
