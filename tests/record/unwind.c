/* SPDX-License-Identifier: BSD-3-Clause */
/* The sampling handler's call stacks (record/lib/tf_unwind.c) against
 * libunwind's own unw_step walk, sample by sample: from a profiling timer
 * signal, over code with and without frame pointers, a frame of variable
 * size (a VLA), an over-aligned frame, deep recursion and the C library's
 * qsort calling back.  Each sample is unwound twice by the recorder: once
 * as the handler does (learning rules where it has none), then with the
 * thread marked as inside libunwind, where only the learned rules may be
 * used (anything else gives the bare IP); that second walk must equal
 * libunwind's frame for frame. */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

#include <cmocka.h>

#include "record/lib/tf_rec.h"

/* tf_unwind.c's only dependency on the rest of the library. */
tf_rec tf_rec_g;

#define DEPTH 64
enum { PHASE_PLAIN, PHASE_FP, PHASE_VLA, PHASE_ALIGNED, PHASE_QSORT, PHASES };
static const char *const phase_names[PHASES] = {"no frame pointer", "frame pointer", "VLA",
                                                "over-aligned frame", "qsort callback"};

static tf_rec_thread thread;
static volatile sig_atomic_t phase;
static unsigned long samples[PHASES], rule_walks[PHASES], mismatches;
static char mismatch_what[256];
static volatile double sink;

static uint32_t libunwind_walk(ucontext_t *uc, uint64_t *frames, uint32_t depth)
{
    unw_cursor_t c;
    uint32_t n = 0;
    if (unw_init_local2(&c, (unw_context_t *)uc, UNW_INIT_SIGNAL_FRAME) < 0)
        return 0;
    do {
        unw_word_t ip;
        if (unw_get_reg(&c, UNW_REG_IP, &ip) || !ip)
            break;
        frames[n++] = ip;
    } while (n < depth && unw_step(&c) > 0);
    return n;
}

static void on_prof(int sig, siginfo_t *si, void *ucv)
{
    (void)sig, (void)si;
    ucontext_t *uc = ucv;
    uint64_t first[DEPTH], rules[DEPTH], ref[DEPTH];
    int p = phase;
    tf_unwind_sample(&thread, uc, first, DEPTH);
    thread.unwinding = 1;
    uint32_t n = tf_unwind_sample(&thread, uc, rules, DEPTH);
    thread.unwinding = 0;
    uint32_t nref = libunwind_walk(uc, ref, DEPTH);
    samples[p]++;
    if (n <= 1)
        return;
    rule_walks[p]++;
    uint32_t k = 0;
    while (k < n && k < nref && rules[k] == ref[k])
        k++;
    if ((k < n || n != nref) && !mismatches++)
        snprintf(mismatch_what, sizeof mismatch_what,
                 "%s: %u frames by rules, %u by libunwind, first difference at %u", phase_names[p],
                 n, nref, k);
}

/* A compute loop and a recursion down to it, compiled with or without
 * frame pointers. */
#define LAYOUT(name, frame_pointer)                                                          \
    __attribute__((noinline, optimize(frame_pointer))) static void spin_##name(long n)      \
    {                                                                                       \
        double x = 1;                                                                       \
        for (long i = 0; i < n; i++)                                                        \
            x = x * 1.0000001 + 1e-9;                                                       \
        sink += x;                                                                          \
    }                                                                                       \
    __attribute__((noinline, optimize(frame_pointer))) static void recurse_##name(int d,    \
                                                                                 long n)    \
    {                                                                                       \
        if (d)                                                                              \
            recurse_##name(d - 1, n);                                                       \
        else                                                                                \
            spin_##name(n);                                                                 \
        sink += d;                                                                          \
    }
LAYOUT(plain, "omit-frame-pointer")
LAYOUT(fp, "no-omit-frame-pointer")

/* A frame whose size changes from call to call. */
__attribute__((noinline)) static void spin_vla(int len, long n)
{
    volatile double a[len];
    for (int i = 0; i < len; i++)
        a[i] = i;
    for (long i = 0; i < n; i++)
        a[i % len] = a[(i + 1) % len] * 1.0000001 + 1e-9;
    sink += a[0];
}

