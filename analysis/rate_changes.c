/* SPDX-License-Identifier: BSD-3-Clause */
/* Where the folded counter rates change inside a phase.
 *
 * A measure is a counter's rate (events per second) or, when the fold has
 * an instructions counter, its ratio per instruction.  Over a span [u, v)
 * a measure's value comes from the fitted mean cumulative curve (events in
 * the span over its time, or over its instructions: the mean over the
 * span, not a grid point's noise), and its band is the mean of the fitted
 * rate band's bounds over the span's grid points (for a ratio, the ratio
 * of the bounds that makes it widest).  A change between two adjacent
 * spans A and B is real when, for some measure, |a − b| / max(|a|, |b|)
 * is at least min_change (the fold's change-point rule, changepoints.h)
 * and each span's value lies outside the other's band: a difference the
 * bootstrap replicates of the fit do not explain.
 *
 * Candidates: every grid point, comparing the spans of min_length on
 * either side (the phase less boundary_tol + min_length / 2 at each end,
 * where the routine changes and the counters with it) (a change shorter than that is no phase), kept where the
 * score (the largest real relative change) is at least min_change and no
 * better candidate lies within min_length; and the fold's change points.
 * Then, until every boundary holds, the boundary whose whole neighbouring
 * spans differ least is removed when that difference is not real: a
 * windowed peak that was noise, or a level that comes back, leaves no
 * boundary. */
#include "analysis_steps.h"

#include <math.h>
#include <stdlib.h>

struct measure_span {
    double value, lo, hi;
};

/* The cumulative curve of c at x, in events per instance. */
static double events_at(const tf_analysis_counter *c, double x)
{
    double pos = x * (double)(c->npoints - 1);
    if (pos <= 0)
        return c->mean_total * c->curve[0];
    if (pos >= (double)(c->npoints - 1))
        return c->mean_total * c->curve[c->npoints - 1];
    size_t j = (size_t)pos;
    double f = pos - (double)j;
    return c->mean_total * (c->curve[j] * (1 - f) + c->curve[j + 1] * f);
}

/* Mean rate band of c over the grid points in [u, v] (the nearest one when
 * the span holds none); false when c has no band. */
static bool band_over(const tf_analysis_counter *c, double u, double v, double *lo, double *hi)
{
    if (!c->rate_lo || !c->rate_hi)
        return false;
    double last = (double)(c->npoints - 1);
    size_t j0 = (size_t)ceil(u * last), j1 = (size_t)floor(v * last);
    if (j1 < j0)
        j0 = j1 = (size_t)lround((u + v) / 2 * last);
    if (j1 >= c->npoints)
        j1 = c->npoints - 1;
    double sl = 0, sh = 0;
    size_t n = 0;
    for (size_t j = j0; j <= j1; j++)
        if (isfinite(c->rate_lo[j]) && isfinite(c->rate_hi[j])) {
            sl += c->rate_lo[j];
            sh += c->rate_hi[j];
            n++;
        }
    if (!n)
        return false;
    *lo = sl / (double)n;
    *hi = sh / (double)n;
    return true;
}

/* Rate of c over [u, v) in events per second, with its band (the value
 * itself when c has no band). */
static struct measure_span rate_over(const tf_analysis_counter *c, double u, double v, double seconds)
{
    struct measure_span m;
    m.value = (events_at(c, v) - events_at(c, u)) / ((v - u) * seconds);
    if (!band_over(c, u, v, &m.lo, &m.hi))
        m.lo = m.hi = m.value;
    return m;
}

/* Ratio of c per instruction over [u, v): the ratio of the rates, its band
 * from the rates' bands. */
static struct measure_span ratio_over(const tf_analysis_counter *c,
                                      const tf_analysis_counter *ins, double u, double v,
                                      double seconds)
{
    struct measure_span rc = rate_over(c, u, v, seconds), ri = rate_over(ins, u, v, seconds);
    struct measure_span m = { rc.value / ri.value, rc.lo / ri.hi, rc.hi / ri.lo };
    if (!(ri.lo > 0))
        m.hi = INFINITY;
    return m;
}

struct rate_scan {
    const tf_analysis_counter *counters;
    size_t nc, ins;      /* ins: the instructions counter, nc when none */
    double seconds;      /* mean duration of an instance */
    double min_change;
};

static double relative_change(struct measure_span a, struct measure_span b)
{
    double big = fmax(fabs(a.value), fabs(b.value));
    if (!isfinite(a.value) || !isfinite(b.value) || !(big > 0))
        return 0;
    bool outside = (a.value < b.lo || a.value > b.hi) && (b.value < a.lo || b.value > a.hi);
    return outside ? fabs(a.value - b.value) / big : 0;
}

/* Events rarer than this per instruction cannot change a phase's time by
 * min_change: even at 300 cycles each they add 0.03 cycles per
 * instruction, a few per cent of the 0.3 to 1 cycles per instruction of
 * ordinary code.  Measured on the namd trace: its LLC and L2 misses (1e-6
 * and 5e-5 per instruction) jump by half from one 2 % span to the next
 * inside steady loops, beyond their bands of 12 instances. */
#define RARE_PER_INSTRUCTION 1e-4

/* The largest real relative change of any measure between [u, s) and
 * [s, v); 0 when none is real.  With an instructions counter, the
 * measures are its rate and the other counters' ratios per instruction
 * (their rates follow from these); without, every counter's rate. */
