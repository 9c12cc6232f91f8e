/* SPDX-License-Identifier: BSD-3-Clause */
/* The fit of one counter of one group: mean normalised curve on the grid,
 * its rate, and bootstrap bands for both. */
#ifndef TF_FOLD_FIT_H
#define TF_FOLD_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "cloud.h"
#include "common/tf_error.h"

typedef struct tf_fit_options {
    uint32_t grid;        /* G >= 2 */
    uint32_t bootstrap;   /* replicates; 0: no bands (NaN) */
    double   confidence;
    uint64_t seed;
    double   window;      /* half-width around a boundary where instances bend */
} tf_fit_options;

typedef struct tf_fit_output {
    double  *curve, *curve_lo, *curve_hi;   /* [G] each, filled */
    double  *rate, *rate_lo, *rate_hi;      /* [G] each, events/s */
    uint32_t instances;                     /* instances the fit rests on */
    double   mean_total;                    /* events */
    double   mean_duration_ns;
} tf_fit_output;

/* Fits the cloud: with fewer than 2 usable instances every row is NaN.
 * boundaries: sorted change points where instances may bend. */
int tf_fit_counter(const tf_fold_cloud *cl, const double *boundaries, size_t nb,
                   const tf_fit_options *o, tf_fit_output *out, tf_error *err);

/* The same fit fed its points a run of instances at a time, so that they
 * need not be in one place: begun on the cloud's instance arrays (ninst,
 * rows, first, valid, total, duration; x and y unused), which must stay
 * put, with out's rows; then each pass adds instances [a, b) in order, x
 * and y holding their points (from instance a's first), until
 * tf_fit_next_pass says no pass more is needed (0; 1: another pass, with
 * the same runs), after at most TF_FIT_PASSES passes.  Adding to a fit
 * that needs no pass more does nothing.  The result is tf_fit_counter's,
 * bit for bit. */
#define TF_FIT_PASSES 3
typedef struct tf_fit_stream tf_fit_stream;
int  tf_fit_begin(const tf_fold_cloud *cl, const double *boundaries, size_t nb,
                  const tf_fit_options *o, tf_fit_output *out, tf_fit_stream **st,
                  tf_error *err);
int  tf_fit_add(tf_fit_stream *st, size_t a, size_t b, const float *x, const float *y,
                tf_error *err);
int  tf_fit_next_pass(tf_fit_stream *st, tf_error *err);
void tf_fit_end(tf_fit_stream *st);

#endif
