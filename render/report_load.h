/* SPDX-License-Identifier: BSD-3-Clause */
/* Filling the report model from a fold file (OUTDIR/fold.h5, read through
 * fold/fold_result.h): one page per folded region and group.  Code lines
 * and data objects come from the folded trace's symbols and object tables
 * (the trace named in fold.h5); what is missing leaves its panel with a
 * note saying why, never a blank. */
#ifndef TF_RENDER_REPORT_LOAD_H
#define TF_RENDER_REPORT_LOAD_H

#include "report_model.h"

int tf_report_load(const char *fold_path, tf_report *r, tf_error *err);

#endif
