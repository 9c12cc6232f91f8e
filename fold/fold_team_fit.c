/* SPDX-License-Identifier: BSD-3-Clause */
/* The fits shared by a team.  Counter c is fitted by member c mod size
 * (its owner), with the same function as alone (fit.h's stream), fed the
 * cloud's instances in order, a run at a time, so the result is the fit
 * alone, bit for bit, and an owner holds one run of points at a time,
 * never the cloud.  The leader sends each member that takes part (it owns
 * counters, or holds points of the cloud) a request, with where each
 * rank's points and instances start in the cloud, and each owner the
 * instances' arrays (rows, first, durations, boundaries, and of its
 * counters validity and totals).  The points stay where they are: the
 * leader's (the first fit, or a trace it reads alone), or each rank's
 * share of a group's.  Each rank that holds points sends every owner,
 * first, whether each of its instances has a value of each of the
 * owner's counters (which the validity needs before a fit begins; in one
 * order all ranks follow, sender then owner, so that these blocking
 * transfers never wait on one another in a ring), then starts at once
 * the sends of all its runs of points (at most RUN_POINTS each, whole
 * instances) for each of the owners' counters, TF_FIT_PASSES times (the
 * fit's passes), and the owners take them up in the cloud's order as they fit.
 * The owners then send the leader their results.  A
 * failure of an owner's own (memory) lets it go on with the transfers, so
 * that no rank is left waiting, and comes back as its result. */
#include "team_wire.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


/* Points of one run: whole instances, at most this many unless one
 * instance holds more (8 MB of times and values on the owner).  Each run
 * is a transfer the owner waits for; runs of 65536 points made the fold
 * of 64 x 3000 under `mpirun -np 2` slower (bench/RESULTS.md, "The points
 * stay with their ranks"). */
#define RUN_POINTS (1u << 20)

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

/* ---- the layout of a fit ------------------------------------------------ */

/* What every rank of a fit knows: rank w holds instances [span[w],
 * span[w+1]) of the cloud, whose points are [offset[w], offset[w+1]). */
struct layout {
    int size, me;
    uint32_t nc;               /* the fit's counters */
    const size_t *offset, *span;
};

static bool takes_part(const struct layout *l, int w)
{
    return w < owners_of(l->size, l->nc) || l->offset[w + 1] > l->offset[w];
}

/* The end of the run that starts at instance i of those below hi, first
 * being any array of their points' starts (the differences are what
 * count: the sender's and the owner's arrays give the same runs). */
static size_t run_end(const size_t *first, size_t i, size_t hi)
{
    size_t j = i + 1;
    while (j < hi && first[j + 1] - first[i] <= RUN_POINTS)
        j++;
    return j;
}

/* This rank's points of the cloud: instances [lo, hi), whose points start
 * at first[i] - first[lo] in x and in y[c] for counter c. */
struct source {
    const size_t *first;
    size_t lo, hi;
    const float *x;
    const float *const *y;     /* [nc] */
};

/* ---- an owner's fits ------------------------------------------------------ */

/* An owner's k counters (ids[]), fitted one after another, each by a
 * stream on its cloud's instance arrays (so that one fit's sums are held
 * at a time: 9 MB with the default grid and bootstrap); `buf` receives
 * one run of points (x, then the values), and the validity is completed
 * with each sender's word. */
struct owner {
    uint32_t k;
    const uint32_t *ids;
    tf_fold_cloud *cl;        /* [k] */
    uint8_t *valid;           /* [k][ninst], the clouds' */
    tf_fit_output *out;       /* [k] */
    tf_fit_stream *st;        /* the counter being fitted */
    const double *bd;
    size_t nb;
    tf_fit_options o;
    float *buf;
    size_t room;              /* points of buf */
    int rc;                   /* the first failure of its own, or 0 */
    tf_error err;
};

static void owner_fail(struct owner *ow, int rc, const tf_error *err)
{
    if (ow->rc == 0) {
        ow->rc = rc;
        ow->err = *err;
    }
}

