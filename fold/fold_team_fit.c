/* SPDX-License-Identifier: BSD-3-Clause */
/* The fits shared by a team.  Counter c is fitted by member c mod size
 * (its owner), with the same call as alone, on the whole of its cloud.
 * The leader sends each member that takes part a request, and each owner
 * the arrays of the instances (rows, first, durations, boundaries, and of
 * its counters validity and totals).  The points come from the ranks that
 * hold them: the leader when it holds the cloud (the first fit, or a
 * trace it reads alone), or each rank its share of a group's points; each
 * such rank sends every owner its normalised times and the owner's
 * counters' values, in one order all ranks follow (owner, then sender), so
 * that blocking transfers never wait on one another in a ring.  The
 * owners fit meanwhile the leader fits its own, and send it their results.
 * An owner holds the clouds of its counters of one fit at a time (4 bytes
 * a point, plus 4 a point for each of its counters), never the trace. */
#include "team_wire.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A member's result for one counter, followed by its six rows. */
struct result {
    int32_t  rc;
    uint32_t counter;
    uint32_t instances;
    double   mean_total, mean_duration_ns;
    char     msg[TF_ERROR_MSG_MAX];
};

#define ROWS 6

static size_t result_bytes(size_t grid)
{
    return sizeof(struct result) + ROWS * grid * sizeof(double);
}

/* The rows of out in the order they travel. */
static void output_rows(const tf_fit_output *out, double *rows[ROWS])
{
    rows[0] = out->curve;
    rows[1] = out->curve_lo;
    rows[2] = out->curve_hi;
    rows[3] = out->rate;
    rows[4] = out->rate_lo;
    rows[5] = out->rate_hi;
}

static uint32_t counters_of(int member, int size, uint32_t nc)
{
    return (uint32_t)member < nc ? (nc - (uint32_t)member + (uint32_t)size - 1) / (uint32_t)size
                                 : 0;
}

/* Members that fit counters, the leader too. */
static int owners_of(int size, uint32_t nc)
{
    return (int)nc < size ? (int)nc : size;
}

/* Whether rank w takes part in a fit: it owns counters or holds points. */
static bool takes_part(int w, int owners, const size_t *offset)
{
    return w < owners || offset[w + 1] > offset[w];
}

/* Clears valid[i] for an instance with no value of the counter among its
 * points: whether it has one is known where its points are. */
static void mark_sampled(const size_t *first, const float *y, size_t n, uint8_t *valid)
{
    for (size_t i = 0; i < n; i++) {
        bool any = false;
        for (size_t k = first[i]; k < first[i + 1] && !any; k++)
            any = !isnan(y[k]);
        valid[i] = valid[i] && any;
    }
}

/* The arrays of the instances, as they travel to an owner of k counters
 * (the offsets to every rank that takes part, first).  The member
 * receives them into one buffer, each at a multiple of 8 bytes. */
enum part { OFFSET, ROWS_OF, FIRST, DURATION, BOUNDARIES, COUNTER, VALID, TOTAL, NPARTS };

static void part_bytes(const struct team_request *q, int size, size_t bytes[NPARTS])
{
    size_t n = q->ninst, k = q->ncounters;
    const size_t b[NPARTS] = {
        [OFFSET] = ((size_t)size + 1) * sizeof(size_t), [ROWS_OF] = n * sizeof(uint32_t),
        [FIRST] = (n + 1) * sizeof(size_t), [DURATION] = n * sizeof(double),
        [BOUNDARIES] = q->nb * sizeof(double), [COUNTER] = k * sizeof(uint32_t),
        [VALID] = k * n, [TOTAL] = k * n * sizeof(double),
    };
    memcpy(bytes, b, sizeof b);
}

/* Offsets of the parts in the member's buffer; at[NPARTS] is its size. */
static void layout(const struct team_request *q, int size, size_t at[NPARTS + 1])
{
    size_t bytes[NPARTS];
    part_bytes(q, size, bytes);
    at[0] = 0;
    for (int i = 0; i < NPARTS; i++)
        at[i + 1] = at[i] + (bytes[i] + 7) / 8 * 8;
}

/* The parts a member receives: the offsets alone, or all of them for an
 * owner.  Returns their number. */
