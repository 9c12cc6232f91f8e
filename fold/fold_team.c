/* SPDX-License-Identifier: BSD-3-Clause */
/* The reading and the fits shared by a team.  Points: the leader asks each
 * member in turn for its share, checks that it comes from the same trace
 * (instances, counters, their fingerprint, room) and receives its
 * columns into place, in one transfer.  Fits: for each member that
 * has counters, the leader sends one message set: a header, the arrays
 * every counter shares (instances, normalised times, boundaries) and each
 * of the member's counters (validity, totals, values); it fits its own
 * counters meanwhile, then receives the members' results, one buffer each.
 * A member holds the clouds of its counters of one fit at a time (4 bytes
 * a point, plus 4 a point for each of its counters), never the trace.
 * Spread: once folded, the leader sends each member its run of every
 * group's points (a KEEP each) and asks for them back a chunk at a time
 * (a PART each) while the outputs are written; calls of the caller's own
 * (the synthetic trace's ordering) go to the member's handler. */
#include "fold_team.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

enum command {
    COMMAND_FIT = 1, COMMAND_END = 2, COMMAND_POINTS = 3,
    COMMAND_KEEP = 4,    /* the leader hands a member its points of a group */
    COMMAND_PART = 5,    /* and asks for them back, to write them */
    COMMAND_CALL = 6,    /* a request of the caller's own (tf_fold_team_call) */
};

/* What precedes a fit's arrays: fixed-width fields, the same build on
 * every member (mpirun starts one binary). */
struct request {
    uint32_t command;
    int32_t  status;           /* COMMAND_END: the exit status */
    uint64_t ninst, npoints, nb;
    uint32_t ncounters;        /* the member's */
    uint32_t grid, bootstrap;
    double   confidence, window;
    uint64_t seed;
    uint32_t group;            /* COMMAND_KEEP, COMMAND_PART */
    uint32_t columns;          /* COMMAND_PART: enum tf_fold_column */
    uint8_t  call[TF_TEAM_CALL_BYTES];
};

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

static int lost(tf_error *err)
{
    return tf_fail(err, TF_ERR_IO, "fit: the ranks lost contact");
}

/* The arrays of a fit, in the order they travel; k: the member's counters.
 * The member receives them into one buffer, each at a multiple of 8
 * bytes. */
enum part { ROWS_OF, FIRST, DURATION, BOUNDARIES, X, COUNTER, VALID, TOTAL, Y, NPARTS };

static void part_bytes(const struct request *q, size_t bytes[NPARTS])
{
    size_t n = q->ninst, np = q->npoints, k = q->ncounters;
    const size_t b[NPARTS] = {
        [ROWS_OF] = n * sizeof(uint32_t), [FIRST] = (n + 1) * sizeof(size_t),
        [DURATION] = n * sizeof(double), [BOUNDARIES] = q->nb * sizeof(double),
        [X] = np * sizeof(float), [COUNTER] = k * sizeof(uint32_t), [VALID] = k * n,
        [TOTAL] = k * n * sizeof(double), [Y] = k * np * sizeof(float),
    };
    memcpy(bytes, b, sizeof b);
}

/* Offsets of the parts in the member's buffer; at[NPARTS] is its size. */
static void layout(const struct request *q, size_t at[NPARTS + 1])
{
    size_t bytes[NPARTS];
    part_bytes(q, bytes);
    at[0] = 0;
    for (int i = 0; i < NPARTS; i++)
        at[i + 1] = at[i] + (bytes[i] + 7) / 8 * 8;
}

/* The message of a fit as parts (room for NPARTS - 1 + k): those before Y
 * from src, the values of the member's counter i from y[i], one part
 * each.  Returns the number of parts. */
static size_t fit_parts(const struct request *q, const void *const src[Y], const void *const *y,
                        tf_team_part *parts)
{
    size_t bytes[NPARTS], n = 0;
    part_bytes(q, bytes);
    for (int i = 0; i < Y; i++)
        parts[n++] = (tf_team_part){ src[i], bytes[i] };
    for (uint32_t i = 0; i < q->ncounters; i++)
        parts[n++] = (tf_team_part){ y[i], q->npoints * sizeof(float) };
    return n;
}

