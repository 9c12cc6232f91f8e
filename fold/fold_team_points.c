/* SPDX-License-Identifier: BSD-3-Clause */
/* The points each member of a team holds: its share, read by itself, never
 * sent whole.  The leader folds with the instances, and each step that
 * needs the points asks the members for what it needs of theirs: the
 * recording's cost is taken out of each share alike; each group's members
 * are taken from each share; the first fit's instances (at most a
 * thousand) are fetched; each member measures its instances' deviations
 * from the first fit's curves; the members the shape rule keeps are kept
 * on every rank; the fits take the points from where they lie
 * (fold_team_fit.c).  The outputs then take each group's points a part at
 * a time: the leader's own, then chunks of each member's, asked for when
 * a consumer takes them. */
#include "team_wire.h"

#include <stdlib.h>
#include <string.h>

#include "observer.h"
#include "preempt.h"

/* ---- the leader's requests ---------------------------------------------- */

/* Sends q and its arrays (parts) to every member. */
static int send_all(const tf_fold_team *t, const struct team_request *q,
                    const tf_team_part *parts, size_t n, tf_error *err)
{
    for (int w = 1; w < t->size; w++)
        if (t->send(t->ctx, w, q, sizeof *q) < 0 || t->sendv(t->ctx, w, parts, n) < 0)
            return tf_team_lost(err);
    return 0;
}

int tf_fold_team_observer(const tf_fold_team *team, const tf_fold_region *r, tf_error *err)
{
    struct team_request q = { .command = COMMAND_OBSERVER, .ncounters = r->ncounters };
    /* the CPU-time column by the leader, whose region has the counters'
     * names (a member's share's were the trace's, closed by now); every
     * share has the same columns */
    int32_t cpu = tf_fold_cpu_time_counter(r);
    tf_team_part parts[] = { { r->observer_events, r->ncounters * sizeof(double) },
                             { &r->observer_ns, sizeof r->observer_ns },
                             { &cpu, sizeof cpu } };
    return send_all(team, &q, parts, 3, err);
}

int tf_fold_team_group(const tf_fold_team *team, uint32_t g, uint32_t ngroups,
                       const uint32_t *rows, size_t n, tf_error *err)
{
    struct team_request q = { .command = COMMAND_GROUP, .group = g, .ngroups = ngroups,
                              .ninst = n };
    tf_team_part part = { rows, n * sizeof *rows };
    return send_all(team, &q, &part, 1, err);
}

int tf_fold_team_select(const tf_fold_team *team, uint32_t g, const uint8_t *keep, size_t n,
                        tf_error *err)
{
    struct team_request q = { .command = COMMAND_SELECT, .group = g, .ninst = n };
    tf_team_part part = { keep, n };
    return send_all(team, &q, &part, 1, err);
}

