/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-instance reconstruction.  Counters are cumulative, so an instance's
 * normalised curve is known exactly at its samples and is non-decreasing in
 * between; straight interpolation is exact wherever the rate is constant
 * between two samples.  Across an abrupt change it cuts the corner, and the
 * mean of many such chords is biased by about Δslope·spacing/6 at the change
 * (several % with a dozen samples per iteration).  There the curve instead
 * follows the line of the interval before the change and the line of the
 * interval after it up to their crossing — the instance's own change point,
 * which varies from instance to instance and is what makes the mean curve
 * round at a change.  Where that cannot work (a run of intervals holding two
 * changes, or a change with no clean interval on one side), the pieces are
 * marked untrusted and the fit leaves them out; given the segments' mean
 * slopes (a second pass), each change of such a run that an interval of
 * its own holds is rebuilt the same way, a mean slope standing in for the
 * missing clean interval (docs/algorithms.md, "The fit"). */
#include "reconstruct.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

/* Slopes closer than this (relative) make the crossing ill-conditioned and
 * the chord exact enough. */
#define PARALLEL 0.05

void tf_polyline_free(tf_polyline *pl)
{
    free(pl->x);
    free(pl->y);
    free(pl->trusted);
    pl->x = pl->y = NULL;
    pl->trusted = NULL;
    pl->n = pl->cap = 0;
}

/* Makes room for n vertices (once per instance, so that push need not). */
static int reserve(tf_polyline *pl, size_t n)
{
    if (n <= pl->cap)
        return 0;
    size_t cap = pl->cap ? pl->cap : 64;
    while (cap < n)
        cap *= 2;
    double *nx = realloc(pl->x, cap * sizeof *nx);
    if (!nx)
        return -1;
    pl->x = nx;
    double *ny = realloc(pl->y, cap * sizeof *ny);
    if (!ny)
        return -1;
    pl->y = ny;
    unsigned char *nt = realloc(pl->trusted, cap);
    if (!nt)
        return -1;
    pl->trusted = nt;
    pl->cap = cap;
    return 0;
}

/* Appends a vertex (room reserved); the piece that ends there gets the
 * trust flag. */
static inline void push(tf_polyline *pl, double x, double y, bool trusted)
{
    pl->x[pl->n] = x;
    pl->y[pl->n] = y;
    pl->trusted[pl->n] = 0;
    if (pl->n > 0)
        pl->trusted[pl->n - 1] = trusted;
    pl->n++;
}

static double clamp01(double v)
{
    return v < 0 ? 0 : v > 1 ? 1 : v;
}

/* The samples as a strictly increasing, non-decreasing polyline from (0,0)
 * to (1,1); later samples at the same time are dropped. */
static int raw_vertices(const float *x, const float *y, size_t n, tf_polyline *r)
{
    r->n = 0;
    if (reserve(r, n + 2) < 0)
        return -1;
    push(r, 0, 0, true);
    for (size_t k = 0; k < n; k++) {
        if (isnan(y[k]))
            continue;
        double xv = clamp01(x[k]), yv = clamp01(y[k]);
        if (xv <= r->x[r->n - 1] || xv >= 1)
            continue;
        if (yv < r->y[r->n - 1])
            yv = r->y[r->n - 1];
        push(r, xv, yv, true);
    }
    push(r, 1, 1, true);
    return 0;
}

/* Boundaries within (a - window, b + window). */
static size_t boundaries_near(double a, double b, const double *bd, size_t nb, double window)
{
    size_t count = 0;
    for (size_t k = 0; k < nb && bd[k] < b + window; k++)
        count += bd[k] > a - window;
    return count;
}

/* The boundaries near interval j of r: their count, the first's index. */
static size_t near_interval(const tf_polyline *r, size_t j, const double *bd, size_t nb,
                            double window, size_t *first)
{
    size_t count = 0;
    for (size_t k = 0; k < nb && bd[k] < r->x[j + 1] + window; k++)
        if (bd[k] > r->x[j] - window && count++ == 0)
            *first = k;
    return count;
}