/* The fit of its counter q, begun, or fed a run, or at the end of a pass:
 * nothing once it has failed. */
static void owner_begin(struct owner *ow, uint32_t q)
{
    tf_error e;
    int rc = ow->rc < 0 ? 0 : tf_fit_begin(&ow->cl[q], ow->bd, ow->nb, &ow->o, &ow->out[q],
                                           &ow->st, &e);
    if (rc < 0)
        owner_fail(ow, rc, &e);
}

static void owner_add(struct owner *ow, size_t a, size_t b, const float *x, const float *y)
{
    tf_error e;
    int rc = ow->st ? tf_fit_add(ow->st, a, b, x, y, &e) : 0;
    if (rc < 0)
        owner_fail(ow, rc, &e);
}

static void owner_pass_done(struct owner *ow)
{
    tf_error e;
    int rc = ow->st && ow->rc == 0 ? tf_fit_next_pass(ow->st, &e) : 0;
    if (rc < 0)
        owner_fail(ow, rc, &e);
}

static void owner_end(struct owner *ow)
{
    tf_fit_end(ow->st);
    ow->st = NULL;
}

/* Room for the largest run any sender sends. */
static int owner_room(struct owner *ow, const struct layout *l, const size_t *first,
                      tf_error *err)
{
    size_t most = 0;
    for (int r = 0; r < l->size; r++)
        for (size_t i = l->span[r]; i < l->span[r + 1];) {
            size_t j = run_end(first, i, l->span[r + 1]);
            if (first[j] - first[i] > most)
                most = first[j] - first[i];
            i = j;
        }
    ow->room = most;
    ow->buf = malloc(2 * (most + 1) * sizeof *ow->buf);
    return ow->buf ? 0 : tf_fail(err, TF_ERR_NOMEM, "out of memory for runs of %zu points", most);
}

/* ---- the exchange --------------------------------------------------------- */

/* Sender r's word on instances [lo, hi) for owner v's k counters: 1 where
 * the instance has a value of the counter among its points, k rows. */
static void sampled_words(const struct source *s, int v, int size, uint32_t k, uint8_t *word)
{
    size_t n = s->hi - s->lo, base = s->first[s->lo];
    for (uint32_t q = 0; q < k; q++) {
        const float *y = s->y[(uint32_t)v + q * (uint32_t)size];
        for (size_t i = s->lo; i < s->hi; i++) {
            bool any = false;
            for (size_t p = s->first[i] - base; p < s->first[i + 1] - base && !any; p++)
                any = !isnan(y[p]);
            word[q * n + i - s->lo] = any;
        }
    }
}

/* Each sender's word on its instances to every owner, which clears the
 * validity of the instances without a value. */
static int exchange_sampled(const tf_fold_team *t, const struct layout *l,
                            const struct source *s, struct owner *ow, tf_error *err)
{
    int owners = owners_of(l->size, l->nc);
    size_t most = 0;
    for (int r = 0; r < l->size; r++)
        if (l->span[r + 1] - l->span[r] > most)
            most = l->span[r + 1] - l->span[r];
    uint8_t *word = malloc((size_t)counters_of(0, l->size, l->nc) * most + 1);
    if (!word)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for a fit's validity");
    int rc = 0;
    for (int r = 0; r < l->size && rc == 0; r++) {
        size_t lo = l->span[r], n = l->span[r + 1] - lo;
        if (l->offset[r + 1] == l->offset[r] || (r != l->me && !ow))
            continue;
        for (int v = 0; v < owners && rc == 0; v++) {
            uint32_t k = counters_of(v, l->size, l->nc);
            if (r == l->me)
                sampled_words(s, v, l->size, k, word);
            if (r == l->me && v != l->me)
                rc = t->send(t->ctx, v, word, k * n) < 0 ? tf_team_lost(err) : 0;
            else if (v == l->me && r != l->me)
                rc = t->recv(t->ctx, r, word, k * n) < 0 ? tf_team_lost(err) : 0;
            if (rc < 0 || v != l->me)
                continue;
            for (uint32_t q = 0; q < k; q++)
                for (size_t i = 0; i < n; i++)
                    ow->valid[q * ow->cl[q].ninst + lo + i] &= word[q * n + i];
        }
    }
    free(word);
    return rc;
}

