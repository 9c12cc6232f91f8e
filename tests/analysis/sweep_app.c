/* SPDX-License-Identifier: BSD-3-Clause */
/* One routine that sweeps an array forward on one line, then backward on
 * another, once per iteration (the shape of HPCG's symmetric Gauss–Seidel).
 * recorded_sweep.sh finds the two lines by the markers in the comments.
 * Prints the share of a CPU it got (CPU time over wall time): samples come
 * by CPU time, so on a machine too busy to run it the folded wall time
 * means little.  Usage: sweep_app ITERATIONS */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tracefold.h"

#define N (1 << 19)

static volatile double sink;

static double seconds(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void sweep(double *a, long n)
{
    for (long i = 1; i < n; i++)
        a[i] = 0.5 * (a[i] + a[i - 1]) + 1e-9; /* sweep-forward */
    for (long i = n - 2; i >= 0; i--)
        a[i] = 0.5 * (a[i] + a[i + 1]) - 1e-9; /* sweep-backward */
    sink += a[n / 2];
}

int main(int argc, char **argv)
{
    long iterations = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
    double *a = malloc(N * sizeof *a); /* the-array */
    if (!a)
        return 1;
    for (long i = 0; i < N; i++)
        a[i] = (double)(i % 97);
    double wall = seconds(CLOCK_MONOTONIC), cpu = seconds(CLOCK_PROCESS_CPUTIME_ID);
    for (long it = 0; it < iterations; it++) {
        tracefold_region_begin("iteration");
        sweep(a, N);
        tracefold_region_end("iteration");
    }
    wall = seconds(CLOCK_MONOTONIC) - wall;
    cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu;
    printf("cpu_share %.2f (%g)\n", cpu / wall, sink);
    free(a);
    return 0;
}
