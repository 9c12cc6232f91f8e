/* SPDX-License-Identifier: BSD-3-Clause */
/* The fold pipeline for one region: extract (one pass over the samples),
 * group by duration, drop outliers by duration, then per group gather the
 * points of the kept instances, fit a first time (on at most
 * PREFIT_INSTANCES instances) to locate the changes and, with the robust
 * filter, drop outliers by curve shape, then fit every counter with its
 * bands.  The points are the only per-sample data held: a single group keeps
 * them in place; several groups copy theirs, so the points are held twice
 * while the groups gather them.  In a team whose members read shares of
 * the samples, each rank holds its share's points and does the same with
 * them: the engine works with the instances, and asks the team for what
 * it needs of the others' points (fold_team.h). */
#include "config.h"

#include "fold_engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "changepoints.h"
#include "fold_group_by.h"
#include "filter.h"
#include "fit.h"
#include "fold_team.h"
#include "members.h"
#include "observer.h"
#include "preempt.h"
#include "rate_check.h"
#include "common/tf_parallel.h"

/* Change points of different counters closer than this are one boundary. */
#define MERGE_DISTANCE 0.005
/* Half-width of the zone around a boundary where an instance's own change
 * may lie (boundaries wander by about ±1 % from iteration to iteration). */
#define BEND_WINDOW 0.015
/* Most instances of the first fit of a group. */
#define PREFIT_INSTANCES 1000
/* Smallest scale of the shape rule's deviations: 0.1 % of a counter's
 * total, so that instances of noise-free (or identical) curves are never
 * told apart by rounding. */
#define SHAPE_MIN_SCALE 0.001

struct context {
    const tf_fold_params *p;
    const tf_trace *tr;
    tf_fold_region *region;
    const tf_fold_input *in;
    tf_fold_members *all;    /* every instance's points, until a group takes them */
    uint32_t ngroups;
    int instructions;
    const tf_fold_team *team;
    /* In a team that shares the reading: each rank holds the points of its
     * share (in->share), and each group's last fit says where they are in
     * its cloud (offsets, [ngroups][size+1], for tf_fold_team_parts). */
    bool spread;
    size_t *offsets;
    unsigned threads;        /* for the counter fits, >= 1 */
    tf_fold_progress progress;
    void *progress_arg;
};

static char *dup_string(const char *s)
{
    return strdup(s ? s : "");
}

static int team_size(const struct context *cx)
{
    return cx->spread ? cx->team->size : 1;
}

/* Where each rank's members of m start ([size+1]; alone, 0 and m->n), m's
 * instances being in share order. */
static void member_spans(const struct context *cx, const tf_fold_members *m, size_t *span)
{
    int size = team_size(cx);
    for (int w = 0; w < size; w++) {
        size_t hi;
        tf_fold_share_span(cx->in->share, m->rows, m->n, (uint32_t)w, &span[w], &hi);
    }
    span[size] = m->n;
}

/* The cloud of m's instances as a whole: its first[n+1] from their
 * samples, where each rank's members start (span[size+1]) and, unless
 * offset is NULL, where its points start (offset[size+1]). */
static void cloud_layout(const struct context *cx, const tf_fold_members *m, size_t *first,
                         size_t *span, size_t *offset)
{
    first[0] = 0;
    for (size_t i = 0; i < m->n; i++)
        first[i + 1] = first[i] + cx->region->instances[m->rows[i]].samples;
    member_spans(cx, m, span);
    for (int w = 0; offset && w <= team_size(cx); w++)
        offset[w] = first[span[w]];
}

/* Per-instance inputs of one counter's cloud. */
struct counter_view {
    uint8_t *valid;
    double *total, *duration;
};

/* Where the points of a fit are when the ranks hold them: the cloud's
 * first (the leader holds the first of them, m's own) and the team's
 * layout. */
struct spread_cloud {
    size_t *first;
    tf_fold_team_cloud team;
};

/* Counter c's cloud of m; with sc, as far as the leader knows it: its own
 * points, and an instance valid as far as its totals go. */
static void view_counter(const struct context *cx, const tf_fold_members *m,
                         const struct spread_cloud *sc, uint32_t c, struct counter_view *v,
                         tf_fold_cloud *cl)
{
    const tf_fold_region *r = cx->region;
    const float *y = m->points.y + (size_t)c * m->points.n;
    for (size_t i = 0; i < m->n; i++) {
        uint64_t d = r->counter_delta[(size_t)m->rows[i] * r->ncounters + c];
        bool any = sc != NULL;
        for (size_t k = m->first[i]; k < m->first[i + 1] && !any; k++)
            any = !isnan(y[k]);
        v->valid[i] = d != TF_NOVALUE && d > 0 && any;
        v->total[i] = (double)d;
        v->duration[i] = (double)r->instances[m->rows[i]].duration;
    }
    *cl = (tf_fold_cloud){
        .ninst = m->n, .rows = m->rows, .first = sc ? sc->first : m->first, .x = m->points.x,
        .y = y, .valid = v->valid, .total = v->total, .duration = v->duration,
    };
}

/* view_counter as a tf_fold_view, for the team's and the threads' fits:
 * one counter_view per slot. */
struct view_arg {
    const struct context *cx;
    const tf_fold_members *m;
    const struct spread_cloud *sc;
    struct counter_view *v;
};

