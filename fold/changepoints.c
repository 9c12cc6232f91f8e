/* SPDX-License-Identifier: BSD-3-Clause */
/* Change points by optimal partitioning (Jackson et al., "An algorithm for
 * optimal partitioning of data on an interval", IEEE SPL 2005): the cloud is
 * summarised in NBINS bins of sufficient statistics, and a dynamic program
 * finds the split into straight segments that minimises the Gaussian
 * negative log-likelihood with a variance of its own per segment,
 * W·ln(RSS/W), plus a BIC penalty per segment.  A variance per segment
 * matters: the scatter of the cloud grows with the rate (a phase with a high
 * rate spreads the instances apart), and a single noise level would see
 * structure in every high-rate phase.  The cost is O(n) to bin and
 * O(NBINS²) to segment, whatever the number of samples.
 *
 * Points are weighted 1/m_i (m_i the points of their instance), so that
 * every instance counts once: points of one instance are correlated, and
 * unweighted, a densely sampled trace would make every wiggle of the mean
 * curve look significant. */
#include "changepoints.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linefit.h"


/* 400 bins: 0.25 % of the iteration, well inside the ±1 % at which changes
 * must be located. */
#define NBINS 400
/* Shortest segment, in bins (0.75 % of the iteration). */
#define MIN_BINS 3
/* Penalty per segment, in units of ln(instances): BIC counts 3 parameters
 * (slope, intercept, variance); twice that guards against the correlation
 * of points within an instance. */
#define PENALTY 6.0
/* Floor of a segment's variance relative to the cloud's, so that exactly
 * straight stretches (noise-free counters) do not reward splitting. */
#define VARIANCE_FLOOR 1e-6
/* A segment shorter than this between two changes is the zone where one
 * abrupt change is smeared by the per-instance shift of the boundary (its
 * scatter is larger, so the likelihood gives it a segment of its own); it
 * is absorbed and the change placed where its neighbours' lines cross.  In
 * bins: 3 % of the iteration. */
#define TRANSITION_BINS 12
/* Bins left out on each side of a change when fitting the lines whose
 * crossing locates it (1 %, the usual shift of a boundary). */
#define TRIM_BINS 4
/* tf_changepoint_settle: how far a change may move to another counter's
 * change (6 %: a weak change, a small change of a low rate, is located on
 * the raw cloud up to about 4 % away from a strong one at the same
 * place), the longest stretch of curve on each side, and the least curve
 * on each side of a candidate. */
#define SETTLE_REACH 0.06
#define SETTLE_SIDE 0.1
#define SETTLE_MARGIN 0.01

static int bin_of(double x)
{
    int b = (int)(x * NBINS);
    return b < 0 ? 0 : b >= NBINS ? NBINS - 1 : b;
}

/* Bins the cloud (and each instance's anchors (0,0), (1,1)) into prefix
 * sums p[0..NBINS]; returns the number of instances used. */
static size_t bin_cloud(const tf_fold_cloud *cl, struct tf_stats *p)
{
    struct tf_stats *bins = p + 1;
    size_t used = 0;
    for (size_t i = 0; i < cl->ninst; i++) {
        if (!cl->valid[i])
            continue;
        size_t m = 2;
        for (size_t k = cl->first[i]; k < cl->first[i + 1]; k++)
            m += !isnan(cl->y[k]);
        double w = 1.0 / (double)m;
        tf_stats_add(&bins[0], w, 0, 0);
        tf_stats_add(&bins[NBINS - 1], w, 1, 1);
        for (size_t k = cl->first[i]; k < cl->first[i + 1]; k++)
            if (!isnan(cl->y[k]))
                tf_stats_add(&bins[bin_of(cl->x[k])], w, cl->x[k], cl->y[k]);
        used++;
    }
    tf_stats_prefix(p, NBINS);
    return used;
}

static double relative_change(double a, double b)
{
    double m = fmax(fabs(a), fabs(b));
    return m > 1e-12 ? fabs(b - a) / m : 0;
}

