/* SPDX-License-Identifier: BSD-3-Clause */
/* The analysis step of `tracefold fold`: one call after the fold result is
 * saved, before the output directory is made final. */
#ifndef TF_AN_ANALYSIS_RUN_H
#define TF_AN_ANALYSIS_RUN_H

#include "fold_result.h"
#include "trace.h"

/* Analyses every group of every region of res (folded from tr): writes
 * phases.csv, objects.csv, streams.csv, levels.csv and summary.md into
 * outdir, and adds /region/<r>/group/<g>/analysis to outdir/fold.h5, which
 * must already exist (tf_fold_result_save).  debug_dir (may be NULL): where
 * binaries and debug files are found by build-id. */
int tf_analysis_run(const tf_trace *tr, const tf_fold_result *res, const char *outdir,
                    const char *debug_dir, tf_error *err);

#endif