static void view_of(void *arg, unsigned slot, uint32_t c, tf_fold_cloud *cl)
{
    const struct view_arg *va = arg;
    view_counter(va->cx, va->m, va->sc, c, &va->v[slot], cl);
}

static int alloc_rows(tf_fold_group *g, uint32_t nc, bool bands_and_ratio, tf_error *err)
{
    size_t cells = (size_t)nc * g->grid + 1;
    double **rows[] = { &g->curve, &g->rate, &g->curve_lo, &g->curve_hi, &g->rate_lo,
                        &g->rate_hi, &g->ratio };
    size_t nrows = bands_and_ratio ? sizeof rows / sizeof rows[0] : 2;
    for (size_t k = 0; k < nrows; k++) {
        if (!(*rows[k] = malloc(cells * sizeof **rows[k])))
            return tf_fail(err, TF_ERR_NOMEM, "out of memory for the fitted curves");
    }
    g->x = malloc(g->grid * sizeof *g->x);
    g->counter_instances = calloc(nc + 1, sizeof *g->counter_instances);
    g->mean_total = calloc(nc + 1, sizeof *g->mean_total);
    if (!g->x || !g->counter_instances || !g->mean_total)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the fitted curves");
    for (uint32_t j = 0; j < g->grid; j++)
        g->x[j] = (double)j / (double)(g->grid - 1);
    return 0;
}

/* The changes of all counters, sorted and merged, into g->boundaries
 * (allocated for g->nchanges values). */
static void merge_boundaries(tf_fold_group *g)
{
    for (size_t k = 0; k < g->nchanges; k++)
        g->boundaries[k] = g->changes[k].x;
    /* Insertion sort: a handful of change points. */
    for (size_t a = 1; a < g->nchanges; a++)
        for (size_t b = a; b > 0 && g->boundaries[b - 1] > g->boundaries[b]; b--) {
            double t = g->boundaries[b];
            g->boundaries[b] = g->boundaries[b - 1];
            g->boundaries[b - 1] = t;
        }
    g->nboundaries = tf_changepoints_merge(g->boundaries, g->nchanges, MERGE_DISTANCE);
}

/* One counter's change points, found on its raw cloud; scale: events per
 * second of its mean instance. */
struct counter_changes {
    tf_changepoint *cp;
    size_t n;
    double scale;
    int rc;
    tf_error err;
};

struct changes_job {
    const struct context *cx;
    const tf_fold_members *m;
    struct counter_view *v;          /* [threads] */
    struct counter_changes *out;     /* [counters] */
};

static void counter_changes(void *arg, unsigned c, unsigned slot)
{
    const struct changes_job *j = arg;
    const tf_fold_members *m = j->m;
    struct counter_view *v = &j->v[slot];
    struct counter_changes *o = &j->out[c];
    tf_fold_cloud cl;
    view_counter(j->cx, m, NULL, c, v, &cl);
    uint32_t rests = 0;
    for (size_t i = 0; i < m->n; i++)
        rests += v->valid[i];
    if (!tf_fold_counter_representative(rests, (uint32_t)m->n))
        return;
    /* A counter added once per iteration jumps where the add is: a step
     * of the counter in every instance, not a change of its rate. */
    const float *y = m->points.y + (size_t)c * m->points.n;
    size_t valued = 0, inside = 0;
    for (size_t i = 0; i < m->n; i++)
        for (size_t k = m->first[i]; k < m->first[i + 1] && v->valid[i]; k++)
            if (!isnan(y[k])) {
                valued++;
                inside += tf_fold_value_inside(y[k]);
            }
    if (tf_fold_counter_stepwise(valued, inside))
        return;
    tf_error_clear(&o->err);
    if ((o->rc = tf_changepoints_find(&cl, j->cx->p->min_change, &o->cp, &o->n, &o->err)) < 0)
        return;
    double sum_t = 0, sum_d = 0;
    for (size_t i = 0; i < m->n; i++)
        if (v->valid[i]) {
            sum_t += v->total[i];
            sum_d += v->duration[i];
        }
    o->scale = sum_d > 0 ? sum_t / (sum_d * 1e-9) : 0;
}

/* Change points of every counter (found on the threads, one view slot
 * each), and their merge into boundaries, in counter order. */
static int find_changes(const struct context *cx, const tf_fold_members *m,
                        struct counter_view *v, tf_fold_group *g, tf_error *err)
{
    uint32_t nc = cx->region->ncounters;
    struct counter_changes *out = calloc(nc + 1, sizeof *out);
    if (!out)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for change points");
    struct changes_job job = { cx, m, v, out };
    tf_parallel_for(nc, cx->threads, counter_changes, &job);
    int rc = 0;
    for (uint32_t c = 0; c < nc && rc == 0; c++) {
        if (out[c].rc < 0) {
            rc = out[c].rc;
            *err = out[c].err;
            break;
        }
        if (!out[c].n)
            continue;
        tf_fold_change *grown = realloc(g->changes, (g->nchanges + out[c].n + 1) * sizeof *grown);
        if (!grown) {
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for change points");
            break;
        }
        g->changes = grown;
        for (size_t k = 0; k < out[c].n; k++)
            g->changes[g->nchanges++] = (tf_fold_change){
                .counter = c, .x = out[c].cp[k].x,
                .rate_before = out[c].cp[k].slope_before * out[c].scale,
                .rate_after = out[c].cp[k].slope_after * out[c].scale,
            };
    }
    for (uint32_t c = 0; c < nc; c++)
        free(out[c].cp);
    free(out);
    if (rc < 0)
        return rc;
    g->boundaries = malloc((g->nchanges + 1) * sizeof *g->boundaries);
    if (!g->boundaries)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for change points");
    merge_boundaries(g);
    return 0;
}

