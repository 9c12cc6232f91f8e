/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel-capture scenarios (kernel.sh): threads that compute in two
 * functions of their own, between region marks, and no user counters (which
 * would send them to the signal handler).  Built twice, with frame pointers
 * and debug information, and without either, so that stacks are checked
 * through the CFI alone as well.
 * Usage: ksample_app THREADS MILLISECONDS [fork|forever]
 *   each thread computes for MILLISECONDS of its CPU time inside a region
 *   "work"; fork: the main thread forks first and both processes run the
 *   threads; forever: the threads never end (for SIGKILL). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "tracefold.h"

static volatile double sink;
static double millis = 300;
static int forever;

static double thread_cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* Out of line, with a side effect, so that they are frames of their own;
 * their accumulators live on the stack, which gives them a frame record
 * when built with frame pointers (GCC 12 at -O2 sets none up in a leaf
 * that needs no stack, even with -fno-omit-frame-pointer, and a walk by
 * frame pointers would skip the leaf's caller). */
__attribute__((noinline)) void ksample_kernel_a(long n)
{
    volatile double acc[2] = {0, 0};
    for (long i = 0; i < n; i++)
        acc[i & 1] += (double)(i & 511) * 1e-9;
    sink += acc[0] + acc[1];
}

__attribute__((noinline)) void ksample_kernel_b(long n)
{
    volatile double acc[2] = {1, 1};
    for (long i = 0; i < n; i++)
        acc[i & 1] = acc[i & 1] * 0.999999 + (double)(i & 255) * 1e-12;
    sink += acc[0] + acc[1];
}

/* The thread's function: a stack that reaches it was unwound past the
 * sampled function's frame. */
__attribute__((noinline)) void *ksample_worker(void *arg)
{
    (void)arg;
    tracefold_region_begin("work");
    double start = thread_cpu_ms();
    while (forever || thread_cpu_ms() - start < millis) {
        ksample_kernel_a(20000);
        ksample_kernel_b(20000);
    }
    tracefold_region_end("work");
    return NULL;
}

static void run(int nthreads)
{
    pthread_t *th = calloc((size_t)nthreads, sizeof *th);
    for (int i = 0; i < nthreads; i++)
        if (pthread_create(&th[i], NULL, ksample_worker, NULL)) {
            perror("pthread_create");
            exit(1);
        }
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    free(th);
}

int main(int argc, char **argv)
{
    int nthreads = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 2;
    millis = argc > 2 ? strtod(argv[2], NULL) : 300;
    const char *mode = argc > 3 ? argv[3] : "";
    forever = !strcmp(mode, "forever");
    if (!strcmp(mode, "fork")) {
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 1;
        }
        run(nthreads);
        if (pid == 0)
            _exit(0);
        int status;
        waitpid(pid, &status, 0);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    }
    run(nthreads);
    return 0;
}