/* Segments as bin ranges [lo, hi); change k lies between segments k, k+1. */
struct segmentation {
    size_t n;
    size_t lo[NBINS], hi[NBINS];
    double cx[NBINS];
};

static void remove_segment(struct segmentation *sg, size_t k)
{
    memmove(sg->lo + k, sg->lo + k + 1, (sg->n - k - 1) * sizeof sg->lo[0]);
    memmove(sg->hi + k, sg->hi + k + 1, (sg->n - k - 1) * sizeof sg->hi[0]);
    if (k < sg->n - 1)
        memmove(sg->cx + k, sg->cx + k + 1, (sg->n - k - 2) * sizeof sg->cx[0]);
    sg->n--;
}

/* Where the lines fitted on bins [a0, a1) and [b0, b1) cross, if inside
 * [from, to]; else the fallback. */
static double crossing(const struct tf_stats *p, size_t a0, size_t a1, size_t b0, size_t b1,
                       double from, double to, double fallback)
{
    struct tf_line la = tf_fit_line(tf_stats_range(p, a0, a1)), lb = tf_fit_line(tf_stats_range(p, b0, b1));
    if (fabs(la.slope - lb.slope) < 1e-12)
        return fallback;
    double x = (lb.intercept - la.intercept) / (la.slope - lb.slope);
    return x >= from && x <= to ? x : fallback;
}

/* Negative log-likelihood of a straight segment with its own variance. */
static double segment_cost(const struct tf_stats *p, size_t i, size_t j, double floor)
{
    struct tf_stats s = tf_stats_range(p, i, j);
    if (s.w <= 0)
        return 0;
    return s.w * log(tf_fit_line(s).rss / s.w + floor);
}

static void optimal_partition(const struct tf_stats *p, double beta, struct segmentation *sg)
{
    double floor = VARIANCE_FLOOR * tf_fit_line(tf_stats_range(p, 0, NBINS)).rss / p[NBINS].w + 1e-300;
    _Static_assert(NBINS < 65536, "bins fit the back-pointer type");
    double f[NBINS + 1];
    unsigned short from[NBINS + 1];
    f[0] = -beta;
    for (size_t j = 1; j <= NBINS; j++) {
        f[j] = INFINITY;
        from[j] = 0;
        for (size_t i = 0; i + MIN_BINS <= j; i++) {
            if (i > 0 && i < MIN_BINS)
                continue;
            double c = f[i] + segment_cost(p, i, j, floor) + beta;
            if (c < f[j]) {
                f[j] = c;
                from[j] = (unsigned short)i;
            }
        }
        if (j < MIN_BINS)
            f[j] = INFINITY;
    }
    size_t cuts[NBINS + 1], nc = 0;
    for (size_t j = NBINS; j > 0; j = from[j])
        cuts[nc++] = j;
    sg->n = nc;
    for (size_t k = 0; k < nc; k++) {
        sg->hi[k] = cuts[nc - 1 - k];
        sg->lo[k] = k ? sg->hi[k - 1] : 0;
        if (k)
            sg->cx[k - 1] = (double)sg->lo[k] / NBINS;
    }
}

static double segment_slope(const struct tf_stats *p, const struct segmentation *sg, size_t k)
{
    return tf_fit_line(tf_stats_range(p, sg->lo[k], sg->hi[k])).slope;
}

/* Absorbs transition zones: a short inner segment is dropped (its bins
 * belong to neither neighbour), a short first or last one joins its
 * neighbour. */
static void absorb_transitions(struct segmentation *sg)
{
    for (size_t k = 0; k < sg->n && sg->n > 1;) {
        if (sg->hi[k] - sg->lo[k] >= TRANSITION_BINS) {
            k++;
            continue;
        }
        if (k == 0) {
            sg->lo[1] = sg->lo[0];
            remove_segment(sg, 0);
        } else if (k == sg->n - 1) {
            sg->hi[k - 1] = sg->hi[k];
            remove_segment(sg, k);
        } else {
            double mid = (double)(sg->lo[k] + sg->hi[k]) / 2 / NBINS;
            remove_segment(sg, k);
            sg->cx[k - 1] = mid;
        }
    }
}

