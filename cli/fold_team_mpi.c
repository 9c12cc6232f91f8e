/* SPDX-License-Identifier: BSD-3-Clause */
/* The fold team over MPI (built when configure finds MPI).  The team has a
 * communicator of its own, so nothing else the process might do with MPI
 * can match its messages. */
#include "config.h"

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>

#include "fold_team_start.h"

struct mpi_team {
    tf_fold_team team;
    MPI_Comm comm;
    int *counts, *displs;   /* [size] grid parts, for MPI_Gatherv */
};

static int mpi_bcast(void *ctx, void *buf, size_t bytes)
{
    struct mpi_team *m = ctx;
    /* MPI counts are ints: large arrays travel in pieces. */
    for (size_t at = 0; at < bytes;) {
        size_t len = bytes - at < (size_t)INT_MAX / 2 ? bytes - at : (size_t)INT_MAX / 2;
        if (MPI_Bcast((char *)buf + at, (int)len, MPI_BYTE, 0, m->comm) != MPI_SUCCESS)
            return -1;
        at += len;
    }
    return 0;
}

static int mpi_agree(void *ctx, int rc, int *all)
{
    struct mpi_team *m = ctx;
    return MPI_Allreduce(&rc, all, 1, MPI_INT, MPI_MIN, m->comm) == MPI_SUCCESS ? 0 : -1;
}

static int mpi_collect(void *ctx, double *row, size_t n)
{
    struct mpi_team *m = ctx;
    if (n > INT_MAX)
        return -1;
    for (int r = 0; r < m->team.size; r++) {
        size_t lo, hi;
        tf_fold_team_part(m->team.size, r, n, &lo, &hi);
        m->counts[r] = (int)(hi - lo);
        m->displs[r] = (int)lo;
    }
    int me = m->team.rank;
    int rc = me == 0
        ? MPI_Gatherv(MPI_IN_PLACE, 0, MPI_DOUBLE, row, m->counts, m->displs, MPI_DOUBLE, 0,
                      m->comm)
        : MPI_Gatherv(row + m->displs[me], m->counts[me], MPI_DOUBLE, NULL, NULL, NULL,
                      MPI_DOUBLE, 0, m->comm);
    return rc == MPI_SUCCESS ? 0 : -1;
}

int tf_cli_team_start(tf_fold_team **team, tf_error *err)
{
    *team = NULL;
    if (tf_cli_launched_size() < 2)
        return 0;
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised && MPI_Init(NULL, NULL) != MPI_SUCCESS)
        return tf_fail(err, TF_ERR_IO, "MPI_Init failed: cannot fold in parallel");
    struct mpi_team *m = calloc(1, sizeof *m);
    int size = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (m) {
        m->counts = malloc((size_t)size * sizeof *m->counts);
        m->displs = malloc((size_t)size * sizeof *m->displs);
    }
    if (!m || !m->counts || !m->displs) {
        if (m) {
            free(m->counts);
            free(m->displs);
        }
        free(m);
        /* The other ranks wait for this one: only an abort ends them. */
        MPI_Abort(MPI_COMM_WORLD, 1);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the MPI team");
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &m->comm);
    m->team = (tf_fold_team){
        .size = size, .rank = rank, .ctx = m,
        .bcast = mpi_bcast, .agree = mpi_agree, .collect = mpi_collect,
    };
    if (size < 2) {   /* the environment said more; MPI knows best */
        tf_cli_team_stop(&m->team);
        return 0;
    }
    *team = &m->team;
    return 0;
}

void tf_cli_team_stop(tf_fold_team *team)
{
    if (!team)
        return;
    struct mpi_team *m = team->ctx;
    MPI_Comm_free(&m->comm);
    free(m->counts);
    free(m->displs);
    free(m);
    MPI_Finalize();
}
