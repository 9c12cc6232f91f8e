/* SPDX-License-Identifier: BSD-3-Clause */
/* What the instance rules keep and remove on durations like real runs':
 * skewed and heavy-tailed ordinary iterations, stalls, two duration modes
 * with instances between them, preempted instances, and rates that no
 * thread can reach (fold/filter.c, fold/preempt.c, fold/rate_check.c). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fold/filter.h"
#include "fold/preempt.h"
#include "fold/rate_check.h"
#include "formats/trace.h"

/* xorshift64*: the same draws on every machine. */
static double uniform(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 2685821657736338717ULL) >> 11) / 9007199254740992.0 + 1e-17;
}

static double normal(uint64_t *s)
{
    return sqrt(-2 * log(uniform(s))) * cos(6.283185307179586 * uniform(s));
}

#define N 400
#define STALLS 12

/* Heavy-tailed ordinary durations: 1 ms with 2 % lognormal jitter, and on a
 * quarter of them an exponential delay of mean 6 % (a tick, a fault, a
 * refill); then STALLS stalls of 30 % to 200 %. */
static void heavy_tailed(uint64_t seed, double *d)
{
    for (size_t i = 0; i < N; i++) {
        d[i] = 1e6 * exp(0.02 * normal(&seed));
        if (uniform(&seed) < 0.25)
            d[i] *= 1 - 0.06 * log(uniform(&seed));
    }
    for (size_t k = 0; k < STALLS; k++)
        d[N + k] = 1e6 * (1.3 + 0.15 * (double)k);
}

static void test_heavy_tail_kept(void **state)
{
    for (uint64_t seed = 1; seed <= 20; seed++) {
        double d[N + STALLS], score[N + STALLS];
        uint8_t out[N + STALLS];
        tf_error err;
        heavy_tailed(seed * 7919, d);
        assert_int_equal(tf_fold_filter_durations(d, NULL, N + STALLS, TF_FILTER_ROBUST, 3.5, out,
                                                  score, &err), 0);
        size_t dropped = 0;
        for (size_t i = 0; i < N; i++)
            dropped += out[i];
        if (dropped > N / 20)
            fail_msg("seed %llu: %zu of %d ordinary iterations excluded (more than 5 %%)",
                     (unsigned long long)seed, dropped, N);
        for (size_t k = 0; k < STALLS; k++)
            if (!out[N + k])
                fail_msg("seed %llu: stall of %.0f %% kept", (unsigned long long)seed,
                         100 * (d[N + k] / 1e6 - 1));
        /* they are one mode with a tail, not two groups */
        int32_t g[N + STALLS];
        uint32_t ng;
        assert_int_equal(tf_fold_group_durations(d, N + STALLS, 0, g, &ng, &err), 0);
        if (ng != 1)
            fail_msg("seed %llu: %u groups in one heavy-tailed mode", (unsigned long long)seed, ng);
    }
}

/* Two modes, 3.8 ms and 8 ms with 8 % jitter each, and a tenth of the
 * instances spread between them (partly disturbed): no gap, yet clearly
 * bimodal. */
static void test_bimodal_groups(void **state)
{
    for (uint64_t seed = 1; seed <= 20; seed++) {
        uint64_t s = seed * 104729;
        double d[N];
        int32_t g[N];
        uint32_t ng;
        tf_error err;
        for (size_t i = 0; i < N; i++) {
            double u = uniform(&s);
            d[i] = u < 0.1 ? 4.2e6 + 3.4e6 * uniform(&s)
                           : (u < 0.55 ? 3.8e6 : 8e6) * exp(0.08 * normal(&s));
        }
        assert_int_equal(tf_fold_group_durations(d, N, 0, g, &ng, &err), 0);
        if (ng != 2)
            fail_msg("seed %llu: %u groups, expected 2", (unsigned long long)seed, ng);
        for (size_t i = 0; i < N; i++)
            if ((d[i] < 3.2e6 || d[i] > 9e6) && g[i] != (d[i] > 5.5e6))
                fail_msg("seed %llu: %.2f ms in group %d", (unsigned long long)seed, d[i] / 1e6,
                         g[i]);
    }
}