/* A frame realigned below the incoming stack pointer. */
__attribute__((noinline)) static void spin_aligned(long n)
{
    _Alignas(64) volatile double a[8];
    for (int i = 0; i < 8; i++)
        a[i] = i;
    for (long i = 0; i < n; i++)
        a[i & 7] = a[(i + 1) & 7] * 1.0000001 + 1e-9;
    sink += a[0];
}

static int compare_slowly(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    for (int i = 0; i < 200; i++)
        sink += x * 1e-9;
    return (x > y) - (x < y);
}

static double cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void run_phase(int p, double seconds)
{
    phase = p;
    double t0 = cpu_s();
    for (int round = 0; cpu_s() - t0 < seconds; round++) {
        switch (p) {
        case PHASE_PLAIN: recurse_plain(1 + round % 40, 20000); break;
        case PHASE_FP: recurse_fp(1 + round % 40, 20000); break;
        case PHASE_VLA: spin_vla(1 + round % 300, 20000); break;
        case PHASE_ALIGNED: recurse_plain(round % 3, 0), spin_aligned(20000); break;
        default: {
            double v[512];
            for (int i = 0; i < 512; i++)
                v[i] = (double)((i * 7919 + round) % 512);
            qsort(v, 512, sizeof v[0], compare_slowly);
        }
        }
    }
}

/* A fresh thread state (stack bounds known or not), then each phase for
 * seconds of CPU under a 1 ms profiling timer. */
static void sample_phases(bool bounds, double seconds)
{
    memset(&thread, 0, sizeof thread);
    memset(samples, 0, sizeof samples);
    memset(rule_walks, 0, sizeof rule_walks);
    mismatches = 0;
    tf_rec_g.opt.unwind = TF_UNWIND_LIBUNWIND;
    tf_rec_g.opt.stack_depth = DEPTH;
    pthread_attr_t attr;
    void *addr;
    size_t size;
    assert_int_equal(pthread_getattr_np(pthread_self(), &attr), 0);
    assert_int_equal(pthread_attr_getstack(&attr, &addr, &size), 0);
    pthread_attr_destroy(&attr);
    if (bounds) {
        thread.stack_lo = (uintptr_t)addr;
        thread.stack_hi = (uintptr_t)addr + size;
    }
    tf_unwind_setup();
    tf_unwind_thread_start(&thread);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_prof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGPROF, &sa, NULL), 0);
    struct itimerval it = {{0, 1000}, {0, 1000}};
    assert_int_equal(setitimer(ITIMER_PROF, &it, NULL), 0);
    for (int p = 0; p < PHASES; p++)
        run_phase(p, seconds);
    memset(&it, 0, sizeof it);
    setitimer(ITIMER_PROF, &it, NULL);
}

static void rules_walks_equal_libunwind(void **state)
{
    (void)state;
    sample_phases(true, 0.25);

    if (mismatches)
        fail_msg("%lu samples whose rule walk differs from libunwind's; first: %s", mismatches,
                 mismatch_what);
    for (int p = 0; p < PHASES; p++) {
        printf("# %s: %lu samples, %lu walked by rules alone\n", phase_names[p], samples[p],
               rule_walks[p]);
        /* Timer ticks of 1 ms over 0.25 s of CPU (the kernel's HZ may
         * make them 4 ms). */
        if (samples[p] < 20)
            fail_msg("%s: only %lu samples", phase_names[p], samples[p]);
        /* Rules are learned at the first visit of an address: nearly all
         * later samples of a loop are walked by them. */
        if (rule_walks[p] * 10 < samples[p] * 7)
            fail_msg("%s: only %lu of %lu samples walked by rules", phase_names[p],
                     rule_walks[p], samples[p]);
    }
}

/* Without the thread's stack bounds no load can be checked: the rules are
 * never used, and stacks still come (from libunwind). */
static void no_rules_without_stack_bounds(void **state)
{
    (void)state;
    sample_phases(false, 0.05);
    unsigned long n = 0;
    for (int p = 0; p < PHASES; p++) {
        n += samples[p];
        if (rule_walks[p])
            fail_msg("%s: %lu walks by rules without stack bounds", phase_names[p],
                     rule_walks[p]);
    }
    if (n < 10)
        fail_msg("only %lu samples", n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rules_walks_equal_libunwind),
        cmocka_unit_test(no_rules_without_stack_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
