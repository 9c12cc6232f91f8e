/* SPDX-License-Identifier: BSD-3-Clause */
/* The fold team of a build without MPI: there is none.  Started by mpirun
 * or srun as several ranks, every rank would fold alone into the same
 * OUTDIR, so each refuses (rank 0 says why; the others fail silently). */
#include "config.h"

#include "fold_team_start.h"
#include "common/tf_launcher.h"

int tf_fold_team_start(tf_fold_team **team, tf_error *err)
{
    *team = NULL;
    int size = tf_launcher_size();
    if (size < 2)
        return 0;
    if (tf_launcher_rank() > 0)
        return -TF_ERR_UNSUPPORTED;
    return tf_fail(err, TF_ERR_UNSUPPORTED, "started as %d ranks, but this tracefold was built "
                   "without MPI: run it without mpirun or srun, or rebuild with MPI (configure "
                   "finds mpicc)", size);
}

/* Without MPI there is never a team to stop or abort. */
void tf_fold_team_stop(tf_fold_team *team)
{
}

void tf_fold_team_abort(tf_fold_team *team)
{
}
