/* SPDX-License-Identifier: BSD-3-Clause */
/* The requests of a team and their transport: the leader's requests reach
 * a member's serve loop one at a time, in the order sent.  The reading:
 * the leader asks each member in turn for its counts of samples, checks
 * that its share comes from the same trace (instances, counters, their
 * fingerprint) and puts the counts with its own; the member keeps its
 * points (fold_team_points.c).  The end: the leader sends every member the
 * status and waits for each to answer.  The fits are fold_team_fit.c's. */
#include "team_wire.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

int team_lost(tf_error *err)
{
    return tf_fail(err, TF_ERR_IO, "fold: the ranks lost contact");
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

int team_transfer_points(const tf_fold_team *t, int peer, bool send, const tf_fold_points *p,
                         size_t at, size_t n, size_t stride, uint32_t nc, unsigned columns,
                         tf_error *err)
{
    tf_team_part *parts = malloc((NCOLUMNS + nc) * sizeof *parts);
    if (!parts)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory %s %zu folded samples of rank %d",
                       send ? "sending" : "receiving", n, peer);
    size_t m = point_parts(p, at, n, stride, nc, columns, parts);
    int rc = (send ? t->sendv(t->ctx, peer, parts, m) : t->recvv(t->ctx, peer, parts, m)) < 0
                 ? team_lost(err) : 0;
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

/* Member w's counts of samples into in, after its header h (received). */
static int receive_share(const tf_fold_team *t, int w, const struct points_header *h,
                         tf_fold_input *in, tf_error *err)
{
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
    }
    uint32_t accept = rc == 0;
    if (h->rc >= 0 && t->send(t->ctx, w, &accept, sizeof accept) < 0)
        return team_lost(err);
    if (!accept)
        return rc;
    size_t lo, hi;
    tf_fold_share_span(in->share, NULL, in->ninstances, (uint32_t)w, &lo, &hi);
    if (t->recv(t->ctx, w, in->samples + lo, (hi - lo) * sizeof *in->samples) < 0)
        return team_lost(err);
    return 0;
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
            return team_lost(err);
        if (!waiting)
            continue;
        struct points_header h;
        if (team->recv(team->ctx, w, &h, sizeof h) < 0)
            return team_lost(err);
        return member_failure(w, &h, err);
    }
    return 0;
}

int tf_fold_team_gather(const tf_fold_team *team, tf_fold_input *in, tf_error *err)
{
    /* The shares follow the instances (tf_fold_share_span). */
    for (size_t i = 1; i < in->ninstances; i++)
        if (in->share[i] < in->share[i - 1])
            return tf_fail(err, TF_ERR_INTERNAL, "instance %zu of share %u after one of share %u",
                           i, in->share[i], in->share[i - 1]);
    int early = tf_fold_team_early_failure(team, err);
    if (early < 0)
        return early;
    for (int w = 1; w < team->size; w++) {
        struct team_request q = { .command = COMMAND_POINTS };
        struct points_header h;
        if (team->send(team->ctx, w, &q, sizeof q) < 0 ||
            team->recv(team->ctx, w, &h, sizeof h) < 0)
            return team_lost(err);
        int rc = receive_share(team, w, &h, in, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

/* A member's share to the leader: the header, and its counts of samples
 * if the leader accepts them, the member keeping the points. */
static int send_share(tf_fold_team *t, tf_fold_input *share, int share_rc,
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
        return team_lost(err);
    uint32_t accept = 0;
    if (h.rc >= 0 && t->recv(t->ctx, 0, &accept, sizeof accept) < 0)
        return team_lost(err);
    int rc = 0;
    if (accept) {
        size_t lo, hi;
        tf_fold_share_span(share->share, NULL, share->ninstances, (uint32_t)t->rank, &lo, &hi);
        rc = t->send(t->ctx, 0, share->samples + lo, (hi - lo) * sizeof *share->samples) < 0
                 ? team_lost(err)
                 : team_own_share(t, share, err);
    }
    /* Refused, the share is not needed again. */
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
    struct team_request q;
    if (team->recv(team->ctx, 0, &q, sizeof q) < 0 ||
        (q.command != COMMAND_POINTS && q.command != COMMAND_END))
        return -1;
    team->held_command = q.command;
    team->held_status = q.status;
    return q.command == COMMAND_END;
}

int tf_fold_team_end(const tf_fold_team *team, int status)
{
    struct team_request q = { .command = COMMAND_END, .status = status };
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
            if (team->recv(team->ctx, w, &h, sizeof h) < 0)
                return -1;
        } while (!h.ended);
    }
    return 0;
}

int team_lock(const tf_fold_team *t)
{
    return t->lock ? pthread_mutex_lock(t->lock) : 0;
}

void team_unlock(const tf_fold_team *t)
{
    if (t->lock)
        pthread_mutex_unlock(t->lock);
}

int tf_fold_team_call(const tf_fold_team *team, int w, const void *req, size_t bytes,
                      const tf_team_part *reply, size_t n, tf_error *err)
{
    struct team_request q = { .command = COMMAND_CALL };
    if (bytes > sizeof q.call)
        return tf_fail(err, TF_ERR_INTERNAL, "a call of %zu bytes to rank %d", bytes, w);
    memcpy(q.call, req, bytes);
    team_lock(team);
    int rc = team->send(team->ctx, w, &q, sizeof q) < 0 ||
             (n && team->recvv(team->ctx, w, reply, n) < 0) ? team_lost(err) : 0;
    team_unlock(team);
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
        struct team_request q = { .command = team->held_command,
                                  .status = team->held_status };
        team->held_command = 0;
        if (!q.command && team->recv(team->ctx, 0, &q, sizeof q) < 0)
            return team_lost(err);
        if (q.command == COMMAND_END) {
            struct points_header h;
            memset(&h, 0, sizeof h);
            h.ended = 1;
            if (team->send(team->ctx, 0, &h, sizeof h) < 0)
                return team_lost(err);
            return q.status;
        }
        int rc;
        if (q.command == COMMAND_POINTS)
            rc = told ? 0 : send_share(team, share, share_rc, share_err, err);
        else if (q.command == COMMAND_FIT)
            rc = team_serve_fit(team, &q, err);
        else if (q.command == COMMAND_PART)
            rc = team_send_kept(team, &q, err);
        else if (q.command >= COMMAND_OBSERVER && q.command <= COMMAND_SELECT)
            rc = team_serve_points(team, &q, err);
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
    team_own_free(team);
    return status;
}