/* A region of n instances with the counters task-clock, instructions and
 * cycles: instance i ran cpu[i] ns of its dur[i] ns. */
struct region_fixture {
    tf_fold_region r;
    tf_fold_instance ins[40];
    uint64_t delta[120];
    char *names[3];
};

static void make_region(struct region_fixture *f, size_t n, const double *cpu, const double *dur)
{
    memset(f, 0, sizeof *f);
    static char tc[] = "task-clock", in[] = "instructions", cy[] = "cycles";
    f->names[0] = tc;
    f->names[1] = in;
    f->names[2] = cy;
    f->r.ncounters = 3;
    f->r.counter_names = f->names;
    f->r.ninstances = n;
    f->r.instances = f->ins;
    f->r.counter_delta = f->delta;
    for (size_t i = 0; i < n; i++) {
        f->ins[i] = (tf_fold_instance){ .duration = (uint64_t)dur[i], .status = TF_FOLD_USED,
                                        .score = NAN };
        f->delta[3 * i] = (uint64_t)cpu[i];
        f->delta[3 * i + 1] = f->delta[3 * i + 2] = 1000000;
    }
}

static void test_preempted(void **state)
{
    double cpu[30], dur[30];
    for (size_t i = 0; i < 30; i++) {
        cpu[i] = 1e6 * (1 + 0.01 * (double)(i % 7));
        /* a third lost 15 % to 95 % of their wall time; one lost 5 % */
        double share = i % 3 == 0 ? 0.85 - 0.03 * (double)i : i == 1 ? 0.95 : 0.999;
        dur[i] = cpu[i] / share;
    }
    struct region_fixture f;
    tf_error err;
    make_region(&f, 30, cpu, dur);
    assert_int_equal(tf_fold_preempted(&f.r, TF_PREEMPTED_EXCLUDE, false, NULL, NULL, &err), 0);
    for (size_t i = 0; i < 30; i++) {
        bool lost = i % 3 == 0;
        assert_int_equal(f.ins[i].reason, lost ? TF_FOLD_REASON_PREEMPTED : TF_FOLD_REASON_NONE);
        assert_int_equal(f.ins[i].status, lost ? TF_FOLD_EXCLUDED : TF_FOLD_USED);
    }
    /* In CPU time: kept, its points placed by the CPU-time counter, its
     * duration its CPU time. */
    make_region(&f, 30, cpu, dur);
    tf_fold_points pts;
    assert_int_equal(tf_fold_points_alloc(&pts, 60, 3, &err), 0);
    size_t first[31];
    for (size_t i = 0; i <= 30; i++)
        first[i] = 2 * i;
    for (size_t k = 0; k < 60; k++) {
        pts.x[k] = k % 2 ? 0.9f : 0.2f;
        pts.y[k] = k % 2 ? 0.8f : 0.1f;     /* task-clock */
        pts.y[60 + k] = pts.y[120 + k] = 0.5f;
    }
    assert_int_equal(tf_fold_preempted(&f.r, TF_PREEMPTED_CPU_TIME, false, first, &pts, &err), 0);
    for (size_t i = 0; i < 30; i++) {
        bool lost = i % 3 == 0;
        assert_int_equal(f.ins[i].status, TF_FOLD_USED);
        assert_int_equal(f.ins[i].reason, lost ? TF_FOLD_REASON_PREEMPTED : TF_FOLD_REASON_NONE);
        assert_int_equal(f.ins[i].duration, (uint64_t)(lost ? cpu[i] : dur[i]));
        assert_true(pts.x[2 * i] == (lost ? 0.1f : 0.2f));
        assert_true(pts.x[2 * i + 1] == (lost ? 0.8f : 0.9f));
    }
    tf_fold_points_free(&pts);
    /* Without a CPU-time counter nothing is told. */
    make_region(&f, 30, cpu, dur);
    static char other[] = "page-faults";
    f.names[0] = other;
    assert_int_equal(tf_fold_preempted(&f.r, TF_PREEMPTED_EXCLUDE, false, NULL, NULL, &err), 0);
    for (size_t i = 0; i < 30; i++)
        assert_int_equal(f.ins[i].status, TF_FOLD_USED);
    /* Two processes, the second served half a CPU all along (two ranks on
     * one CPU) and disturbed once more: against all instances every one of
     * its instances is preempted; against its own, only the disturbed one. */
    for (size_t i = 0; i < 30; i++) {
        cpu[i] = 1e6;
        dur[i] = i < 15 ? 1e6 : i == 20 ? 4e6 : 2e6 * (1 + 0.001 * (double)(i % 5));
    }
    for (int per_process = 0; per_process < 2; per_process++) {
        make_region(&f, 30, cpu, dur);
        for (size_t i = 15; i < 30; i++)
            f.ins[i].proc = 1;
        assert_int_equal(tf_fold_preempted(&f.r, TF_PREEMPTED_EXCLUDE, per_process, NULL, NULL,
                                           &err), 0);
        for (size_t i = 0; i < 30; i++) {
            bool lost = i >= 15 && (!per_process || i == 20);
            assert_int_equal(f.ins[i].status, lost ? TF_FOLD_EXCLUDED : TF_FOLD_USED);
        }
    }
}

