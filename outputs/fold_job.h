/* SPDX-License-Identifier: BSD-3-Clause */
/* The job of `tracefold fold` apart from its command line and its words
 * (docs/manual.md): the traces opened and the region to fold chosen (the
 * one named, the repeated region that covers the most time, or the
 * iteration found from the samples), the fold and every output; under
 * mpirun, a member rank's share.  What the opening chose comes back in
 * the opening for the command to say; the outputs speak through their
 * callbacks (fold_outputs.h). */
#ifndef TF_OUTPUTS_FOLD_JOB_H
#define TF_OUTPUTS_FOLD_JOB_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/phase_level.h"
#include "common/tf_error.h"
#include "extract/instances.h"
#include "extract/iteration_find.h"
#include "fold/fold_engine.h"
#include "fold/fold_team.h"
#include "formats/trace.h"
#include "outputs/fold_outputs.h"

/* What is folded. */
typedef struct tf_fold_job_input {
    char *const   *traces;        /* a trace, a Paraver trace, or the ranks' traces */
    size_t         ntraces;
    const char    *region;        /* --region: a region, or the routine an iteration
                                   * begins in; NULL: chosen */
    const char    *debug_dir;     /* the extraction's debug files, or NULL */
    tf_phase_level phase_level;   /* the call-stack level that names phases */
} tf_fold_job_input;

/* The traces opened and the region chosen.  Under mpirun a process opens
 * them on a thread of its own while MPI starts: MPI_Init waits for the
 * launcher and the other ranks most of its time (0.3 s of wall-clock, 0.08 s
 * of CPU, under mpirun -np 2 on two CPUs), which the opening (0.25 s of a
 * 64-process trace) fills (bench/RESULTS.md, "Waits that sleep; MPI
 * started while the traces open"). */
typedef struct tf_fold_opening {
    const tf_fold_job_input *in;
    bool      threaded, done;
    pthread_t thread;
    tf_trace *tr;
    uint32_t  region;
    size_t    chosen;             /* instances of the region chosen for the user
                                   * (the repeated one covering the most time); 0
                                   * for one named or an iteration found */
    tf_iteration_found found;     /* without a region: the iteration found, when
                                   * found.instances; its candidates also when the
                                   * routine named begins none */
    tf_region_given given;        /* its instances */
    int       rc;
    tf_error  err;
} tf_fold_opening;

/* Starts opening in's traces: on a thread of its own when `threaded` (at
 * tf_fold_opening_wait when not, or when no thread could start). */
void tf_fold_opening_start(tf_fold_opening *op, const tf_fold_job_input *in, bool threaded);
/* The opening's result, opened now when no thread did it. */
int tf_fold_opening_wait(tf_fold_opening *op, tf_error *err);
/* Joins a thread still opening, closes the traces and frees the rest. */
void tf_fold_opening_end(tf_fold_opening *op);

/* The fold of the opened region with p, led by this process when team is
 * not NULL, then its outputs o (o->tr and o->res are the job's; o->profile,
 * when NULL, is loaded from o->machine when one is named): *res gets the
 * result, for the command's report (tf_fold_result_free). */
int tf_fold_job_run(tf_fold_opening *op, const tf_fold_params *p, tf_fold_team *team,
                    tf_fold_outputs o, tf_fold_progress progress, tf_fold_result **res,
                    tf_error *err);

/* A member of the team (a rank other than 0): reads its share of the
 * samples as rank 0 reads its own (op NULL: none, as of a Paraver trace,
 * which rank 0 converts and reads alone), closes the trace (the share
 * keeps no pointer into it that the team uses), then serves rank 0 until
 * it ends the team.  failed < 0: the command line asked for no fold, said
 * in failed_err; whatever stops the reading is handed to rank 0 in place
 * of the share.  Returns the team's status, or < 0 with err. */
int tf_fold_job_serve(tf_fold_opening *op, const tf_fold_params *p, tf_fold_team *team,
                      int failed, const tf_error *failed_err, tf_error *err);

#endif