static size_t instance_parts(const struct team_request *q, int size, const void *const src[NPARTS],
                             tf_team_part parts[NPARTS])
{
    size_t bytes[NPARTS];
    part_bytes(q, size, bytes);
    size_t n = q->ncounters ? NPARTS : 1;
    for (size_t i = 0; i < n; i++)
        parts[i] = (tf_team_part){ src[i], bytes[i] };
    return n;
}

/* Sender r's points to owner v, or owner v's from sender r, in one
 * transfer: the times, then the values of v's counters (y[i] its i-th). */
static int transfer_cloud(const tf_fold_team *t, bool send, int peer, const float *x,
                          const float *const *y, uint32_t k, size_t n, tf_error *err)
{
    tf_team_part *parts = malloc((k + 1) * sizeof *parts);
    if (!parts)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the points of a fit");
    parts[0] = (tf_team_part){ x, n * sizeof *x };
    for (uint32_t i = 0; i < k; i++)
        parts[i + 1] = (tf_team_part){ y[i], n * sizeof **y };
    int rc = (send ? t->sendv(t->ctx, peer, parts, k + 1) : t->recvv(t->ctx, peer, parts, k + 1))
                 < 0 ? team_lost(err) : 0;
    free(parts);
    return rc;
}

/* A rank's side of the points' exchange: for every owner v and, within,
 * every sender r (ascending, r != v, r holding points), r sends v its
 * points; this rank does those where it is r or v. */
struct exchange {
    const size_t *offset;      /* [size+1] where each rank's points start in the cloud */
    uint32_t nc;
    const float *x;            /* this rank's points' times */
    const float *const *y;     /* [nc] their values of each counter */
    float *cx, *cy;            /* as an owner: the cloud's times, and its counters'
                                * values (rows offset[size] apart) */
};

static int exchange_points(const tf_fold_team *t, const struct exchange *e, tf_error *err)
{
    int size = t->size, me = t->rank, owners = owners_of(size, e->nc);
    size_t np = e->offset[size];
    const float **y = malloc((counters_of(0, size, e->nc) + 1) * sizeof *y);
    if (!y)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the points of a fit");
    int rc = 0;
    for (int v = 0; v < owners && rc == 0; v++) {
        uint32_t k = counters_of(v, size, e->nc);
        for (int r = 0; r < size && rc == 0; r++) {
            size_t at = e->offset[r], n = e->offset[r + 1] - at;
            if (r == v || n == 0 || (r != me && v != me))
                continue;
            if (r == me) {
                for (uint32_t i = 0; i < k; i++)
                    y[i] = e->y[(uint32_t)v + i * (uint32_t)size];
                rc = transfer_cloud(t, true, v, e->x, y, k, n, err);
            } else {
                for (uint32_t i = 0; i < k; i++)
                    y[i] = e->cy + (size_t)i * np + at;
                rc = transfer_cloud(t, false, r, e->cx + at, y, k, n, err);
            }
        }
    }
    free((void *)y);
    return rc;
}

/* The owner's cloud: its own points copied into place (its counters'
 * values, rows np apart). */
static void place_own(const struct exchange *e, int size, int me)
{
    size_t at = e->offset[me], n = e->offset[me + 1] - at, np = e->offset[size];
    if (n == 0)
        return;
    memcpy(e->cx + at, e->x, n * sizeof *e->x);
    uint32_t k = counters_of(me, size, e->nc);
    for (uint32_t i = 0; i < k; i++)
        memcpy(e->cy + (size_t)i * np + at, e->y[(uint32_t)me + i * (uint32_t)size],
               n * sizeof *e->cy);
}

/* The request and the instance arrays of member w's counters.  The
 * validity and totals are copied, as the view's slot is rewritten for
 * each counter. */
