/* SPDX-License-Identifier: BSD-3-Clause */
/* Units of the fold engine on in-memory data: robust statistics, the
 * outlier and grouping rules, the per-instance reconstruction, change
 * points, and the fit with its bands.  Table rows report their source line
 * on failure. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fold/changepoints.h"
#include "fold/filter.h"
#include "fold/fit.h"
#include "fold/reconstruct.h"
#include "fold/robust.h"

#define SRC_LINE __LINE__

/* |a - b| <= tol, with the values in the message (this cmocka has no
 * floating-point assertion). */
#define assert_near(a, b, tol)                                                        \
    do {                                                                              \
        double a_ = (a), b_ = (b);                                                    \
        if (!(fabs(a_ - b_) <= (tol)))                                                \
            fail_msg("line %d: %.9g differs from %.9g by more than %g", __LINE__, a_, \
                     b_, (double)(tol));                                              \
    } while (0)

static void test_median_quantile(void **state)
{
    static const struct {
        int line;
        size_t n;
        double v[8];
        double median, q25;
    } cases[] = {
        { SRC_LINE, 1, { 5 }, 5, 5 },
        { SRC_LINE, 2, { 1, 3 }, 2, 1.5 },
        { SRC_LINE, 5, { 9, 1, 5, 3, 7 }, 5, 3 },
        { SRC_LINE, 8, { 8, 7, 6, 5, 4, 3, 2, 1 }, 4.5, 2.75 },
        { SRC_LINE, 4, { 2, 2, 2, 2 }, 2, 2 },
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        double v[8];
        memcpy(v, cases[k].v, sizeof v);
        double m = tf_median_inplace(v, cases[k].n);
        if (fabs(m - cases[k].median) > 1e-12)
            fail_msg("line %d: median %g, expected %g", cases[k].line, m, cases[k].median);
        memcpy(v, cases[k].v, sizeof v);
        double q = tf_quantile_inplace(v, cases[k].n, 0.25);
        if (fabs(q - cases[k].q25) > 1e-12)
            fail_msg("line %d: quantile %g, expected %g", cases[k].line, q, cases[k].q25);
    }
    double v[] = { 1, 2, 3, 4, 100 }, work[5], median, mad;
    tf_median_mad(v, 5, work, &median, &mad);
    assert_near(median, 3, 1e-12);
    assert_near(mad, 1, 1e-12);
}

/* Durations 1000 ± 2 % (a fixed normal-like spread) and three stalls. */
static size_t jittered(double *d)
{
    static const double z[] = { -1.6, -1.1, -0.8, -0.5, -0.3, -0.1, 0, 0.1, 0.2, 0.4,
                                0.6, 0.9, 1.2, 1.5, 2.1, -2.2, 0.05, -0.05, 0.3, -0.7 };
    size_t n = 0;
    for (size_t i = 0; i < sizeof z / sizeof z[0]; i++)
        d[n++] = 1000 * (1 + 0.02 * z[i]);
    d[n++] = 1300;
    d[n++] = 1800;
    d[n++] = 1450;
    return n;
}

