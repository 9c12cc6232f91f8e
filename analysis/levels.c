/* SPDX-License-Identifier: BSD-3-Clause */
/* Memory levels: per phase (and over the whole iteration), the share of
 * loads served by each level and their mean cost, and the modes of the
 * cost distribution.
 *
 * Modes: a Gaussian kernel density estimate of log(cost) (costs spread
 * multiplicatively), on 512 linearly binned points; bandwidth by
 * Silverman's rule, 0.9·min(sd, IQR/1.34)·n^(−1/5), but at least 0.15 so
 * that neighbouring integer costs (4, 5, 6 cycles) stay one mode.  Local
 * maxima are merged while the valley between two of them is above 70 % of
 * the lower one, or while one holds under 10 % of the loads; each surviving
 * mode is reported as the median cost of the loads in its basin. */
#include "analysis_steps.h"

#include <math.h>
#include <stdlib.h>

#include "formats/trace.h"

#define KDE_BINS 512
#define KDE_MIN_BANDWIDTH 0.15
#define MODE_VALLEY 0.7
#define MODE_MIN_MASS 0.10
#define MODE_MIN_LOADS 20

static int by_double(const void *pa, const void *pb)
{
    double x = *(const double *)pa, y = *(const double *)pb;
    return (x > y) - (x < y);
}

struct peak {
    size_t top, lo, hi;   /* bins: maximum and basin [lo, hi] */
    double mass;
};

static size_t bin_of(double v, double lo, double step)
{
    double b = (v - lo) / step;
    return b <= 0 ? 0 : b >= KDE_BINS - 1 ? KDE_BINS - 1 : (size_t)(b + 0.5);
}

/* Modes of the costs c[0..n) (sorted ascending), written to modes;
 * returns their count. */
static unsigned cost_modes(const double *c, size_t n, double *modes)
{
    if (n < MODE_MIN_LOADS) {
        modes[0] = c[n / 2];
        return 1;
    }
    double mean = 0, var = 0;
    for (size_t i = 0; i < n; i++)
        mean += log(c[i]);
    mean /= (double)n;
    for (size_t i = 0; i < n; i++)
        var += (log(c[i]) - mean) * (log(c[i]) - mean);
    double sd = sqrt(var / (double)(n - 1));
    double iqr = log(c[3 * n / 4]) - log(c[n / 4]);
    double spread = iqr > 0 ? fmin(sd, iqr / 1.34) : sd;
    double h = fmax(0.9 * spread * pow((double)n, -0.2), KDE_MIN_BANDWIDTH);
    double lo = log(c[0]) - 3 * h, hi = log(c[n - 1]) + 3 * h;
    double step = (hi - lo) / (KDE_BINS - 1);
    double count[KDE_BINS] = { 0 }, dens[KDE_BINS];
    for (size_t i = 0; i < n; i++)
        count[bin_of(log(c[i]), lo, step)] += 1;
    for (size_t j = 0; j < KDE_BINS; j++) {
        double d = 0;
        for (size_t k = 0; k < KDE_BINS; k++)
            if (count[k] > 0) {
                double z = (double)((long)j - (long)k) * step / h;
                d += count[k] * exp(-0.5 * z * z);
            }
        dens[j] = d;
    }
    struct peak pk[KDE_BINS];
    size_t np = 0;
    for (size_t j = 0; j < KDE_BINS; j++) {
        bool left = j == 0 || dens[j] > dens[j - 1];
        bool right = j + 1 == KDE_BINS || dens[j] >= dens[j + 1];
        if (left && right)
            pk[np++] = (struct peak){ j, 0, 0, 0 };
    }
    /* basins: each peak's reach ends at the lowest bin before the next peak */
    for (;;) {
        for (size_t p = 0; p < np; p++) {
            pk[p].lo = p ? pk[p - 1].hi + 1 : 0;
            size_t v = pk[p].top;
            if (p + 1 < np)
                for (size_t j = pk[p].top; j <= pk[p + 1].top; j++)
                    if (dens[j] < dens[v])
                        v = j;
            pk[p].hi = p + 1 < np ? v : KDE_BINS - 1;
            pk[p].mass = 0;
            for (size_t j = pk[p].lo; j <= pk[p].hi; j++)
                pk[p].mass += count[j] / (double)n;
        }
        /* the weakest separation: a shallow valley, or a light peak */
        size_t merge = SIZE_MAX;
        double worst = 0;
        for (size_t p = 0; p + 1 < np; p++) {
            double lower = fmin(dens[pk[p].top], dens[pk[p + 1].top]);
            double valley = dens[pk[p].hi] / lower;
            bool light = pk[p].mass < MODE_MIN_MASS || pk[p + 1].mass < MODE_MIN_MASS;
            double score = light ? 1 + valley : valley;
            if ((valley > MODE_VALLEY || light) && score > worst) {
                worst = score;
                merge = p;
            }
        }
        if (merge == SIZE_MAX)
            break;
        if (dens[pk[merge + 1].top] > dens[pk[merge].top])
            pk[merge].top = pk[merge + 1].top;
        for (size_t p = merge + 1; p + 1 < np; p++)
            pk[p] = pk[p + 1];
        np--;
    }
    /* the heaviest modes, reported in ascending cost */
    while (np > TF_ANALYSIS_MAX_MODES) {
        size_t lightest = 0;
        for (size_t p = 1; p < np; p++)
            if (pk[p].mass < pk[lightest].mass)
                lightest = p;
        for (size_t p = lightest; p + 1 < np; p++)
            pk[p] = pk[p + 1];
        np--;
    }
    for (size_t p = 0; p < np; p++) {
        size_t first = SIZE_MAX, last = 0;
        for (size_t i = 0; i < n; i++) {
            size_t b = bin_of(log(c[i]), lo, step);
            if (b >= pk[p].lo && b <= pk[p].hi) {
                first = first == SIZE_MAX ? i : first;
                last = i;
            }
        }
        modes[p] = first == SIZE_MAX ? exp(lo + (double)pk[p].top * step)
                                     : c[first + (last - first) / 2];
    }
    return (unsigned)np;
}

