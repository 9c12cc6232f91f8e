/* SPDX-License-Identifier: BSD-3-Clause */
/* Real run of the software effective-address decoder.  The program samples
 * itself with a perf software task-clock event that raises SIGPROF every
 * 250 us of its CPU time; the handler decodes the instruction at the
 * interrupted IP from the signal's ucontext, as the recorder does.  It then
 * streams through a static array (reads), a heap array (reads) and a third
 * array (writes), and checks, per loop: >= 95 % of the memory references
 * sampled fall inside that loop's array, they have the right direction,
 * and within one pass over the array the sampled addresses increase.  The
 * static arrays' references are also attributed to their objects from the
 * program's ELF symbol table, as the recorder attributes them. */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "record/mem/ea_decode.h"
#include "record/writer/elf_objects.h"

#define NELEM         (2u << 20)      /* 16 MiB arrays of 8-byte elements */
#define PERIOD_NS     250000
#define WANT_SAMPLES  300             /* in-phase memory references per loop */
#define MAX_SECONDS   4.0             /* per loop */
#define LOG_CAPACITY  (1u << 16)

static double  static_array[NELEM];
static double *heap_array;
static int64_t write_array[NELEM];

enum phase { PHASE_IDLE, PHASE_STATIC, PHASE_HEAP, PHASE_WRITE, NPHASES };

/* Written by the main flow, read by the handler. */
static volatile sig_atomic_t phase;
static volatile sig_atomic_t pass;

typedef struct log_entry {
    uint64_t addr;
    uint8_t  phase, dir, flags;
    uint32_t pass;
} log_entry;

/* Filled by the signal handler only (same thread, so no atomics needed
 * beyond sig_atomic_t for the counters it shares). */
static log_entry log_entries[LOG_CAPACITY];
static volatile sig_atomic_t log_len;
static volatile sig_atomic_t phase_mem_samples[NPHASES];
static volatile sig_atomic_t samples_total, samples_without_reference;

static tf_ea_decoder *decoder;
static uint64_t fs_base, gs_base;

static void on_sample(int sig, siginfo_t *si, void *ucontext)
{
    samples_total++;
    int ph = phase;
    if (ph == PHASE_IDLE)
        return;
    tf_ea_regs regs;
    tf_ea_result r[TF_EA_LIVE_MAX];
    tf_ea_regs_from_ucontext(&regs, ucontext, fs_base, gs_base);
    unsigned n = tf_ea_decode_live(decoder, &regs, r);
    if (n == 0)
        samples_without_reference++;
    for (unsigned k = 0; k < n; k++)
        for (unsigned i = 0; i < r[k].naccess && log_len < (sig_atomic_t)LOG_CAPACITY; i++) {
            log_entries[log_len] = (log_entry){ .addr = r[k].access[i].addr,
                                                .phase = (uint8_t)ph, .dir = r[k].access[i].dir,
                                                .flags = r[k].access[i].flags,
                                                .pass = (uint32_t)pass };
            log_len++;
            phase_mem_samples[ph]++;
        }
}

/* The loops, kept out of line so that they look like real kernels. */
__attribute__((noinline)) static double sum_array(const double *restrict a, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i];
    return s;
}

__attribute__((noinline)) static void fill_array(int64_t *restrict c, size_t n, int64_t k)
{
    for (size_t i = 0; i < n; i++)
        c[i] = (int64_t)i * k + 1;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) * 1e-9;
}

static volatile double sink;

static void run_phase(enum phase ph)
{
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    phase = ph;
    while (phase_mem_samples[ph] < WANT_SAMPLES && seconds_since(&t0) < MAX_SECONDS) {
        pass++;
        switch (ph) {
        case PHASE_STATIC: sink = sum_array(static_array, NELEM); break;
        case PHASE_HEAP:   sink = sum_array(heap_array, NELEM); break;
        case PHASE_WRITE:  fill_array(write_array, NELEM, pass); break;
        default:           break;
        }
    }
    phase = PHASE_IDLE;
}

static int perf_fd = -1;

/* A task-clock event counting this thread's user time that signals this
 * thread with SIGPROF at every period (no ring buffer is needed for the
 * signal). */
static int start_sampling(void)
{
    struct sigaction sa = { .sa_sigaction = on_sample, .sa_flags = SA_SIGINFO | SA_RESTART };
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, NULL) != 0)
        return -1;
    struct perf_event_attr attr = {
        .size = sizeof attr, .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
        .sample_period = PERIOD_NS, .disabled = 1, .exclude_kernel = 1, .exclude_hv = 1,
        .wakeup_events = 1,
    };
    perf_fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (perf_fd < 0)
        return -1;
    struct f_owner_ex owner = { F_OWNER_TID, (pid_t)syscall(SYS_gettid) };
    if (fcntl(perf_fd, F_SETFL, O_ASYNC) != 0 || fcntl(perf_fd, F_SETSIG, SIGPROF) != 0 ||
        fcntl(perf_fd, F_SETOWN_EX, &owner) != 0 ||
        ioctl(perf_fd, PERF_EVENT_IOC_ENABLE, 0) != 0)
        return -1;
    return 0;
}