/* The changes were found on the raw cloud; the fitted curves locate them
 * far more precisely (each instance's own change is rebuilt), so each is
 * moved to where its counter's fitted curve bends, and the boundaries are
 * merged again.  Then each settles where its curve bends best among all
 * the boundaries (a weak change found a few % from a strong one of another
 * counter is that one, tf_changepoint_settle), and they are merged once
 * more. */
static void refine_changes(tf_fold_group *g, const double *scale)
{
    for (int settle = 0; settle < 2; settle++) {
        for (size_t k = 0; k < g->nchanges; k++) {
            tf_fold_change *ch = &g->changes[k];
            const double *curve = g->curve + (size_t)ch->counter * g->grid;
            if (isnan(curve[0]))
                continue;
            bool first = k == 0 || g->changes[k - 1].counter != ch->counter;
            bool last = k + 1 == g->nchanges || g->changes[k + 1].counter != ch->counter;
            double lo = first ? 0 : g->changes[k - 1].x, hi = last ? 1 : g->changes[k + 1].x;
            double before = NAN, after = NAN;
            double x = settle ? tf_changepoint_settle(curve, g->grid, ch->x, lo, hi,
                                                      g->boundaries, g->nboundaries, &before,
                                                      &after)
                              : tf_changepoint_refine(curve, g->grid, ch->x, lo, hi, &before,
                                                      &after);
            if (isnan(before) || (settle && x == ch->x))
                continue;
            ch->x = x;
            ch->rate_before = before * scale[ch->counter];
            ch->rate_after = after * scale[ch->counter];
        }
        merge_boundaries(g);
    }
}

/* Copies the change points of an earlier fit into g. */
static int copy_changes(const tf_fold_group *from, tf_fold_group *g, tf_error *err)
{
    g->changes = malloc((from->nchanges + 1) * sizeof *g->changes);
    g->boundaries = malloc((from->nchanges + 1) * sizeof *g->boundaries);
    if (!g->changes || !g->boundaries)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for change points");
    if (from->nchanges)   /* none at all: no counter gave any (from->changes NULL) */
        memcpy(g->changes, from->changes, from->nchanges * sizeof *g->changes);
    g->nchanges = from->nchanges;
    merge_boundaries(g);
    return 0;
}

/* Fits every counter of the members into g (curves, rates, refined change
 * points, and with `final`, bands, ratios and the mean durations).  The
 * change points are found on the cloud, or taken from `known` (an earlier
 * fit of the same group, whose refined changes are far more precise).
 * sc: where the points are when the ranks hold them (NULL: here). */