int tf_fold_team_fetch(const tf_fold_team *team, uint32_t g, const size_t *pick,
                       const size_t *span, uint32_t nc, tf_fold_members *sub, tf_error *err)
{
    for (int w = 1; w < team->size; w++) {
        size_t lo = span[w], hi = span[w + 1];
        if (hi == lo)
            continue;
        size_t at = sub->first[lo], n = sub->first[hi] - at;
        struct team_request q = { .command = COMMAND_FETCH, .group = g, .ninst = hi - lo,
                                  .npoints = n, .ncounters = nc };
        tf_team_part part = { pick + lo, (hi - lo) * sizeof *pick };
        if (team->send(team->ctx, w, &q, sizeof q) < 0 || team->sendv(team->ctx, w, &part, 1) < 0)
            return tf_team_lost(err);
        int rc = tf_team_transfer_points(team, w, false, &sub->points, at, n, sub->points.n, nc,
                                         TF_FOLD_COL_ALL, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int tf_fold_team_ask_deviations(const tf_fold_team *team, uint32_t g, const double *curves,
                                uint32_t nc, uint32_t grid, const size_t *span, tf_error *err)
{
    for (int w = 1; w < team->size; w++) {
        if (span[w + 1] == span[w])
            continue;
        struct team_request q = { .command = COMMAND_DEVIATE, .group = g, .ncounters = nc,
                                  .grid = grid, .ninst = span[w + 1] - span[w] };
        tf_team_part part = { curves, (size_t)nc * grid * sizeof *curves };
        if (team->send(team->ctx, w, &q, sizeof q) < 0 || team->sendv(team->ctx, w, &part, 1) < 0)
            return tf_team_lost(err);
    }
    return 0;
}

int tf_fold_team_take_deviations(const tf_fold_team *team, uint32_t nc, size_t n,
                                 const size_t *span, double *dev, tf_error *err)
{
    tf_team_part *parts = malloc((nc + 1) * sizeof *parts);
    if (!parts)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the deviations");
    int rc = 0;
    for (int w = 1; w < team->size && rc == 0; w++) {
        size_t lo = span[w], len = span[w + 1] - lo;
        if (len == 0)
            continue;
        for (uint32_t c = 0; c < nc; c++)
            parts[c] = (tf_team_part){ dev + (size_t)c * n + lo, len * sizeof *dev };
        if (team->recvv(team->ctx, w, parts, nc) < 0)
            rc = tf_team_lost(err);
    }
    free(parts);
    return rc;
}

/* ---- a member's side ----------------------------------------------------- */

int tf_team_own_share(tf_fold_team *t, tf_fold_input *share, tf_error *err)
{
    struct tf_fold_team_own *own = calloc(1, sizeof *own);
    if (!own)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the share");
    t->own = own;
    own->share = *share;
    memset(share, 0, sizeof *share);
    tf_fold_input *in = &own->share;
    own->all = (tf_fold_members){ .n = in->ninstances, .first = in->first_point,
                                  .points = in->points,
                                  .rows = malloc((in->ninstances + 1) * sizeof *own->all.rows) };
    in->first_point = NULL;
    memset(&in->points, 0, sizeof in->points);
    if (!own->all.rows)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the share");
    for (size_t i = 0; i < own->all.n; i++)
        own->all.rows[i] = (uint32_t)i;
    int rc = tf_fold_region_instances(&own->region, in, err);
    /* The region has the instances now; the share keeps only which share
     * each instance is in. */
    free(in->instances);
    free(in->samples);
    in->instances = NULL;
    in->samples = NULL;
    return rc;
}

void tf_team_own_free(tf_fold_team *t)
{
    struct tf_fold_team_own *own = t->own;
    if (!own)
        return;
    tf_fold_members_free(&own->all);
    for (uint32_t g = 0; own->groups && g < own->ngroups; g++)
        tf_fold_members_free(&own->groups[g]);
    free(own->groups);
    tf_fold_region_clear(&own->region);
    tf_fold_input_free(&own->share);
    free(own);
    t->own = NULL;
}

/* Receives n bytes of a request's array into a new block (*buf). */
static int receive_array(const tf_fold_team *t, size_t bytes, void **buf, tf_error *err)
{
    if (!(*buf = malloc(bytes + 1)))
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for a request of %zu bytes", bytes);
    tf_team_part part = { *buf, bytes };
    return t->recvv(t->ctx, 0, &part, 1) < 0 ? tf_team_lost(err) : 0;
}

static int serve_observer(const tf_fold_team *t, struct tf_fold_team_own *own,
                          const struct team_request *q, tf_error *err)
{
    tf_fold_region *r = &own->region;
    free(r->observer_events);
    if (q->ncounters != r->ncounters ||
        !(r->observer_events = calloc(r->ncounters + 1, sizeof *r->observer_events)))
        return tf_fail(err, TF_ERR_INTERNAL, "the recording's cost of %u counters, of %u",
                       q->ncounters, r->ncounters);
    int32_t cpu;
    tf_team_part parts[] = { { r->observer_events, r->ncounters * sizeof(double) },
                             { &r->observer_ns, sizeof r->observer_ns },
                             { &cpu, sizeof cpu } };
    if (t->recvv(t->ctx, 0, parts, 3) < 0)
        return tf_team_lost(err);
    if (cpu < -1 || cpu >= (int32_t)r->ncounters)
        return tf_fail(err, TF_ERR_INTERNAL, "the CPU-time counter %d of %u", (int)cpu,
                       r->ncounters);
    tf_fold_observer_apply(r, cpu, own->all.first, &own->all.points);
    /* The instances were for the cost only (a few dozen bytes each, of
     * every share's). */
    tf_fold_region_clear(r);
    return 0;
}

static int serve_group(struct tf_fold_team_own *own, const struct team_request *q, void *rows,
                       tf_error *err)
{
    if (!own->groups) {
        if (!(own->groups = calloc(q->ngroups + 1, sizeof *own->groups)))
            return tf_fail(err, TF_ERR_NOMEM, "out of memory for %u groups", q->ngroups);
        own->ngroups = q->ngroups;
    }
    if (q->group >= own->ngroups)
        return tf_fail(err, TF_ERR_INTERNAL, "group %u of %u", q->group, own->ngroups);
    int rc = tf_fold_members_gather(&own->all, rows, q->ninst, own->ngroups == 1,
                                    own->share.ncounters, &own->groups[q->group], err);
    /* Once the last group has its points, the share's are not needed. */
    if (rc == 0 && q->group + 1 == own->ngroups)
        tf_fold_members_free(&own->all);
    return rc;
}

static int serve_fetch(const tf_fold_team *t, const tf_fold_members *m,
                       const struct team_request *q, const size_t *pick, tf_error *err)
{
    for (size_t i = 0; i < q->ninst; i++)
        if (pick[i] >= m->n)
            return tf_fail(err, TF_ERR_INTERNAL, "member %zu of %zu asked for", pick[i], m->n);
    tf_fold_members sub;
    int rc = tf_fold_members_copy(m, pick, q->ninst, q->ncounters, &sub, err);
    if (rc == 0 && sub.points.n != q->npoints)
        rc = tf_fail(err, TF_ERR_INTERNAL, "%llu points asked for, %zu held",
                     (unsigned long long)q->npoints, sub.points.n);
    if (rc == 0)
        rc = tf_team_transfer_points(t, 0, true, &sub.points, 0, sub.points.n, sub.points.n,
                                     q->ncounters, TF_FOLD_COL_ALL, err);
    tf_fold_members_free(&sub);
    return rc;
}

static int serve_deviate(const tf_fold_team *t, const struct tf_fold_team_own *own,
                         const tf_fold_members *m, const struct team_request *q,
                         const double *curves, tf_error *err)
{
    size_t lo, hi;
    tf_fold_share_span(own->share.share, m->rows, m->n, (uint32_t)t->rank, &lo, &hi);
    if (hi - lo != q->ninst || q->ncounters != own->share.ncounters)
        return tf_fail(err, TF_ERR_INTERNAL, "deviations of %llu members asked for, %zu held",
                       (unsigned long long)q->ninst, hi - lo);
    size_t n = hi - lo;
    double *dev = malloc(((size_t)q->ncounters * n + 1) * sizeof *dev);
    if (!dev)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the deviations");
    for (uint32_t c = 0; c < q->ncounters; c++)
        tf_fold_members_deviation(m, lo, hi, c, curves + (size_t)c * q->grid, q->grid,
                                  dev + (size_t)c * n);
    /* one part a counter, as the leader receives them into its rows */
    tf_team_part *parts = malloc((q->ncounters + 1) * sizeof *parts);
    int rc = 0;
    if (!parts)
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for the deviations");
    for (uint32_t c = 0; rc == 0 && c < q->ncounters; c++)
        parts[c] = (tf_team_part){ dev + (size_t)c * n, n * sizeof *dev };
    if (rc == 0 && t->sendv(t->ctx, 0, parts, q->ncounters) < 0)
        rc = tf_team_lost(err);
    free(parts);
    free(dev);
    return rc;
}

/* Bytes of the array that follows request q. */
static size_t array_bytes(const struct team_request *q)
{
    switch (q->command) {
    case COMMAND_GROUP: return q->ninst * sizeof(uint32_t);
    case COMMAND_SELECT: return q->ninst;
    case COMMAND_FETCH: return q->ninst * sizeof(size_t);
    case COMMAND_DEVIATE: return (size_t)q->ncounters * q->grid * sizeof(double);
    default: return 0;
    }
}

int tf_team_serve_points(tf_fold_team *t, const struct team_request *q, tf_error *err)
{
    struct tf_fold_team_own *own = t->own;
    if (!own)
        return tf_fail(err, TF_ERR_INTERNAL, "request %u to a rank that holds no share",
                       q->command);
    if (q->command == COMMAND_OBSERVER)
        return serve_observer(t, own, q, err);
    void *array = NULL;
    int rc = receive_array(t, array_bytes(q), &array, err);
    if (rc == 0 && q->command == COMMAND_GROUP) {
        rc = serve_group(own, q, array, err);
    } else if (rc == 0 && q->group >= own->ngroups) {
        rc = tf_fail(err, TF_ERR_INTERNAL, "request %u for group %u of %u", q->command,
                     q->group, own->ngroups);
    } else if (rc == 0) {
        tf_fold_members *m = &own->groups[q->group];
        if (q->command == COMMAND_SELECT && q->ninst != m->n)
            rc = tf_fail(err, TF_ERR_INTERNAL, "group %u: %llu members to keep of %zu",
                         q->group, (unsigned long long)q->ninst, m->n);
        else if (q->command == COMMAND_SELECT)
            tf_fold_members_compact(m, array, own->share.ncounters);
        else if (q->command == COMMAND_FETCH)
            rc = serve_fetch(t, m, q, array, err);
        else
            rc = serve_deviate(t, own, m, q, array, err);
    }
    free(array);
    return rc;
}

const tf_fold_points *tf_fold_team_kept(const tf_fold_team *team, uint32_t g)
{
    static const tf_fold_points none = { 0 };
    const struct tf_fold_team_own *own = team->own;
    return own && g < own->ngroups ? &own->groups[g].points : &none;
}

/* On a member: points [q->ninst, q->ninst + q->npoints) of its points of
 * group q->group, back to the leader. */
int tf_team_send_kept(const tf_fold_team *t, const struct team_request *q, tf_error *err)
{
    const tf_fold_points *p = tf_fold_team_kept(t, q->group);
    if (q->ninst > p->n || q->npoints > p->n - q->ninst)
        return tf_fail(err, TF_ERR_INTERNAL, "points %llu to %llu of group %u asked for, of %zu",
                       (unsigned long long)q->ninst,
                       (unsigned long long)(q->ninst + q->npoints), q->group, p->n);
    return tf_team_transfer_points(t, 0, true, p, q->ninst, q->npoints, p->n,
                                   t->own->share.ncounters, q->columns, err);
}

/* ---- the groups' points as parts, on the leader --------------------------- */

/* The members' points of a group travel to the leader in chunks of at
 * most this many (4 MB at 8 counters), so that it holds one at a time. */
#define PART_CHUNK 65536

struct part_chunk {
    int rank;
    size_t from, n;
};

struct group_parts {
    tf_fold_parts parts;
    const tf_fold_team *team;
    const tf_fold_points *own;   /* the leader's, part 0 */
    uint32_t group, ncounters;
    struct part_chunk *chunk;    /* [parts.n]: chunk[0] unused */
};

struct team_parts {
    uint32_t n;
    struct group_parts *g;
};

static int take_part(void *ctx, size_t k, unsigned columns, tf_fold_points *room,
                     tf_fold_points *p, tf_error *err)
{
    const struct group_parts *gp = ctx;
    if (k == 0) {
        *p = *gp->own;
        return 0;
    }
    const tf_fold_team *t = gp->team;
    const struct part_chunk *c = &gp->chunk[k];
    if (room->n < c->n) {
        tf_fold_points_free(room);
        int rc = tf_fold_points_alloc(room, PART_CHUNK, gp->ncounters, err);
        if (rc < 0)
            return rc;
    }
    *p = *room;
    p->n = c->n;
    struct team_request q = { .command = COMMAND_PART, .group = gp->group, .ninst = c->from,
                              .npoints = c->n, .columns = columns };
    tf_team_lock(t);
    int rc = t->send(t->ctx, c->rank, &q, sizeof q) < 0
                 ? tf_team_lost(err)
                 : tf_team_transfer_points(t, c->rank, false, p, 0, p->n, p->n, gp->ncounters,
                                           columns, err);
    tf_team_unlock(t);
    return rc;
}

static void parts_free(void *owner)
{
    struct team_parts *tp = owner;
    if (!tp)
        return;
    for (uint32_t g = 0; tp->g && g < tp->n; g++)
        free(tp->g[g].chunk);
    free(tp->g);
    free(tp);
}

/* Group g's parts: the leader's points, then each member's in chunks. */
static int group_parts(const tf_fold_team *team, tf_fold_group *grp, uint32_t g, uint32_t nc,
                       const size_t *offset, struct group_parts *gp, tf_error *err)
{
    int size = team->size;
    size_t nchunks = 1;
    for (int w = 1; w < size; w++)
        nchunks += (offset[w + 1] - offset[w] + PART_CHUNK - 1) / PART_CHUNK;
    *gp = (struct group_parts){
        .parts = { .n = nchunks, .npoints = offset[size], .take = take_part },
        .team = team, .own = &grp->points, .group = g, .ncounters = nc,
        .chunk = calloc(nchunks, sizeof *gp->chunk),
    };
    gp->parts.ctx = gp;
    if (!gp->chunk)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the parts of the points");
    if (grp->points.n != offset[1])
        return tf_fail(err, TF_ERR_INTERNAL, "group %u: %zu points of rank 0, %zu held", g,
                       offset[1], grp->points.n);
    size_t k = 1;
    for (int w = 1; w < size; w++) {
        size_t count = offset[w + 1] - offset[w];
        for (size_t from = 0; from < count; from += PART_CHUNK, k++) {
            size_t len = count - from < PART_CHUNK ? count - from : PART_CHUNK;
            gp->chunk[k] = (struct part_chunk){ w, from, len };
        }
    }
    grp->parts = &gp->parts;
    return 0;
}

int tf_fold_team_parts(const tf_fold_team *team, tf_fold_result *res, const size_t *offsets,
                       tf_error *err)
{
    tf_fold_region *r = &res->regions[0];
    struct team_parts *tp = calloc(1, sizeof *tp);
    if (tp)
        tp->g = calloc(r->ngroups + 1, sizeof *tp->g);
    if (!tp || !tp->g) {
        parts_free(tp);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the parts of the points");
    }
    tp->n = r->ngroups;
    res->parts_owner = tp;
    res->parts_free = parts_free;
    int rc = 0;
    for (uint32_t g = 0; g < r->ngroups && rc == 0; g++)
        rc = group_parts(team, &r->groups[g], g, r->ncounters,
                         offsets + (size_t)g * ((size_t)team->size + 1), &tp->g[g], err);
    return rc;
}