static int run_all(void **state)
{
#if !defined(__x86_64__)
    return -1;   /* the software back end is x86-64 only: reported as a failure */
#endif
    tf_error err;
    if (tf_ea_decoder_create(&decoder, &err) != 0 ||
        tf_ea_thread_bases(&fs_base, &gs_base, &err) != 0) {
        print_error("%s\n", err.msg);
        return -1;
    }
    heap_array = malloc(NELEM * sizeof *heap_array);
    if (!heap_array)
        return -1;
    for (size_t i = 0; i < NELEM; i++) {   /* touch every page before sampling */
        static_array[i] = (double)i;
        heap_array[i] = (double)(NELEM - i);
        write_array[i] = 0;
    }
    if (start_sampling() != 0) {
        print_error("perf_event_open task-clock with SIGPROF: unavailable\n");
        return -1;
    }
    run_phase(PHASE_STATIC);
    run_phase(PHASE_HEAP);
    run_phase(PHASE_WRITE);
    ioctl(perf_fd, PERF_EVENT_IOC_DISABLE, 0);
    close(perf_fd);
    print_message("# %d samples, %d without a reference, memory references: static %d, heap %d, "
                  "write %d\n", (int)samples_total, (int)samples_without_reference,
                  (int)phase_mem_samples[PHASE_STATIC], (int)phase_mem_samples[PHASE_HEAP],
                  (int)phase_mem_samples[PHASE_WRITE]);
    return 0;
}

static int cleanup(void **state)
{
    free(heap_array);
    tf_ea_decoder_free(decoder);
    return 0;
}

static void check_phase(enum phase ph, const void *array, size_t bytes, uint8_t dir)
{
    uint64_t lo = (uint64_t)(uintptr_t)array, hi = lo + bytes;
    size_t total = 0, inside = 0, right_dir = 0, pairs = 0, increasing = 0;
    const log_entry *prev = NULL;
    for (sig_atomic_t k = 0; k < log_len; k++) {
        const log_entry *e = &log_entries[k];
        if (e->phase != ph)
            continue;
        total++;
        if (e->addr < lo || e->addr >= hi)
            continue;
        inside++;
        right_dir += e->dir == dir;
        if (prev && prev->pass == e->pass) {
            pairs++;
            increasing += e->addr > prev->addr;
        }
        prev = e;
    }
    print_message("# phase %d: %zu references, %zu inside the array, %zu with direction %u, "
                  "%zu of %zu same-pass pairs increasing\n", (int)ph, total, inside, right_dir,
                  dir, increasing, pairs);
    assert_true(total >= 100);
    assert_true(inside * 100 >= total * 95);
    assert_true(right_dir * 100 >= inside * 95);
    assert_true(pairs >= 20);
    /* Monotone within a pass; one pair in a hundred may repeat an element
     * (two samples on one access, seen in the sanitizer build, whose checks
     * stretch each access). */
    assert_true(increasing * 100 >= pairs * 99);
}

static void test_static_array_reads(void **state)
{
    check_phase(PHASE_STATIC, static_array, sizeof static_array, TF_EA_READ);
}

static void test_heap_array_reads(void **state)
{
    check_phase(PHASE_HEAP, heap_array, NELEM * sizeof *heap_array, TF_EA_READ);
}

static void test_array_writes(void **state)
{
    check_phase(PHASE_WRITE, write_array, sizeof write_array, TF_EA_WRITE);
}

/* Each loop's references, looked up among the program's static objects:
 * the static loops' land in the object of that name, the heap loop's in
 * none. */
static void test_attribution_to_static_objects(void **state)
{
    tf_elf_objects objs;
    tf_elf_objects_init(&objs, 1);
    tf_error err;
    assert_int_equal(tf_elf_objects_read_self(&objs, NULL, &err), 0);
    static const struct { int phase; const char *object; } want[] = {
        { PHASE_STATIC, "static_array" }, { PHASE_HEAP, NULL }, { PHASE_WRITE, "write_array" },
    };
    for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
        size_t total = 0, right = 0;
        for (sig_atomic_t k = 0; k < log_len; k++) {
            if (log_entries[k].phase != want[w].phase)
                continue;
            total++;
            const tf_elf_object *ob = tf_elf_objects_find(&objs, log_entries[k].addr);
            right += want[w].object ? ob && strcmp(ob->name, want[w].object) == 0 : !ob;
        }
        print_message("# phase %d: %zu of %zu references attributed to %s\n", want[w].phase,
                      right, total, want[w].object ? want[w].object : "no static object");
        assert_true(total > 0 && right * 100 >= total * 95);
    }
    tf_elf_objects_free(&objs);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_static_array_reads),
        cmocka_unit_test(test_heap_array_reads),
        cmocka_unit_test(test_array_writes),
        cmocka_unit_test(test_attribution_to_static_objects),
    };
    return cmocka_run_group_tests(tests, run_all, cleanup);
}