static int send_request(const tf_fold_team *t, int w, const struct team_request *base,
                        tf_fold_view view, void *arg, const size_t *offset, const double *bd,
                        tf_error *err)
{
    struct team_request q = *base;
    q.ncounters = counters_of(w, t->size, q.counters);
    tf_fold_cloud cl;
    view(arg, 0, (uint32_t)(w < (int)q.counters ? w : 0), &cl);
    size_t k = q.ncounters, n = q.ninst;
    const tf_fold_cloud shared = cl;
    double *total = malloc((k * n + n + 1) * sizeof *total);
    uint32_t *ids = malloc((k + 1) * sizeof *ids);
    uint8_t *valid = malloc(k * n + 1);
    int rc = 0;
    if (!total || !ids || !valid) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for the input of rank %d", w);
        goto done;
    }
    double *duration = total + k * n;
    memcpy(duration, cl.duration, n * sizeof *duration);
    size_t i = 0;
    for (uint32_t c = (uint32_t)w; c < q.counters; c += (uint32_t)t->size, i++) {
        view(arg, 0, c, &cl);
        ids[i] = c;
        memcpy(valid + i * n, cl.valid, n);
        memcpy(total + i * n, cl.total, n * sizeof *total);
    }
    const void *src[NPARTS] = {
        [OFFSET] = offset, [ROWS_OF] = shared.rows, [FIRST] = shared.first,
        [DURATION] = duration, [BOUNDARIES] = bd, [COUNTER] = ids, [VALID] = valid,
        [TOTAL] = total,
    };
    tf_team_part parts[NPARTS];
    size_t nparts = instance_parts(&q, t->size, src, parts);
    if (t->send(t->ctx, w, &q, sizeof q) < 0 || t->sendv(t->ctx, w, parts, nparts) < 0)
        rc = team_lost(err);
done:
    free(total);
    free(ids);
    free(valid);
    return rc;
}

/* Member w's results into out, through buf (room for member 1's, the
 * most); the first failure among them into err. */
static int receive_results(const tf_fold_team *t, int w, uint32_t nc, size_t grid,
                           char *buf, tf_fit_output *out, tf_error *err)
{
    uint32_t k = counters_of(w, t->size, nc);
    size_t each = result_bytes(grid);
    if (t->recv_idle(t->ctx, w, buf, k * each) < 0)
        return team_lost(err);
    int rc = 0;
    for (uint32_t i = 0; i < k; i++) {
        struct result r;
        memcpy(&r, buf + i * each, sizeof r);
        tf_fit_output *o = &out[r.counter];
        double *rows[ROWS];
        output_rows(o, rows);
        for (size_t j = 0; j < ROWS; j++)
            memcpy(rows[j], buf + i * each + sizeof r + j * grid * sizeof(double),
                   grid * sizeof(double));
        o->instances = r.instances;
        o->mean_total = r.mean_total;
        o->mean_duration_ns = r.mean_duration_ns;
        if (r.rc < 0 && rc == 0) {
            r.msg[sizeof r.msg - 1] = '\0';
            rc = tf_fail(err, -r.rc, "rank %d: %s", w, r.msg);
        }
    }
    return rc;
}

/* The leader's clouds of its own counters when the others hold points:
 * the caller's view, with the times and values gathered here and the
 * validity completed with them. */
struct gathered {
    tf_fold_view view;
    void *arg;
    const float *x, *y;       /* [np], [k][np] */
    size_t np;
    int size;
    uint8_t *valid;           /* [threads][ninst] */
};

static void gathered_view(void *arg, unsigned slot, uint32_t c, tf_fold_cloud *cl)
{
    const struct gathered *g = arg;
    g->view(g->arg, slot, c, cl);
    uint8_t *valid = g->valid + (size_t)slot * cl->ninst;
    memcpy(valid, cl->valid, cl->ninst);
    cl->x = g->x;
    cl->y = g->y + (size_t)(c / (uint32_t)g->size) * g->np;
    mark_sampled(cl->first, cl->y, cl->ninst, valid);
    cl->valid = valid;
}

/* The leader's share of the fit: its own counters, on its threads, from
 * the clouds gathered (when the others hold points) or the view's. */
static int fit_own(const tf_fold_team *team, const struct exchange *e, size_t ninst,
                   unsigned threads, tf_fold_view view, void *arg, const double *bd, size_t nb,
                   const tf_fit_options *o, tf_fit_output *out, tf_error *err)
{
    int size = team ? team->size : 1;
    if (!team || e->offset[1] == e->offset[size])
        return tf_fit_counters(0, (uint32_t)size, e->nc, threads, view, arg, bd, nb, o, out,
                               err);
    struct gathered g = { view, arg, e->cx, e->cy, e->offset[size], size,
                          malloc((size_t)threads * ninst + 1) };
    if (!g.valid)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the fits");
    int rc = tf_fit_counters(0, (uint32_t)size, e->nc, threads, gathered_view, &g, bd, nb, o,
                             out, err);
    free(g.valid);
    return rc;
}