static void test_impossible_rates(void **state)
{
    double cpu[3] = { 1e6, 1e6, 1e6 }, dur[3] = { 1e6, 1e6, 1e6 };
    struct region_fixture f;
    tf_error err;
    make_region(&f, 3, cpu, dur);
    /* grid of 4: task-clock at 1, 1.05 (band to 1.3), 1300 and 0 CPUs;
     * instructions per cycle 1, 2, 4 and 12 */
    double rate[12] = { 1e9, 1.05e9, 1.3e12, 0, 1e9, 2e9, 4e9, 12e9, 1e9, 1e9, 1e9, 1e9 };
    double lo[12], hi[12], ratio[12];
    for (size_t k = 0; k < 12; k++) {
        lo[k] = 0.9 * rate[k];
        hi[k] = 1.1 * rate[k];
        ratio[k] = 1;
    }
    hi[1] = 1.3e9;
    tf_fold_group g = { .grid = 4, .rate = rate, .rate_lo = lo, .rate_hi = hi, .ratio = ratio,
                        .instructions = 1 };
    assert_int_equal(tf_fold_rates_check(&f.r, &g, &err), 0);
    assert_non_null(g.rate_dropped);
    assert_int_equal(g.rate_dropped[0], 1);
    assert_int_equal(g.rate_dropped[1], 1);
    assert_int_equal(g.rate_dropped[2], 1);
    /* 12 instructions per cycle: both rates and the ratio dropped there */
    assert_true(isnan(rate[7]) && isnan(rate[11]) && isnan(ratio[11]) && isnan(hi[7]));
    assert_true(rate[6] == 4e9 && rate[10] == 1e9);
    assert_true(isnan(rate[2]) && isnan(lo[2]) && isnan(hi[2]));
    assert_true(rate[0] == 1e9 && rate[1] == 1.05e9 && rate[3] == 0);
    assert_true(fabs(hi[1] - 1.1e9) < 1);
    for (size_t k = 0; k < 4; k++)
        assert_true(isnan(rate[k]) || rate[k] <= 1.1e9);
    free(g.rate_dropped);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heavy_tail_kept),
        cmocka_unit_test(test_bimodal_groups),
        cmocka_unit_test(test_preempted),
        cmocka_unit_test(test_impossible_rates),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
