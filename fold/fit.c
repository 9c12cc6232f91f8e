/* SPDX-License-Identifier: BSD-3-Clause */
/* The fit of one counter.  Each instance's curve is rebuilt from its own
 * samples (reconstruct.c) and evaluated on the grid, with its slope and
 * whether that piece is exact.  At every grid point the curve is the mean of
 * the trusted instances' values and the rate the mean of their slopes: which
 * instances are trusted at a point depends only on where their samples fell,
 * not on their values, so the trusted mean is an unbiased estimate of the
 * mean of all.  Where fewer than COVERAGE of the instances are trusted
 * (sparse sampling: a few samples per iteration, so every interval spans a
 * change), a pooled local-linear regression of the folded cloud takes over,
 * within the segment between two change points.  A second pass, when some
 * instances were untrusted somewhere, rebuilds the changes the instance
 * alone could not with each segment's mean slope (the mean over the
 * instances with two samples inside it), and a third fills what stays
 * untrusted with the second's mean curve, scaled to the instance's
 * samples, its slopes with the segments' mean slopes.  A final isotonic
 * regression (pool-adjacent-violators) makes the curve non-decreasing from
 * (0,0) to (1,1).  Cost: O(samples + instances·G).
 *
 * Bands: a bootstrap over instances, since instances, not samples, are the
 * independent units.  Each replicate weighs the units by independent
 * Poisson(1) counts (the "Poisson bootstrap", Hanley and MacGibbon 2006;
 * Chamandy et al. 2012), which approximates multinomial resampling for more
 * than a few dozen units, the weights drawn from a counter-based generator
 * instead of stored.  With more than MAX_UNITS instances, the units are
 * MAX_UNITS random blocks of instances (by a hash of the instance): the
 * mean of iid instances has the same variance whether they are resampled
 * one by one or in random blocks, and the cost falls from
 * replicates·instances·G to instances·G + replicates·MAX_UNITS·G.  The band
 * is the estimate plus the replicates' quantiles minus the full-sample value
 * of the same mean (a shifted percentile band, so it also wraps the pooled
 * fallback).  With a second pass, the curve band is widened to the first
 * pass's (of the trusted means), which alone sees how little the few
 * trusted instances near a change pin it down (docs/algorithms.md,
 * "Confidence bands").
 *
 * The instances come in order, a run of them at a time (tf_fit_add), in
 * one pass or three: every sum is then made in the order of a fit of the
 * whole cloud, so a fit fed in runs from several places (a team's ranks)
 * is that fit, bit for bit, and holds one run of points at a time. */
#include "fit.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "linefit.h"
#include "reconstruct.h"
#include "robust.h"
#include "common/tf_hash.h"

/* Share of instances that must be trusted at a grid point. */
#define COVERAGE 0.2
/* Fewest instances with two samples inside a segment for their mean slope
 * to stand for it, and the width (in bend windows) below which a segment
 * without them may take a neighbour's. */
#define MIN_SEGMENT_INSTANCES 10
#define NARROW_SEGMENT 4
/* Most bootstrap units (instances, or blocks of instances). */
#define MAX_UNITS 128
/* Points in the pooled local fits: for the value, and (wider) the slope. */
#define POOLED_POINTS 40
#define POOLED_SLOPE_POINTS 160

/* One step of SplitMix64 (Steele, Lea and Flood 2014) as a hash of (seed,
 * replicate, instance): the same instance gets the same weight in every
 * counter. */
static uint64_t mix(uint64_t z)
{
    return tf_mix64(z + 0x9e3779b97f4a7c15ull);
}

static unsigned poisson1(uint64_t seed, uint32_t replicate, uint32_t row)
{
    /* Cumulative Poisson(1) probabilities, by inversion. */
    static const double cdf[] = {
        0.36787944117144233, 0.73575888234288467, 0.91969860292860584,
        0.98101184312384626, 0.99634015317265637, 0.99940581518241467,
        0.99991675885071772, 0.99998975080332525, 0.99999887479740121,
    };
    uint64_t h = mix(mix(seed ^ ((uint64_t)replicate << 32)) ^ row);
    double u = (double)(h >> 11) * 0x1.0p-53;
    unsigned k = 0;
    while (k < sizeof cdf / sizeof cdf[0] && u >= cdf[k])
        k++;
    return k;
}

/* Two doubles in one SSE2 register: GCC's and Clang's vector extension. */
typedef double tf_fit_pair __attribute__((vector_size(16)));

/* Weighted sums over instances at each grid point: trusted values, slopes
 * and weights; all values and slopes; weight, total and duration. */
struct sums {
    double *tv, *ts, *tw, *av, *as;
    double w, t, d;
};

static int sums_alloc(struct sums *s, size_t g)
{
    memset(s, 0, sizeof *s);
    s->tv = calloc(5 * g, sizeof *s->tv);
    if (!s->tv)
        return -1;
    s->ts = s->tv + g;
    s->tw = s->ts + g;
    s->av = s->tw + g;
    s->as = s->av + g;
    return 0;
}

/* Events per second per unit of normalised slope of the instances summed
 * in s: their total over their duration. */
static double rate_scale(const struct sums *s)
{
    return s->t / (s->d * 1e-9);
}

