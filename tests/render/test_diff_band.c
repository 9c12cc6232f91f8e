/* SPDX-License-Identifier: BSD-3-Clause */
/* The band of `tracefold diff` on the whole iteration (docs/algorithms.md,
 * "Comparing two folds"): two folds given as their instances' durations
 * alone.  A difference the instances' independent spread cannot explain is
 * significant; the same difference between two runs that each had a load
 * episode (a run of consecutive slow instances) is noise; and with few
 * instances the band is Student's t for the degrees of freedom, not the
 * normal z. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "render/report_diff.h"

enum { MAX_INSTANCES = 100 };

/* A fold with no phases: its iteration and its instances, all used. */
typedef struct fold {
    tf_report_page page;
    double ns[MAX_INSTANCES];
    bool   used[MAX_INSTANCES];
} fold;

static void fold_set(fold *f, const double *ms, size_t n)
{
    memset(f, 0, sizeof *f);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        f->ns[i] = 1e6 * ms[i];
        f->used[i] = true;
        sum += f->ns[i];
    }
    f->page.ninstances = n;
    f->page.instance_ns = f->ns;
    f->page.instance_used = f->used;
    f->page.duration_ns = sum / (double)n;
}

/* diff's row "total" of a against b at coverage 0.95. */
static tf_diff_row total(const fold *a, const fold *b)
{
    tf_diff d;
    tf_error err = {0};
    assert_int_equal(tf_diff_compute(&a->page, &b->page, 0.95, &d, &err), 0);
    assert_true(d.nrows >= 1);
    tf_diff_row r = d.rows[d.nrows - 1];
    assert_string_equal(r.phase, "total");
    tf_diff_free(&d);
    return r;
}

/* n instances of 1 ms, those where slow(i) at 1.04 ms. */
static void two_speeds(fold *f, size_t n, bool (*slow)(size_t, size_t))
{
    double ms[MAX_INSTANCES];
    for (size_t i = 0; i < n; i++)
        ms[i] = slow(i, n) ? 1.04 : 1.0;
    fold_set(f, ms, n);
}

/* Half the instances slow, spread evenly, or as one episode. */
static bool half_spread(size_t i, size_t n) { (void)n; return i % 2; }
static bool half_episode(size_t i, size_t n) { return i >= n / 2; }
/* 3 in 10 slow, spread evenly, or as one episode. */
static bool third_spread(size_t i, size_t n) { (void)n; return i % 10 == 0 || i % 10 == 3 || i % 10 == 6; }
static bool third_episode(size_t i, size_t n) { return i >= n - 3 * n / 10; }

/* The same mean durations (1.020 and 1.012 ms: B 0.8 % faster): slow
 * instances spread among fast ones are independent noise whose mean over
 * 100 instances is known to about 0.2 %, and 0.8 % is a change; the same
 * slow instances as one episode per run move each run's mean as a whole,
 * and the batch means see that the run's mean is known to about 0.6 %
 * only: 0.8 % is noise. */
static void episodes_widen_the_band(void **state)
{
    (void)state;
    fold a, b;
    two_speeds(&a, 100, half_spread);
    two_speeds(&b, 100, third_spread);
    tf_diff_row spread = total(&a, &b);
    assert_float_equal(spread.ratio, 1.012 / 1.02, 1e-9);
    assert_true(spread.significant);
    assert_true(spread.ratio_hi < 1);

    two_speeds(&a, 100, half_episode);
    two_speeds(&b, 100, third_episode);
    tf_diff_row episode = total(&a, &b);
    assert_float_equal(episode.ratio, 1.012 / 1.02, 1e-9);
    assert_false(episode.significant);
    assert_true(episode.ratio_lo < 1 && episode.ratio_hi > 1);
}

/* Five instances each, the same relative spread (standard error 3.54 %,
 * 5 % for the ratio): the degrees of freedom are 8 (Welch-Satterthwaite),
 * t = 2.306 where z = 1.96, and a ratio of 1.115 (log 0.109) lies inside
 * the t band (0.115) though outside the z one (0.098). */
static void few_instances_take_student_t(void **state)
{
    (void)state;
    static const double ms[] = {1.0, 1.1, 0.9, 1.05, 0.95};
    double ms_b[5];
    for (size_t i = 0; i < 5; i++)
        ms_b[i] = 1.115 * ms[i];
    fold a, b;
    fold_set(&a, ms, 5);
    fold_set(&b, ms_b, 5);
    tf_diff_row r = total(&a, &b);
    double se = sqrt(2.0) * sqrt(0.025 / 4 / 5);
    assert_float_equal(r.ratio, 1.115, 1e-9);
    assert_float_equal(log(r.ratio_hi / r.ratio), 2.306004 * se, 1e-5);
    assert_false(r.significant);
}

/* Four instances against four equal ones: all the error is A's, with 3
 * degrees of freedom (t = 3.182, the series for an odd number). */
static void one_side_degrees_of_freedom(void **state)
{
    (void)state;
    static const double ms_a[] = {1.0, 1.1, 0.9, 1.0}, ms_b[] = {1.2, 1.2, 1.2, 1.2};
    fold a, b;
    fold_set(&a, ms_a, 4);
    fold_set(&b, ms_b, 4);
    tf_diff_row r = total(&a, &b);
    double se = sqrt(0.02 / 3 / 4);
    assert_float_equal(log(r.ratio_hi / r.ratio), 3.182446 * se, 1e-5);
    assert_float_equal(log(r.ratio / r.ratio_lo), 3.182446 * se, 1e-5);
    assert_true(r.significant);
}

/* A fold against itself: ratio 1, nothing significant, with or without
 * episodes. */
static void itself_is_noise(void **state)
{
    (void)state;
    fold a;
    two_speeds(&a, 100, half_episode);
    tf_diff_row r = total(&a, &a);
    assert_float_equal(r.ratio, 1, 0);
    assert_false(r.significant);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(episodes_widen_the_band),
        cmocka_unit_test(few_instances_take_student_t),
        cmocka_unit_test(one_side_degrees_of_freedom),
        cmocka_unit_test(itself_is_noise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
