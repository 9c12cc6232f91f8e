/* SPDX-License-Identifier: BSD-3-Clause */
/* The helpers of team_wire.h that every file of the fold team uses: the
 * lost contact, the lock around the team's messages, and the transfer of
 * points.  In a file of their own so that fold_team.c, fold_team_fit.c and
 * fold_team_points.c call into it and not into each other. */
#include "team_wire.h"

#include <pthread.h>
#include <stdlib.h>

int tf_team_lost(tf_error *err)
{
    return tf_fail(err, TF_ERR_IO, "fold: the ranks lost contact");
}

/* The columns of n points of p from `at` as parts, in the order they
 * travel, y rows `stride` apart after the others (room for NCOLUMNS + nc
 * parts), those of `columns` (enum tf_fold_column) only.  Returns the
 * number of parts. */
enum { NCOLUMNS = 8 };

static size_t point_parts(const tf_fold_points *p, size_t at, size_t n, size_t stride,
                          uint32_t nc, unsigned columns, tf_team_part *parts)
{
    const tf_team_part c[NCOLUMNS] = {
        { p->instance + at, n * sizeof *p->instance }, { p->x + at, n * sizeof *p->x },
        { p->kind + at, n * sizeof *p->kind }, { p->ip + at, n * sizeof *p->ip },
        { p->addr + at, n * sizeof *p->addr }, { p->level + at, n * sizeof *p->level },
        { p->weight + at, n * sizeof *p->weight },
        { p->name_frame + at, n * sizeof *p->name_frame },
    };
    /* the columns in the order of enum tf_fold_column's bits */
    size_t m = 0;
    for (int i = 0; i < NCOLUMNS; i++)
        if (columns & (1u << i))
            parts[m++] = c[i];
    for (uint32_t k = 0; columns & TF_FOLD_COL_Y && k < nc; k++)
        parts[m++] = (tf_team_part){ p->y + k * stride + at, n * sizeof *p->y };
    return m;
}

int tf_team_transfer_points(const tf_fold_team *t, int peer, bool send, const tf_fold_points *p,
                            size_t at, size_t n, size_t stride, uint32_t nc, unsigned columns,
                            tf_error *err)
{
    tf_team_part *parts = malloc((NCOLUMNS + nc) * sizeof *parts);
    if (!parts)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory %s %zu folded samples of rank %d",
                       send ? "sending" : "receiving", n, peer);
    size_t m = point_parts(p, at, n, stride, nc, columns, parts);
    int rc = (send ? t->sendv(t->ctx, peer, parts, m) : t->recvv(t->ctx, peer, parts, m)) < 0
                 ? tf_team_lost(err) : 0;
    free(parts);
    return rc;
}

int tf_team_lock(const tf_fold_team *t)
{
    return t->lock ? pthread_mutex_lock(t->lock) : 0;
}

void tf_team_unlock(const tf_fold_team *t)
{
    if (t->lock)
        pthread_mutex_unlock(t->lock);
}