/* p[0..1] += r */
static inline void pair_add(double *p, tf_fit_pair r)
{
    tf_fit_pair a;
    memcpy(&a, p, sizeof a);
    a += r;
    memcpy(p, &a, sizeof a);
}

/* Two grid points (j, j + 1) of a sums' rows += an instance's (x, y:
 * value and slope; tx, ty, t: those of a trusted point and its weight,
 * else 0). */
static inline void sums_add_pair(struct sums *s, size_t j, tf_fit_pair x, tf_fit_pair y,
                          tf_fit_pair tx, tf_fit_pair ty, tf_fit_pair t)
{
    pair_add(s->av + j, x);
    pair_add(s->as + j, y);
    pair_add(s->tv + j, tx);
    pair_add(s->ts + j, ty);
    pair_add(s->tw + j, t);
}

/* An instance (weight 1) into the sums s and, unless NULL, u (its
 * bootstrap unit's).  This runs instances x G x counters x passes times:
 * one pass over the instance's rows serves both sums, two grid points a
 * step in the vector type (GCC's -O2 leaves the loop with its select
 * scalar), each element computed as the scalar code would (the same
 * products and sums, no fused multiply-add), so the sums are bit for bit
 * the same. */
static void sums_add(struct sums *s, struct sums *u, size_t g, const double *v,
                     const double *sl, const unsigned char *tr, double total, double duration)
{
    size_t j = 0;
    for (; j + 2 <= g; j += 2) {
        tf_fit_pair x, y, t = { tr[j] ? 1.0 : 0, tr[j + 1] ? 1.0 : 0 };
        memcpy(&x, v + j, sizeof x);
        memcpy(&y, sl + j, sizeof y);
        tf_fit_pair tx = t * x, ty = t * y;
        sums_add_pair(s, j, x, y, tx, ty, t);
        if (u)
            sums_add_pair(u, j, x, y, tx, ty, t);
    }
    struct sums *both[] = { s, u };
    for (size_t k = 0; k < 2 && both[k]; k++) {
        struct sums *d = both[k];
        if (j < g) {   /* an odd G's last point */
            double t = tr[j] ? 1.0 : 0;
            d->av[j] += v[j];
            d->as[j] += sl[j];
            d->tv[j] += t * v[j];
            d->ts[j] += t * sl[j];
            d->tw[j] += t;
        }
        d->w += 1;
        d->t += total;
        d->d += duration;
    }
}

/* acc[j] = sum over q < nq of w[q] · src[q][off + j], j < n: a tile of a
 * bootstrap replicate's row from its units' rows.  Replicates × units × 5
 * grid rows: a billion multiply-adds for 8 counters whatever the number
 * of samples, so eight grid points a step are summed over all the units
 * in registers (two doubles in each, GCC's vector extension) and stored
 * once.  Each element is summed from 0 in the order of q, a product then
 * a sum (no fused multiply-add at the default flags), as dst += w · src
 * over the units one by one would. */
static void row_combine(double *restrict acc, size_t n, const double *const *src, size_t off,
                        const double *w, uint32_t nq)
{
    size_t j = 0;
    for (; j + 8 <= n; j += 8) {
        tf_fit_pair a0 = { 0, 0 }, a1 = a0, a2 = a0, a3 = a0;
        for (uint32_t q = 0; q < nq; q++) {
            const double *p = src[q] + off + j;
            tf_fit_pair wq = { w[q], w[q] }, x0, x1, x2, x3;
            memcpy(&x0, p, sizeof x0);
            memcpy(&x1, p + 2, sizeof x1);
            memcpy(&x2, p + 4, sizeof x2);
            memcpy(&x3, p + 6, sizeof x3);
            a0 += wq * x0;
            a1 += wq * x1;
            a2 += wq * x2;
            a3 += wq * x3;
        }
        memcpy(acc + j, &a0, sizeof a0);
        memcpy(acc + j + 2, &a1, sizeof a1);
        memcpy(acc + j + 4, &a2, sizeof a2);
        memcpy(acc + j + 6, &a3, sizeof a3);
    }
    for (; j < n; j++) {
        double a = 0;
        for (uint32_t q = 0; q < nq; q++)
            a += w[q] * src[q][off + j];
        acc[j] = a;
    }
}

/* Trusted means where coverage allows, means of all elsewhere (mask = 1). */
static void sums_estimate(const struct sums *s, size_t g, double *curve, double *slope,
                          unsigned char *mask)
{
    for (size_t j = 0; j < g; j++) {
        bool covered = s->tw[j] > 0 && s->tw[j] >= COVERAGE * s->w;
        curve[j] = covered ? s->tv[j] / s->tw[j] : s->av[j] / s->w;
        slope[j] = covered ? s->ts[j] / s->tw[j] : s->as[j] / s->w;
        if (mask)
            mask[j] = !covered;
    }
}

/* Pool-adjacent-violators on equally weighted values, in place, then the
 * ends pinned to 0 and 1 (Barlow et al., "Statistical inference under order
 * restrictions", 1972).  level/count: work space of g each. */
