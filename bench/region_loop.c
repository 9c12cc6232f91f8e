/* SPDX-License-Identifier: BSD-3-Clause */
/* The cost of one --region instance (bench/region.sh): calls iteration()
 * N times, a short body, and prints the process's CPU time (user +
 * system: the traps are system time) and wall time per call.  Run plain and
 * under `tracefold record --region iteration`; the difference is the cost
 * of an instance (entry and return trap, begin and end written). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

/* bench/region_loop_marked: the API's marks around each call, the cost
 * that --region is compared with. */
#ifdef REGION_LOOP_MARKS
#include "tracefold.h"
#define MARK_BEGIN() tracefold_region_begin("iteration")
#define MARK_END()   tracefold_region_end("iteration")
#else
#define MARK_BEGIN() ((void)0)
#define MARK_END()   ((void)0)
#endif

static volatile double sink;

__attribute__((noinline)) void iteration(int n)
{
    double s = 0;
    for (int i = 0; i < 100; i++)
        s += (double)(i ^ n);
    sink += s;
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 100000;
    if (n < 1)
        return 2;
    struct timespec a, b;
    double c0 = cpu_seconds();
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int i = 0; i < n; i++) {
        MARK_BEGIN();
        iteration(i);
        MARK_END();
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    double c1 = cpu_seconds();
    double wall = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    printf("calls=%d wall_us_per_call=%.5f cpu_us_per_call=%.5f\n", n, wall * 1e6 / n,
           (c1 - c0) * 1e6 / n);
    return 0;
}