static int fit_members(const struct context *cx, const tf_fold_members *m,
                       const struct spread_cloud *sc, bool final, const tf_fold_group *known,
                       tf_fold_group *g, tf_error *err)
{
    uint32_t nc = cx->region->ncounters;
    unsigned nslots = cx->threads;
    struct counter_view *v = calloc(nslots, sizeof *v);
    int rc = 0;
    for (unsigned k = 0; v && k < nslots && rc == 0; k++) {
        v[k] = (struct counter_view){
            .valid = malloc(m->n + 1), .total = malloc((m->n + 1) * sizeof *v[k].total),
            .duration = malloc((m->n + 1) * sizeof *v[k].duration),
        };
        if (!v[k].valid || !v[k].total || !v[k].duration)
            rc = -1;
    }
    if (!v || rc < 0) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for the fit");
        goto done;
    }
    g->grid = cx->p->grid;
    if ((rc = alloc_rows(g, nc, final, err)) < 0 ||
        (rc = known ? copy_changes(known, g, err) : find_changes(cx, m, v, g, err)) < 0)
        goto done;
    tf_fit_options o = {
        .grid = g->grid, .bootstrap = final ? cx->p->bootstrap : 0,
        .confidence = cx->p->confidence, .seed = cx->p->seed, .window = BEND_WINDOW,
    };
    /* Where instances may bend: the changes found on the raw cloud scatter
     * around each true change, so those closer than a bend window count as
     * one (a run of intervals then holds one change, not two). */
    double *scratch = NULL, *scale = malloc((nc + 1) * sizeof *scale);
    double *bend = malloc((g->nboundaries + 1) * sizeof *bend);
    size_t nbend = 0;
    if (bend) {
        memcpy(bend, g->boundaries, g->nboundaries * sizeof *bend);
        nbend = tf_changepoints_merge(bend, g->nboundaries, 2 * BEND_WINDOW);
    }
    /* The first fit's bands are not kept: each counter gets its own rows
     * to write them into, as the counters may be fitted at once. */
    if (!scale || !bend ||
        (!final && !(scratch = malloc(4 * (size_t)nc * g->grid * sizeof *scratch)))) {
        free(scale);
        free(bend);
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for the fit");
        goto done;
    }
    tf_fit_output *outs = calloc(nc + 1, sizeof *outs);
    if (!outs) {
        free(scratch);
        free(scale);
        free(bend);
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for the fit");
        goto done;
    }
    for (uint32_t c = 0; c < nc; c++) {
        size_t off = (size_t)c * g->grid;
        double *own = final ? NULL : scratch + 4 * off;
        outs[c] = (tf_fit_output){
            .curve = g->curve + off, .rate = g->rate + off,
            .curve_lo = final ? g->curve_lo + off : own,
            .curve_hi = final ? g->curve_hi + off : own + g->grid,
            .rate_lo = final ? g->rate_lo + off : own + 2 * g->grid,
            .rate_hi = final ? g->rate_hi + off : own + 3 * g->grid,
        };
    }
    struct view_arg va = { cx, m, sc, v };
    rc = tf_fold_team_fit(cx->team, sc ? &sc->team : NULL, nc, cx->threads, view_of, &va, bend,
                          nbend, &o, outs, err);
    for (uint32_t c = 0; c < nc; c++) {
        g->counter_instances[c] = outs[c].instances;
        g->mean_total[c] = outs[c].mean_total;
        scale[c] = outs[c].mean_total / (outs[c].mean_duration_ns * 1e-9);
        if (cx->progress && final)
            cx->progress(cx->progress_arg, "fitting", c + 1, nc);
    }
    free(outs);
    free(scratch);
    free(bend);
    if (rc == 0)
        refine_changes(g, scale);
    free(scale);
    if (rc < 0 || !final)
        goto done;

    g->instances = (uint32_t)m->n;
    double sum = 0, lo = INFINITY, hi = 0;
    for (size_t i = 0; i < m->n; i++) {
        double d = (double)cx->region->instances[m->rows[i]].duration;
        sum += d;
        lo = fmin(lo, d);
        hi = fmax(hi, d);
    }
    g->mean_duration_ns = m->n ? sum / (double)m->n : NAN;
    g->duration_lo_ns = m->n ? lo : NAN;
    g->duration_hi_ns = m->n ? hi : NAN;
    g->instructions = cx->instructions;
    if (cx->instructions < 0) {
        free(g->ratio);
        g->ratio = NULL;
    } else {
        const double *ins = g->rate + (size_t)cx->instructions * g->grid;
        for (size_t k = 0; k < (size_t)nc * g->grid; k++)
            g->ratio[k] = ins[k % g->grid] > 0 ? g->rate[k] / ins[k % g->grid] : NAN;
    }
done:
    for (unsigned k = 0; v && k < nslots; k++) {
        free(v[k].valid);
        free(v[k].total);
        free(v[k].duration);
    }
    free(v);
    return rc;
}

/* The shape rule's deviations and robust z-scores, per counter, on the
 * threads: the deviations of the members this rank holds
 * ([lo, hi)), then (once the others' are in) the z-scores of all, NaN
 * where a member has no sample of the counter. */
struct shape_job {
    const tf_fold_members *m;
    const tf_fold_group *pre;
    size_t lo, hi;
    double *dev;              /* [counters][members]: the deviations, then the z-scores */
    double *devk, *zk, *ek;   /* [threads][members] */
    /* [members] variance of each member's deviations from the recording's
     * cost taken out of it: its samples' costs vary (observer.h) */
    const double *spread;
    size_t *idx;              /* [threads][members] */
    int *rc;                  /* [counters] */
    tf_error *errs;           /* [counters] */
};

static void deviate_counter(void *arg, unsigned c, unsigned slot)
{
    const struct shape_job *j = arg;
    (void)slot;
    size_t gsz = j->pre->grid;
    tf_fold_members_deviation(j->m, j->lo, j->hi, c, j->pre->curve + (size_t)c * gsz, gsz,
                              j->dev + (size_t)c * j->m->n + j->lo);
}

static void score_counter(void *arg, unsigned c, unsigned slot)
{
    const struct shape_job *j = arg;
    size_t nm = j->m->n;
    double *zc = j->dev + (size_t)c * nm;
    double *dev = j->devk + (size_t)slot * nm, *z = j->zk + (size_t)slot * nm;
    size_t *idx = j->idx + (size_t)slot * nm;
    double *ex = j->ek + (size_t)slot * nm;
    size_t n = 0;
    for (size_t i = 0; i < nm; i++)
        if (zc[i] >= 0) {
            idx[n] = i;
            ex[n] = j->spread[i];
            dev[n++] = zc[i];
        }
    for (size_t i = 0; i < nm; i++)
        zc[i] = NAN;
    if (n < 3)
        return;
    tf_error_clear(&j->errs[c]);
    if ((j->rc[c] = tf_fold_robust_z(dev, ex, n, SHAPE_MIN_SCALE, z, &j->errs[c])) < 0)
        return;
    for (size_t k = 0; k < n; k++)
        zc[idx[k]] = z[k];
}

/* Largest deviation of each member from the preliminary curves, as a robust
 * z-score per counter, the worst counter counting.  A stall or a disturbed
 * stretch bends an instance's curve away from the others even when its
 * duration looks ordinary.  Each rank works out the deviations of the
 * members it holds; the counters' scores are worked out on the threads and
 * taken in counter order. */