static void test_duration_filters(void **state)
{
    double d[32], score[32];
    uint8_t out[32];
    tf_error err;
    size_t n = jittered(d);
    assert_int_equal(tf_fold_filter_durations(d, NULL, n, TF_FILTER_ROBUST, 3.5, out, score, &err), 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(out[i], i >= n - 3);
    assert_int_equal(tf_fold_filter_durations(d, NULL, n, TF_FILTER_MAD15, 0, out, score, &err), 0);
    size_t dropped = 0;
    for (size_t i = 0; i < n - 3; i++)
        dropped += out[i];
    /* 1.5 unscaled MADs is about one standard deviation: ~30 % of the
     * ordinary instances go. */
    assert_in_range(dropped, 4, 9);
    assert_int_equal(tf_fold_filter_durations(d, NULL, n, TF_FILTER_NONE, 0, out, score, &err), 0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(out[i], 0);
    /* An instance whose duration had a cost of variance 100² taken out is
     * judged on that wider scale: 1300 (15 standard deviations of the
     * jitter) stays, the others go as before. */
    double extra[32] = { 0 };
    extra[n - 3] = 100.0 * 100.0;
    assert_int_equal(tf_fold_filter_durations(d, extra, n, TF_FILTER_ROBUST, 3.5, out, score, &err),
                     0);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(out[i], i >= n - 2);
}

static void test_groups(void **state)
{
    double d[40];
    int32_t g[40];
    uint32_t ng;
    tf_error err;
    size_t n = jittered(d);
    assert_int_equal(tf_fold_group_durations(d, n, 0, g, &ng, &err), 0);
    assert_int_equal(ng, 1);   /* stalls are a sparse tail, not a mode */
    for (size_t i = 0; i < 20; i++)
        d[i] = (i % 2 ? 10e6 : 20e6) * (1 + 0.001 * (double)(i % 5));
    assert_int_equal(tf_fold_group_durations(d, 20, 0, g, &ng, &err), 0);
    assert_int_equal(ng, 2);
    for (size_t i = 0; i < 20; i++)
        assert_int_equal(g[i], i % 2 ? 0 : 1);
    assert_int_equal(tf_fold_group_durations(d, 20, 3, g, &ng, &err), 0);
    assert_int_equal(ng, 3);
    assert_int_equal(tf_fold_group_durations(d, 20, 1, g, &ng, &err), 0);
    assert_int_equal(ng, 1);
}

/* Normalised curve with slope a up to c, then the slope that ends at (1,1). */
static double kinked(double x, double a, double c)
{
    double b = (1 - a * c) / (1 - c);
    return x <= c ? a * x : a * c + b * (x - c);
}

static void test_reconstruct_kink(void **state)
{
    float x[9], y[9];
    for (int k = 0; k < 9; k++) {
        x[k] = (float)(0.1 * (k + 1));
        y[k] = (float)kinked(x[k], 0.4, 0.43);
    }
    double bd[] = { 0.42 };
    tf_polyline scratch = { 0 }, pl = { 0 };
    assert_int_equal(tf_reconstruct_instance(x, y, 9, bd, 1, 0.015, NULL, &scratch, &pl), 0);
    /* The corner is rebuilt where the two lines cross. */
    int found = 0;
    for (size_t k = 0; k < pl.n; k++)
        found |= fabs(pl.x[k] - 0.43) < 1e-5;
    assert_true(found);
    double v[101], s[101], gx[101];
    unsigned char t[101];
    tf_grid_points(101, gx);
    tf_polyline_on_grid(&pl, 101, gx, v, s, t);
    for (int j = 0; j < 101; j++) {
        assert_near(v[j], kinked(j / 100.0, 0.4, 0.43), 1e-5);
        assert_true(t[j]);
    }
    /* Without the boundary the chord cuts the corner. */
    assert_int_equal(tf_reconstruct_instance(x, y, 9, NULL, 0, 0.015, NULL, &scratch, &pl), 0);
    tf_polyline_on_grid(&pl, 101, gx, v, s, t);
    assert_true(fabs(v[43] - kinked(0.43, 0.4, 0.43)) > 1e-3);
    tf_polyline_free(&scratch);
    tf_polyline_free(&pl);
}

/* Three phases, slopes 1, 0.1 and what ends at (1,1), changing at 0.305
 * and 0.497. */
static double three_phases(double x)
{
    double y1 = 0.305, y2 = y1 + 0.1 * (0.497 - 0.305), b = (1 - y2) / (1 - 0.497);
    return x <= 0.305 ? x : x <= 0.497 ? y1 + 0.1 * (x - 0.305) : y2 + b * (x - 0.497);
}

/* One sample in the middle phase: each of its intervals spans a change and
 * neither has a clean neighbour on the middle's side.  The instance alone
 * leaves them untrusted; with the segments' mean slopes both changes are
 * rebuilt exactly, and a mean slope whose lines cross outside a boundary's
 * window leaves them untrusted again. */
static void test_reconstruct_by_segments(void **state)
{
    const float x[] = { 0.1f, 0.2f, 0.4f, 0.6f, 0.7f, 0.8f, 0.9f };
    float y[7];
    for (int k = 0; k < 7; k++)
        y[k] = (float)three_phases(x[k]);
    double bd[] = { 0.3, 0.5 }, right = (1 - three_phases(0.497)) / (1 - 0.497);
    double good[] = { 1, 0.1, right }, wrong[] = { 1, 0.5, right };
    tf_polyline scratch = { 0 }, pl = { 0 };
    double v[101], s[101], gx[101];
    unsigned char t[101];
    tf_grid_points(101, gx);
    assert_int_equal(tf_reconstruct_instance(x, y, 7, bd, 2, 0.015, NULL, &scratch, &pl), 0);
    tf_polyline_on_grid(&pl, 101, gx, v, s, t);
    assert_false(t[25]);
    assert_false(t[45]);
    assert_int_equal(tf_reconstruct_instance(x, y, 7, bd, 2, 0.015, good, &scratch, &pl), 0);
    tf_polyline_on_grid(&pl, 101, gx, v, s, t);
    for (int j = 0; j < 101; j++) {
        assert_near(v[j], three_phases(j / 100.0), 1e-5);
        assert_true(t[j]);
    }
    assert_int_equal(tf_reconstruct_instance(x, y, 7, bd, 2, 0.015, wrong, &scratch, &pl), 0);
    tf_polyline_on_grid(&pl, 101, gx, v, s, t);
    assert_false(t[25]);
    tf_polyline_free(&scratch);
    tf_polyline_free(&pl);
}

/* Slow (0.2), fast (3) from 0.503, then 1 from 0.68, not normalised. */
static double slow_fast_slow(double x)
{
    return x <= 0.503 ? 0.2 * x
           : x <= 0.68 ? 0.2 * 0.503 + 3 * (x - 0.503)
                       : 0.2 * 0.503 + 3 * (0.68 - 0.503) + (x - 0.68);
}

/* A mean slope 3 % above the instance's fast rate stands in for the
 * clean interval the instance lacks after the change at 0.5 and before the
 * one at 0.68 (the interval between is near both): the lines then cross
 * inside the fast intervals next to each change too, and only the
 * interval that holds the change is bent; the fast intervals keep their
 * own chord (bent as well, they took the slow slope over their first or
 * last 0.3 % and the mean rate dipped at the window's edge). */
static void test_reconstruct_one_bend(void **state)
{
    (void)state;
    const float x[] = { 0.3f, 0.45f, 0.514f, 0.59f, 0.67f, 0.75f, 0.9f };
    double f1 = slow_fast_slow(1);
    float y[7];
    for (int k = 0; k < 7; k++)
        y[k] = (float)(slow_fast_slow(x[k]) / f1);
    double bd[] = { 0.5, 0.68 }, mean[] = { 0.2 / f1, 3.1 / f1, 1 / f1 };
    tf_polyline scratch = { 0 }, pl = { 0 };
    double v[1001], s[1001], gx[1001];
    unsigned char t[1001];
    tf_grid_points(1001, gx);
    assert_int_equal(tf_reconstruct_instance(x, y, 7, bd, 2, 0.015, mean, &scratch, &pl), 0);
    tf_polyline_on_grid(&pl, 1001, gx, v, s, t);
    for (int j = 514; j <= 670; j++)   /* the fast intervals: their own chords */
        assert_near(s[j], 3 / f1, 1e-4);
    for (int j = 514; j <= 670; j += 4)
        assert_near(v[j], slow_fast_slow(j / 1000.0) / f1, 1e-5);
    assert_near(s[490], 0.2 / f1, 1e-4);   /* before the first change */
    assert_near(s[760], 1 / f1, 1e-4);     /* after the second */
    tf_polyline_free(&scratch);
    tf_polyline_free(&pl);
}

/* A cloud of ni instances, kink at c + shift (shifts spread over ±1 %),
 * m samples each at staggered positions. */
struct cloud_data {
    size_t ninst;
    uint32_t rows[200];
    size_t first[201];
    float x[200 * 20], y[200 * 20];
    uint8_t valid[200];
    double total[200], duration[200];
};

static void make_cloud(struct cloud_data *d, size_t ni, size_t m, double a, double c)
{
    d->ninst = ni;
    size_t at = 0;
    for (size_t i = 0; i < ni; i++) {
        double shift = 0.01 * (2.0 * (double)(i % 21) / 20 - 1);
        d->rows[i] = (uint32_t)i;
        d->first[i] = at;
        for (size_t k = 0; k < m; k++) {
            double x = ((double)k + 0.5 + 0.37 * (double)(i % 7) / 7) / (double)m;
            d->x[at] = (float)x;
            d->y[at++] = (float)kinked(x, a, c + shift);
        }
        d->valid[i] = 1;
        d->total[i] = 1e9;
        d->duration[i] = 1e7;
    }
    d->first[ni] = at;
}

static tf_fold_cloud view(const struct cloud_data *d)
{
    return (tf_fold_cloud){ d->ninst, d->rows, d->first, d->x, d->y, d->valid, d->total,
                            d->duration };
}

static void test_changepoints(void **state)
{
    static struct cloud_data d;
    tf_error err;
    tf_changepoint *cp;
    size_t n;
    make_cloud(&d, 200, 15, 0.3, 0.6);
    tf_fold_cloud cl = view(&d);
    assert_int_equal(tf_changepoints_find(&cl, 0.25, &cp, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_true(fabs(cp[0].x - 0.6) < 0.01);
    assert_true(cp[0].slope_before < cp[0].slope_after);
    free(cp);
    make_cloud(&d, 200, 15, 1.0, 0.5);   /* the diagonal: no change */
    cl = view(&d);
    assert_int_equal(tf_changepoints_find(&cl, 0.25, &cp, &n, &err), 0);
    assert_int_equal(n, 0);
    free(cp);
    double merged[] = { 0.2, 0.201, 0.203, 0.5, 0.8, 0.8004 };
    assert_int_equal(tf_changepoints_merge(merged, 6, 0.005), 3);
    assert_near(merged[0], 0.2013333333, 1e-9);
    assert_near(merged[2], 0.8002, 1e-12);
}

/* A weak change located on the raw cloud 4 % before the strong change of
 * another counter at the same place (seed 6 of `synth --scenario sharp
 * --poisson`: LLC misses at 0.30, instructions at 0.34) settles there on
 * its fitted curve; a change where its curve bends stays where it is.
 * Rows: where the change was found, where its curve bends, the other
 * counters' changes, where it must settle. */
static void test_changepoint_settle(void **state)
{
    static const struct {
        int line;
        double found, bend, others[3], settled;
    } rows[] = {
        { SRC_LINE, 0.30, 0.34, { 0.14, 0.3404, 0.53 }, 0.3404 },
        { SRC_LINE, 0.3404, 0.34, { 0.14, 0.30, 0.53 }, 0.3404 },
        { SRC_LINE, 0.3404, 0.34, { 0.14, 0.41, 0.53 }, 0.3404 },   /* beyond reach */
        { SRC_LINE, 0.36, 0.34, { 0.14, 0.2, 0.53 }, 0.36 },          /* none near */
    };
    static double curve[1001];
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        for (int j = 0; j <= 1000; j++)
            curve[j] = kinked(j / 1000.0, 1.5, rows[r].bend);
        double before = NAN, after = NAN;
        double x = tf_changepoint_settle(curve, 1001, rows[r].found, 0.14, 0.53, rows[r].others,
                                         3, &before, &after);
        if (fabs(x - rows[r].settled) > 1e-12)
            fail_msg("line %d: settled at %g, expected %g", rows[r].line, x, rows[r].settled);
        if (x == rows[r].others[1] && !(fabs(before - 1.5) < 0.05 && after < 1))
            fail_msg("line %d: slopes %g, %g", rows[r].line, before, after);
    }
}

static void test_fit_counter(void **state)
{
    static struct cloud_data d;
    make_cloud(&d, 200, 15, 0.3, 0.6);
    tf_fold_cloud cl = view(&d);
    enum { G = 201 };
    double curve[G], lo[G], hi[G], rate[G], rlo[G], rhi[G];
    tf_fit_output out = { curve, lo, hi, rate, rlo, rhi, 0, 0, 0 };
    tf_fit_options o = { .grid = G, .bootstrap = 50, .confidence = 0.95, .seed = 3,
                         .window = 0.015 };
    double bd[] = { 0.6 };
    tf_error err;
    assert_int_equal(tf_fit_counter(&cl, bd, 1, &o, &out, &err), 0);
    assert_int_equal(out.instances, 200);
    assert_near(out.mean_total, 1e9, 1e-3);
    /* The truth: the mean of the instances' kinked curves. */
    for (int j = 0; j < G; j++) {
        double x = j / (double)(G - 1), truth = 0;
        for (size_t i = 0; i < 200; i++)
            truth += kinked(x, 0.3, 0.6 + 0.01 * (2.0 * (double)(i % 21) / 20 - 1)) / 200;
        assert_near(curve[j], truth, 1e-4);
        assert_true(lo[j] <= curve[j] && curve[j] <= hi[j]);
        if (j > 0)
            assert_true(curve[j] >= curve[j - 1]);
    }
    /* 1e9 events in 10 ms: 1e11 events/s on average, 0.3 of it early. */
    assert_near(rate[50], 0.3e11, 1e7);
    assert_true(rlo[50] <= rate[50] && rate[50] <= rhi[50]);
    /* Fewer than 2 usable instances: NaN rows. */
    memset(d.valid, 0, sizeof d.valid);
    d.valid[0] = 1;
    cl = view(&d);
    assert_int_equal(tf_fit_counter(&cl, bd, 1, &o, &out, &err), 0);
    assert_int_equal(out.instances, 1);
    assert_true(isnan(curve[10]) && isnan(rate[10]));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_median_quantile),
        cmocka_unit_test(test_duration_filters),
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_reconstruct_kink),
        cmocka_unit_test(test_reconstruct_by_segments),
        cmocka_unit_test(test_reconstruct_one_bend),
        cmocka_unit_test(test_changepoints),
        cmocka_unit_test(test_changepoint_settle),
        cmocka_unit_test(test_fit_counter),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
