/* SPDX-License-Identifier: BSD-3-Clause */
/* A team of processes that share the fits (tracefold fold under mpirun).
 * The fold engine runs on the leader (member 0); each time it fits the
 * counters of a group, counter c is fitted by member c mod size, with the
 * same function and the same input as alone, so the result does not depend
 * on the team (docs/algorithms.md, "Parallel folding").  The engine knows
 * only these point-to-point operations; the CLI implements them with MPI,
 * so fold/ does not depend on MPI. */
#ifndef TF_FOLD_TEAM_H
#define TF_FOLD_TEAM_H

#include <stddef.h>
#include <stdint.h>

#include "cloud.h"
#include "fit.h"
#include "fit_threads.h"
#include "tf_error.h"

typedef struct tf_fold_team {
    int size;                 /* members, >= 2 */
    int rank;                 /* this member, 0 = the leader */
    void *ctx;
    /* Messages between the leader and a member, received in the order
     * sent.  Each returns 0, or -1 when the communication failed. */
    int (*send)(void *ctx, int to, const void *buf, size_t bytes);
    int (*recv)(void *ctx, int from, void *buf, size_t bytes);
    /* The same for a message that may be long in coming (a member waiting
     * for the next fit while the leader reads the trace or writes the
     * outputs; a member's results waiting for the leader to finish its own
     * counters): the wait keeps no CPU busy. */
    int (*send_idle)(void *ctx, int to, const void *buf, size_t bytes);
    int (*recv_idle)(void *ctx, int from, void *buf, size_t bytes);
} tf_fold_team;

/* Fits counters 0..nc-1 into out[c] (its rows allocated by the caller):
 * alone (team NULL) on `threads` threads (tf_fit_counters); with a team,
 * each by its member, the leader fitting its own on its threads while the
 * others fit theirs.  The view's slot 0 is also the one the messages to
 * the members are built from.  A member's failure is the leader's error,
 * naming the rank and the counter. */
int tf_fold_team_fit(const tf_fold_team *team, uint32_t nc, unsigned threads,
                     tf_fold_view view, void *view_arg,
                     const double *boundaries, size_t nb, const tf_fit_options *o,
                     tf_fit_output *out, tf_error *err);

/* On a member other than the leader: serves the leader's fits until it
 * ends the team; returns the exit status the leader sends (0 when its fold
 * succeeded), or a negative error (err) when this member cannot go on. */
int tf_fold_team_serve(const tf_fold_team *team, tf_error *err);
/* On the leader: ends the team, sending every member the status. */
int tf_fold_team_end(const tf_fold_team *team, int status);

#endif
