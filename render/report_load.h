/* SPDX-License-Identifier: BSD-3-Clause */
/* Filling the report model from a fold result (OUTDIR/fold.h5, read through
 * fold/fold_result.h, or the result `tracefold fold` has in memory): one
 * page per folded region and group.  Code lines, data objects and phases
 * come from the analysis of each group: the one fold.h5 stores, the one in
 * memory, or, for a fold.h5 without it, the analysis that analysis/ works
 * out from the folded trace (the trace named in fold.h5).  What is missing
 * leaves its panel with a note saying why, never a blank. */
#ifndef TF_RENDER_REPORT_LOAD_H
#define TF_RENDER_REPORT_LOAD_H

#include "analysis/analysis_run.h"
#include "calibrate/hierarchy.h"
#include "fold/fold_result.h"
#include "report_model.h"

int tf_report_load(const char *fold_path, tf_report *r, tf_error *err);
/* The same with the fold result already in memory: fr is what was saved to
 * fold_path, from which only the analysis and the machine profile are
 * read (a fold's points are hundreds of MB to read back). */
int tf_report_load_result(const tf_fold_result *fr, const char *fold_path, tf_report *r,
                          tf_error *err);
/* The same, the performance panel drawing only the counters named in
 * `counters` (comma-separated; NULL: the default choice, docs/commands/
 * render.md).  A name no folded region has is an error that lists the
 * counters there are. */
int tf_report_load_chosen(const tf_fold_result *fr, const char *fold_path, const char *counters,
                          tf_report *r, tf_error *err);
int tf_report_load_with(const char *fold_path, const char *counters, tf_report *r, tf_error *err);
/* Everything from memory, nothing read from fold_path (named only): fr,
 * the analyses of its groups (regions in order, then groups, as
 * tf_analysis_run_groups makes them, their locators kept) and the machine
 * profile the fold was made against (NULL: none). */
int tf_report_load_analysed(const tf_fold_result *fr, const tf_analysis_set *analyses,
                            const tf_cal_profile *machine, const char *fold_path, tf_report *r,
                            tf_error *err);

#endif
