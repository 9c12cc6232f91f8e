/* SPDX-License-Identifier: BSD-3-Clause */
/* Test program: an OpenMP iteration marked by the master thread only, as
 * users mark it: begin and end around the step, outside the parallel
 * loops.  Each step runs two parallel loops (LOOP_A and LOOP_B below) whose
 * halves are unequal, so that threads finishing first wait at the loops'
 * implied barriers.  The inner loops are written on one line
 * each, so that their samples have that line.  Usage: omp_app ITERATIONS [WORK] (threads from
 * OMP_NUM_THREADS). */
#include <stdio.h>
#include <stdlib.h>

#include "tracefold.h"

static double a[1 << 12], b[1 << 12];

int main(int argc, char **argv)
{
    int iterations = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 50;
    long work = argc > 2 ? strtol(argv[2], NULL, 10) : 2000;
    int n = (int)(sizeof a / sizeof a[0]);
    for (int it = 0; it < iterations; it++) {
        tracefold_region_begin("step");
#pragma omp parallel for schedule(static)
        for (int i = 0; i < n; i++) {
            /* the second half of the index range works 1.5 times as long */
            long reps = work / 16 + (i >= n / 2 ? work / 32 : 0);
            double x = a[i];
            for (long r = 0; r < reps; r++) x = x * 0.999999 + 1e-7; /* LOOP_A: one line */
            a[i] = x;
        }
#pragma omp parallel for schedule(static)
        for (int i = 0; i < n; i++) {
            long reps = work / 24 + (i < n / 2 ? work / 48 : 0);
            double y = b[i] + a[i];
            for (long r = 0; r < reps; r++) y = y * 1.000001 - 1e-7; /* LOOP_B */
            b[i] = y;
        }
        tracefold_region_end("step");
    }
    printf("%g\n", a[0] + b[n - 1]);
    return 0;
}