static double slope(const tf_polyline *r, size_t j)
{
    return (r->y[j + 1] - r->y[j]) / (r->x[j + 1] - r->x[j]);
}

/* Where the line of slope sl through the start of interval k of r crosses
 * the line of slope sr through its end. */
static double crossing(const tf_polyline *r, size_t k, double sl, double sr)
{
    return (r->y[k + 1] - r->y[k] - sr * r->x[k + 1] + sl * r->x[k]) / (sl - sr);
}

/* Intervals [j, end) of r, near one boundary, bent at the crossing of the
 * lines of slopes sl (before) and sr (after) in the interval that holds
 * the change; straight otherwise or when the slopes are nearly equal.
 * An interval without the change has the slope of its side, and the lines
 * cross at its end, or just inside it when the other side's line is not
 * the instance's own (a segment's mean slope, 3 % off the instance's
 * rate): bent there too, an interval of the fast side just past the change
 * took the slow slope over a quarter of a % of the iteration, and the mean
 * rate dipped by 1.5 % at the window's edge (periodic sampling, sharp
 * scenario).  The change's interval is the one whose chord slope lies
 * deepest between sl and sr (its share t of the way, away from 0 and 1);
 * the others' shares are the instance's rate's distance from the mean
 * slope over the change's size.  When even the deepest is shallow (below
 * SHALLOW_SHARE), which interval holds the change is not clear, and every
 * interval the lines cross inside is bent. */
#define SHALLOW_SHARE 0.1
static void bend(const tf_polyline *r, size_t j, size_t end, double sl, double sr, bool trusted,
                 tf_polyline *pl)
{
    bool lines = fabs(sl - sr) > PARALLEL * fmax(sl, sr);
    size_t at = end;
    double deepest = 0;
    for (size_t k = j; lines && k < end; k++) {
        double xc = crossing(r, k, sl, sr);
        double t = (slope(r, k) - sl) / (sr - sl), depth = fmin(t, 1 - t);
        if (xc > r->x[k] && xc < r->x[k + 1] && depth > deepest) {
            deepest = depth;
            at = k;
        }
    }
    bool all = deepest < SHALLOW_SHARE;
    for (size_t k = j; k < end; k++) {
        double ax = r->x[k], ay = r->y[k], bx = r->x[k + 1], by = r->y[k + 1];
        if (lines && (k == at || all)) {
            double xc = crossing(r, k, sl, sr);
            if (xc > ax && xc < bx) {
                double yc = ay + sl * (xc - ax);
                push(pl, xc, yc < ay ? ay : yc > by ? by : yc, trusted);
            }
        }
        push(pl, bx, by, trusted);
    }
}

/* A run [j, end) of intervals near boundaries that the instance alone
 * cannot rebuild, with the segments' mean slopes: each stretch of
 * intervals near one boundary only is bent between the slope of the clean
 * interval on each side, or that side's segment's mean slope
 * (segment_slope[k] lies between boundaries k − 1 and k) where the
 * neighbour is near another boundary or missing; an interval near two
 * boundaries stays straight and untrusted. */
