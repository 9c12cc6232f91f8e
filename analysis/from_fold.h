/* SPDX-License-Identifier: BSD-3-Clause */
/* The analysis input from a fold result: the folded points of one group of
 * one region, symbolised and mapped to data objects with the trace's
 * tables, the group's counter curves and its change points. */
#ifndef TF_ANALYSIS_FROM_FOLD_H
#define TF_ANALYSIS_FROM_FOLD_H

#include "analysis.h"
#include "fold/fold_result.h"
#include "formats/trace.h"

/* Analyses group g of region reg (folded from tr) into *a (cleared first).
 * debug_dir (may be NULL) is where binaries and debug files are looked up
 * by build-id; params NULL: the defaults.  Every folded point is
 * symbolised and mapped (the routines and objects cover them all), and
 * the points chosen by params->max_samples become a->samples.  reg must
 * outlive a's locator (until tf_analysis_clear or tf_analysis_locator_free). */
int tf_analysis_from_fold(tf_analysis *a, const tf_trace *tr, const tf_fold_region *reg,
                          uint32_t g, const char *debug_dir, const tf_analysis_params *params,
                          tf_error *err);

/* fold.h5's per-point columns of an analysis (docs/fold-format.md,
 * analysis/points), n elements each. */
typedef struct tf_analysis_point_columns {
    int32_t  *routine;   /* row in routines, -1 when not symbolised */
    int32_t  *line;      /* source line, 0 when unknown */
    int32_t  *object;    /* row in objects, -1 without a data address */
    uint64_t *offset;    /* offset in the object, 0 without one */
} tf_analysis_point_columns;

/* Calls fn on each part of the points of a's group, in order
 * (tf_fold_group_each_part): nothing without a locator (an analysis built
 * otherwise). */
int tf_analysis_each_point_part(const tf_analysis *a, tf_fold_part_fn fn, void *arg, tf_error *err);
/* The columns of points [at, at + n) of one part of a's group (NULL: n
 * points without a place), worked out again from the code caches and
 * object maps of tf_analysis_from_fold (every lookup a hit: no symboliser
 * is called, nothing interned), so that they can be written a slab at a
 * time.  Without a locator every point gets the values of a point without
 * a place. */
void tf_analysis_point_columns_fill(const tf_analysis *a, const tf_fold_points *part, size_t at,
                                    size_t n, const tf_analysis_point_columns *c);

/* Frees the locator (its caches and maps); NULL is allowed. */
void tf_analysis_locator_free(struct tf_analysis_locator *l);

#endif