static void isotonic(double *v, size_t g, double *level, size_t *count)
{
    size_t nb = 0;
    for (size_t j = 0; j < g; j++) {
        level[nb] = v[j];
        count[nb++] = 1;
        while (nb > 1 && level[nb - 2] > level[nb - 1]) {
            double c = (double)count[nb - 2] + (double)count[nb - 1];
            level[nb - 2] = (level[nb - 2] * (double)count[nb - 2] +
                             level[nb - 1] * (double)count[nb - 1]) / c;
            count[nb - 2] += count[nb - 1];
            nb--;
        }
    }
    size_t j = 0;
    for (size_t b = 0; b < nb; b++)
        for (size_t k = 0; k < count[b]; k++)
            v[j++] = level[b];
    for (j = 0; j < g; j++)
        v[j] = v[j] < 0 ? 0 : v[j] > 1 ? 1 : v[j];
    v[0] = 0;
    v[g - 1] = 1;
}

/* The pooled fit's bins of the cloud: the points of the valid instances
 * by normalised time, NBINS(g) of them, each instance adding its ends
 * (0, 0) and (1, 1); bin b is p[1 + b], p[0] stays empty for the prefix
 * sums. */
static size_t pooled_bins(size_t g)
{
    return 4 * (g - 1) > 400 ? 4 * (g - 1) : 400;
}

static void pooled_add(struct tf_stats *p, size_t nbins, const float *x, const float *y,
                       size_t m)
{
    tf_stats_add(&p[1], 1, 0, 0);
    tf_stats_add(&p[nbins], 1, 1, 1);
    for (size_t k = 0; k < m; k++) {
        if (isnan(y[k]))
            continue;
        size_t b = (size_t)(x[k] * (double)nbins);
        tf_stats_add(&p[1 + (b >= nbins ? nbins - 1 : b)], 1, x[k], y[k]);
    }
}

/* Pooled local-linear fits of the cloud at the masked grid points: the
 * nearest POOLED_POINTS points (POOLED_SLOPE_POINTS for the slope) within
 * the segment between the change points around the point; p: the bins'
 * prefix sums (tf_stats_prefix). */
static void pooled_fit(const struct tf_stats *p, size_t nbins, const double *bd, size_t nb,
                       size_t g, const unsigned char *mask, double *curve, double *slope)
{
    size_t k = 0;
    for (size_t j = 0; j < g; j++) {
        if (!mask[j])
            continue;
        double x = (double)j / (double)(g - 1);
        while (k < nb && bd[k] <= x)
            k++;
        double lo = k > 0 ? bd[k - 1] : 0, hi = k < nb ? bd[k] : 1;
        size_t seg_lo = (size_t)ceil(lo * (double)nbins), seg_hi = (size_t)floor(hi * (double)nbins);
        size_t at = (size_t)(x * (double)nbins);
        at = at < seg_lo ? seg_lo : at >= seg_hi ? (seg_hi > seg_lo ? seg_hi - 1 : seg_lo) : at;
        size_t a = at, b = at + 1 <= seg_hi ? at + 1 : seg_hi;
        for (int pass = 0; pass < 2; pass++) {
            double want = pass == 0 ? POOLED_POINTS : POOLED_SLOPE_POINTS;
            while (tf_stats_range(p, a, b).w < want && (a > seg_lo || b < seg_hi)) {
                if (a > seg_lo)
                    a--;
                if (b < seg_hi)
                    b++;
            }
            struct tf_stats s = tf_stats_range(p, a, b);
            if (s.w < 3)
                break;
            struct tf_line l = tf_fit_line(s);
            if (pass == 0)
                curve[j] = l.intercept + l.slope * x;
            else
                slope[j] = l.slope > 0 ? l.slope : 0;
        }
    }
}

static void fill_nan(double *v, size_t n)
{
    for (size_t j = 0; j < n; j++)
        v[j] = NAN;
}

/* Grid points of a replicate's rows summed at a time: the units' rows of
 * one tile (5 x TILE x units doubles, 320 KB for 128 units) stay in the
 * L2 cache while every replicate is summed from them. */
#define TILE 64

/* The bootstrap replicates' curves and slopes (cb, rb: rows of g, the
 * *kept ones whose weights are positive).  Replicate b is the sum of the
 * units u weighed by their Poisson counts w(b, u) > 0, in the order of u
 * (row_combine): the same sums whatever the order of the loops around
 * them, summed a tile of grid points at a time
 * and turned into curves at once, so that no replicate's full sums are
 * ever stored. */
