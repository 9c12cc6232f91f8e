/* SPDX-License-Identifier: BSD-3-Clause */
/* The synthetic Paraver trace of a fold result, for `tracefold paraver
 * OUTDIR/fold.h5` and `tracefold fold`, in two calls: begin (what needs
 * only the fold) and end (the phases from the analysis, every record, the
 * files closed into place), so that `tracefold fold` can do the first
 * while it works out the analysis. */
#ifndef TF_PARAVER_SYNTHETIC_H
#define TF_PARAVER_SYNTHETIC_H

#include "analysis/analysis_run.h"
#include "fold/fold_result.h"
#include "fold/fold_team.h"
#include "common/tf_error.h"
#include "formats/trace.h"

typedef struct tf_prv_synthetic tf_prv_synthetic;

/* Starts the synthetic trace out (NAME.prv or NAME.prv.gz, with NAME.pcf
 * and NAME.row) of a fold result: res when the caller has it in memory,
 * else the one fold_h5 holds; folded: the trace that was folded, for
 * routine names and objects (NULL opens the one the result names); team:
 * the members that hold parts of res's points (tf_fold_team_parts), NULL
 * when res holds them all; rules: how heap objects' call sites are found
 * (NULL: the built-in rules; must outlive sy).  Given
 * res and folded it makes no HDF5 call and looks up no symbol, so it may
 * run on a thread of its own beside the analysis and the writing of
 * fold.h5.  On failure nothing is left behind. */
int tf_prv_synthetic_begin(const char *fold_h5, const tf_fold_result *res,
                           const tf_trace *folded, const tf_fold_team *team,
                           const tf_alloc_rules *rules, const char *out, tf_prv_synthetic **sy,
                           tf_error *err);

/* Why routines and objects are left unnamed (the folded trace that the
 * result names could not be opened), or NULL: for the caller to warn. */
const char *tf_prv_synthetic_unnamed(const tf_prv_synthetic *sy);

/* Finishes it, its phases from analyses (res's analyses in memory; NULL
 * reads them from fold_h5, an HDF5 call), and frees sy.  With analyses it
 * makes no HDF5 call; it looks symbols up (libdw).  threads > 1: the
 * records are written on a thread of its own while this one builds the
 * next (the files are the same). */
int tf_prv_synthetic_end(tf_prv_synthetic *sy, const tf_analysis_set *analyses, unsigned threads,
                         tf_error *err);

/* Drops a begun trace: removes its temporary files and frees sy. */
void tf_prv_synthetic_abort(tf_prv_synthetic *sy);

/* A team member's side (tracefold fold under mpirun): the leader's
 * synthetic trace asks each member holding part of a group's points
 * (tf_fold_team_kept) to order them by time, then for their records a
 * batch at a time, which it merges with its own (the order is total).
 * tf_prv_synthetic_member_call is a tf_fold_team_handler's call, its arg
 * the member state. */
typedef struct tf_prv_synthetic_member tf_prv_synthetic_member;
tf_prv_synthetic_member *tf_prv_synthetic_member_new(void);
int  tf_prv_synthetic_member_call(void *arg, tf_fold_team *team, const void *req,
                                  tf_error *err);
void tf_prv_synthetic_member_free(tf_prv_synthetic_member *m);

#endif
