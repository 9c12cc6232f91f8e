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
 * marked untrusted and the fit leaves them out. */
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

static double slope(const tf_polyline *r, size_t j)
{
    return (r->y[j + 1] - r->y[j]) / (r->x[j + 1] - r->x[j]);
}

int tf_reconstruct_instance(const float *x, const float *y, size_t n, const double *boundaries,
                            size_t nb, double window, tf_polyline *scratch, tf_polyline *pl)
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
        double sl = sides ? slope(r, j - 1) : 0, sr = sides ? slope(r, end) : 0;
        /* Nearly equal slopes: the chord is as good as the corner. */
        bool lines = sides && fabs(sl - sr) > PARALLEL * fmax(sl, sr);
        bool trusted = sides && one;
        for (size_t k = j; k < end; k++) {
            double ax = r->x[k], ay = r->y[k], bx = r->x[k + 1], by = r->y[k + 1];
            if (lines) {
                double xc = (by - ay - sr * bx + sl * ax) / (sl - sr);
                if (xc > ax && xc < bx) {
                    double yc = ay + sl * (xc - ax);
                    push(pl, xc, yc < ay ? ay : yc > by ? by : yc, trusted);
                }
            }
            push(pl, bx, by, trusted);
        }
        j = end;
    }
    return 0;
}

void tf_polyline_on_grid(const tf_polyline *pl, size_t grid, double *value, double *slope,
                         unsigned char *trusted)
{
    size_t s = 0;
    for (size_t g = 0; g < grid; g++) {
        double xg = (double)g / (double)(grid - 1);
        while (s + 2 < pl->n && pl->x[s + 1] <= xg)
            s++;
        double x0 = pl->x[s], x1 = pl->x[s + 1], y0 = pl->y[s], y1 = pl->y[s + 1];
        double sl = x1 > x0 ? (y1 - y0) / (x1 - x0) : 0;
        double v = y0 + sl * (xg - x0);
        value[g] = v < y0 ? y0 : v > y1 ? y1 : v;
        slope[g] = sl;
        trusted[g] = pl->trusted[s];
    }
}
