/* SPDX-License-Identifier: BSD-3-Clause */
/* The tables of an analysis in memory (analysis/analysis.h) as the report
 * takes them from fold.h5 (report_analysis.h): the same rows and values as
 * analysis/analysis_h5.c stores, so that a report drawn from the analysis
 * in memory is the report drawn from fold.h5. */
#ifndef TF_RENDER_REPORT_FROM_ANALYSIS_H
#define TF_RENDER_REPORT_FROM_ANALYSIS_H

#include "analysis/analysis.h"
#include "report_analysis.h"

/* Fills t from a, for a group of npoints folded points.  The strings of t
 * point into a (and to static names), so a must outlive t; its arrays are
 * freed by tf_report_analysis_free.  t's point columns are not in t: they
 * come from a (tf_analysis_point_columns_fill). */
int tf_report_analysis_from(const tf_analysis *a, size_t npoints, tf_report_analysis *t,
                            tf_error *err);

#endif
