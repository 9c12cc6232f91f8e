/* SPDX-License-Identifier: BSD-3-Clause */
/* The recording's cost taken out of the durations and out of a CPU-time
 * counter alike (fold/observer.c, docs/algorithms.md "The recording's cost
 * per sample"): after the correction no instance has more CPU time than
 * wall time unless it had before, and the sampled instances together run
 * at most one CPU-second a second.  On a synthetic run whose samples also
 * made the thread wait off the CPU, and on the instances of a recorded
 * 0.9 ms step whose costs, measured apart, made it run 1.08 CPU-seconds a
 * second. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fold/observer.h"
#include "fold/preempt.h"
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

/* A region of n instances with one counter, task-clock. */
struct run {
    tf_fold_region r;
    char *names[1];
    uint64_t *raw_duration, *raw_cpu;
    size_t *first;
    tf_fold_points pts;
};

static void run_alloc(struct run *f, size_t n)
{
    static char tc[] = "task-clock";
    memset(f, 0, sizeof *f);
    f->names[0] = tc;
    f->r.ncounters = 1;
    f->r.counter_names = f->names;
    f->r.ninstances = n;
    f->r.instances = calloc(n, sizeof *f->r.instances);
    f->r.counter_delta = calloc(n, sizeof *f->r.counter_delta);
    f->raw_duration = calloc(n, sizeof *f->raw_duration);
    f->raw_cpu = calloc(n, sizeof *f->raw_cpu);
    f->first = calloc(n + 1, sizeof *f->first);   /* no points held here */
    assert_true(f->r.instances && f->r.counter_delta && f->raw_duration && f->raw_cpu &&
                f->first);
}

static void run_set(struct run *f, size_t i, uint64_t duration, uint64_t cpu, uint64_t samples)
{
    f->r.instances[i] = (tf_fold_instance){ .duration = duration, .samples = samples,
                                            .status = TF_FOLD_USED, .score = NAN };
    f->r.counter_delta[i] = cpu;
    f->raw_duration[i] = duration;
    f->raw_cpu[i] = cpu;
}

static void run_free(struct run *f)
{
    free(f->r.instances);
    free(f->r.counter_delta);
    free(f->r.observer_events);
    free(f->raw_duration);
    free(f->raw_cpu);
    free(f->first);
}

/* Measures and takes out the costs, then checks every used instance and
 * returns the sampled used instances' CPU time over their wall time. */
static double corrected_share(struct run *f)
{
    tf_error err;
    assert_int_equal(tf_fold_observer_measure(&f->r, &err), 0);
    tf_fold_observer_apply(&f->r, tf_fold_cpu_time_counter(&f->r), f->first, &f->pts);
    double cpu = 0, wall = 0;
    for (size_t i = 0; i < f->r.ninstances; i++) {
        const tf_fold_instance *in = &f->r.instances[i];
        if (in->status != TF_FOLD_USED || !in->samples)
            continue;
        /* never more CPU time than wall time where there was not before */
        if (f->raw_cpu[i] <= f->raw_duration[i] && f->r.counter_delta[i] > in->duration)
            fail_msg("instance %zu: %llu ns of CPU time in %llu ns after the correction "
                     "(%llu in %llu before)", i, (unsigned long long)f->r.counter_delta[i],
                     (unsigned long long)in->duration, (unsigned long long)f->raw_cpu[i],
                     (unsigned long long)f->raw_duration[i]);
        cpu += (double)f->r.counter_delta[i];
        wall += (double)in->duration;
    }
    return cpu / wall;
}

#define N 400
#define WORK 900e3       /* ns of work an iteration */
#define CPU_COST 40e3    /* ns of CPU time a sample costs: interrupt, signal, handler */
#define WAIT 60e3        /* ns the thread then waits off the CPU, after 60 % of the samples */

/* Iterations of 0.9 ms (2 % jitter), four in five sampled (a seventh of
 * those twice); each sample costs CPU_COST of CPU time and, after 60 % of
 * them, WAIT off the CPU (another process takes the CPU when the signal
 * wakes the thread); the thread otherwise runs all the time, its clock
 * 0.2 % short of its wall time.  The duration's cost is then the CPU's
 * and the wait, 100 µs; the task clock's 40 µs; taking 100 µs out of an
 * instance that did not wait made it run 1.07 CPU-seconds a second. */
static void test_off_cpu_part(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 10; seed++) {
        uint64_t s = seed * 2654435761u;
        struct run f;
        run_alloc(&f, N);
        for (size_t i = 0; i < N; i++) {
            uint64_t k = i % 5 == 0 ? 0 : i % 7 == 0 ? 2 : 1;
            double cpu = WORK * (1 + 0.02 * normal(&s)) + (double)k * CPU_COST, wait = 0;
            for (uint64_t j = 0; j < k; j++)
                wait += uniform(&s) < 0.6 ? WAIT : 0;
            run_set(&f, i, (uint64_t)llround(cpu * 1.002 + wait), (uint64_t)llround(cpu), k);
        }
        double share = corrected_share(&f);
        assert_true(share <= 1);
        /* the CPU part of the cost, within 3 of its standard errors (18 µs
         * of jitter an instance, 80 instances without samples) */
        assert_true(fabs(f.r.observer_events[0] - CPU_COST) < 8e3);
        assert_true(f.r.observer_ns > CPU_COST && f.r.observer_ns <= CPU_COST + WAIT * 1.1);
        run_free(&f);
    }
}

/* A sample's cost with no significant off-CPU part is the same CPU time
 * as wall time, whatever the task clock's own estimate says. */
static void test_recorded_step(void **state)
{
    (void)state;
    const char *src = getenv("top_srcdir");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fold/observer_step.csv", src ? src : ".");
    FILE *in = fopen(path, "r");
    if (!in)
        fail_msg("%s: cannot open", path);
    struct run f;
    run_alloc(&f, 200);
    char line[256];
    size_t n = 0;
    while (fgets(line, sizeof line, in)) {
        unsigned long long d, t, k;
        if (line[0] == '#' || sscanf(line, "%llu,%llu,%llu", &d, &t, &k) != 3)
            continue;
        assert_true(n < 200);
        run_set(&f, n++, d, t, k);
    }
    fclose(in);
    assert_int_equal(n, 200);
    tf_error err;
    assert_int_equal(tf_fold_preempted(&f.r, TF_PREEMPTED_EXCLUDE, false, NULL, NULL, &err), 0);
    double cpu = 0, wall = 0;
    for (size_t i = 0; i < n; i++)
        if (f.r.instances[i].status == TF_FOLD_USED && f.r.instances[i].samples) {
            cpu += (double)f.raw_cpu[i];
            wall += (double)f.raw_duration[i];
        }
    /* as recorded, the task clock ran 0.07 % faster than the wall clock */
    double raw = cpu / wall;
    assert_true(raw > 1 && raw < 1.001);
    double share = corrected_share(&f);
    /* the separate estimates: 66 µs out of the durations, none out of the
     * task clock, 1.0845 */
    assert_true(f.r.observer_ns > 60e3 && f.r.observer_ns < 70e3);
    assert_true(f.r.observer_events[0] > 60e3 && f.r.observer_events[0] <= f.r.observer_ns);
    assert_true(fabs(share - raw) < 0.002);
    run_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_off_cpu_part),
        cmocka_unit_test(test_recorded_step),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