static bool is_load(const tf_analysis_sample *s)
{
    return (s->kind == TF_SAMPLE_LOAD || s->kind == TF_SAMPLE_RMW) &&
           s->level != TF_LEVEL_UNKNOWN;
}

/* Levels of the loads in samples [b, e) for phase index ph, appended.
 * One pass groups the costs by level (counting sort into costs[]). */
static int levels_of_span(tf_analysis *a, size_t b, size_t e, uint32_t ph, double *costs,
                          size_t *cap, tf_error *err)
{
    size_t total = 0, per_level[256] = { 0 }, priced[256] = { 0 }, first[257] = { 0 };
    for (size_t i = b; i < e; i++)
        if (is_load(&a->samples[i])) {
            total++;
            per_level[a->samples[i].level]++;
            priced[a->samples[i].level] += a->samples[i].weight > 0;
        }
    for (unsigned lv = 0; lv < 256; lv++)
        first[lv + 1] = first[lv] + priced[lv];
    size_t fill[256];
    for (unsigned lv = 0; lv < 256; lv++)
        fill[lv] = first[lv];
    for (size_t i = b; i < e; i++) {
        const tf_analysis_sample *s = &a->samples[i];
        if (is_load(s) && s->weight > 0)
            costs[fill[s->level]++] = s->weight;
    }
    for (unsigned lv = 0; lv < 256; lv++) {
        if (!per_level[lv])
            continue;
        if (a->nlevels == *cap) {
            *cap = *cap ? 2 * *cap : 16;
            tf_analysis_level *v = realloc(a->levels, *cap * sizeof *v);
            if (!v)
                return tf_fail(err, TF_ERR_NOMEM, "out of memory for memory levels");
            a->levels = v;
        }
        tf_analysis_level *out = &a->levels[a->nlevels++];
        *out = (tf_analysis_level){ .phase = ph, .level = (uint8_t)lv, .loads = per_level[lv],
                                    .share = (double)per_level[lv] / (double)total,
                                    .mean_cost = NAN };
        double *c = costs + first[lv];
        size_t nc = priced[lv];
        if (!nc)
            continue;
        qsort(c, nc, sizeof *c, by_double);
        double sum = 0;
        for (size_t i = 0; i < nc; i++)
            sum += c[i];
        out->mean_cost = sum / (double)nc;
        out->nmodes = cost_modes(c, nc, out->modes);
    }
    return 0;
}

int tf_analysis_levels(tf_analysis *a, tf_error *err)
{
    double *costs = malloc((a->nsamples + 1) * sizeof *costs);
    if (!costs)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for memory levels");
    free(a->levels);
    a->levels = NULL;
    a->nlevels = 0;
    size_t cap = 0;
    int rc = levels_of_span(a, 0, a->nsamples, TF_ANALYSIS_NONE, costs, &cap, err);
    for (size_t k = 0; !rc && k < a->nphases; k++)
        rc = levels_of_span(a, tf_analysis_lower_index(a, a->phases[k].x0),
                            tf_analysis_end_index(a, a->phases[k].x1), (uint32_t)k, costs, &cap, err);
    free(costs);
    return rc;
}
