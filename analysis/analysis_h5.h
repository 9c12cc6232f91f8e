/* SPDX-License-Identifier: BSD-3-Clause */
/* The analysis in fold.h5: a group `analysis` inside a region's group (see
 * docs/fold-format.md, "Phases, code lines and the address space"), its
 * tables bound once to tf_analysis's structs for both the output and the
 * reader of formats/fold_h5.h. */
#ifndef TF_ANALYSIS_ANALYSIS_H5_H
#define TF_ANALYSIS_ANALYSIS_H5_H

#include <stdbool.h>

#include "analysis.h"
#include "fold/fold_result.h"

/* Creates loc/analysis with the routines, objects, per-point columns (of
 * the folded points of g, in their order, from a's places), windows,
 * phases, streams, levels and advice of a. */
int tf_analysis_write_h5(const tf_analysis *a, const tf_fold_group *g, int64_t loc,
                         tf_error *err);

/* Reads the analysis of group g of region r of the fold.h5 at path into *a
 * (cleared first): every table as written, and places that read the
 * points' columns from the file, a slab at a time (the file stays open
 * until tf_analysis_clear).  What the file does not store stays empty
 * (the samples, the windows' and phases' sample counts).  *present is
 * false (and a empty) when the file has none (a fold without the analysis
 * step); a malformed analysis is an error naming the dataset. */
int tf_analysis_read_h5(const char *path, uint32_t r, uint32_t g, tf_analysis *a,
                        bool *present, tf_error *err);

#endif