/* The sends a rank starts in a fit: all of them at once, before it
 * receives anything, waited for once it is done with the fit (its points
 * stay put meanwhile), so that no rank waits on another's work, only on
 * the data itself. */
struct sends {
    size_t n;
    void **started;
};

static int sends_wait(const tf_fold_team *t, struct sends *sd, tf_error *err)
{
    /* every started send is waited for, also after a failure: the
     * transport holds the arrays until then */
    int rc = 0;
    for (size_t k = 0; k < sd->n; k++)
        if (t->sent_wait(t->ctx, sd->started[k]) < 0 && rc == 0)
            rc = tf_team_lost(err);
    free(sd->started);
    return rc;
}

/* This rank's runs to every other owner, for each counter and pass, in
 * the order the owners receive them. */
static int start_sends(const tf_fold_team *t, const struct layout *l, const struct source *s,
                       struct sends *sd, tf_error *err)
{
    int owners = owners_of(l->size, l->nc);
    uint32_t kmost = counters_of(0, l->size, l->nc);
    size_t room = 0;
    if (l->offset[l->me + 1] > l->offset[l->me])
        for (size_t i = s->lo; i < s->hi; i = run_end(s->first, i, s->hi))
            room += TF_FIT_PASSES * (size_t)owners * kmost;
    sd->n = 0;
    if (!(sd->started = malloc((room + 1) * sizeof *sd->started)))
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for a fit's transfers");
    if (l->offset[l->me + 1] == l->offset[l->me])
        return 0;
    size_t base = s->first[s->lo];
    for (uint32_t q = 0; q < kmost; q++)
        for (int pass = 0; pass < TF_FIT_PASSES; pass++)
            for (size_t i = s->lo, j; i < s->hi; i = j) {
                j = run_end(s->first, i, s->hi);
                size_t at = s->first[i] - base, n = s->first[j] - s->first[i];
                for (int v = 0; v < owners; v++) {
                    if (v == l->me || counters_of(v, l->size, l->nc) <= q)
                        continue;
                    const float *y = s->y[(uint32_t)v + q * (uint32_t)l->size] + at;
                    tf_team_part parts[] = { { s->x + at, n * sizeof *s->x },
                                             { y, n * sizeof *y } };
                    if (t->sendv_start(t->ctx, v, parts, 2, &sd->started[sd->n]) < 0)
                        return tf_team_lost(err);
                    sd->n++;
                }
            }
    return 0;
}

/* One pass of an owner's fit of its q-th counter: every rank's runs in
 * the cloud's order, received, or its own added in place. */
static int owner_pass(const tf_fold_team *t, const struct layout *l, const struct source *s,
                      const size_t *first, struct owner *ow, uint32_t q, tf_error *err)
{
    for (int r = 0; r < l->size; r++) {
        if (l->offset[r + 1] == l->offset[r])
            continue;
        if (r == l->me) {
            size_t base = s->first[s->lo];
            const float *y = s->y[(uint32_t)l->me + q * (uint32_t)l->size];
            for (size_t i = s->lo, j; i < s->hi; i = j) {
                j = run_end(s->first, i, s->hi);
                owner_add(ow, i, j, s->x + (s->first[i] - base), y + (s->first[i] - base));
            }
            continue;
        }
        for (size_t i = l->span[r], j; i < l->span[r + 1]; i = j) {
            j = run_end(first, i, l->span[r + 1]);
            size_t n = first[j] - first[i];
            float *x = ow->buf, *y = ow->buf + ow->room + 1;
            tf_team_part parts[] = { { x, n * sizeof *x }, { y, n * sizeof *y } };
            if (t->recvv(t->ctx, r, parts, 2) < 0)
                return tf_team_lost(err);
            owner_add(ow, i, j, x, y);
        }
    }
    return 0;
}