static int shape_scores(const struct context *cx, uint32_t index, const tf_fold_members *m,
                        const tf_fold_group *pre, double *score, tf_error *err)
{
    uint32_t nc = cx->region->ncounters;
    size_t nm = m->n, nt = cx->threads;
    size_t *span = malloc(((size_t)team_size(cx) + 1) * sizeof *span);
    /* k samples' costs, each varying by the observer's spread, move a
     * point by up to sqrt(k) spreads: in x, that over the duration */
    double *spread = malloc((nm + 1) * sizeof *spread);
    const tf_fold_region *r = cx->region;
    for (size_t i = 0; spread && i < nm; i++) {
        const tf_fold_instance *ins = &r->instances[m->rows[i]];
        double d = ins->duration > 0 ? (double)ins->duration : 1;
        spread[i] = (double)ins->samples * r->observer_spread_ns * r->observer_spread_ns / (d * d);
    }
    struct shape_job j = {
        .m = m, .pre = pre, .dev = malloc((nc * nm + 1) * sizeof *j.dev),
        .devk = malloc((nt * nm + 1) * sizeof *j.devk), .zk = malloc((nt * nm + 1) * sizeof *j.zk),
        .ek = malloc((nt * nm + 1) * sizeof *j.ek), .spread = spread,
        .idx = malloc((nt * nm + 1) * sizeof *j.idx), .rc = calloc(nc + 1, sizeof *j.rc),
        .errs = calloc(nc + 1, sizeof *j.errs),
    };
    int rc = 0;
    if (!span || !spread || !j.dev || !j.devk || !j.zk || !j.ek || !j.idx || !j.rc || !j.errs)
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory filtering instances");
    if (rc == 0) {
        member_spans(cx, m, span);
        j.lo = span[0];
        j.hi = span[1];
    }
    if (rc == 0 && cx->spread)
        rc = tf_fold_team_ask_deviations(cx->team, index, pre->curve, nc, pre->grid, span, err);
    if (rc == 0)
        tf_parallel_for(nc, cx->threads, deviate_counter, &j);
    if (rc == 0 && cx->spread)
        rc = tf_fold_team_take_deviations(cx->team, nc, nm, span, j.dev, err);
    if (rc == 0)
        tf_parallel_for(nc, cx->threads, score_counter, &j);
    for (size_t i = 0; rc == 0 && i < nm; i++)
        score[i] = 0;
    for (uint32_t c = 0; rc == 0 && c < nc; c++) {
        if (j.rc[c] < 0) {
            rc = j.rc[c];
            *err = j.errs[c];
            break;
        }
        for (size_t i = 0; i < nm; i++)
            if (!isnan(j.dev[(size_t)c * nm + i]))
                score[i] = fmax(score[i], j.dev[(size_t)c * nm + i]);
    }
    free(span);
    free(spread);
    free(j.dev);
    free(j.devk);
    free(j.zk);
    free(j.ek);
    free(j.idx);
    free(j.rc);
    free(j.errs);
    return rc;
}

/* The members of the first fit, pick[0..k) of m, into sub: copied, and in
 * a team the others' fetched from them. */
static int pick_members(const struct context *cx, uint32_t index, const tf_fold_members *m,
                        const size_t *pick, size_t k, tf_fold_members *sub, tf_error *err)
{
    uint32_t nc = cx->region->ncounters;
    if (!cx->spread)
        return tf_fold_members_copy(m, pick, k, nc, sub, err);
    memset(sub, 0, sizeof *sub);
    sub->n = k;
    sub->rows = malloc((k + 1) * sizeof *sub->rows);
    sub->first = malloc((k + 1) * sizeof *sub->first);
    size_t *span = malloc(((size_t)team_size(cx) + 1) * sizeof *span);
    int rc = 0;
    if (!sub->rows || !sub->first || !span) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for the first fit");
        goto done;
    }
    for (size_t i = 0; i < k; i++)
        sub->rows[i] = m->rows[pick[i]];
    cloud_layout(cx, sub, sub->first, span, NULL);
    if ((rc = tf_fold_points_alloc(&sub->points, sub->first[k], nc, err)) < 0)
        goto done;
    /* the leader's own picks come first */
    for (size_t i = 0; i < span[1]; i++)
        tf_fold_points_move(&sub->points, sub->points.n, sub->first[i], &m->points,
                            m->points.n, m->first[pick[i]], sub->first[i + 1] - sub->first[i],
                            nc);
    rc = tf_fold_team_fetch(cx->team, index, pick, span, nc, sub, err);
done:
    free(span);
    if (rc < 0)
        tf_fold_members_free(sub);
    return rc;
}

/* The first fit of a group, into pre: on at most PREFIT_INSTANCES of its
 * members, evenly spread (the members themselves when they are few and
 * all here). */
