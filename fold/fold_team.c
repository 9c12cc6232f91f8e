/* SPDX-License-Identifier: BSD-3-Clause */
/* The members' side of a team: the leader sends each fit's inputs (the
 * cloud of one counter, the boundaries, the options), every member runs
 * the fit's steps (fit.c), and the leader ends the team with the exit
 * status.  The members hold the cloud of one fit at a time: the normalised
 * times and one counter's values (8 bytes a point), never the trace. */
#include "fold_team.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"

enum command { COMMAND_FIT = 1, COMMAND_END = 2 };

/* What precedes a fit's arrays; fixed-width fields, and the same build on
 * every member (mpirun starts one binary). */
struct request {
    uint32_t command;
    int32_t  status;           /* COMMAND_END: the exit status */
    uint64_t ninst, npoints, nb;
    uint32_t grid, bootstrap;
    double   confidence, window;
    uint64_t seed;
};

/* The arrays of a fit, in the order they travel. */
struct arrays {
    uint32_t *rows;
    size_t   *first;
    uint8_t  *valid;
    double   *total, *duration, *boundaries;
    float    *x, *y;
};

static int send_arrays(const tf_fold_team *t, const struct request *q, const struct arrays *a)
{
    struct { void *buf; size_t bytes; } parts[] = {
        { a->rows, q->ninst * sizeof *a->rows },
        { a->first, (q->ninst + 1) * sizeof *a->first },
        { a->valid, q->ninst * sizeof *a->valid },
        { a->total, q->ninst * sizeof *a->total },
        { a->duration, q->ninst * sizeof *a->duration },
        { a->boundaries, q->nb * sizeof *a->boundaries },
        { a->x, q->npoints * sizeof *a->x },
        { a->y, q->npoints * sizeof *a->y },
    };
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++)
        if (parts[k].bytes && t->bcast(t->ctx, parts[k].buf, parts[k].bytes) < 0)
            return -1;
    return 0;
}

int tf_fold_team_send_fit(const tf_fold_team *team, const tf_fold_cloud *cl,
                          const double *boundaries, size_t nb, const tf_fit_options *o,
                          tf_error *err)
{
    struct request q = {
        .command = COMMAND_FIT, .ninst = cl->ninst, .npoints = cl->first[cl->ninst],
        .nb = nb, .grid = o->grid, .bootstrap = o->bootstrap, .confidence = o->confidence,
        .window = o->window, .seed = o->seed,
    };
    /* The arrays are only read: bcast's buffer is not const for the
     * members' sake. */
    struct arrays a = {
        .rows = (uint32_t *)cl->rows, .first = (size_t *)cl->first,
        .valid = (uint8_t *)cl->valid, .total = (double *)cl->total,
        .duration = (double *)cl->duration, .boundaries = (double *)boundaries,
        .x = (float *)cl->x, .y = (float *)cl->y,
    };
    int all;
    if (team->bcast(team->ctx, &q, sizeof q) < 0 || team->agree(team->ctx, 0, &all) < 0)
        return tf_fail(err, TF_ERR_IO, "fit: the ranks lost contact");
    if (all < 0)
        return tf_fail(err, -all, "fit: another rank cannot take the fit's input: %s",
                       tf_error_text(-all));
    if (send_arrays(team, &q, &a) < 0)
        return tf_fail(err, TF_ERR_IO, "fit: the ranks lost contact");
    return 0;
}

int tf_fold_team_end(const tf_fold_team *team, int status)
{
    struct request q = { .command = COMMAND_END, .status = status };
    return team->bcast(team->ctx, &q, sizeof q);
}

static void arrays_free(struct arrays *a)
{
    free(a->rows);
    free(a->first);
    free(a->valid);
    free(a->total);
    free(a->duration);
    free(a->boundaries);
    free(a->x);
    free(a->y);
}

/* One fit as a member: the inputs, then the fit's steps on scratch rows
 * (only the leader's rows are the result). */
static int serve_fit(const tf_fold_team *t, const struct request *q)
{
    struct arrays a = {
        .rows = malloc((q->ninst + 1) * sizeof *a.rows),
        .first = malloc((q->ninst + 1) * sizeof *a.first),
        .valid = malloc(q->ninst + 1),
        .total = malloc((q->ninst + 1) * sizeof *a.total),
        .duration = malloc((q->ninst + 1) * sizeof *a.duration),
        .boundaries = malloc((q->nb + 1) * sizeof *a.boundaries),
        .x = malloc((q->npoints + 1) * sizeof *a.x),
        .y = malloc((q->npoints + 1) * sizeof *a.y),
    };
    double *rows = malloc(6 * ((size_t)q->grid + 1) * sizeof *rows);
    bool ok = a.rows && a.first && a.valid && a.total && a.duration && a.boundaries && a.x &&
              a.y && rows;
    int all, rc = -1;
    if (t->agree(t->ctx, ok ? 0 : -TF_ERR_NOMEM, &all) < 0)
        goto done;
    if (all < 0) {   /* the leader reports it, and ends the team */
        rc = 0;
        goto done;
    }
    if (send_arrays(t, q, &a) < 0)
        goto done;
    tf_fold_cloud cl = {
        .ninst = q->ninst, .rows = a.rows, .first = a.first, .x = a.x, .y = a.y,
        .valid = a.valid, .total = a.total, .duration = a.duration,
    };
    size_t g = q->grid;
    tf_fit_options o = {
        .grid = q->grid, .bootstrap = q->bootstrap, .confidence = q->confidence,
        .seed = q->seed, .window = q->window, .team = t,
    };
    tf_fit_output out = {
        .curve = rows, .curve_lo = rows + g, .curve_hi = rows + 2 * g, .rate = rows + 3 * g,
        .rate_lo = rows + 4 * g, .rate_hi = rows + 5 * g,
    };
    tf_error err;
    tf_error_clear(&err);
    /* A failure was agreed with the leader, which reports it; only a lost
     * contact ends the service. */
    rc = tf_fit_counter(&cl, a.boundaries, q->nb, &o, &out, &err) == -TF_ERR_IO ? -1 : 0;
done:
    arrays_free(&a);
    free(rows);
    return rc;
}

int tf_fold_team_serve(const tf_fold_team *team)
{
    for (;;) {
        struct request q;
        if (team->bcast(team->ctx, &q, sizeof q) < 0)
            return -1;
        if (q.command == COMMAND_END)
            return q.status;
        if (q.command != COMMAND_FIT || serve_fit(team, &q) < 0)
            return -1;
    }
}