static int replicate_rows(const struct sums *unit, const uint32_t *unit_key, size_t nu,
                          size_t g, const tf_fit_options *o, double *cb, double *rb,
                          uint32_t *kept)
{
    uint32_t nrep = o->bootstrap;
    const double **ui = malloc(((size_t)nrep * nu + 1) * sizeof *ui);
    uint32_t *nw = NULL;
    double *uw = malloc(((size_t)nrep * nu + 1) * sizeof *uw);
    struct sums *rep = calloc(nrep + 1, sizeof *rep);
    double *acc = malloc(5 * TILE * sizeof *acc);
    if (ui && uw && rep && acc)
        nw = calloc(nrep + 1, sizeof *nw);
    if (!nw) {
        free(ui);
        free(uw);
        free(rep);
        free(acc);
        return -1;
    }
    /* Each replicate's units and weights, and its weight, total and
     * duration. */
    *kept = 0;
    for (uint32_t b = 0; b < nrep; b++) {
        const double **bu = ui + (size_t)b * nu;
        double *bw = uw + (size_t)b * nu;
        for (size_t u = 0; u < nu; u++) {
            unsigned w = unit[u].w > 0 ? poisson1(o->seed, b, unit_key[u]) : 0;
            if (!w)
                continue;
            bu[nw[b]] = unit[u].tv;
            bw[nw[b]++] = w;
            rep[b].w += w * unit[u].w;
            rep[b].t += w * unit[u].t;
            rep[b].d += w * unit[u].d;
        }
    }
    for (size_t j0 = 0; j0 < g; j0 += TILE) {
        size_t n = g - j0 < TILE ? g - j0 : TILE;
        uint32_t k = 0;
        for (uint32_t b = 0; b < nrep; b++) {
            if (rep[b].w <= 0 || rep[b].d <= 0)
                continue;
            for (size_t row = 0; row < 5; row++)
                row_combine(acc + row * TILE, n, ui + (size_t)b * nu, row * g + j0,
                            uw + (size_t)b * nu, nw[b]);
            struct sums tile = { .tv = acc, .ts = acc + TILE, .tw = acc + 2 * TILE,
                                 .av = acc + 3 * TILE, .as = acc + 4 * TILE, .w = rep[b].w,
                                 .t = rep[b].t, .d = rep[b].d };
            double *c = cb + (size_t)k * g + j0, *r = rb + (size_t)k * g + j0;
            sums_estimate(&tile, n, c, r, NULL);
            double scale = rate_scale(&rep[b]);
            for (size_t j = 0; j < n; j++)
                r[j] *= scale;
            k++;
        }
        *kept = k;
    }
    free(ui);
    free(uw);
    free(nw);
    free(rep);
    free(acc);
    return 0;
}

/* Bands from the replicates of the units (unit_key: their keys, nu of
 * them): estimate + quantile(replicate) - center.  rate_off (NULL, or 2G)
 * gets the rate's quantiles minus the center, low then high, unclipped. */
static int bands(const struct sums *unit, const uint32_t *unit_key, size_t nu, size_t g,
                 const tf_fit_options *o, const double *center_curve,
                 const double *center_slope, tf_fit_output *out, double *rate_off)
{
    uint32_t nrep = o->bootstrap, kept = 0;
    double *cb = malloc(((size_t)nrep * g + 1) * sizeof *cb);
    double *rb = malloc(((size_t)nrep * g + 1) * sizeof *rb);
    double *work = malloc((nrep + 1) * sizeof *work);
    int rc = cb && rb && work ? replicate_rows(unit, unit_key, nu, g, o, cb, rb, &kept) : -1;
    double lo_q = (1 - o->confidence) / 2, hi_q = 1 - lo_q;
    for (size_t j = 0; rc == 0 && kept > 1 && j < g; j++) {
        for (uint32_t b = 0; b < kept; b++)
            work[b] = cb[(size_t)b * g + j];
        double clo = tf_quantile_inplace(work, kept, lo_q) - center_curve[j];
        double chi = tf_quantile_inplace(work, kept, hi_q) - center_curve[j];
        out->curve_lo[j] = fmin(fmax(out->curve[j] + clo, 0), out->curve[j]);
        out->curve_hi[j] = fmax(fmin(out->curve[j] + chi, 1), out->curve[j]);
        for (uint32_t b = 0; b < kept; b++)
            work[b] = rb[(size_t)b * g + j];
        double rlo = tf_quantile_inplace(work, kept, lo_q) - center_slope[j];
        double rhi = tf_quantile_inplace(work, kept, hi_q) - center_slope[j];
        if (rate_off) {
            rate_off[j] = rlo;
            rate_off[g + j] = rhi;
        }
        out->rate_lo[j] = fmin(fmax(out->rate[j] + rlo, 0), out->rate[j]);
        out->rate_hi[j] = fmax(out->rate[j] + rhi, out->rate[j]);
    }
    free(cb);
    free(rb);
    free(work);
    return rc;
}

/* A grid row at x in [0, 1], by linear interpolation. */
static double grid_at(const double *row, size_t g, double x)
{
    double pos = x * (double)(g - 1);
    size_t j = pos <= 0 ? 0 : pos >= (double)(g - 1) ? g - 2 : (size_t)pos;
    double t = pos - (double)j;
    return row[j] + (t < 0 ? 0 : t > 1 ? 1 : t) * (row[j + 1] - row[j]);
}

/* Fills the untrusted stretches of an instance (grid values and slopes)
 * with a shape scaled to the instance's own samples at their ends: the
 * values with the second pass's mean curve (shape), the slopes with the
 * model (the segments' mean slopes, model_slope, and their integral, model),
 * since the first pass's slope rests on the few trusted instances there,
 * or, where a segment on the stretch has no mean slope, with the first
 * pass's (shape_slope). */
