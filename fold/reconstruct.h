/* SPDX-License-Identifier: BSD-3-Clause */
/* One instance's cumulative curve rebuilt from its own samples. */
#ifndef TF_FOLD_RECONSTRUCT_H
#define TF_FOLD_RECONSTRUCT_H

#include <stddef.h>

/* Vertices of a non-decreasing polyline from (0,0) to (1,1); trusted[k]
 * tells whether the piece from vertex k to k+1 is exact for a piecewise
 * constant rate (no change inside, or one change rebuilt from both sides). */
typedef struct tf_polyline {
    size_t n, cap;
    double *x, *y;
    unsigned char *trusted;
} tf_polyline;

void tf_polyline_free(tf_polyline *pl);

/* Rebuilds the instance's normalised curve from its points (x[k], y[k]),
 * k < n, in time order (NaN y skipped): straight between samples, except
 * across a boundary (sorted, nb of them, each widened by ±window), where the
 * curve follows the lines of the neighbouring intervals to their crossing.
 * segment_slope (NULL, or nb + 1 mean slopes, one per segment between
 * boundaries, NaN where unknown) stands in for a neighbouring interval
 * that is not clean.
 * scratch is working space kept between calls.  Returns -1 when out of
 * memory. */
int tf_reconstruct_instance(const float *x, const float *y, size_t n, const double *boundaries,
                            size_t nb, double window, const double *segment_slope,
                            tf_polyline *scratch, tf_polyline *pl);

/* The G grid points j/(G-1), into grid_x[G]. */
void tf_grid_points(size_t grid, double *grid_x);

/* Value, slope and trust of the polyline at the G grid points grid_x
 * (tf_grid_points; the slope and trust of the piece on the right of a
 * vertex). */
void tf_polyline_on_grid(const tf_polyline *pl, size_t grid, const double *grid_x,
                         double *value, double *slope, unsigned char *trusted);

#endif
