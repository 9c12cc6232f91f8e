/* SPDX-License-Identifier: BSD-3-Clause */
/* tf_cal_find_levels on capacity curves with a known answer: clean ones
 * made here, and curves measured by `tracefold calibrate` on the machines
 * this project runs on, whose sysfs cache sizes are given with them; and
 * tf_cal_find_step, the line size, on pair timings. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "calibrate/hierarchy.h"

/* The curve of sizes 4096 × 1.25^i with ns[i]. */
static void curve_from(tf_cal_curve *c, const double *ns, size_t n)
{
    memset(c, 0, sizeof *c);
    double b = 4096;
    for (size_t i = 0; i < n; i++, b *= 1.25) {
        c->bytes[i] = b;
        c->ns[i] = ns[i];
    }
    c->n = n;
}

/* The levels of the curve of ns[0..n) (sizes as curve_from), into lv. */
static int levels_of(const double *ns, size_t n, tf_cal_curve *c, tf_cal_level *lv, double *mem)
{
    curve_from(c, ns, n);
    return tf_cal_find_levels(c, lv, TF_CAL_MAX_LEVELS, mem);
}

static void assert_level(const tf_cal_level *lv, double size_lo, double size_hi, double ns_lo,
                         double ns_hi, int line)
{
    if (lv->size_bytes < size_lo || lv->size_bytes > size_hi || lv->hit_ns < ns_lo ||
        lv->hit_ns > ns_hi)
        fail_msg("line %d: level of %.0f bytes, %.2f ns; expected %.0f..%.0f bytes, "
                 "%.2f..%.2f ns", line, lv->size_bytes, lv->hit_ns, size_lo, size_hi, ns_lo,
                 ns_hi);
}

/* Three clean levels: 32 KiB at 1 ns, 512 KiB at 4 ns, 8 MiB at 15 ns,
 * memory 100 ns; the size reported is the largest point on the plateau. */
static void test_clean_levels(void **state)
{
    (void)state;
    double ns[60];
    double b = 4096;
    for (size_t i = 0; i < 60; i++, b *= 1.25)
        ns[i] = b <= 32768 ? 1 : b <= 524288 ? 4 : b <= 8388608 ? 15 : 100;
    tf_cal_curve c;
    tf_cal_level lv[TF_CAL_MAX_LEVELS];
    double mem;
    int n = levels_of(ns, 60, &c, lv, &mem);
    assert_int_equal(n, 3);
    assert_level(&lv[0], 32768 / 1.25, 32768, 1, 1, __LINE__);
    assert_level(&lv[1], 524288 / 1.25, 524288, 4, 4, __LINE__);
    assert_level(&lv[2], 8388608 / 1.25, 8388608, 15, 15, __LINE__);
    assert_true(fabs(mem - 100) < 1e-9);
    assert_true(fabs(lv[0].miss_penalty_ns - 3) < 1e-9);
    assert_true(fabs(lv[2].miss_penalty_ns - 85) < 1e-9);
}

/* A spike of noise inside a plateau does not split the level, and a short
 * pause on the way up is no level of its own. */
static void test_spike_and_pause(void **state)
{
    (void)state;
    static const double ns[] = {
        1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,     /* 4 KiB .. 31 KiB */
        4.0, 4.0, 4.0, 9.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0,     /* spike at 4 KiB×1.25^13 */
        7.0, 7.1,                                             /* pause */
        20, 20, 20, 20, 20, 20, 20, 20, 20, 20, 20,
        150, 150, 150, 150, 150,
    };
    tf_cal_curve c;
    tf_cal_level lv[TF_CAL_MAX_LEVELS];
    double mem;
    int n = levels_of(ns, sizeof ns / sizeof ns[0], &c, lv, &mem);
    assert_int_equal(n, 3);
    assert_level(&lv[1], c.bytes[19], c.bytes[19], 4, 4, __LINE__);
    assert_level(&lv[2], c.bytes[32], c.bytes[32], 20, 20, __LINE__);
    assert_true(fabs(mem - 150) < 1e-9);
}