static void impute_untrusted(const tf_polyline *pl, size_t g, const double *shape,
                             const double *shape_slope, const double *model,
                             const double *model_slope, double *values, double *slopes,
                             unsigned char *trusted)
{
    double h = 1.0 / (double)(g - 1);
    for (size_t s = 0; s + 1 < pl->n;) {
        if (pl->trusted[s]) {
            s++;
            continue;
        }
        size_t e = s;
        while (e + 1 < pl->n && !pl->trusted[e])
            e++;
        double xa = pl->x[s], ya = pl->y[s], xb = pl->x[e], yb = pl->y[e];
        size_t j0 = (size_t)ceil(xa / h), j1 = (size_t)floor(xb / h);
        bool modelled = true;
        for (size_t j = j0 > 0 ? j0 - 1 : 0; j <= j1 + 1 && j < g; j++)
            modelled &= !isnan(model_slope[j]);
        const double *row = modelled ? model : shape, *row_slope = modelled ? model_slope : shape_slope;
        double sa = grid_at(shape, g, xa), sb = grid_at(shape, g, xb);
        double ra = grid_at(row, g, xa), rb = grid_at(row, g, xb);
        for (size_t j = j0; j <= j1 && j < g; j++) {
            if (trusted[j] || sb - sa <= 1e-12 || rb - ra <= 1e-12)
                continue;
            double f = (shape[j] - sa) / (sb - sa);
            values[j] = ya + (f < 0 ? 0 : f > 1 ? 1 : f) * (yb - ya);
            slopes[j] = (yb - ya) / (rb - ra) * row_slope[j];
            trusted[j] = 1;
        }
        s = e;
    }
}

static void sums_clear(struct sums *s, size_t g)
{
    memset(s->tv, 0, 5 * g * sizeof *s->tv);
    s->w = s->t = s->d = 0;
}

/* A fit in progress: the instances' arrays (cl's; its points come with
 * each tf_fit_add), the sums of the pass under way, the pooled fit's bins
 * (filled by the first pass, or from the whole cloud when needed), and
 * the rows of the output. */
struct tf_fit_stream {
    const tf_fold_cloud *cl;
    bool whole;               /* cl holds the points too (tf_fit_counter): the
                               * bins are filled from it if they are needed */
    bool binned;              /* the bins hold their prefix sums */
    const double *bd;
    size_t nb, g, nunits, nbins;
    tf_fit_options o;
    tf_fit_output *out;
    int pass;                 /* 1, 2, 3, or 0 once done */
    size_t k;                 /* valid instances met in this pass */
    struct sums all, known, *unit;   /* known: the second pass's */
    uint32_t *unit_key;
    struct tf_stats *bins;
    tf_polyline scratch, pl;
    double *values, *slopes, *center_curve, *center_slope, *level, *shape_slope, *shape;
    double *first_lo, *first_hi;   /* the first pass's curve band, relative */
    double *first_rate;            /* and its rate band's, low then high (2G) */
    double *segment_slope;         /* mean slope per segment between boundaries */
    double *model, *model_slope;   /* those slopes on the grid, their integral */
    double *segment_sum, *segment_n;   /* its sums over the first pass's instances */
    bool widen;                    /* the final band is widened to it */
    unsigned char *trusted, *mask;
    size_t *count;
    double *grid_x;                /* the grid points (tf_grid_points) */
};

static void stream_free(tf_fit_stream *st)
{
    tf_polyline_free(&st->scratch);
    tf_polyline_free(&st->pl);
    free(st->all.tv);
    free(st->known.tv);
    for (size_t u = 0; st->unit && u < st->nunits; u++)
        free(st->unit[u].tv);
    free(st->unit);
    free(st->unit_key);
    free(st->bins);
    free(st->values);
    free(st->shape);
    free(st->trusted);
    free(st->count);
    free(st->grid_x);
    free(st);
}

int tf_fit_begin(const tf_fold_cloud *cl, const double *boundaries, size_t nb,
                 const tf_fit_options *o, tf_fit_output *out, tf_fit_stream **stream,
                 tf_error *err)
{
    *stream = NULL;
    tf_fit_stream *st = calloc(1, sizeof *st);
    if (!st)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the fit");
    size_t g = o->grid;
    *st = (tf_fit_stream){ .cl = cl, .bd = boundaries, .nb = nb, .g = g, .o = *o, .out = out,
                           .pass = 1, .nbins = pooled_bins(g) };
    fill_nan(out->curve_lo, g);
    fill_nan(out->curve_hi, g);
    fill_nan(out->rate_lo, g);
    fill_nan(out->rate_hi, g);
    out->instances = 0;
    out->mean_total = out->mean_duration_ns = NAN;
    for (size_t i = 0; i < cl->ninst; i++)
        out->instances += cl->valid[i] != 0;
    if (out->instances < 2) {
        fill_nan(out->curve, g);
        fill_nan(out->rate, g);
        st->pass = 0;
        *stream = st;
        return 0;
    }
    uint32_t nrep = o->bootstrap;
    st->nunits = out->instances <= MAX_UNITS ? out->instances : MAX_UNITS;
    st->unit = calloc(st->nunits + 1, sizeof *st->unit);
    st->unit_key = malloc((st->nunits + 1) * sizeof *st->unit_key);
    st->bins = calloc(st->nbins + 1, sizeof *st->bins);
    st->values = malloc(10 * g * sizeof *st->values);
    st->shape = malloc((3 * g + 3 * (nb + 1)) * sizeof *st->shape);
    st->trusted = malloc(2 * g);
    st->count = malloc(g * sizeof *st->count);
    st->grid_x = malloc(g * sizeof *st->grid_x);
    bool ok = st->unit && st->unit_key && st->bins && st->values && st->shape &&
              st->trusted && st->count && st->grid_x && sums_alloc(&st->all, g) == 0 &&
              sums_alloc(&st->known, g) == 0;
    for (size_t u = 0; ok && nrep > 0 && u < st->nunits; u++)
        ok = sums_alloc(&st->unit[u], g) == 0;
    if (!ok) {
        stream_free(st);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the fit");
    }
    st->slopes = st->values + g;
    st->center_curve = st->values + 2 * g;
    st->center_slope = st->values + 3 * g;
    st->level = st->values + 4 * g;
    st->shape_slope = st->values + 5 * g;
    st->first_lo = st->values + 6 * g;
    st->first_hi = st->values + 7 * g;
    st->first_rate = st->values + 8 * g;
    st->model = st->shape + g;
    st->model_slope = st->model + g;
    st->segment_slope = st->model_slope + g;
    st->segment_sum = st->segment_slope + nb + 1;
    st->segment_n = st->segment_sum + nb + 1;
    memset(st->segment_sum, 0, 2 * (nb + 1) * sizeof *st->segment_sum);
    st->mask = st->trusted + g;
    tf_grid_points(g, st->grid_x);
    *stream = st;
    return 0;
}

