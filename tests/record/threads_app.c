/* SPDX-License-Identifier: BSD-3-Clause */
/* Test program: NTHREADS workers, each running NITER iterations of nested
 * regions with user counters whose totals are known:
 *   iteration { phase_a { cells += (t+1)*100 } phase_b { bytes += 64 } }
 * Each worker first records event (1, t) so the checker knows t.
 * Usage: threads_app NTHREADS NITER [forever|exit-in-thread|late-init]
 *   forever: loop until killed (SIGKILL test);
 *   exit-in-thread: worker 0 calls exit(3) after its iterations while the
 *   others keep going;
 *   late-init: the workers are started before tracefold_init (run with
 *   TRACEFOLD_AUTOSTART=no) and wait for it. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tracefold.h"

static int niter;
static int cells_id, bytes_id;
static int mode;                 /* 0 normal, 1 forever, 2 exit in thread, 3 late init */
static pthread_barrier_t started;
static volatile double sink;

/* Stores its result: a side effect, so the compiler cannot treat it as a
 * pure function and hoist the call out of the caller's loop. */
__attribute__((noinline)) static void compute_kernel_a(int n)
{
    double x = 0;
    for (int i = 0; i < n; i++)
        x += (double)i * 1e-9 + x * 1e-12;
    sink += x;
}

__attribute__((noinline)) static void compute_kernel_b(int n)
{
    double x = 1;
    for (int i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    sink += x;
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    if (mode == 3)
        pthread_barrier_wait(&started);
    tracefold_event(1, (uint64_t)t);
    for (int i = 0; i < niter || mode == 1; i++) {
        tracefold_region_begin("iteration");
        tracefold_region_begin("phase_a");
        compute_kernel_a(200000);
        tracefold_counter_add(cells_id, (uint64_t)(t + 1) * 100);
        tracefold_region_end("phase_a");
        tracefold_region_begin("phase_b");
        compute_kernel_b(200000);
        tracefold_counter_add(bytes_id, 64);
        tracefold_region_end("phase_b");
        tracefold_region_end("iteration");
    }
    if (mode == 2 && t == 0)
        exit(3);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: threads_app NTHREADS NITER "
                        "[forever|exit-in-thread|late-init|late-counter]\n");
        return 2;
    }
    int n = (int)strtol(argv[1], NULL, 10);
    niter = (int)strtol(argv[2], NULL, 10);
    if (argc > 3)
        mode = !strcmp(argv[3], "forever") ? 1 : !strcmp(argv[3], "exit-in-thread") ? 2
               : !strcmp(argv[3], "late-init") ? 3 : !strcmp(argv[3], "late-counter") ? 4 : 0;
    pthread_t th[64];
    if (n > 64)
        n = 64;
    if (mode == 3) {
        pthread_barrier_init(&started, NULL, (unsigned)n + 1);
        for (int t = 0; t < n; t++)
            pthread_create(&th[t], NULL, worker, (void *)(long)t);
    }
    tracefold_init();
    cells_id = tracefold_counter_define("cells");
    bytes_id = tracefold_counter_define("bytes");
    if (cells_id < 0 || bytes_id < 0) {
        fprintf(stderr, "threads_app: counter_define failed\n");
        return 1;
    }
    if (mode == 3)
        pthread_barrier_wait(&started);
    else
        for (int t = 0; t < n; t++)
            pthread_create(&th[t], NULL, worker, (void *)(long)t);
    if (mode == 2) {
        for (;;)
            compute_kernel_b(100000);
    }
    for (int t = 0; t < n; t++)
        pthread_join(th[t], NULL);
    /* After the regions fixed the counter columns: refused, and said. */
    if (mode == 4 && tracefold_counter_define("late") >= 0) {
        fprintf(stderr, "threads_app: a late counter was accepted\n");
        return 1;
    }
    tracefold_fini();
    return 0;
}
