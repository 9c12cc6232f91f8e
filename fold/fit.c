/* SPDX-License-Identifier: BSD-3-Clause */
/* The curve is the mean, over the instances, of each instance's rebuilt
 * curve (reconstruct.c) evaluated on the grid: it uses every sample, is
 * non-decreasing and goes from (0,0) to (1,1) by construction, and costs
 * O(samples + instances·G).  The rate is its derivative times the mean
 * total over the mean duration.
 *
 * Bands: a bootstrap over instances, since instances, not samples, are the
 * independent units.  Each replicate weighs instance i by an independent
 * Poisson(1) count (the "Poisson bootstrap", Hanley and MacGibbon 2006;
 * Chamandy et al. 2012), which approximates multinomial resampling for
 * more than a few dozen instances and lets all replicates accumulate in the
 * same pass over the instances, with the weights drawn from a counter-based
 * generator instead of stored. */
#include "fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "reconstruct.h"
#include "robust.h"

/* SplitMix64 (Steele, Lea and Flood 2014) as a hash of (seed, replicate,
 * instance): the same instance gets the same weight in every counter. */
static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
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

/* d curve / dx on the grid: centred differences, one-sided at the ends. */
static void derivative(const double *c, size_t g, double scale, double *out)
{
    double h = 1.0 / (double)(g - 1);
    out[0] = (c[1] - c[0]) / h * scale;
    out[g - 1] = (c[g - 1] - c[g - 2]) / h * scale;
    for (size_t j = 1; j + 1 < g; j++)
        out[j] = (c[j + 1] - c[j - 1]) / (2 * h) * scale;
}

static void fill_nan(double *v, size_t n)
{
    for (size_t j = 0; j < n; j++)
        v[j] = NAN;
}

struct bootstrap {
    uint32_t b;
    double *acc;           /* [B][G] weighted sums of instance curves */
    double *w, *t, *d;     /* [B] sums of weights, totals, durations */
};

/* Percentile bands from the replicates; -1 when out of memory. */
static int bands(const struct bootstrap *bs, size_t g, double confidence, double *work,
                 tf_fit_output *out)
{
    double *rate_b = malloc(bs->b * g * sizeof *rate_b);
    double lo_q = (1 - confidence) / 2, hi_q = 1 - lo_q;
    if (!rate_b)
        return -1;
    uint32_t kept = 0;
    for (uint32_t b = 0; b < bs->b; b++) {
        if (bs->w[b] <= 0)
            continue;
        double *curve_b = bs->acc + (size_t)b * g;
        for (size_t j = 0; j < g; j++)
            curve_b[j] /= bs->w[b];
        derivative(curve_b, g, (bs->t[b] / bs->w[b]) / (bs->d[b] / bs->w[b] * 1e-9),
                   rate_b + (size_t)kept * g);
        if (kept != b)
            memmove(bs->acc + (size_t)kept * g, curve_b, g * sizeof *curve_b);
        kept++;
    }
    for (size_t j = 0; j < g && kept > 0; j++) {
        for (uint32_t b = 0; b < kept; b++)
            work[b] = bs->acc[(size_t)b * g + j];
        out->curve_lo[j] = tf_quantile_inplace(work, kept, lo_q);
        out->curve_hi[j] = tf_quantile_inplace(work, kept, hi_q);
        for (uint32_t b = 0; b < kept; b++)
            work[b] = rate_b[(size_t)b * g + j];
        out->rate_lo[j] = tf_quantile_inplace(work, kept, lo_q);
        out->rate_hi[j] = tf_quantile_inplace(work, kept, hi_q);
    }
    free(rate_b);
    return 0;
}

int tf_fit_counter(const tf_fold_cloud *cl, const double *boundaries, size_t nb,
                   const tf_fit_options *o, tf_fit_output *out, tf_error *err)
{
    size_t g = o->grid;
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
        return 0;
    }

    struct bootstrap bs = { .b = o->bootstrap };
    double *values = malloc(g * sizeof *values);
    double *work = malloc((bs.b > 0 ? bs.b : 1) * sizeof *work);
    bs.acc = calloc((size_t)bs.b * g + 1, sizeof *bs.acc);
    bs.w = calloc(bs.b + 1, sizeof *bs.w);
    bs.t = calloc(bs.b + 1, sizeof *bs.t);
    bs.d = calloc(bs.b + 1, sizeof *bs.d);
    tf_polyline scratch = { 0 }, pl = { 0 };
    int rc = 0;
    if (!values || !work || !bs.acc || !bs.w || !bs.t || !bs.d) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for the fit");
        goto done;
    }
    memset(out->curve, 0, g * sizeof *out->curve);
    double tsum = 0, dsum = 0;
    for (size_t i = 0; i < cl->ninst; i++) {
        if (!cl->valid[i])
            continue;
        size_t f = cl->first[i], m = cl->first[i + 1] - f;
        if (tf_reconstruct_instance(cl->x + f, cl->y + f, m, boundaries, nb, o->window,
                                    &scratch, &pl) < 0) {
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory rebuilding instance curves");
            goto done;
        }
        tf_polyline_on_grid(&pl, g, values);
        for (size_t j = 0; j < g; j++)
            out->curve[j] += values[j];
        tsum += cl->total[i];
        dsum += cl->duration[i];
        for (uint32_t b = 0; b < bs.b; b++) {
            unsigned w = poisson1(o->seed, b, cl->rows[i]);
            if (!w)
                continue;
            double *acc = bs.acc + (size_t)b * g;
            for (size_t j = 0; j < g; j++)
                acc[j] += w * values[j];
            bs.w[b] += w;
            bs.t[b] += w * cl->total[i];
            bs.d[b] += w * cl->duration[i];
        }
    }
    double n = out->instances;
    for (size_t j = 0; j < g; j++)
        out->curve[j] /= n;
    out->mean_total = tsum / n;
    out->mean_duration_ns = dsum / n;
    derivative(out->curve, g, out->mean_total / (out->mean_duration_ns * 1e-9), out->rate);
    if (bs.b > 0 && bands(&bs, g, o->confidence, work, out) < 0)
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for the bootstrap bands");
done:
    tf_polyline_free(&scratch);
    tf_polyline_free(&pl);
    free(values);
    free(work);
    free(bs.acc);
    free(bs.w);
    free(bs.t);
    free(bs.d);
    return rc;
}
