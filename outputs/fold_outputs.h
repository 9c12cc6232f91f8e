/* SPDX-License-Identifier: BSD-3-Clause */
/* Every output of a fold written into OUTDIR at once (docs/manual.md,
 * `tracefold fold`): fold.h5 with the analysis and the machine profile, the
 * CSV tables, summary.md, the report and the synthetic Paraver trace, on
 * up to three threads; what `tracefold fold` does once the fold result is
 * in memory, and what a benchmark of the whole fold times. */
#ifndef TF_OUTPUTS_FOLD_OUTPUTS_H
#define TF_OUTPUTS_FOLD_OUTPUTS_H

#include <stdbool.h>

#include "analysis/analysis.h"
#include "calibrate/hierarchy.h"
#include "common/tf_error.h"
#include "fold/fold_result.h"
#include "fold/fold_team.h"
#include "formats/trace.h"

/* The file written into OUTDIR last, listing what was written there: an
 * existing OUTDIR is replaced (with --force) only while it holds this and
 * nothing else (common/tf_output.h). */
#define TF_FOLD_OUTPUTS_MARKER ".tracefold-fold"

typedef struct tf_fold_outputs {
    const tf_trace *tr;             /* the folded trace */
    const tf_fold_result *res;
    const tf_fold_team *team;       /* holding parts of res's points, or NULL */
    const char *outdir;
    bool replace;                   /* outdir exists and may be replaced (tf_output.h) */
    unsigned threads;               /* 1: every step on this thread, the same files */
    const tf_analysis_params *analysis;   /* with the heap objects' rules (alloc_rules) */
    const char *debug_dir;          /* the analysis's debug files, or NULL */
    const tf_cal_profile *profile;  /* the machine profile, or NULL */
    const char *machine;            /* its path, stored in fold.h5 */
    /* An output left out (the report, the synthetic trace: the others
     * stand) and a note for the user; called from any of the threads,
     * one message at a time per thread; NULL: not said. */
    void (*warn)(void *arg, const char *msg);
    void (*note)(void *arg, const char *msg);
    void *arg;
} tf_fold_outputs;

/* Writes them into a temporary sibling of o->outdir and renames it into
 * place; on failure nothing is left (tf_output_finish_folder). */
int tf_fold_outputs_write(const tf_fold_outputs *o, tf_error *err);

#endif