static void bend_by_segments(const tf_polyline *r, size_t j, size_t end, const double *bd,
                             size_t nb, double window, const double *segment_slope,
                             tf_polyline *pl)
{
    size_t nint = r->n - 1;
    for (size_t k = j; k < end;) {
        size_t b = 0, other = 0;
        if (near_interval(r, k, bd, nb, window, &b) != 1) {
            push(pl, r->x[k + 1], r->y[k + 1], false);
            k++;
            continue;
        }
        size_t e = k + 1;
        while (e < end && near_interval(r, e, bd, nb, window, &other) == 1 && other == b)
            e++;
        size_t unused;
        bool clean_before = k > 0 && near_interval(r, k - 1, bd, nb, window, &unused) == 0;
        bool clean_after = e < nint && near_interval(r, e, bd, nb, window, &unused) == 0;
        double sl = clean_before ? slope(r, k - 1) : segment_slope[b];
        double sr = clean_after ? slope(r, e) : segment_slope[b + 1];
        if (isnan(sl) || isnan(sr)) {   /* no mean slope for the segment */
            bend(r, k, e, 0, 0, false, pl);
            k = e;
            continue;
        }
        /* A mean slope is not the instance's: where the lines cross
         * outside the boundary's window, they do not describe it. */
        bool crossed = fabs(sl - sr) <= PARALLEL * fmax(sl, sr);
        for (size_t i = k; !crossed && i < e; i++) {
            double xc = crossing(r, i, sl, sr);
            crossed = xc > fmax(r->x[i], bd[b] - window) && xc < fmin(r->x[i + 1], bd[b] + window);
        }
        bend(r, k, e, sl, sr, crossed, pl);
        k = e;
    }
}

int tf_reconstruct_instance(const float *x, const float *y, size_t n, const double *boundaries,
                            size_t nb, double window, const double *segment_slope,
                            tf_polyline *scratch, tf_polyline *pl)
{
    tf_polyline *r = scratch;
    if (raw_vertices(x, y, n, r) < 0)
        return -1;
    /* At most one corner per interval. */
    pl->n = 0;
    if (reserve(pl, 2 * r->n) < 0)
        return -1;
    push(pl, 0, 0, true);
    size_t nint = r->n - 1;
    for (size_t j = 0; j < nint;) {
        if (!boundaries_near(r->x[j], r->x[j + 1], boundaries, nb, window)) {
            push(pl, r->x[j + 1], r->y[j + 1], true);
            j++;
            continue;
        }
        size_t end = j + 1;   /* the run of intervals near a boundary: [j, end) */
        while (end < nint && boundaries_near(r->x[end], r->x[end + 1], boundaries, nb, window))
            end++;
        bool sides = j > 0 && end < nint;
        bool one = boundaries_near(r->x[j], r->x[end], boundaries, nb, window) == 1;
        if (sides && one)
            bend(r, j, end, slope(r, j - 1), slope(r, end), true, pl);
        else if (segment_slope)
            bend_by_segments(r, j, end, boundaries, nb, window, segment_slope, pl);
        else if (sides)
            bend(r, j, end, slope(r, j - 1), slope(r, end), false, pl);
        else
            for (size_t k = j; k < end; k++)
                push(pl, r->x[k + 1], r->y[k + 1], false);
        j = end;
    }
    return 0;
}

void tf_polyline_on_grid(const tf_polyline *pl, size_t grid, const double *grid_x,
                         double *value, double *slope, unsigned char *trusted)
{
    /* The piece's slope is computed once per piece, not per grid point:
     * the same division on the same operands, so the same values, without
     * a division's latency at each of the G points. */
    size_t s = 0;
    double x0 = pl->x[0], x1 = pl->x[1], y0 = pl->y[0], y1 = pl->y[1];
    double sl = x1 > x0 ? (y1 - y0) / (x1 - x0) : 0;
    unsigned char tr = pl->trusted[0];
    for (size_t g = 0; g < grid; g++) {
        double xg = grid_x[g];
        if (s + 2 < pl->n && pl->x[s + 1] <= xg) {
            do
                s++;
            while (s + 2 < pl->n && pl->x[s + 1] <= xg);
            x0 = pl->x[s];
            x1 = pl->x[s + 1];
            y0 = pl->y[s];
            y1 = pl->y[s + 1];
            sl = x1 > x0 ? (y1 - y0) / (x1 - x0) : 0;
            tr = pl->trusted[s];
        }
        double v = y0 + sl * (xg - x0);
        value[g] = v < y0 ? y0 : v > y1 ? y1 : v;
        slope[g] = sl;
        trusted[g] = tr;
    }
}

void tf_grid_points(size_t grid, double *grid_x)
{
    for (size_t g = 0; g < grid; g++)
        grid_x[g] = (double)g / (double)(grid - 1);
}