/* Adds the instance's slope in each segment between boundaries where it
 * has two points (its samples, or its ends (0, 0) and (1, 1)) farther than
 * the window from a boundary: exact for a constant rate, and which
 * instances count depends only on where their samples fell. */
static void segment_slopes_add(tf_fit_stream *st, const float *x, const float *y, size_t m)
{
    const double *bd = st->bd, w = st->o.window;
    size_t nb = st->nb, seg = 0, have = 0;
    double xa = 0, ya = 0, xb = 0, yb = 0;
    for (size_t k = 0; k <= m + 2; k++) {
        bool last = k == m + 2;
        double xv = k == 0 ? 0 : k <= m ? x[k - 1] : 1, yv = k == 0 ? 0 : k <= m ? y[k - 1] : 1;
        if (!last && isnan(yv))
            continue;
        while (seg <= nb && (last || (seg < nb && xv >= bd[seg]))) {
            if (have > 1 && xb > xa) {
                st->segment_sum[seg] += (yb - ya) / (xb - xa);
                st->segment_n[seg]++;
            }
            have = 0;
            if (last)
                return;
            seg++;
        }
        if ((seg > 0 && xv <= bd[seg - 1] + w) || (seg < nb && xv >= bd[seg] - w))
            continue;
        if (have++ == 0) {
            xa = xv;
            ya = yv;
        }
        xb = xv;
        yb = yv;
    }
}

int tf_fit_add(tf_fit_stream *st, size_t a, size_t b, const float *x, const float *y,
               tf_error *err)
{
    if (st->pass == 0)
        return 0;
    const tf_fold_cloud *cl = st->cl;
    size_t g = st->g, base = cl->first[a];
    bool first_pass = st->pass == 1, shaping = st->pass == 2;
    for (size_t i = a; i < b; i++) {
        if (!cl->valid[i])
            continue;
        size_t f = cl->first[i] - base, m = cl->first[i + 1] - cl->first[i];
        if (first_pass && !st->whole)
            pooled_add(st->bins, st->nbins, x + f, y + f, m);
        if (first_pass)
            segment_slopes_add(st, x + f, y + f, m);
        if (tf_reconstruct_instance(x + f, y + f, m, st->bd, st->nb, st->o.window,
                                    first_pass ? NULL : st->segment_slope, &st->scratch,
                                    &st->pl) < 0)
            return tf_fail(err, TF_ERR_NOMEM, "out of memory rebuilding instance curves");
        tf_polyline_on_grid(&st->pl, g, st->grid_x, st->values, st->slopes, st->trusted);
        if (shaping) {   /* only the mean of what the instances rebuild */
            sums_add(&st->known, NULL, g, st->values, st->slopes, st->trusted, 0, 0);
            continue;
        }
        if (!first_pass)
            impute_untrusted(&st->pl, g, st->shape, st->shape_slope, st->model,
                             st->model_slope, st->values, st->slopes,
                             st->trusted);
        struct sums *unit = NULL;
        if (st->o.bootstrap > 0) {
            /* The unit: the instance itself, or its block (keyed by its row,
             * so that an instance weighs the same in every counter). */
            bool own = st->nunits == st->out->instances;
            size_t u = own ? st->k : (size_t)(mix(cl->rows[i]) % st->nunits);
            st->unit_key[u] = own ? cl->rows[i] : (uint32_t)u;
            unit = &st->unit[u];
            st->k++;
        }
        sums_add(&st->all, unit, g, st->values, st->slopes, st->trusted, cl->total[i],
                 cl->duration[i]);
    }
    return 0;
}

/* The trusted means, the pooled fit where they lack coverage, and the
 * isotonic finish: curve and (normalised) slope on the grid; center_* get
 * the plain means the bootstrap replicates are compared with. */