/* A rank's whole side of a fit's points: the validity, then its sends,
 * all started, then, as an owner, its counters one after another, each
 * in TF_FIT_PASSES passes (the runs are sent that many times whatever
 * the owners need: a fit that needs fewer ignores the others).  ow: this rank's fits, NULL
 * when it owns none; first: the cloud's starts (an owner's; a sender-only
 * rank's NULL).  Without room for the runs an owner cannot go on with the
 * others: that is an error of the team (the ranks abort). */
static int exchange(const tf_fold_team *t, const struct layout *l, const struct source *s,
                    const size_t *first, struct owner *ow, tf_error *err)
{
    struct sends sd = { 0 };
    int rc = exchange_sampled(t, l, s, ow, err);
    if (rc == 0 && ow)
        rc = owner_room(ow, l, first, err);
    if (rc == 0)
        rc = start_sends(t, l, s, &sd, err);
    for (uint32_t q = 0; ow && q < ow->k && rc == 0; q++) {
        owner_begin(ow, q);
        for (int pass = 0; pass < TF_FIT_PASSES && rc == 0; pass++) {
            rc = owner_pass(t, l, s, first, ow, q, err);
            owner_pass_done(ow);
        }
        owner_end(ow);
    }
    int wrc = sd.started ? sends_wait(t, &sd, err) : 0;
    return rc < 0 ? rc : wrc;
}

static void owner_free(struct owner *ow)
{
    owner_end(ow);
    free(ow->buf);
    ow->buf = NULL;
}

/* ---- the request ---------------------------------------------------------- */

/* The arrays of a fit as they travel to a member (where each rank's
 * points and instances start, first; then, to an owner of k counters,
 * the instances' arrays).  The member receives them into one buffer,
 * each at a multiple of 8 bytes. */
enum part { OFFSET, SPAN, ROWS_OF, FIRST, DURATION, BOUNDARIES, COUNTER, VALID, TOTAL, NPARTS };

static void part_bytes(const struct team_request *q, int size, size_t bytes[NPARTS])
{
    size_t n = q->ninst, k = q->ncounters, ranks = ((size_t)size + 1) * sizeof(size_t);
    const size_t b[NPARTS] = {
        [OFFSET] = ranks, [SPAN] = ranks, [ROWS_OF] = n * sizeof(uint32_t),
        [FIRST] = (n + 1) * sizeof(size_t), [DURATION] = n * sizeof(double),
        [BOUNDARIES] = q->nb * sizeof(double), [COUNTER] = k * sizeof(uint32_t),
        [VALID] = k * n, [TOTAL] = k * n * sizeof(double),
    };
    memcpy(bytes, b, sizeof b);
}

/* Offsets of the parts in the member's buffer; at[NPARTS] is its size. */
static void layout_parts(const struct team_request *q, int size, size_t at[NPARTS + 1])
{
    size_t bytes[NPARTS];
    part_bytes(q, size, bytes);
    at[0] = 0;
    for (int i = 0; i < NPARTS; i++)
        at[i + 1] = at[i] + (bytes[i] + 7) / 8 * 8;
}

/* The parts a member receives: the layout alone, or all of them for an
 * owner.  Returns their number. */
static size_t request_parts(const struct team_request *q, int size,
                            const void *const src[NPARTS], tf_team_part parts[NPARTS])
{
    size_t bytes[NPARTS];
    part_bytes(q, size, bytes);
    size_t n = q->ncounters ? NPARTS : ROWS_OF;
    for (size_t i = 0; i < n; i++)
        parts[i] = (tf_team_part){ src[i], bytes[i] };
    return n;
}

/* The request and the arrays of member w.  The validity and totals are
 * copied, as the view's slot is rewritten for each counter. */