/* The request and the clouds of member w's counters: two transfers, so
 * that a busy machine, where each hand-over may wait for a time slice,
 * costs two waits, not one per array.  The normalised times and the
 * counters' values are sent from the points themselves; the validity and
 * totals are copied, as the view's slot is rewritten for each counter. */
static int send_fit(const tf_fold_team *t, int w, uint32_t nc, tf_fold_view view, void *arg,
                    const double *bd, size_t nb, const tf_fit_options *o, tf_error *err)
{
    tf_fold_cloud cl;
    view(arg, 0, (uint32_t)w, &cl);
    size_t n = cl.ninst, np = cl.first[n];
    struct request q = {
        .command = COMMAND_FIT, .ninst = n, .npoints = np, .nb = nb,
        .ncounters = counters_of(w, t->size, nc), .grid = o->grid, .bootstrap = o->bootstrap,
        .confidence = o->confidence, .window = o->window, .seed = o->seed,
    };
    size_t k = q.ncounters;
    const tf_fold_cloud shared = cl;
    double *total = malloc((k * n + n + 1) * sizeof *total);
    uint32_t *ids = malloc((k + 1) * sizeof *ids);
    uint8_t *valid = malloc(k * n + 1);
    const void **y = malloc((k + 1) * sizeof *y);
    tf_team_part *parts = malloc((NPARTS + k) * sizeof *parts);
    int rc = 0;
    if (!total || !ids || !valid || !y || !parts) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for the input of rank %d", w);
        goto done;
    }
    double *duration = total + k * n;
    memcpy(duration, cl.duration, n * sizeof *duration);
    size_t i = 0;
    for (uint32_t c = (uint32_t)w; c < nc; c += (uint32_t)t->size, i++) {
        view(arg, 0, c, &cl);
        ids[i] = c;
        memcpy(valid + i * n, cl.valid, n);
        memcpy(total + i * n, cl.total, n * sizeof *total);
        y[i] = cl.y;
    }
    const void *src[Y] = {
        [ROWS_OF] = shared.rows, [FIRST] = shared.first, [DURATION] = duration,
        [BOUNDARIES] = bd, [X] = shared.x, [COUNTER] = ids, [VALID] = valid, [TOTAL] = total,
    };
    size_t nparts = fit_parts(&q, src, y, parts);
    if (t->send(t->ctx, w, &q, sizeof q) < 0 || t->sendv(t->ctx, w, parts, nparts) < 0)
        rc = lost(err);
done:
    free(total);
    free(ids);
    free(valid);
    free(y);
    free(parts);
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
        return lost(err);
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

int tf_fold_team_fit(const tf_fold_team *team, uint32_t nc, unsigned threads,
                     tf_fold_view view, void *view_arg,
                     const double *boundaries, size_t nb, const tf_fit_options *o,
                     tf_fit_output *out, tf_error *err)
{
    int size = team ? team->size : 1;
    int helpers = (int)nc < size ? (int)nc : size;   /* members with counters, the leader too */
    int sent = 1, rc = 0;
    /* Room for the results before any request: a member that has one must
     * be able to hand its results over. */
    char *results = NULL;
    if (helpers > 1 &&
        !(results = malloc(counters_of(1, size, nc) * result_bytes(o->grid) + 1)))
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the results of the other ranks");
    while (sent < helpers &&
           (rc = send_fit(team, sent, nc, view, view_arg, boundaries, nb, o, err)) == 0)
        sent++;
    if (rc == 0)
        rc = tf_fit_counters(0, (uint32_t)size, nc, threads, view, view_arg, boundaries, nb, o,
                             out, err);
    /* Every member that has the request sends its results, also after a
     * failure here: received, it is free for the end of the team. */
    for (int w = 1; w < sent; w++) {
        tf_error werr;
        int wrc = receive_results(team, w, nc, o->grid, results, out, rc < 0 ? &werr : err);
        if (rc == 0 || wrc == -TF_ERR_IO)
            rc = wrc;
        if (wrc == -TF_ERR_IO)
            break;
    }
    free(results);
    return rc;
}