static void estimate(tf_fit_stream *st, double *curve, double *slope)
{
    size_t g = st->g;
    sums_estimate(&st->all, g, st->center_curve, st->center_slope, st->mask);
    memcpy(curve, st->center_curve, g * sizeof *curve);
    memcpy(slope, st->center_slope, g * sizeof *slope);
    bool sparse = false;
    for (size_t j = 0; j < g; j++)
        sparse |= st->mask[j];
    if (sparse && !st->binned) {
        /* a fit of the whole cloud bins it only now, in the same order as
         * a first pass would have (most clouds are never sparse: 0.15 s of
         * a fold of 64 x 3000's 11 s spared) */
        const tf_fold_cloud *cl = st->cl;
        for (size_t i = 0; st->whole && i < cl->ninst; i++)
            if (cl->valid[i])
                pooled_add(st->bins, st->nbins, cl->x + cl->first[i], cl->y + cl->first[i],
                           cl->first[i + 1] - cl->first[i]);
        tf_stats_prefix(st->bins, st->nbins);
        st->binned = true;
    }
    if (sparse)
        pooled_fit(st->bins, st->nbins, st->bd, st->nb, g, st->mask, curve, slope);
    isotonic(curve, g, st->level, st->count);
}

/* The model's integral of its slopes (trapezoids, NaN counted as 0). */
static void model_integrate(tf_fit_stream *st)
{
    size_t g = st->g;
    st->model[0] = 0;
    for (size_t j = 1; j < g; j++) {
        double prev = isnan(st->model_slope[j - 1]) ? 0 : st->model_slope[j - 1];
        double here = isnan(st->model_slope[j]) ? 0 : st->model_slope[j];
        st->model[j] = st->model[j - 1] + (prev + here) / (2 * (double)(g - 1));
    }
}

/* Each segment's mean slope (segment_slope_add's sums), NaN where fewer
 * than MIN_SEGMENT_INSTANCES instances gave one (sparse sampling: the
 * first pass's slopes stay in use there).  A segment narrower than
 * NARROW_SEGMENT windows without its own is most often one change found
 * twice, not merged: it takes the slope of the neighbour closest to the
 * first pass's mean slope over it, when that neighbour has its own.  Then
 * the model: those slopes on the grid, and their integral (NaN counted as
 * 0; impute_untrusted does not use the model across them). */
static void segment_slopes(tf_fit_stream *st)
{
    size_t g = st->g, nb = st->nb;
    double *slope = st->segment_slope;
    for (size_t k = 0; k <= nb; k++)
        slope[k] = st->segment_n[k] >= MIN_SEGMENT_INSTANCES
                       ? st->segment_sum[k] / st->segment_n[k] : NAN;
    for (size_t k = 0; k <= nb; k++) {
        double lo = k > 0 ? st->bd[k - 1] : 0, hi = k < nb ? st->bd[k] : 1;
        if (!isnan(slope[k]) || hi - lo >= NARROW_SEGMENT * st->o.window)
            continue;
        double own = fmax(grid_at(st->shape_slope, g, (lo + hi) / 2), 1e-12), best = INFINITY;
        for (size_t q = k > 0 ? k - 1 : k + 1; q <= k + 1 && q <= nb; q += 2) {
            if (st->segment_n[q] < MIN_SEGMENT_INSTANCES)
                continue;
            double qs = st->segment_sum[q] / st->segment_n[q];
            double d = fabs(log(fmax(qs, 1e-12) / own));
            if (d < best) {
                best = d;
                slope[k] = qs;
            }
        }
    }
    size_t k = 0;
    for (size_t j = 0; j < g; j++) {
        double x = (double)j / (double)(g - 1);
        while (k < nb && st->bd[k] <= x)
            k++;
        st->model_slope[j] = slope[k];
    }
    model_integrate(st);
}

/* The bands and rates once the last pass is in. */
static int finish(tf_fit_stream *st, tf_error *err)
{
    size_t g = st->g;
    uint32_t nrep = st->o.bootstrap;
    tf_fit_output *out = st->out;
    double n = st->all.w;
    out->mean_total = st->all.t / n;
    out->mean_duration_ns = st->all.d / n;
    double scale = out->mean_total / (out->mean_duration_ns * 1e-9);
    for (size_t j = 0; j < g; j++) {
        out->rate[j] = (st->slopes[j] > 0 ? st->slopes[j] : 0) * scale;
        st->center_slope[j] *= scale;
    }
    if (nrep > 1 && bands(st->unit, st->unit_key, st->nunits, g, &st->o, st->center_curve,
                          st->center_slope, out, NULL) < 0)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the bootstrap bands");
    for (size_t j = 0; st->widen && nrep > 1 && j < g; j++) {
        out->curve_lo[j] = fmax(fmin(out->curve_lo[j], out->curve[j] + st->first_lo[j]), 0);
        out->curve_hi[j] = fmin(fmax(out->curve_hi[j], out->curve[j] + st->first_hi[j]), 1);
        out->rate_lo[j] = fmax(fmin(out->rate_lo[j], out->rate[j] + st->first_rate[j]), 0);
        out->rate_hi[j] = fmax(out->rate_hi[j], out->rate[j] + st->first_rate[g + j]);
    }
    return 0;
}

/* The model's slopes within the bend window of each boundary: the second
 * pass's mean slope of the instances whose curve is known there, where
 * they are enough, instead of the switch from one segment's mean slope to
 * the next at the boundary.  Each instance changes where it changes (±1 %
 * around the boundary), so the mean rate there moves from one phase's to
 * the next's as the share of instances already past their change grows;
 * the instances whose change was rebuilt give that share, and those filled
 * with a switch at the boundary would make the mean rate's rise steeper
 * and late or early by their share (a quarter of the instances on Poisson
 * sampling: the rate band held the true rate on 40-75 % of the grid within
 * 2 % of the changes).  The model's integral follows. */
