/* SPDX-License-Identifier: BSD-3-Clause */
/* The analysis input from a fold result: the folded points of one group of
 * one region, symbolised and mapped to data objects with the trace's
 * tables, the group's counter curves and its change points. */
#ifndef TF_ANALYSIS_FROM_FOLD_H
#define TF_ANALYSIS_FROM_FOLD_H

#include "analysis.h"
#include "extract/trace_names.h"
#include "fold/fold_result.h"
#include "formats/trace.h"

/* Analyses group g of region reg (folded from tr) into *a (cleared first).
 * names: the run's symbolisers and object names of tr (trace_names.h),
 * which hold the debug directory and the allocation rules; NULL: made for
 * this analysis alone, without a debug directory, with params' rules.
 * params NULL: the defaults.  Every folded point is
 * symbolised and mapped (the routines and objects cover them all), and
 * the points chosen by params->max_samples become a->samples; a->places
 * keeps where every point lies.  reg must outlive a's places (until
 * tf_analysis_clear). */
int tf_analysis_from_fold(tf_analysis *a, const tf_trace *tr, const tf_fold_region *reg,
                          uint32_t g, tf_trace_names *names, const tf_analysis_params *params,
                          tf_error *err);

#endif