/* One fit as a member: every counter it was given, then the results. */
static int serve_fit(const tf_fold_team *t, const struct request *q, tf_error *err)
{
    size_t n = q->ninst, np = q->npoints, g = q->grid, each = result_bytes(g);
    size_t at[NPARTS + 1];
    layout(q, at);
    char *in = malloc(at[NPARTS] + 1), *results = malloc(q->ncounters * each + 1);
    const void **y = malloc((q->ncounters + 1) * sizeof *y);
    tf_team_part *parts = malloc((NPARTS + q->ncounters) * sizeof *parts);
    int rc = 0;
    if (!in || !results || !y || !parts) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for a fit of %zu instances and %zu "
                     "samples", n, np);
    } else {
        const void *src[Y];
        for (int i = 0; i < Y; i++)
            src[i] = in + at[i];
        for (uint32_t i = 0; i < q->ncounters; i++)
            y[i] = in + at[Y] + i * np * sizeof(float);
        if (t->recvv(t->ctx, 0, parts, fit_parts(q, src, y, parts)) < 0)
            rc = lost(err);
    }
    free(y);
    free(parts);
    tf_fit_options o = {
        .grid = q->grid, .bootstrap = q->bootstrap, .confidence = q->confidence,
        .seed = q->seed, .window = q->window,
    };
    for (size_t i = 0; rc == 0 && i < q->ncounters; i++) {
        char *r_at = results + i * each;
        double *row = (double *)(void *)(r_at + sizeof(struct result));
        tf_fit_output out = {
            .curve = row, .curve_lo = row + g, .curve_hi = row + 2 * g, .rate = row + 3 * g,
            .rate_lo = row + 4 * g, .rate_hi = row + 5 * g,
        };
        /* The parts are 8-byte aligned in a malloc'ed block. */
        tf_fold_cloud cl = {
            .ninst = n, .rows = (const uint32_t *)(void *)(in + at[ROWS_OF]),
            .first = (const size_t *)(void *)(in + at[FIRST]),
            .x = (const float *)(void *)(in + at[X]),
            .y = (const float *)(void *)(in + at[Y]) + i * np,
            .valid = (const uint8_t *)(in + at[VALID]) + i * n,
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
    if (rc == 0 && t->send_idle(t->ctx, 0, results, q->ncounters * each) < 0)
        rc = lost(err);
    free(in);
    free(results);
    return rc;
}

/* A member's answer to COMMAND_POINTS: what it extracted, or why not. */
struct points_header {
    int32_t  rc;
    uint32_t ended;           /* 1: the member's answer to the end (no share) */
    uint32_t ncounters;
    uint64_t ninstances, npoints;
    uint64_t fingerprint;     /* tf_fold_input's */
    char     msg[TF_ERROR_MSG_MAX];
};

/* The columns of n points of p from `at` as parts, in the order they
 * travel, y rows `stride` apart after the others (room for NCOLUMNS + nc
 * parts), those of `columns` (enum tf_fold_column) only.  Returns the
 * number of parts. */
enum { NCOLUMNS = 7 };

static size_t point_parts(const tf_fold_points *p, size_t at, size_t n, size_t stride,
                          uint32_t nc, unsigned columns, tf_team_part *parts)
{
    const tf_team_part c[NCOLUMNS] = {
        { p->instance + at, n * sizeof *p->instance }, { p->x + at, n * sizeof *p->x },
        { p->kind + at, n * sizeof *p->kind }, { p->ip + at, n * sizeof *p->ip },
        { p->addr + at, n * sizeof *p->addr }, { p->level + at, n * sizeof *p->level },
        { p->weight + at, n * sizeof *p->weight },
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

/* n points of p from `at`, y rows `stride` apart, those of `columns`,
 * sent to peer (send) or received from it into p, in one transfer. */
static int transfer_points(const tf_fold_team *t, int peer, bool send, const tf_fold_points *p,
                           size_t at, size_t n, size_t stride, uint32_t nc, unsigned columns,
                           tf_error *err)
{
    tf_team_part *parts = malloc((NCOLUMNS + nc) * sizeof *parts);
    if (!parts)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory %s %zu folded samples of rank %d",
                       send ? "sending" : "receiving", n, peer);
    size_t m = point_parts(p, at, n, stride, nc, columns, parts);
    int rc = (send ? t->sendv(t->ctx, peer, parts, m) : t->recvv(t->ctx, peer, parts, m)) < 0
                 ? lost(err) : 0;
    free(parts);
    return rc;
}

/* The error of member w, whose header h says it could not read. */
static int member_failure(int w, const struct points_header *h, tf_error *err)
{
    char msg[TF_ERROR_MSG_MAX];
    memcpy(msg, h->msg, sizeof msg);
    msg[sizeof msg - 1] = '\0';
    return tf_fail(err, h->rc < 0 ? -h->rc : TF_ERR_INTERNAL, "rank %d: %s", w, msg);
}

/* Member w's share into in, after its header h (received). */
static int receive_share(const tf_fold_team *t, int w, const struct points_header *h,
                         tf_fold_input *in, tf_error *err)
{
    size_t at = 0;
    int rc = 0;
    if (h->rc < 0) {
        rc = member_failure(w, h, err);
    } else if (h->ninstances != in->ninstances || h->ncounters != in->ncounters) {
        rc = tf_fail(err, TF_ERR_FORMAT, "rank %d read %llu instances of %u counters, rank 0 "
                     "%zu of %u: every rank must read the same trace", w,
                     (unsigned long long)h->ninstances, h->ncounters, in->ninstances,
                     in->ncounters);
    } else if (h->fingerprint != in->fingerprint) {
        rc = tf_fail(err, TF_ERR_FORMAT, "rank %d read another trace than rank 0 (as many "
                     "instances and counters, but other times, counts or names): every rank "
                     "must read the same trace", w);
    } else {
        rc = tf_fold_input_room(in, h->npoints, &at, err);
        if (rc < 0)
            tf_error_prefix(err, "rank %d: ", w);
    }
    uint32_t accept = rc == 0;
    if (h->rc >= 0 && t->send(t->ctx, w, &accept, sizeof accept) < 0)
        return lost(err);
    if (!accept)
        return rc;
    return transfer_points(t, w, false, &in->points, at, h->npoints, in->stride, in->ncounters,
                           TF_FOLD_COL_ALL, err);
}

int tf_fold_team_member_failed(const tf_fold_team *team)
{
    return team->pending(team->ctx, TF_TEAM_ANY);
}

int tf_fold_team_early_failure(const tf_fold_team *team, tf_error *err)
{
    /* A member sends nothing unasked but the word that it failed. */
    for (int w = 1; w < team->size; w++) {
        int waiting = team->pending(team->ctx, w);
        if (waiting < 0)
            return lost(err);
        if (!waiting)
            continue;
        struct points_header h;
        if (team->recv(team->ctx, w, &h, sizeof h) < 0)
            return lost(err);
        return member_failure(w, &h, err);
    }
    return 0;
}

int tf_fold_team_gather(const tf_fold_team *team, tf_fold_input *in, tf_error *err)
{
    int early = tf_fold_team_early_failure(team, err);
    if (early < 0)
        return early;
    for (int w = 1; w < team->size; w++) {
        struct request q = { .command = COMMAND_POINTS };
        struct points_header h;
        if (team->send(team->ctx, w, &q, sizeof q) < 0 ||
            team->recv_idle(team->ctx, w, &h, sizeof h) < 0)
            return lost(err);
        int rc = receive_share(team, w, &h, in, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* A member's share to the leader: the header, and the columns if the
 * leader accepts them. */
static int send_share(const tf_fold_team *t, tf_fold_input *share, int share_rc,
                      const tf_error *share_err, tf_error *err)
{
    struct points_header h;
    memset(&h, 0, sizeof h);
    tf_error none;
    if (share_rc >= 0 && !share) {
        share_rc = tf_fail(&none, TF_ERR_INTERNAL, "no share of the points extracted");
        share_err = &none;
    }
    h.rc = share_rc;
    if (share_rc < 0) {
        memcpy(h.msg, share_err->msg, sizeof h.msg);
    } else {
        h.ncounters = share->ncounters;
        h.ninstances = share->ninstances;
        h.npoints = share->points.n;
        h.fingerprint = share->fingerprint;
    }
    if (t->send(t->ctx, 0, &h, sizeof h) < 0)
        return lost(err);
    uint32_t accept = 0;
    if (h.rc >= 0 && t->recv(t->ctx, 0, &accept, sizeof accept) < 0)
        return lost(err);
    int rc = 0;
    if (accept)
        rc = transfer_points(t, 0, true, &share->points, 0, h.npoints, share->stride,
                             share->ncounters, TF_FOLD_COL_ALL, err);
    /* Sent or refused, the share is not needed again. */
    if (share)
        tf_fold_input_free(share);
    return rc;
}

int tf_fold_team_ended(tf_fold_team *team)
{
    if (team->held_command)
        return team->held_command == COMMAND_END;
    int waiting = team->pending(team->ctx, 0);
    if (waiting <= 0)
        return waiting;
    /* Before the share is asked for, only that request or the end can
     * come; either is kept for tf_fold_team_serve. */
    struct request q;
    if (team->recv(team->ctx, 0, &q, sizeof q) < 0 ||
        (q.command != COMMAND_POINTS && q.command != COMMAND_END))
        return -1;
    team->held_command = q.command;
    team->held_status = q.status;
    return q.command == COMMAND_END;
}

int tf_fold_team_end(const tf_fold_team *team, int status)
{
    struct request q = { .command = COMMAND_END, .status = status };
    for (int w = 1; w < team->size; w++)
        if (team->send(team->ctx, w, &q, sizeof q) < 0)
            return -1;
    /* Each member answers the end.  A failure it sent unasked, which the
     * leader ended without needing, comes first and is received here: so
     * its send completes whatever the transport (one that waits for the
     * receiver, beyond an eager limit, would otherwise hang the member). */
    for (int w = 1; w < team->size; w++) {
        struct points_header h;
        do {
            if (team->recv_idle(team->ctx, w, &h, sizeof h) < 0)
                return -1;
        } while (!h.ended);
    }
    return 0;
}

/* ---- the points handed back (tf_fold_team_spread) ---------------------- */

static int lock(const tf_fold_team *t)
{
    return t->lock ? pthread_mutex_lock(t->lock) : 0;
}

static void unlock(const tf_fold_team *t)
{
    if (t->lock)
        pthread_mutex_unlock(t->lock);
}

/* On a member: group q->group's points, q->npoints of q->ncounters. */
static int keep_part(tf_fold_team *t, const struct request *q, tf_error *err)
{
    if (q->group >= t->nkept) {
        tf_fold_points *grown = realloc(t->kept, (q->group + 1) * sizeof *grown);
        if (!grown)
            return tf_fail(err, TF_ERR_NOMEM, "out of memory for the points of group %u",
                           q->group);
        memset(grown + t->nkept, 0, (q->group + 1 - t->nkept) * sizeof *grown);
        t->kept = grown;
        t->nkept = q->group + 1;
    }
    tf_fold_points *p = &t->kept[q->group];
    tf_fold_points_free(p);
    int rc = tf_fold_points_alloc(p, q->npoints, q->ncounters, err);
    t->kept_counters = q->ncounters;
    return rc < 0 ? rc
                  : transfer_points(t, 0, false, p, 0, p->n, p->n, q->ncounters,
                                    TF_FOLD_COL_ALL, err);
}

const tf_fold_points *tf_fold_team_kept(const tf_fold_team *team, uint32_t g)
{
    static const tf_fold_points none = { 0 };
    return g < team->nkept ? &team->kept[g] : &none;
}

/* On a member: points [q->ninst, q->ninst + q->npoints) of its points of
 * group q->group, back to the leader. */
static int send_kept(const tf_fold_team *t, const struct request *q, tf_error *err)
{
    const tf_fold_points *p = tf_fold_team_kept(t, q->group);
    if (q->ninst > p->n || q->npoints > p->n - q->ninst)
        return tf_fail(err, TF_ERR_INTERNAL, "points %llu to %llu of group %u asked for, of %zu",
                       (unsigned long long)q->ninst,
                       (unsigned long long)(q->ninst + q->npoints), q->group, p->n);
    return transfer_points(t, 0, true, p, q->ninst, q->npoints, p->n, t->kept_counters,
                           q->columns, err);
}

/* The members' points of a group travel back in chunks of at most this
 * many (4 MB at 8 counters), so that the leader holds one at a time. */
#define SPREAD_CHUNK 65536

/* On the leader: group g's points as parts: its own first, then chunks
 * of the members' points, each taken from its member when a consumer
 * takes it. */
struct spread_chunk {
    int rank;
    size_t from, n;
};

struct spread_group {
    tf_fold_parts parts;
    const tf_fold_team *team;
    const tf_fold_points *own;   /* the leader's, part 0 */
    uint32_t group, ncounters;
    struct spread_chunk *chunk;  /* [parts.n]: chunk[0] unused */
};

struct spread {
    uint32_t n;
    struct spread_group *g;
};

static int take_part(void *ctx, size_t k, unsigned columns, tf_fold_points *p, tf_error *err)
{
    const struct spread_group *sg = ctx;
    if (k == 0) {
        *p = *sg->own;
        return 0;
    }
    const tf_fold_team *t = sg->team;
    const struct spread_chunk *c = &sg->chunk[k];
    int rc = tf_fold_points_alloc(p, c->n, sg->ncounters, err);
    if (rc < 0)
        return rc;
    struct request q = { .command = COMMAND_PART, .group = sg->group, .ninst = c->from,
                         .npoints = c->n, .columns = columns };
    lock(t);
    rc = t->send(t->ctx, c->rank, &q, sizeof q) < 0
             ? lost(err)
             : transfer_points(t, c->rank, false, p, 0, p->n, p->n, sg->ncounters, columns, err);
    unlock(t);
    if (rc < 0)
        tf_fold_points_free(p);
    return rc;
}

static void release_part(void *ctx, size_t k, tf_fold_points *p)
{
    (void)ctx;
    if (k > 0)
        tf_fold_points_free(p);
}

static void spread_free(void *owner)
{
    struct spread *sp = owner;
    if (!sp)
        return;
    for (uint32_t g = 0; sp->g && g < sp->n; g++)
        free(sp->g[g].chunk);
    free(sp->g);
    free(sp);
}

/* Hands member w its count points of group g from p, at `at`. */
static int hand_over(const tf_fold_team *team, int w, uint32_t g, const tf_fold_points *p,
                     size_t at, size_t count, uint32_t nc, tf_error *err)
{
    struct request q = { .command = COMMAND_KEEP, .group = g, .npoints = count,
                         .ncounters = nc };
    if (team->send(team->ctx, w, &q, sizeof q) < 0)
        return lost(err);
    return transfer_points(team, w, true, p, at, count, p->n, nc, TF_FOLD_COL_ALL, err);
}

/* Group g's spread: its points counted by share, each member's handed
 * over, the leader's kept, the chunks listed. */
static int spread_group(const tf_fold_team *team, tf_fold_group *grp, uint32_t g, uint32_t nc,
                        const uint32_t *share, struct spread_group *sg, tf_error *err)
{
    tf_fold_points *p = &grp->points;
    size_t size = (size_t)team->size, n = p->n;
    size_t *count = calloc(size, sizeof *count);
    if (!count)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory spreading the points");
    int rc = 0;
    /* By instance, whose shares follow one another: each member's points
     * are one run, the leader's first. */
    for (size_t i = 0; i < n && rc == 0; i++) {
        uint32_t w = share[p->instance[i]];
        if (w >= size || (i > 0 && w < share[p->instance[i - 1]]))
            rc = tf_fail(err, TF_ERR_INTERNAL, "group %u: point %zu of share %u after one of "
                         "share %u", g, i, w, i > 0 ? share[p->instance[i - 1]] : 0);
        else
            count[w]++;
    }
    size_t nchunks = 1;
    for (size_t w = 1; w < size; w++)
        nchunks += (count[w] + SPREAD_CHUNK - 1) / SPREAD_CHUNK;
    *sg = (struct spread_group){
        .parts = { .n = nchunks, .npoints = n, .take = take_part, .release = release_part },
        .team = team, .own = p, .group = g, .ncounters = nc,
        .chunk = calloc(nchunks, sizeof *sg->chunk),
    };
    sg->parts.ctx = sg;
    if (rc == 0 && !sg->chunk)
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory spreading the points");
    size_t k = 1;
    for (size_t w = 1, at = count[0]; w < size && rc == 0; at += count[w], w++) {
        if (count[w] && (rc = hand_over(team, (int)w, g, p, at, count[w], nc, err)) < 0)
            break;
        for (size_t from = 0; from < count[w]; from += SPREAD_CHUNK, k++) {
            size_t len = count[w] - from < SPREAD_CHUNK ? count[w] - from : SPREAD_CHUNK;
            sg->chunk[k] = (struct spread_chunk){ (int)w, from, len };
        }
    }
    if (rc == 0) {
        tf_fold_points_shrink(p, count[0], n, nc);
        grp->parts = &sg->parts;
    }
    free(count);
    return rc;
}

int tf_fold_team_spread(const tf_fold_team *team, tf_fold_result *res, const uint32_t *share,
                        tf_error *err)
{
    tf_fold_region *r = &res->regions[0];
    struct spread *sp = calloc(1, sizeof *sp);
    if (sp)
        sp->g = calloc(r->ngroups + 1, sizeof *sp->g);
    if (!sp || !sp->g) {
        spread_free(sp);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory spreading the points");
    }
    sp->n = r->ngroups;
    res->parts_owner = sp;
    res->parts_free = spread_free;
    int rc = 0;
    for (uint32_t g = 0; g < r->ngroups && rc == 0; g++)
        rc = spread_group(team, &r->groups[g], g, r->ncounters, share, &sp->g[g], err);
#ifdef __GLIBC__
    /* The others' points were most of the heap: give their pages back
     * (glibc keeps freed memory in the middle of its heap resident). */
    malloc_trim(0);
#endif
    return rc;
}

int tf_fold_team_call(const tf_fold_team *team, int w, const void *req, size_t bytes,
                      const tf_team_part *reply, size_t n, tf_error *err)
{
    struct request q = { .command = COMMAND_CALL };
    if (bytes > sizeof q.call)
        return tf_fail(err, TF_ERR_INTERNAL, "a call of %zu bytes to rank %d", bytes, w);
    memcpy(q.call, req, bytes);
    lock(team);
    int rc = team->send(team->ctx, w, &q, sizeof q) < 0 ||
             (n && team->recvv(team->ctx, w, reply, n) < 0) ? lost(err) : 0;
    unlock(team);
    return rc;
}

static int serve_requests(tf_fold_team *team, tf_fold_input *share, int share_rc,
                          const tf_error *share_err, const tf_fold_team_handler *handler,
                          tf_error *err)
{
    /* A member that could not read says so at once, unasked, so that the
     * leader stops reading its own share (tf_fold_team_member_failed); not
     * when the leader has asked already, or ended the team.  A leader that
     * ends the team meanwhile receives it before the answer to the end. */
    bool told = false;
    if (share_rc < 0 && !team->held_command) {
        int rc = send_share(team, share, share_rc, share_err, err);
        if (rc < 0)
            return rc;
        share = NULL;
        told = true;
    }
    for (;;) {
        struct request q = { .command = team->held_command, .status = team->held_status };
        team->held_command = 0;
        if (!q.command && team->recv_idle(team->ctx, 0, &q, sizeof q) < 0)
            return lost(err);
        if (q.command == COMMAND_END) {
            struct points_header h;
            memset(&h, 0, sizeof h);
            h.ended = 1;
            if (team->send(team->ctx, 0, &h, sizeof h) < 0)
                return lost(err);
            return q.status;
        }
        int rc;
        if (q.command == COMMAND_POINTS)
            rc = told ? 0 : send_share(team, share, share_rc, share_err, err);
        else if (q.command == COMMAND_FIT)
            rc = serve_fit(team, &q, err);
        else if (q.command == COMMAND_KEEP)
            rc = keep_part(team, &q, err);
        else if (q.command == COMMAND_PART)
            rc = send_kept(team, &q, err);
        else if (q.command == COMMAND_CALL && handler)
            rc = handler->call(handler->arg, team, q.call, err);
        else
            return tf_fail(err, TF_ERR_INTERNAL, "fold team: unknown request %u from rank 0",
                           q.command);
        if (rc < 0)
            return rc;
    }
}

int tf_fold_team_serve(tf_fold_team *team, tf_fold_input *share, int share_rc,
                       const tf_error *share_err, const tf_fold_team_handler *handler,
                       tf_error *err)
{
    int status = serve_requests(team, share, share_rc, share_err, handler, err);
    for (uint32_t g = 0; g < team->nkept; g++)
        tf_fold_points_free(&team->kept[g]);
    free(team->kept);
    team->kept = NULL;
    team->nkept = 0;
    return status;
}
