/* SPDX-License-Identifier: BSD-3-Clause */
/* The analysis in fold.h5: a group `analysis` inside a region's group (see
 * docs/fold-format.md, "Phases, code lines and the address space"). */
#ifndef TF_ANALYSIS_ANALYSIS_H5_H
#define TF_ANALYSIS_ANALYSIS_H5_H

#include "analysis.h"

/* Creates loc/analysis with the routines, objects, per-point columns
 * (npoints: the caller's input size, in its order), windows, phases,
 * streams, levels and advice of a. */
int tf_analysis_write_h5(const tf_analysis *a, int64_t loc, size_t npoints, tf_error *err);

#endif