static int send_request(const tf_fold_team *t, int w, const struct team_request *base,
                        const struct layout *l, tf_fold_view view, void *arg,
                        const double *bd, tf_error *err)
{
    struct team_request q = *base;
    q.ncounters = counters_of(w, t->size, q.counters);
    size_t k = q.ncounters, n = q.ninst;
    tf_fold_cloud cl;
    view(arg, 0, k ? (uint32_t)w : 0, &cl);
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
        [OFFSET] = l->offset, [SPAN] = l->span, [ROWS_OF] = shared.rows,
        [FIRST] = shared.first, [DURATION] = duration, [BOUNDARIES] = bd, [COUNTER] = ids,
        [VALID] = valid, [TOTAL] = total,
    };
    tf_team_part parts[NPARTS];
    size_t nparts = request_parts(&q, t->size, src, parts);
    if (t->send(t->ctx, w, &q, sizeof q) < 0 || t->sendv(t->ctx, w, parts, nparts) < 0)
        rc = tf_team_lost(err);
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
    if (t->recv(t->ctx, w, buf, k * each) < 0)
        return tf_team_lost(err);
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

/* ---- the leader ------------------------------------------------------------ */

/* The leader's own counters (0, size, ...) as an owner: each cloud's
 * arrays copied from the view (its slot is rewritten for each counter),
 * each output a copy of out[c]'s rows. */
struct leader_fits {
    struct owner ow;
    uint32_t *ids;
    tf_fold_cloud *cl;
    double *total, *duration;
    tf_fit_output *out;
};

static int leader_fits_init(struct leader_fits *lf, int size, uint32_t nc, tf_fold_view view,
                            void *arg, const double *bd, size_t nb, const tf_fit_options *o,
                            tf_fit_output *out, tf_error *err)
{
    uint32_t k = counters_of(0, size, nc);
    tf_fold_cloud cl;
    view(arg, 0, 0, &cl);
    size_t n = cl.ninst;
    memset(lf, 0, sizeof *lf);
    lf->ids = malloc((k + 1) * sizeof *lf->ids);
    lf->cl = malloc((k + 1) * sizeof *lf->cl);
    lf->total = malloc(((size_t)k * n + n + 1) * sizeof *lf->total);
    lf->out = malloc((k + 1) * sizeof *lf->out);
    uint8_t *valid = malloc((size_t)k * n + 1);
    lf->ow = (struct owner){ .k = k, .ids = lf->ids, .cl = lf->cl, .valid = valid,
                             .out = lf->out, .bd = bd, .nb = nb, .o = *o };
    if (!lf->ids || !lf->cl || !lf->total || !lf->out || !valid)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the fits");
    lf->duration = lf->total + (size_t)k * n;
    memcpy(lf->duration, cl.duration, n * sizeof *lf->duration);
    for (uint32_t q = 0; q < k; q++) {
        uint32_t c = q * (uint32_t)size;
        view(arg, 0, c, &cl);
        lf->ids[q] = c;
        memcpy(valid + (size_t)q * n, cl.valid, n);
        memcpy(lf->total + (size_t)q * n, cl.total, n * sizeof *lf->total);
        lf->cl[q] = (tf_fold_cloud){ .ninst = n, .rows = cl.rows, .first = cl.first,
                                     .valid = valid + (size_t)q * n,
                                     .total = lf->total + (size_t)q * n,
                                     .duration = lf->duration };
        lf->out[q] = out[c];
    }
    return 0;
}

/* The leader's results into out[c] (the rows are out's already). */
static int leader_fits_done(struct leader_fits *lf, tf_fit_output *out, tf_error *err)
{
    for (uint32_t q = 0; q < lf->ow.k; q++) {
        tf_fit_output *o = &out[lf->ids[q]];
        o->instances = lf->out[q].instances;
        o->mean_total = lf->out[q].mean_total;
        o->mean_duration_ns = lf->out[q].mean_duration_ns;
    }
    if (lf->ow.rc < 0)
        *err = lf->ow.err;
    return lf->ow.rc;
}

