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
    for (int i = 0; i < n; i++)
        iteration(i);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double c1 = cpu_seconds();
    double wall = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
    printf("calls=%d wall_us_per_call=%.3f cpu_us_per_call=%.3f\n", n, wall * 1e6 / n,
           (c1 - c0) * 1e6 / n);
    return 0;
}