static int prefit(const struct context *cx, uint32_t index, const tf_fold_members *m,
                  tf_fold_group *pre, tf_error *err)
{
    if (m->n < 2)
        return 0;
    if (m->n <= PREFIT_INSTANCES && !cx->spread)
        return fit_members(cx, m, NULL, false, NULL, pre, err);
    size_t k = m->n < PREFIT_INSTANCES ? m->n : PREFIT_INSTANCES;
    size_t *pick = malloc(k * sizeof *pick);
    if (!pick)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the first fit");
    for (size_t i = 0; i < k; i++)
        pick[i] = i * m->n / k;
    tf_fold_members sub;
    int rc = pick_members(cx, index, m, pick, k, &sub, err);
    if (rc == 0) {
        rc = fit_members(cx, &sub, NULL, false, NULL, pre, err);
        tf_fold_members_free(&sub);
    }
    free(pick);
    return rc;
}

/* The last fit of a group, into g; in a team, on the points where they
 * are, whose layout it keeps for the outputs (cx->offsets). */
static int final_fit(const struct context *cx, uint32_t index, const tf_fold_members *m,
                     const tf_fold_group *pre, tf_fold_group *g, tf_error *err)
{
    const tf_fold_group *known = m->n >= 2 ? pre : NULL;
    if (!cx->spread)
        return fit_members(cx, m, NULL, true, known, g, err);
    size_t ranks = (size_t)team_size(cx) + 1, *offset = cx->offsets + (size_t)index * ranks;
    struct spread_cloud sc = { .first = malloc((m->n + ranks + 1) * sizeof *sc.first) };
    if (!sc.first)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the fit");
    size_t *span = sc.first + m->n + 1;
    sc.team = (tf_fold_team_cloud){ index, offset, span };
    cloud_layout(cx, m, sc.first, span, offset);
    int rc = offset[1] == m->points.n
                 ? fit_members(cx, m, &sc, true, known, g, err)
                 : tf_fail(err, TF_ERR_INTERNAL, "group %u: %zu points of rank 0, %zu held",
                           index, offset[1], m->points.n);
    free(sc.first);
    return rc;
}

static int fold_group(const struct context *cx, const uint32_t *rows, size_t n, uint32_t index,
                      tf_fold_group *g, tf_error *err)
{
    tf_fold_region *r = cx->region;
    tf_fold_members m;
    int rc = tf_fold_members_gather(cx->all, rows, n, cx->ngroups == 1, r->ncounters, &m, err);
    if (rc < 0)
        return rc;
    if (cx->spread &&
        (rc = tf_fold_team_group(cx->team, index, cx->ngroups, rows, n, err)) < 0) {
        tf_fold_members_free(&m);
        return rc;
    }
    /* A first fit locates the changes precisely; with the robust filter it
     * also gives the curves that instances are compared with.  It rests on
     * PREFIT_INSTANCES instances at most, evenly spread: enough for both. */
    tf_fold_group pre = { 0 };
    rc = prefit(cx, index, &m, &pre, err);
    if (rc == 0 && cx->p->filter == TF_FILTER_ROBUST && m.n >= 3) {
        double *score = malloc(m.n * sizeof *score);
        uint8_t *keep = malloc(m.n);
        if (!score || !keep)
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory filtering instances");
        if (rc == 0)
            rc = shape_scores(cx, index, &m, &pre, score, err);
        if (rc == 0) {
            for (size_t i = 0; i < m.n; i++) {
                tf_fold_instance *ins = &r->instances[m.rows[i]];
                keep[i] = !(score[i] > cx->p->shape_k);
                ins->score = fmax(isnan(ins->score) ? 0 : ins->score, score[i]);
                if (!keep[i]) {
                    ins->status = TF_FOLD_EXCLUDED;
                    ins->reason = TF_FOLD_REASON_SHAPE;
                }
            }
            if (cx->spread)
                rc = tf_fold_team_select(cx->team, index, keep, m.n, err);
            tf_fold_members_compact(&m, keep, r->ncounters);
        }
        free(score);
        free(keep);
    }
    if (rc == 0) {
        g->index = index;
        rc = final_fit(cx, index, &m, &pre, g, err);
    }
    if (rc == 0)
        rc = tf_fold_rates_check(r, g, err);
    tf_fold_group_clear(&pre);
    if (rc == 0) {
        g->points = m.points;
        memset(&m.points, 0, sizeof m.points);
    }
    tf_fold_members_free(&m);
    return rc;
}

static int init_region(const tf_trace *tr, uint32_t region, const tf_region_given *given,
                       tf_fold_input *in, tf_fold_region *r, tf_error *err)
{
    int rc = tf_fold_region_instances(r, in, err);
    if (rc < 0)
        return rc;
    r->name = dup_string(given ? given->name : tf_trace_string(tr, region));
    r->counter_names = calloc(in->ncounters + 1, sizeof *r->counter_names);
    r->counter_units = calloc(in->ncounters + 1, sizeof *r->counter_units);
    if (!r->name || !r->counter_names || !r->counter_units)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    for (uint32_t c = 0; c < in->ncounters; c++) {
        r->counter_names[c] = dup_string(in->counter_names[c]);
        r->counter_units[c] = dup_string(in->counter_units[c]);
        if (!r->counter_names[c] || !r->counter_units[c])
            return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < r->ninstances; i++) {
        tf_fold_instance *d = &r->instances[i];
        d->tid = tf_trace_process(tr, d->proc)->threads[d->thread].tid;
    }
    return 0;
}

/* Grouped by process, a preempted instance belongs to its process's group
 * (instances.csv says so, though it is not folded); grouped by duration,
 * its duration says nothing of its group.  A process none of whose
 * instances was folded has no group. */
