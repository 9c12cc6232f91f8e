/* SPDX-License-Identifier: BSD-3-Clause */
/* The ranks of `mpirun -np N tracefold fold` (or `srun -n N`) as one fold
 * team (fold/fold_team.h).  MPI is initialised only when the launcher's
 * environment says this process is one of several ranks
 * (common/tf_launcher.h): a plain `tracefold fold` never touches MPI. */
#ifndef TF_FOLD_FOLD_TEAM_START_H
#define TF_FOLD_FOLD_TEAM_START_H

#include "fold/fold_team.h"
#include "common/tf_error.h"

/* *team: NULL when this process runs alone; otherwise the world of ranks,
 * MPI initialised.  Fails (err) when started as several ranks by a build
 * without MPI, or when MPI cannot start. */
int tf_fold_team_start(tf_fold_team **team, tf_error *err);
/* Finalises MPI and frees the team (NULL is fine). */
void tf_fold_team_stop(tf_fold_team *team);
/* Ends every rank of the team now, with exit status 1: for a member that
 * cannot go on while the leader is sending to it or waiting for it. */
void tf_fold_team_abort(tf_fold_team *team);

#endif
