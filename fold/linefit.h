/* SPDX-License-Identifier: BSD-3-Clause */
/* Weighted least-squares lines from sufficient statistics, so that lines
 * over any range of bins cost O(1) from prefix sums (change points, pooled
 * local fits). */
#ifndef TF_FOLD_LINEFIT_H
#define TF_FOLD_LINEFIT_H

#include <stddef.h>

struct tf_stats {
    double w, sx, sy, sxx, sxy, syy;
};

static inline void tf_stats_add(struct tf_stats *s, double w, double x, double y)
{
    s->w += w;
    s->sx += w * x;
    s->sy += w * y;
    s->sxx += w * x * x;
    s->sxy += w * x * y;
    s->syy += w * y * y;
}

/* Statistics of bins [i, j) from the prefix sums. */
static inline struct tf_stats tf_stats_range(const struct tf_stats *p, size_t i, size_t j)
{
    return (struct tf_stats){
        p[j].w - p[i].w, p[j].sx - p[i].sx, p[j].sy - p[i].sy,
        p[j].sxx - p[i].sxx, p[j].sxy - p[i].sxy, p[j].syy - p[i].syy,
    };
}

/* Turns per-bin statistics p[1..n] into prefix sums (p[0] is zero). */
static inline void tf_stats_prefix(struct tf_stats *p, size_t n)
{
    for (size_t b = 1; b <= n; b++) {
        p[b].w += p[b - 1].w;
        p[b].sx += p[b - 1].sx;
        p[b].sy += p[b - 1].sy;
        p[b].sxx += p[b - 1].sxx;
        p[b].sxy += p[b - 1].sxy;
        p[b].syy += p[b - 1].syy;
    }
}

struct tf_line {
    double slope, intercept, rss;
};

/* Weighted least-squares line through the statistics. */
static inline struct tf_line tf_fit_line(struct tf_stats s)
{
    struct tf_line l = { 0, 0, 0 };
    if (s.w <= 0)
        return l;
    double vxx = s.sxx - s.sx * s.sx / s.w;
    double vxy = s.sxy - s.sx * s.sy / s.w;
    double vyy = s.syy - s.sy * s.sy / s.w;
    l.slope = vxx > 1e-300 ? vxy / vxx : 0;
    l.intercept = (s.sy - l.slope * s.sx) / s.w;
    l.rss = vyy - (vxx > 1e-300 ? vxy * vxy / vxx : 0);
    if (l.rss < 0)
        l.rss = 0;
    return l;
}

#endif