static void model_transitions(tf_fit_stream *st)
{
    size_t g = st->g;
    const struct sums *k = &st->known;
    double w = st->o.window;
    for (size_t b = 0; b < st->nb; b++) {
        size_t j0 = (size_t)fmax(ceil((st->bd[b] - w) * (double)(g - 1)), 0);
        for (size_t j = j0; j < g && st->grid_x[j] <= st->bd[b] + w; j++)
            if (!isnan(st->model_slope[j]) && k->tw[j] > 0 && k->tw[j] >= COVERAGE * k->w)
                st->model_slope[j] = k->ts[j] / k->tw[j];
    }
    model_integrate(st);
}

/* The shape the untrusted stretches are filled with in the last pass: the
 * mean of what the second pass rebuilt (each instance's own changes and
 * those rebuilt with the segments' mean slopes), the first pass's curve
 * where that lacks coverage, made non-decreasing.  The first pass's curve
 * rests on the instances whose own change is pinned down by clean
 * intervals on both sides, a third of them near a change with Poisson
 * sampling, and the mean over so few is off the mean over all by their
 * sampling error: each instance's change falls where it falls (±1 %),
 * and just after a slow-to-fast change its curve depends on where (on
 * Poisson seed 25 of the sharp scenario the first pass's dTLB curve is
 * 0.64 % of the total below the truth at x = 0.545, the second pass's
 * mean 0.23 %).  The instances filled with it took that error with them
 * (docs/algorithms.md, "The fit"). */
static void imputation_shape(tf_fit_stream *st)
{
    size_t g = st->g;
    const struct sums *k = &st->known;
    for (size_t j = 0; j < g; j++)
        if (k->tw[j] > 0 && k->tw[j] >= COVERAGE * k->w)
            st->shape[j] = k->tv[j] / k->tw[j];
    isotonic(st->shape, g, st->level, st->count);
    model_transitions(st);
}

int tf_fit_next_pass(tf_fit_stream *st, tf_error *err)
{
    size_t g = st->g;
    if (st->pass == 0)
        return 0;
    if (st->pass == 2) {
        imputation_shape(st);
        st->pass = 3;
        return 1;
    }
    if (st->pass == 3) {
        estimate(st, st->out->curve, st->slopes);
        st->pass = 0;
        return finish(st, err);
    }
    estimate(st, st->out->curve, st->shape_slope);
    bool untrusted = false;
    for (size_t j = 0; j < g; j++)
        untrusted |= st->all.tw[j] < st->all.w;
    if (!untrusted) {
        memcpy(st->slopes, st->shape_slope, g * sizeof *st->slopes);
        st->pass = 0;
        return finish(st, err);
    }
    /* The second pass fills the untrusted stretches with the first pass's
     * shape, and the bootstrap of the filled instances does not see that
     * shape's own error: where few instances are trusted (near a change,
     * with irregular sampling, where the instance's own change lies is
     * known for few), the band of the trusted means is the wider, and the
     * final curve band is widened to it. */
    if (st->o.bootstrap > 1) {
        fill_nan(st->out->rate, g);   /* rates come with the last pass */
        double scale = rate_scale(&st->all);
        for (size_t j = 0; j < g; j++)
            st->center_slope[j] *= scale;
        if (bands(st->unit, st->unit_key, st->nunits, g, &st->o, st->center_curve,
                  st->center_slope, st->out, st->first_rate) < 0)
            return tf_fail(err, TF_ERR_NOMEM, "out of memory for the bootstrap bands");
        for (size_t j = 0; j < g; j++) {
            st->first_lo[j] = st->out->curve_lo[j] - st->out->curve[j];
            st->first_hi[j] = st->out->curve_hi[j] - st->out->curve[j];
        }
        st->widen = true;
    }
    /* Second pass: changes rebuilt with the segments' mean slopes where an
     * instance has no clean interval of its own, only their mean taken
     * (imputation_shape); the third the same, what stays untrusted filled
     * with that mean (the first pass's curve where it lacks coverage) and
     * the model of the mean slopes (the first pass's slopes where a
     * segment has none, kept before they are reused). */
    memcpy(st->shape, st->out->curve, g * sizeof *st->shape);
    segment_slopes(st);
    sums_clear(&st->all, g);
    for (size_t u = 0; st->o.bootstrap > 0 && u < st->nunits; u++)
        sums_clear(&st->unit[u], g);
    st->k = 0;
    st->pass = 2;
    return 1;
}

void tf_fit_end(tf_fit_stream *st)
{
    if (st)
        stream_free(st);
}

int tf_fit_counter(const tf_fold_cloud *cl, const double *boundaries, size_t nb,
                   const tf_fit_options *o, tf_fit_output *out, tf_error *err)
{
    tf_fit_stream *st;
    int rc = tf_fit_begin(cl, boundaries, nb, o, out, &st, err);
    if (rc < 0)
        return rc;
    st->whole = true;
    do
        rc = tf_fit_add(st, 0, cl->ninst, cl->x + cl->first[0], cl->y + cl->first[0], err);
    while (rc == 0 && (rc = tf_fit_next_pass(st, err)) == 1);
    tf_fit_end(st);
    return rc;
}
