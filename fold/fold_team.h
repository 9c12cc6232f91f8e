/* SPDX-License-Identifier: BSD-3-Clause */
/* A team of processes that share the fit (tracefold fold under mpirun).
 * The fold engine runs on the leader (member 0); the other members serve
 * its fits: each computes the grid points of its share (docs/algorithms.md,
 * "Parallel folding").  The engine knows only these collective operations;
 * the CLI implements them with MPI, so fold/ does not depend on MPI. */
#ifndef TF_FOLD_TEAM_H
#define TF_FOLD_TEAM_H

#include <stddef.h>
#include <stdint.h>

typedef struct tf_fold_team {
    int size;                 /* members, >= 2 */
    int rank;                 /* this member, 0 = the leader */
    void *ctx;
    /* Every member calls each operation in the same order.  Each returns
     * 0, or -1 when the communication failed. */
    /* Copies bytes of buf from the leader to every member. */
    int (*bcast)(void *ctx, void *buf, size_t bytes);
    /* The smallest of every member's rc, into *all. */
    int (*agree)(void *ctx, int rc, int *all);
    /* Member r's part [lo(r), hi(r)) of row (length n) into the leader's
     * row; the parts are tf_fold_team_part's. */
    int (*collect)(void *ctx, double *row, size_t n);
} tf_fold_team;

/* The part [*lo, *hi) of n grid points that member r computes: contiguous,
 * in member order, sizes differing by one at most. */
void tf_fold_team_part(int size, int r, size_t n, size_t *lo, size_t *hi);

/* On a member other than the leader: serves the leader's fits until it
 * ends the team; returns the exit status the leader sends (0 when its fold
 * succeeded).  A negative value: the communication failed. */
int tf_fold_team_serve(const tf_fold_team *team);
/* On the leader: ends the team, sending every member the status. */
int tf_fold_team_end(const tf_fold_team *team, int status);

#endif