static int group_preempted(const struct context *cx, tf_fold_region *r, tf_error *err)
{
    uint32_t nproc = tf_trace_nprocesses(cx->tr);
    int32_t *of = malloc((nproc + 1) * sizeof *of);
    if (!of)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    for (uint32_t p = 0; p < nproc; p++)
        of[p] = -1;
    for (size_t i = 0; i < r->ninstances; i++)
        if (r->instances[i].group >= 0 && r->instances[i].proc < nproc)
            of[r->instances[i].proc] = r->instances[i].group;
    for (size_t i = 0; i < r->ninstances; i++) {
        tf_fold_instance *ins = &r->instances[i];
        if (ins->reason == TF_FOLD_REASON_PREEMPTED && ins->group < 0 && ins->proc < nproc)
            ins->group = of[ins->proc];
    }
    free(of);
    return 0;
}

/* Groups, duration filter, and the fit of every group. */
static int fold_region(struct context *cx, tf_error *err)
{
    tf_fold_region *r = cx->region;
    size_t n = 0;
    uint32_t *cand = malloc((r->ninstances + 1) * sizeof *cand);
    double *dur = malloc((r->ninstances + 1) * sizeof *dur);
    double *extra = malloc((r->ninstances + 1) * sizeof *extra);
    double *score = malloc((r->ninstances + 1) * sizeof *score);
    int32_t *grp = malloc((r->ninstances + 1) * sizeof *grp);
    uint8_t *out = malloc(r->ninstances + 1);
    uint32_t *rows = malloc((r->ninstances + 1) * sizeof *rows);
    int rc = 0;
    if (!cand || !dur || !extra || !score || !grp || !out || !rows) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < r->ninstances; i++)
        if (r->instances[i].status == TF_FOLD_USED) {
            cand[n] = (uint32_t)i;
            dur[n++] = (double)r->instances[i].duration;
        }
    if (cx->p->group_by != TF_GROUP_BY_DURATION)
        rc = tf_fold_group_by_process(cx->tr, r->instances, cand, n, cx->p->group_by, grp,
                                      &r->ngroups, err);
    else
        rc = tf_fold_group_durations(dur, n, cx->p->groups, grp, &r->ngroups, err);
    if (rc < 0)
        goto done;
    cx->ngroups = r->ngroups;
    r->groups = calloc(r->ngroups, sizeof *r->groups);
    if (cx->spread)
        cx->offsets = calloc((size_t)r->ngroups * ((size_t)cx->team->size + 1) + 1,
                             sizeof *cx->offsets);
    if (!r->groups || (cx->spread && !cx->offsets)) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (uint32_t g = 0; g < r->ngroups && rc == 0; g++) {
        size_t m = 0;
        for (size_t k = 0; k < n; k++)
            if (grp[k] == (int32_t)g) {
                const tf_fold_instance *ins = &r->instances[cand[k]];
                rows[m] = cand[k];
                /* k samples' costs taken out, with k times their variance */
                extra[m] = (double)ins->samples * r->observer_spread_ns * r->observer_spread_ns;
                dur[m++] = (double)ins->duration;
            }
        if ((rc = tf_fold_filter_durations(dur, extra, m, cx->p->filter, cx->p->filter_k, out,
                                           score, err)) < 0)
            break;
        size_t kept = 0;
        for (size_t k = 0; k < m; k++) {
            tf_fold_instance *ins = &r->instances[rows[k]];
            ins->group = (int32_t)g;
            ins->score = score[k];
            if (out[k]) {
                ins->status = TF_FOLD_EXCLUDED;
                ins->reason = TF_FOLD_REASON_DURATION;
            } else {
                rows[kept++] = rows[k];
            }
        }
        rc = fold_group(cx, rows, kept, g, &r->groups[g], err);
    }
    if (rc == 0 && cx->p->group_by != TF_GROUP_BY_DURATION)
        rc = group_preempted(cx, r, err);
    if (rc < 0)
        goto done;
    size_t usable = 0;
    for (size_t i = 0; i < r->ninstances; i++) {
        const tf_fold_instance *ins = &r->instances[i];
        usable += ins->status == TF_FOLD_USED;
        r->used += ins->status == TF_FOLD_USED;
        r->excluded += ins->status == TF_FOLD_EXCLUDED;
        r->incomplete += ins->status == TF_FOLD_INCOMPLETE;
    }
    if (usable < 2)
        rc = tf_fail(err, TF_ERR_DATA,
                     "region '%s': %zu usable instance%s of %zu (%zu excluded, %zu "
                     "incomplete): folding needs at least 2",
                     r->name, usable,
                     usable == 1 ? "" : "s", r->ninstances, r->excluded, r->incomplete);
done:
    free(cand);
    free(dur);
    free(extra);
    free(score);
    free(grp);
    free(out);
    free(rows);
    return rc;
}

struct progress_relay {
    tf_fold_progress fn;
    void *arg;
    const tf_fold_team *team;
};

/* Shows the reading's progress; in a team, stops it when a member has
 * failed, whose share the fold cannot do without. */
static int relay_reading(void *arg, uint64_t done, uint64_t total)
{
    const struct progress_relay *pr = arg;
    if (pr->fn)
        pr->fn(pr->arg, "reading samples", done, total);
    return pr->team && tf_fold_team_member_failed(pr->team) != 0;
}

