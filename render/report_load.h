/* SPDX-License-Identifier: BSD-3-Clause */
/* Filling the report model from a fold file (OUTDIR/fold.h5, read through
 * fold/fold_result.h): one page per folded region and group.  Code lines
 * and data objects come from the folded trace's symbols and object tables
 * (the trace named in fold.h5); what is missing leaves its panel with a
 * note saying why, never a blank. */
#ifndef TF_RENDER_REPORT_LOAD_H
#define TF_RENDER_REPORT_LOAD_H

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

#endif