/* Merges neighbours whose slopes differ by less than min_change, smallest
 * difference first (the merged segment takes any dropped bins between). */
static void merge_small_changes(const struct tf_stats *p, struct segmentation *sg,
                                double min_change)
{
    while (sg->n > 1) {
        size_t best = 0;
        double smallest = INFINITY;
        for (size_t k = 0; k + 1 < sg->n; k++) {
            double ch = relative_change(segment_slope(p, sg, k), segment_slope(p, sg, k + 1));
            if (ch < smallest) {
                smallest = ch;
                best = k;
            }
        }
        if (smallest >= min_change)
            return;
        sg->hi[best] = sg->hi[best + 1];
        remove_segment(sg, best + 1);
    }
}

/* Places each change where the lines of its two segments cross, the lines
 * fitted away from the change (the smeared zone would tilt them). */
static void locate_changes(const struct tf_stats *p, struct segmentation *sg)
{
    for (size_t k = 0; k + 1 < sg->n; k++) {
        size_t a0 = sg->lo[k], a1 = sg->hi[k], b0 = sg->lo[k + 1], b1 = sg->hi[k + 1];
        if (a1 - a0 >= TRIM_BINS + TRANSITION_BINS)
            a1 -= TRIM_BINS;
        if (b1 - b0 >= TRIM_BINS + TRANSITION_BINS)
            b0 += TRIM_BINS;
        double guess = sg->hi[k] == sg->lo[k + 1] ? (double)sg->lo[k + 1] / NBINS : sg->cx[k];
        double span = (double)TRANSITION_BINS / NBINS;
        sg->cx[k] = crossing(p, a0, a1, b0, b1, guess - span, guess + span, guess);
    }
}

int tf_changepoints_find(const tf_fold_cloud *cl, double min_change, tf_changepoint **out,
                         size_t *n, tf_error *err)
{
    *out = NULL;
    *n = 0;
    struct tf_stats *p = calloc(NBINS + 1, sizeof *p);
    struct segmentation *sg = malloc(sizeof *sg);
    if (!p || !sg) {
        free(p);
        free(sg);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the change-point search");
    }
    size_t used = bin_cloud(cl, p);
    int rc = 0;
    if (used >= 2) {
        double beta = PENALTY * log((double)used + 1);
        optimal_partition(p, beta, sg);
        absorb_transitions(sg);
        merge_small_changes(p, sg, min_change);
        locate_changes(p, sg);
        if (sg->n > 1) {
            *out = malloc((sg->n - 1) * sizeof **out);
            if (!*out) {
                rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for change points");
            } else {
                for (size_t k = 0; k + 1 < sg->n; k++) {
                    (*out)[k] = (tf_changepoint){
                        .x = sg->cx[k],
                        .slope_before = segment_slope(p, sg, k),
                        .slope_after = segment_slope(p, sg, k + 1),
                    };
                }
                *n = sg->n - 1;
            }
        }
    }
    free(p);
    free(sg);
    return rc;
}

size_t tf_changepoints_merge(double *x, size_t n, double distance)
{
    size_t out = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        double sum = x[i];
        while (j < n && x[j] - x[j - 1] < distance)
            sum += x[j++];
        x[out++] = sum / (double)(j - i);
        i = j;
    }
    return out;
}

/* Least-squares line through the grid values with x in [a, b]. */
static struct tf_line grid_line(const double *curve, size_t grid, double a, double b)
{
    struct tf_stats s = { 0 };
    double h = 1.0 / (double)(grid - 1);
    size_t j0 = a <= 0 ? 0 : (size_t)ceil(a / h), j1 = b >= 1 ? grid - 1 : (size_t)floor(b / h);
    for (size_t j = j0; j <= j1 && j < grid; j++)
        tf_stats_add(&s, 1, (double)j * h, curve[j]);
    return tf_fit_line(s);
}