int tf_fold_team_fit(const tf_fold_team *team, const tf_fold_team_cloud *spread, uint32_t nc,
                     unsigned threads, tf_fold_view view, void *view_arg,
                     const double *boundaries, size_t nb, const tf_fit_options *o,
                     tf_fit_output *out, tf_error *err)
{
    int size = team ? team->size : 1, owners = owners_of(size, nc);
    tf_fold_cloud cl;
    view(view_arg, 0, 0, &cl);
    size_t n = cl.ninst, np = cl.first[n];
    /* Where each rank's points start: all the leader's unless spread. */
    size_t *offset = malloc(((size_t)size + 1) * sizeof *offset);
    size_t mine = 0, k0 = counters_of(0, size, nc);
    if (offset) {
        for (int w = 0; w <= size; w++)
            offset[w] = spread ? spread->offset[w] : w == 0 ? 0 : np;
        mine = offset[1];
    }
    bool gathers = offset && mine < np;
    float *cx = gathers ? malloc((np + 1) * sizeof *cx) : NULL;
    float *cy = gathers ? malloc((k0 * np + 1) * sizeof *cy) : NULL;
    const float **ys = malloc((nc + 1) * sizeof *ys);
    /* Room for the results before any request: a member that has one must
     * be able to hand its results over. */
    char *results = owners > 1 ? malloc(counters_of(1, size, nc) * result_bytes(o->grid) + 1)
                               : NULL;
    int rc = 0, sent = 1;
    if (!offset || !ys || (gathers && (!cx || !cy)) || (owners > 1 && !results)) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for the fits of the other ranks");
        goto done;
    }
    /* The leader's points: the view's (its first offset[1] when spread). */
    for (uint32_t c = 0; c < nc; c++) {
        tf_fold_cloud cc;
        view(view_arg, 0, c, &cc);
        ys[c] = cc.y;
    }
    struct exchange e = { .offset = offset, .nc = nc, .x = cl.x, .y = ys, .cx = cx, .cy = cy };
    struct team_request base = {
        .command = COMMAND_FIT, .ninst = n, .npoints = np, .nb = nb, .counters = nc,
        .grid = o->grid, .bootstrap = o->bootstrap, .confidence = o->confidence,
        .window = o->window, .seed = o->seed, .group = spread ? spread->group : 0,
    };
    for (; sent < size && rc == 0; sent++)
        if (takes_part(sent, owners, offset))
            rc = send_request(team, sent, &base, view, view_arg, offset, boundaries, err);
    if (rc == 0 && team)
        rc = exchange_points(team, &e, err);
    if (rc == 0 && gathers)
        place_own(&e, size, 0);
    if (rc == 0)
        rc = fit_own(team, &e, n, threads, view, view_arg, boundaries, nb, o, out, err);
    /* Every owner that has the request sends its results, also after a
     * failure here: received, it is free for the end of the team. */
    for (int w = 1; w < owners && w < sent; w++) {
        tf_error werr;
        int wrc = receive_results(team, w, nc, o->grid, results, out, rc < 0 ? &werr : err);
        if (rc == 0 || wrc == -TF_ERR_IO)
            rc = wrc;
        if (wrc == -TF_ERR_IO)
            break;
    }
done:
    free(offset);
    free((void *)ys);
    free(cx);
    free(cy);
    free(results);
    return rc;
}

/* The points a member holds of the fit's cloud: none, or its share of the
 * group's; NULL with an error when they are not what the offsets say. */
static const tf_fold_points *held_points(const tf_fold_team *t, const struct team_request *q,
                                         const size_t *offset, tf_error *err)
{
    static const tf_fold_points none = { 0 };
    size_t n = offset[t->rank + 1] - offset[t->rank];
    if (n == 0)
        return &none;
    const struct tf_fold_team_own *own = t->own;
    const tf_fold_points *p = own && q->group < own->ngroups ? &own->groups[q->group].points
                                                               : NULL;
    if (!p || p->n != n) {
        tf_fail(err, TF_ERR_INTERNAL, "fit of group %u: %zu points asked for, %zu held",
                q->group, n, p ? p->n : 0);
        return NULL;
    }
    return p;
}