static void leader_fits_free(struct leader_fits *lf)
{
    owner_free(&lf->ow);
    free(lf->ow.valid);
    free(lf->ids);
    free(lf->cl);
    free(lf->total);
    free(lf->out);
}

int tf_fold_team_fit(const tf_fold_team *team, const tf_fold_team_cloud *spread, uint32_t nc,
                     unsigned threads, tf_fold_view view, void *view_arg,
                     const double *boundaries, size_t nb, const tf_fit_options *o,
                     tf_fit_output *out, tf_error *err)
{
    if (!team)
        return tf_fit_counters(0, 1, nc, threads, view, view_arg, boundaries, nb, o, out, err);
    int size = team->size, owners = owners_of(size, nc);
    tf_fold_cloud cl;
    view(view_arg, 0, 0, &cl);
    size_t n = cl.ninst;
    /* Where each rank's points and instances start: all the leader's
     * unless spread. */
    size_t *offset = malloc(2 * ((size_t)size + 1) * sizeof *offset), *span = offset + size + 1;
    const float **ys = malloc((nc + 1) * sizeof *ys);
    /* Room for the results before any request: a member that has one must
     * be able to hand its results over. */
    char *results = owners > 1 ? malloc(counters_of(1, size, nc) * result_bytes(o->grid) + 1)
                               : NULL;
    struct leader_fits lf;
    int rc = leader_fits_init(&lf, size, nc, view, view_arg, boundaries, nb, o, out, err);
    int sent = 1;
    if (rc == 0 && (!offset || !ys || (owners > 1 && !results)))
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for the fits of the other ranks");
    if (rc < 0)
        goto done;
    for (int w = 0; w <= size; w++) {
        offset[w] = spread ? spread->offset[w] : w == 0 ? 0 : cl.first[n];
        span[w] = spread ? spread->span[w] : w == 0 ? 0 : n;
    }
    struct layout l = { size, 0, nc, offset, span };
    struct team_request base = {
        .command = COMMAND_FIT, .ninst = n, .npoints = cl.first[n], .nb = nb, .counters = nc,
        .grid = o->grid, .bootstrap = o->bootstrap, .confidence = o->confidence,
        .window = o->window, .seed = o->seed, .group = spread ? spread->group : 0,
    };
    for (; sent < size && rc == 0; sent++)
        if (takes_part(&l, sent))
            rc = send_request(team, sent, &base, &l, view, view_arg, boundaries, err);
    /* The leader's points: the view's (its first offset[1] when spread). */
    for (uint32_t c = 0; c < nc; c++) {
        tf_fold_cloud cc;
        view(view_arg, 0, c, &cc);
        ys[c] = cc.y;
    }
    struct source src = { cl.first, span[0], span[1], cl.x, ys };
    if (rc == 0)
        rc = exchange(team, &l, &src, cl.first, &lf.ow, err);
    if (rc == 0)
        rc = leader_fits_done(&lf, out, err);
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
    leader_fits_free(&lf);
    free(offset);
    free((void *)ys);
    free(results);
    return rc;
}

/* ---- a member -------------------------------------------------------------- */

/* The points a member holds of the fit's cloud: none, or its share of the
 * group's, which must be what the layout says. */
static int member_source(const tf_fold_team *t, const struct team_request *q,
                         const struct layout *l, struct source *s, const float **ys,
                         tf_error *err)
{
    int me = t->rank;
    size_t n = l->offset[me + 1] - l->offset[me];
    *s = (struct source){ .lo = l->span[me], .hi = l->span[me + 1] };
    if (n == 0)
        return 0;
    const struct tf_fold_team_own *own = t->own;
    const tf_fold_members *m = own && q->group < own->ngroups ? &own->groups[q->group] : NULL;
    if (!m || m->n != q->ninst || m->points.n != n)
        return tf_fail(err, TF_ERR_INTERNAL, "fit of group %u: %zu points of %llu instances "
                       "asked for, %zu of %zu held", q->group, n,
                       (unsigned long long)q->ninst, m ? m->points.n : 0, m ? m->n : 0);
    for (uint32_t c = 0; c < q->counters; c++)
        ys[c] = m->points.y + (size_t)c * n;
    *s = (struct source){ m->first, l->span[me], l->span[me + 1], m->points.x, ys };
    return 0;
}