double tf_changepoint_refine(const double *curve, size_t grid, double x, double lo, double hi,
                             double *slope_before, double *slope_after)
{
    double trim = (double)TRIM_BINS / NBINS, span = (double)TRANSITION_BINS / NBINS;
    /* Each side: from the middle of the way to the neighbour up to a trim
     * away from the change, at most 10 % of the iteration long. */
    double a0 = fmax((lo + x) / 2, x - 0.1), a1 = x - trim;
    double b0 = x + trim, b1 = fmin((x + hi) / 2, x + 0.1);
    if (a1 - a0 < trim || b1 - b0 < trim)
        return x;
    struct tf_line la = grid_line(curve, grid, a0, a1), lb = grid_line(curve, grid, b0, b1);
    *slope_before = la.slope;
    *slope_after = lb.slope;
    if (fabs(la.slope - lb.slope) < 1e-12)
        return x;
    double c = (lb.intercept - la.intercept) / (la.slope - lb.slope);
    return c >= x - span && c <= x + span ? c : x;
}

/* Least squares of the continuous broken line with its kink at t on the
 * grid values with x in [a, b]: 1, x and (x - t)+ (Gauss-Jordan on the
 * normal equations, positive definite when both sides hold points).
 * Returns the residual sum of squares (INFINITY when ill-posed). */
static double kink_fit(const double *curve, size_t grid, double a, double b, double t,
                       double *slope_before, double *slope_after)
{
    struct tf_stats s = { 0 }, r = { 0 };   /* all points, those at or after t */
    double h = 1.0 / (double)(grid - 1);
    size_t j0 = a <= 0 ? 0 : (size_t)ceil(a / h), j1 = b >= 1 ? grid - 1 : (size_t)floor(b / h);
    for (size_t j = j0; j <= j1 && j < grid; j++) {
        double x = (double)j * h;
        tf_stats_add(&s, 1, x, curve[j]);
        if (x >= t)
            tf_stats_add(&r, 1, x, curve[j]);
    }
    if (r.w < 3 || s.w - r.w < 3)
        return INFINITY;
    double sh = r.sx - t * r.w;
    double m[3][4] = {
        { s.w, s.sx, sh, s.sy },
        { s.sx, s.sxx, r.sxx - t * r.sx, s.sxy },
        { sh, r.sxx - t * r.sx, r.sxx - 2 * t * r.sx + t * t * r.w, r.sxy - t * r.sy },
    };
    double rhs[3] = { m[0][3], m[1][3], m[2][3] };
    for (int i = 0; i < 3; i++) {
        if (fabs(m[i][i]) < 1e-300)
            return INFINITY;
        for (int q = 0; q < 3; q++) {
            double f = q == i ? 0 : m[q][i] / m[i][i];
            for (int col = i; col < 4; col++)
                m[q][col] -= f * m[i][col];
        }
    }
    double rss = s.syy;
    for (int i = 0; i < 3; i++)
        rss -= m[i][3] / m[i][i] * rhs[i];
    *slope_before = m[1][3] / m[1][1];
    *slope_after = *slope_before + m[2][3] / m[2][2];
    return fmax(rss, 0);
}

double tf_changepoint_settle(const double *curve, size_t grid, double x, double lo, double hi,
                             const double *candidates, size_t n, double *slope_before,
                             double *slope_after)
{
    double a = fmax((lo + x) / 2, x - SETTLE_SIDE), b = fmin((x + hi) / 2, x + SETTLE_SIDE);
    double sb, sa, best = kink_fit(curve, grid, a, b, x, &sb, &sa), at = x;
    if (best == INFINITY)
        return x;
    *slope_before = sb;
    *slope_after = sa;
    for (size_t k = 0; k < n; k++) {
        double t = candidates[k];
        if (t <= a + SETTLE_MARGIN || t >= b - SETTLE_MARGIN || fabs(t - x) > SETTLE_REACH)
            continue;
        double rss = kink_fit(curve, grid, a, b, t, &sb, &sa);
        if (rss < best) {
            best = rss;
            at = t;
            *slope_before = sb;
            *slope_after = sa;
        }
    }
    return at;
}