/* Measured with `tracefold calibrate --quick` on an AMD EPYC (Zen 3) KVM
 * guest with 2 vCPUs, 2026-12-01, other builds running (sysfs: L1D
 * 32 KiB, L2 512 KiB, L3 32 MiB).  The L2 and L3 are shared with other
 * cores or tenants there: their hits end early and gradually, with a pause
 * at 284–355 KiB and another at 4–5 MiB; the levels are the three long
 * plateaus, at 1.3, 3.9 and 15.3 ns (sizes: their last points within 15 %
 * of that), and memory at about 164 ns, creeping up to 259 ns at the
 * largest size. */
static void test_measured_zen3(void **state)
{
    (void)state;
    static const double ns[] = {
        1.37037, 1.36146, 1.36116, 1.33481, 1.30335, 1.33511, 1.37037, 1.37198, 1.50222,
        2.11036, 3.93538, 4.04229, 4.10229, 4.09909, 4.10109, 4.08346, 4.10139, 4.09709,
        5.07561, 6.90726, 7.32213, 9.22681, 15.6343, 15.2941, 16.9505, 16.8579, 17.8141,
        17.4124, 18.8153, 19.3043, 19.7333, 25.1604, 28.8852, 163.936, 166.465, 172.118,
        165.086, 167.285, 167.057, 166.489, 168.009, 168.127, 174.243, 172.518, 176.656,
        202.703, 187.855, 197.483, 208.374, 219.525, 199.183, 214.135, 258.551,
    };
    tf_cal_curve c;
    tf_cal_level lv[TF_CAL_MAX_LEVELS];
    double mem;
    int n = levels_of(ns, sizeof ns / sizeof ns[0], &c, lv, &mem);
    assert_int_equal(n, 3);
    assert_level(&lv[0], 19000, 25000, 1.30, 1.31, __LINE__);
    assert_level(&lv[1], 180000, 230000, 3.93, 3.94, __LINE__);
    assert_level(&lv[2], 1.6e6, 1.7e6, 15.29, 15.30, __LINE__);
    assert_true(mem > 160 && mem < 170);
}

/* Nothing but one latency: no cache level, that latency is memory's. */
static void test_flat(void **state)
{
    (void)state;
    double ns[20];
    for (size_t i = 0; i < 20; i++)
        ns[i] = 80 + (double)(i % 3);
    tf_cal_curve c;
    tf_cal_level lv[TF_CAL_MAX_LEVELS];
    double mem;
    assert_int_equal(levels_of(ns, 20, &c, lv, &mem), 0);
    assert_true(fabs(mem - 80) < 1e-9);
    c.n = 0;
    assert_int_equal(tf_cal_find_levels(&c, lv, TF_CAL_MAX_LEVELS, &mem), 0);
}

/* The line size: the first spacing from which the pair time stays a
 * miss higher, by the fastest times on either side; a burst that falls
 * back again is noise. */
static void test_line_step(void **state)
{
    (void)state;
    static const size_t s[] = { 8, 16, 32, 64, 128, 256 };
    static const double clean[] = { 5.2, 5.2, 5.3, 7.7, 7.8, 7.7 };
    static const double burst[] = { 5.2, 6.9, 5.4, 7.6, 7.9, 7.7 };
    static const double flat[] = { 5.2, 5.3, 5.2, 5.4, 5.3, 5.2 };
    static const double dips[] = { 5.2, 5.2, 5.3, 7.7, 5.4, 7.7 };
    /* measured on the AMD VM, busy: the smallest spacing came out slow */
    static const double slow_first[] = { 7.84, 7.73, 6.61, 8.95, 8.89, 8.95 };
    assert_int_equal(tf_cal_find_step(clean, s, 6, 2.5), 64);
    assert_int_equal(tf_cal_find_step(burst, s, 6, 2.5), 64);
    assert_int_equal(tf_cal_find_step(flat, s, 6, 2.5), 0);
    assert_int_equal(tf_cal_find_step(dips, s, 6, 2.5), 256);
    assert_int_equal(tf_cal_find_step(slow_first, s, 6, 2.5), 64);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_levels),
        cmocka_unit_test(test_spike_and_pause),
        cmocka_unit_test(test_measured_zen3),
        cmocka_unit_test(test_flat),
        cmocka_unit_test(test_line_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