static double change_score(const struct rate_scan *r, double u, double s, double v)
{
    double best = 0;
    for (size_t c = 0; c < r->nc; c++) {
        const tf_analysis_counter *cc = &r->counters[c];
        double d;
        if (r->ins < r->nc && c != r->ins) {
            const tf_analysis_counter *ins = &r->counters[r->ins];
            struct measure_span a = ratio_over(cc, ins, u, s, r->seconds),
                                b = ratio_over(cc, ins, s, v, r->seconds);
            d = fmax(fabs(a.value), fabs(b.value)) >= RARE_PER_INSTRUCTION
                    ? relative_change(a, b) : 0;
        } else {
            d = relative_change(rate_over(cc, u, s, r->seconds), rate_over(cc, s, v, r->seconds));
        }
        best = fmax(best, d);
    }
    return best >= r->min_change ? best : 0;
}

struct candidate {
    double x, score;
};

static int by_score_down(const void *pa, const void *pb)
{
    const struct candidate *a = pa, *b = pb;
    return (a->score < b->score) - (a->score > b->score);
}

static int by_x(const void *pa, const void *pb)
{
    double x = *(const double *)pa, y = *(const double *)pb;
    return (x > y) - (x < y);
}

int tf_analysis_rate_changes(const tf_analysis_counter *counters, size_t ncounters, double duration_ns,
                             const double *change_points, size_t nchange_points, double x0, double x1,
                             const tf_analysis_params *p, double **out, size_t *nout, tf_error *err)
{
    *out = NULL;
    *nout = 0;
    double h = p->min_phase_length;
    struct rate_scan r = { counters, 0, 0, duration_ns * 1e-9, p->min_change };
    size_t grid = 0;
    for (size_t c = 0; c < ncounters; c++)
        if (counters[c].npoints >= 2 && counters[c].curve)
            grid = grid > counters[c].npoints ? grid : counters[c].npoints;
    /* the phase's edges, where the routine changes, are the routine's
     * boundary: placed on the samples, it may lie boundary_tol before or
     * after the counters' change, and the fitted curves take about half a
     * minimum length to settle after a sharp one (measured: with a quarter
     * of the samples of test_synth_analysis, the tail of a tenfold change
     * at a routine boundary still differed by 25 % 0.025 past it), so the
     * spans compared leave both out */
    x0 += p->boundary_tol + h / 2;
    x1 -= p->boundary_tol + h / 2;
    if (!grid || !(duration_ns > 0) || x1 - x0 < 2 * h)
        return 0;
    /* the counters with a curve, the instructions counter among them */
    tf_analysis_counter *use = malloc(ncounters * sizeof *use);
    struct candidate *cand = malloc((grid + nchange_points) * sizeof *cand);
    double *kept = malloc((grid + nchange_points + 1) * sizeof *kept);
    if (!use || !cand || !kept) {
        free(use);
        free(cand);
        free(kept);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the rate changes");
    }
    r.ins = SIZE_MAX;
    for (size_t c = 0; c < ncounters; c++) {
        /* a machine shared with other work changes these within a phase */
        if (counters[c].npoints < 2 || !counters[c].curve || tf_analysis_is_scheduling(counters[c].name))
            continue;
        if (r.ins == SIZE_MAX && tf_analysis_is_instructions(counters[c].name))
            r.ins = r.nc;
        use[r.nc++] = counters[c];
    }
    if (r.ins == SIZE_MAX)
        r.ins = r.nc;
    r.counters = use;
    size_t nc = 0;
    for (size_t j = 0; j < grid; j++) {
        double x = (double)j / (double)(grid - 1);
        if (x - h < x0 || x + h > x1)
            continue;
        double s = change_score(&r, x - h, x, x + h);
        if (s > 0)
            cand[nc++] = (struct candidate){ x, s };
    }
    for (size_t k = 0; k < nchange_points; k++) {
        double x = change_points[k];
        if (!(x - h >= x0 && x + h <= x1))
            continue;
        double s = change_score(&r, x - h, x, x + h);
        if (s > 0)
            cand[nc++] = (struct candidate){ x, s };
    }
    /* the best candidate within min_length of each other */
    qsort(cand, nc, sizeof *cand, by_score_down);
    size_t nk = 0;
    for (size_t k = 0; k < nc; k++) {
        bool near = false;
        for (size_t i = 0; i < nk && !near; i++)
            near = fabs(kept[i] - cand[k].x) < h;
        if (!near)
            kept[nk++] = cand[k].x;
    }
    qsort(kept, nk, sizeof *kept, by_x);
    /* whole spans: drop the weakest boundary while it is not real */
    while (nk) {
        size_t weakest = 0;
        double least = INFINITY;
        for (size_t k = 0; k < nk; k++) {
            double u = k ? kept[k - 1] : x0, v = k + 1 < nk ? kept[k + 1] : x1;
            double s = change_score(&r, u, kept[k], v);
            if (s < least) {
                least = s;
                weakest = k;
            }
        }
        if (least > 0)
            break;
        for (size_t k = weakest; k + 1 < nk; k++)
            kept[k] = kept[k + 1];
        nk--;
    }
    free(use);
    free(cand);
    if (!nk) {
        free(kept);
        return 0;
    }
    *out = kept;
    *nout = nk;
    return 0;
}