int tf_team_serve_fit(const tf_fold_team *t, const struct team_request *q, tf_error *err)
{
    size_t n = q->ninst, g = q->grid, each = result_bytes(g);
    uint32_t k = q->ncounters;
    size_t at[NPARTS + 1];
    layout_parts(q, t->size, at);
    char *in = malloc(at[NPARTS] + 1), *results = malloc(k * each + 1);
    const float **ys = malloc((q->counters + 1) * sizeof *ys);
    tf_fold_cloud *cl = malloc((k + 1) * sizeof *cl);
    tf_fit_output *out = malloc((k + 1) * sizeof *out);
    int rc = 0;
    if (!in || !results || !ys || !cl || !out) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for a fit of %zu instances", n);
        goto done;
    }
    const void *src[NPARTS];
    tf_team_part parts[NPARTS];
    for (int i = 0; i < NPARTS; i++)
        src[i] = in + at[i];
    if (t->recvv(t->ctx, 0, parts, request_parts(q, t->size, src, parts)) < 0) {
        rc = tf_team_lost(err);
        goto done;
    }
    /* The parts are 8-byte aligned in a malloc'ed block. */
    struct layout l = { t->size, t->rank, q->counters,
                        (const size_t *)(void *)(in + at[OFFSET]),
                        (const size_t *)(void *)(in + at[SPAN]) };
    struct source s;
    if ((rc = member_source(t, q, &l, &s, ys, err)) < 0)
        goto done;
    const size_t *first = (const size_t *)(void *)(in + at[FIRST]);
    uint8_t *valid = (uint8_t *)(in + at[VALID]);
    for (uint32_t i = 0; i < k; i++) {
        double *row = (double *)(void *)(results + i * each + sizeof(struct result));
        out[i] = (tf_fit_output){
            .curve = row, .curve_lo = row + g, .curve_hi = row + 2 * g, .rate = row + 3 * g,
            .rate_lo = row + 4 * g, .rate_hi = row + 5 * g,
        };
        cl[i] = (tf_fold_cloud){
            .ninst = n, .rows = (const uint32_t *)(void *)(in + at[ROWS_OF]), .first = first,
            .valid = valid + i * n, .total = (const double *)(void *)(in + at[TOTAL]) + i * n,
            .duration = (const double *)(void *)(in + at[DURATION]),
        };
    }
    struct owner ow = {
        .k = k, .ids = (const uint32_t *)(void *)(in + at[COUNTER]), .cl = cl, .valid = valid,
        .out = out, .bd = (const double *)(void *)(in + at[BOUNDARIES]), .nb = q->nb,
        .o = { .grid = q->grid, .bootstrap = q->bootstrap, .confidence = q->confidence,
               .seed = q->seed, .window = q->window },
    };
    rc = exchange(t, &l, &s, k ? first : NULL, k ? &ow : NULL, err);
    for (uint32_t i = 0; rc == 0 && i < k; i++) {
        struct result r;
        memset(&r, 0, sizeof r);
        r.rc = ow.rc;
        r.counter = ow.ids[i];
        r.instances = out[i].instances;
        r.mean_total = out[i].mean_total;
        r.mean_duration_ns = out[i].mean_duration_ns;
        memcpy(r.msg, ow.err.msg, sizeof r.msg);
        memcpy(results + i * each, &r, sizeof r);
    }
    owner_free(&ow);
    if (rc == 0 && k && t->send(t->ctx, 0, results, k * each) < 0)
        rc = tf_team_lost(err);
done:
    free(in);
    free(results);
    free((void *)ys);
    free(cl);
    free(out);
    return rc;
}