unsigned tf_fold_threads(const tf_fold_params *p, const tf_fold_team *team)
{
    return p->threads ? p->threads : team ? 1 : tf_parallel_cpus();
}

int tf_fold_trace(tf_trace *tr, uint32_t region, const tf_fold_params *p,
                  const tf_fold_team *team, tf_fold_progress progress, void *progress_arg,
                  tf_fold_result **out, tf_error *err)
{
    *out = NULL;
    tf_fold_input in;
    /* In a team each member reads its share and keeps its points; the
     * leader gets their counts.  In share order, the shares' points are
     * those alone. */
    bool shared = team && !team->read_alone;
    struct progress_relay relay = { progress, progress_arg, shared ? team : NULL };
    tf_extract_share share = { 0, shared ? (unsigned)team->size : 1 };
    int rc = tf_fold_input_extract(tr, region, p->region_scope, p->given, p->namer,
                                   tf_fold_threads(p, team), share,
                                   progress || shared ? relay_reading : NULL, &relay, &in,
                                   err);
    /* Stopped for a member that failed: its error is the fold's (err is
     * left as it is when none has). */
    if (rc == -TF_ERR_CANCELED && shared) {
        int member = tf_fold_team_early_failure(team, err);
        if (member < 0)
            rc = member;
    }
    if (rc == 0 && shared && (rc = tf_fold_team_gather(team, &in, err)) < 0)
        tf_fold_input_free(&in);
    if (rc < 0)
        return rc;
    if (in.ninstances == 0) {
        tf_fold_input_free(&in);
        return tf_fail(err, TF_ERR_NOTFOUND, "%s: region '%s' has no instance",
                       tf_trace_path(tr),
                       p->given ? p->given->name : tf_trace_string(tr, region));
    }
    tf_fold_result *res = calloc(1, sizeof *res);
    if (!res) {
        tf_fold_input_free(&in);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    }
    res->params = *p;
    res->producer = dup_string("tracefold fold " PACKAGE_VERSION);
    res->trace = dup_string(tf_trace_path(tr));
    res->regions = calloc(1, sizeof *res->regions);
    if (!res->producer || !res->trace || !res->regions) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
        goto fail;
    }
    res->nregions = 1;
    tf_fold_region *r = &res->regions[0];
    if ((rc = init_region(tr, region, p->given, &in, r, err)) < 0)
        goto fail;
    /* Every instance's points (this share's), taken over from the
     * extraction. */
    tf_fold_members all = { .n = in.ninstances, .first = in.first_point, .points = in.points,
                           .rows = malloc((in.ninstances + 1) * sizeof *all.rows) };
    in.first_point = NULL;
    memset(&in.points, 0, sizeof in.points);
    if (!all.rows) {
        tf_fold_members_free(&all);
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < all.n; i++)
        all.rows[i] = (uint32_t)i;
    /* The preempted instances first: their durations would weigh on the
     * recording's cost and on the groups.  Folding them in CPU time moves
     * their points, which only a fold that holds them all can do. */
    if (p->preempted == TF_PREEMPTED_CPU_TIME && shared)
        rc = tf_fail(err, TF_ERR_USAGE, "--preempted cpu-time: not available when the ranks "
                                        "of mpirun share the reading");
    else   /* grouped by process, each process against its own instances */
        rc = tf_fold_preempted(r, p->preempted, p->group_by != TF_GROUP_BY_DURATION, all.first,
                               &all.points, err);
    /* Before the durations group and filter the instances; every rank
     * takes the cost out of its own points. */
    if (rc == 0 && (rc = tf_fold_observer_measure(r, err)) == 0) {
        tf_fold_observer_apply(r, tf_fold_cpu_time_counter(r), all.first, &all.points);
        if (shared)
            rc = tf_fold_team_observer(team, r, err);
    }
    if (rc < 0) {
        tf_fold_members_free(&all);
        goto fail;
    }
    struct context cx = {
        .p = p, .tr = tr, .region = r, .in = &in, .all = &all, .team = team, .spread = shared,
        .threads = tf_fold_threads(p, team),
        .progress = progress,
        .progress_arg = progress_arg,
        .instructions = tf_fold_instructions_counter((const char *const *)r->counter_names,
                                                     r->ncounters),
    };
    rc = fold_region(&cx, err);
    tf_fold_members_free(&all);
    /* The outputs take the members' points a part at a time. */
    if (rc == 0 && shared)
        rc = tf_fold_team_parts(team, res, cx.offsets, err);
    free(cx.offsets);
    if (rc < 0)
        goto fail;
    tf_fold_input_free(&in);
#ifdef __GLIBC__
    /* The fold's own blocks (the first fits' points, the scores, the
     * extraction's tables) were freed in the middle of the heap, which
     * glibc keeps resident, and the outputs' larger blocks do not fit in
     * their holes: their pages go back to the kernel. */
    malloc_trim(0);
#endif
    *out = res;
    return 0;
fail:
    if (rc == -TF_ERR_DATA)
        tf_error_prefix(err, "%s: ", tf_trace_path(tr));
    tf_fold_input_free(&in);
    tf_fold_result_free(res);
    return rc;
}