int team_serve_fit(const tf_fold_team *t, const struct team_request *q, tf_error *err)
{
    size_t n = q->ninst, np = q->npoints, g = q->grid, each = result_bytes(g);
    uint32_t k = q->ncounters;
    size_t at[NPARTS + 1];
    layout(q, t->size, at);
    char *in = malloc(at[NPARTS] + 1), *results = malloc(k * each + 1);
    float *cx = k ? malloc((np + 1) * sizeof *cx) : NULL;
    float *cy = k ? malloc((k * np + 1) * sizeof *cy) : NULL;
    const float **ys = malloc((q->counters + 1) * sizeof *ys);
    int rc = 0;
    if (!in || !results || !ys || (k && (!cx || !cy))) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for a fit of %zu instances and %zu "
                     "samples", n, np);
        goto done;
    }
    const void *src[NPARTS];
    tf_team_part parts[NPARTS];
    for (int i = 0; i < NPARTS; i++)
        src[i] = in + at[i];
    if (t->recvv(t->ctx, 0, parts, instance_parts(q, t->size, src, parts)) < 0) {
        rc = team_lost(err);
        goto done;
    }
    /* The parts are 8-byte aligned in a malloc'ed block. */
    const size_t *offset = (const size_t *)(void *)(in + at[OFFSET]);
    const tf_fold_points *own = held_points(t, q, offset, err);
    if (!own) {
        rc = -TF_ERR_INTERNAL;
        goto done;
    }
    for (uint32_t c = 0; c < q->counters; c++)
        ys[c] = own->n ? own->y + (size_t)c * own->n : NULL;
    struct exchange e = { .offset = offset, .nc = q->counters, .x = own->x, .y = ys, .cx = cx,
                          .cy = cy };
    if (k)
        place_own(&e, t->size, t->rank);
    if ((rc = exchange_points(t, &e, err)) < 0)
        goto done;
    tf_fit_options o = {
        .grid = q->grid, .bootstrap = q->bootstrap, .confidence = q->confidence,
        .seed = q->seed, .window = q->window,
    };
    for (uint32_t i = 0; i < k; i++) {
        char *r_at = results + i * each;
        double *row = (double *)(void *)(r_at + sizeof(struct result));
        tf_fit_output out = {
            .curve = row, .curve_lo = row + g, .curve_hi = row + 2 * g, .rate = row + 3 * g,
            .rate_lo = row + 4 * g, .rate_hi = row + 5 * g,
        };
        uint8_t *valid = (uint8_t *)(in + at[VALID]) + i * n;
        const size_t *first = (const size_t *)(void *)(in + at[FIRST]);
        const float *y = cy + i * np;
        mark_sampled(first, y, n, valid);
        tf_fold_cloud cl = {
            .ninst = n, .rows = (const uint32_t *)(void *)(in + at[ROWS_OF]), .first = first,
            .x = cx, .y = y, .valid = valid,
            .total = (const double *)(void *)(in + at[TOTAL]) + i * n,
            .duration = (const double *)(void *)(in + at[DURATION]),
        };
        tf_error ferr;
        tf_error_clear(&ferr);
        struct result r;
        memset(&r, 0, sizeof r);
        memcpy(&r.counter, in + at[COUNTER] + i * sizeof r.counter, sizeof r.counter);
        r.rc = tf_fit_counter(&cl, (const double *)(void *)(in + at[BOUNDARIES]), q->nb, &o,
                              &out, &ferr);
        r.instances = out.instances;
        r.mean_total = out.mean_total;
        r.mean_duration_ns = out.mean_duration_ns;
        memcpy(r.msg, ferr.msg, sizeof r.msg);
        memcpy(r_at, &r, sizeof r);
    }
    if (k && t->send_idle(t->ctx, 0, results, k * each) < 0)
        rc = team_lost(err);
done:
    free(in);
    free(results);
    free(cx);
    free(cy);
    free((void *)ys);
    return rc;
}
