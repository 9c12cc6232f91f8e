/* SPDX-License-Identifier: BSD-3-Clause */
/* The recorder benchmark's workload (protocol in bench/README.md,
 * "Recorder"): a fixed amount of compute, timed from inside, with optional
 * bare timer sampling — a perf task-clock event per thread raising a
 * real-time signal on overflow, as the recorder's default back end does,
 * with an empty handler — so that the signal's own cost can be separated
 * from the recorder's.  With --group, the bare timer is set up as the
 * recorder's is in the kernel -- it joins a group of the three software
 * counters the recorder falls back to and has the kernel write the group's
 * values into a ring buffer at each overflow -- and the handler only
 * marks the ring read: the kernel's share of the recorder's cost.
 *   record_loop --calibrate SECONDS          prints the iterations for SECONDS of CPU
 *   record_loop --signal                     prints the bare timer's signal number
 *   record_loop [--bare PERIOD_NS [--group]] [--threads N] ITERATIONS
 * prints: time=SECONDS cpu=SECONDS signals=N maxrss_kb=KB proc_cpu=SECONDS
 * time and cpu cover the compute loop (wall clock, and the process's CPU
 * time, which on a shared machine excludes the time other programs had the
 * CPU but includes the kernel's work for the signals); proc_cpu is the
 * whole process's user+system time, start-up included. */
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Any real-time signal costs the same; not the one the recorder picks. */
#define BARE_SIGNAL (SIGRTMIN + 4)

static atomic_ulong signals;
static long bare_period;
static int bare_group;
/* --group: the thread's ring buffer (perf_event_open(2), "MMAP layout"). */
static __thread struct perf_event_mmap_page *ring;
static long iterations;
static volatile double sink;

static void on_bare(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)si, (void)uc;
    atomic_fetch_add_explicit(&signals, 1, memory_order_relaxed);
    if (ring)
        __atomic_store_n(&ring->data_tail, __atomic_load_n(&ring->data_head, __ATOMIC_ACQUIRE),
                         __ATOMIC_RELEASE);
}

__attribute__((noinline)) static void kernel(long n)
{
    double x = 1;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    sink += x;
}

static double clock_s(clockid_t id)
{
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double now(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

static void die(const char *what)
{
    perror(what);
    exit(1);
}

static int open_event(struct perf_event_attr *a, uint64_t config, int group)
{
    a->size = sizeof *a;
    a->type = PERF_TYPE_SOFTWARE;
    a->config = config;
    a->exclude_kernel = 1;
    a->exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

/* --group: the counter group, as record/lib/tf_counters.c opens the software
 * fallback; returns its leader. */
static int open_counter_group(void)
{
    static const uint64_t configs[] = {PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS,
                                       PERF_COUNT_SW_CONTEXT_SWITCHES};
    int leader = -1;
    for (size_t i = 0; i < sizeof configs / sizeof configs[0]; i++) {
        struct perf_event_attr a;
        memset(&a, 0, sizeof a);
        a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                        PERF_FORMAT_TOTAL_TIME_RUNNING;
        int fd = open_event(&a, configs[i], leader);
        if (fd < 0)
            die("record_loop: counter group");
        if (leader < 0)
            leader = fd;
    }
    return leader;
}

static int start_bare_timer(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.sample_period = (unsigned long)bare_period;
    a.wakeup_events = 1;
    int group = -1;
    if (bare_group) {   /* as record/lib/tf_sampler_perf.c */
        group = open_counter_group();
        a.sample_type = PERF_SAMPLE_READ;
        a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                        PERF_FORMAT_TOTAL_TIME_RUNNING;
    }
    int fd = open_event(&a, PERF_COUNT_SW_TASK_CLOCK, group);
    if (fd < 0)
        die("record_loop: bare timer");
    if (bare_group) {
        void *m = mmap(NULL, 3 * (size_t)sysconf(_SC_PAGESIZE), PROT_READ | PROT_WRITE,
                       MAP_SHARED, fd, 0);
        if (m == MAP_FAILED)
            die("record_loop: ring buffer");
        ring = m;
    }
    struct f_owner_ex owner = {F_OWNER_TID, gettid()};
    if (fcntl(fd, F_SETFL, O_ASYNC) || fcntl(fd, F_SETSIG, BARE_SIGNAL) ||
        fcntl(fd, F_SETOWN_EX, &owner))
        die("record_loop: bare timer signal");
    return fd;
}

static void *worker(void *arg)
{
    (void)arg;
    int fd = bare_period ? start_bare_timer() : -1;
    for (long i = 0; i < iterations; i++)
        kernel(1000);
    if (fd >= 0)
        close(fd);
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--calibrate") && i + 1 < argc) {
            /* In CPU time: on a shared machine the wall clock would give
             * a loop of much less than SECONDS of work. */
            double want = atof(argv[++i]), t0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
            long n = 0;
            while (clock_s(CLOCK_PROCESS_CPUTIME_ID) - t0 < 0.3) {
                kernel(1000);
                n++;
            }
            printf("%ld\n", (long)((double)n * want / (clock_s(CLOCK_PROCESS_CPUTIME_ID) - t0)));
            return 0;
        } else if (!strcmp(argv[i], "--signal")) {
            printf("%d\n", BARE_SIGNAL);
            return 0;
        } else if (!strcmp(argv[i], "--bare") && i + 1 < argc) {
            bare_period = strtol(argv[++i], NULL, 10);
        } else if (!strcmp(argv[i], "--group")) {
            bare_group = 1;
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            threads = (int)strtol(argv[++i], NULL, 10);
        } else {
            iterations = strtol(argv[i], NULL, 10);
        }
    }
    if (iterations <= 0 || threads < 1 || threads > 64) {
        fprintf(stderr, "usage: record_loop [--bare PERIOD_NS [--group]] [--threads N] ITERATIONS\n");
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_bare;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(BARE_SIGNAL, &sa, NULL);
    double t0 = now(), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    pthread_t th[64];
    for (int t = 1; t < threads; t++)
        pthread_create(&th[t], NULL, worker, NULL);
    worker(NULL);
    for (int t = 1; t < threads; t++)
        pthread_join(th[t], NULL);
    double t1 = now(), c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double proc = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
                  (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    printf("time=%.6f cpu=%.6f signals=%lu maxrss_kb=%ld proc_cpu=%.3f\n", t1 - t0, c1 - c0,
           (unsigned long)atomic_load(&signals), ru.ru_maxrss, proc);
    return 0;
}
