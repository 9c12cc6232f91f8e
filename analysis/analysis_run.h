/* SPDX-License-Identifier: BSD-3-Clause */
/* The analysis step of `tracefold fold`, in two calls: the analyses of
 * every folded group, worked out in memory (no file touched, so that it can
 * run beside the writing of other outputs), then saved beside fold.h5. */
#ifndef TF_ANALYSIS_ANALYSIS_RUN_H
#define TF_ANALYSIS_ANALYSIS_RUN_H

#include "analysis.h"
#include "extract/trace_names.h"
#include "fold/fold_result.h"
#include "formats/trace.h"

/* The analyses of a fold result: one per group, regions in order, then
 * groups in order; and the symbolisers and object names of the trace they
 * used, made once for them all and handed on to the outputs that name
 * code and objects too (the synthetic Paraver trace), so that the run
 * resolves an address once. */
typedef struct tf_analysis_set {
    size_t          n;
    tf_analysis    *list;
    tf_trace_names *names;
} tf_analysis_set;

/* Analyses every group of every region of res (folded from tr) into set.
 * debug_dir (may be NULL): where binaries and debug files are found by
 * build-id; params NULL: the defaults.  Reads no HDF5 file.  res and tr
 * must outlive the set's places and names (until tf_analysis_set_free). */
int tf_analysis_run_groups(const tf_trace *tr, const tf_fold_result *res, const char *debug_dir,
                           const tf_analysis_params *params, tf_analysis_set *set, tf_error *err);

/* Writes phases.csv, objects.csv, streams.csv, levels.csv and summary.md
 * into outdir, and adds /region/<r>/group/<g>/analysis to outdir/fold.h5,
 * which must already exist (tf_fold_result_save). */
int tf_analysis_save(const tf_analysis_set *set, const tf_fold_result *res, const char *outdir,
                     tf_error *err);

/* Frees the analyses' samples (by far their largest part) once saved;
 * their phases, routines and tables stay, and so do their places, which
 * give where their points lie again (tf_analysis_point_places) to the
 * report and the synthetic trace. */
void tf_analysis_set_drop_samples(tf_analysis_set *set);

void tf_analysis_set_free(tf_analysis_set *set);

#endif
