/* SPDX-License-Identifier: BSD-3-Clause */
/* A caller/callee structure like LULESH's: two routines of one time step,
 * integrate_stress (IntegrateStressForElems) and calc_kinematics
 * (CalcKinematicsForElems), each spend their time in one shared callee,
 * sum_face_normal (SumElemFaceNormal), called from a per-element function
 * inlined into each.  Named by the innermost routine the whole iteration
 * is sum_face_normal; at the caller level it is the inlined
 * integrate_element, then kinematics_element; two levels up (depth 2,
 * under lagrange_step) integrate_stress, then calc_kinematics
 * (phase_level.sh, which finds the calls' lines by the markers in the
 * comments).  The routines have
 * external linkage and take their sizes from the command line, so that
 * the compiler neither inlines nor clones them, and lagrange_step does
 * something after its last call, which would otherwise be a jump that
 * leaves no frame of it (docs/algorithms.md).
 * Usage: phase_level_app ITERATIONS ELEMENTS */
#include <stdio.h>
#include <stdlib.h>

#include "tracefold.h"

static volatile long steps;

__attribute__((noinline)) double sum_face_normal(const double *x, long i, long n)
{
    double s = 0;
    for (long k = 0; k < 48; k++)
        s += x[(i + k) % n] * (double)(k + 1) - 0.5 * s;
    return s;
}

/* One element's work, inlined into its routine: a level of the stack
 * that only the debug information's inlined frames show. */
static inline __attribute__((always_inline)) double integrate_element(const double *x, long i,
                                                                      long n)
{
    return sum_face_normal(x, i, n); /* call-in-integrate */
}

static inline __attribute__((always_inline)) double kinematics_element(const double *x, long i,
                                                                       long n)
{
    return 0.25 * sum_face_normal(x, n - 1 - i, n); /* call-in-kinematics */
}

__attribute__((noinline)) void integrate_stress(double *f, const double *x, long n)
{
    for (long i = 0; i < n; i++)
        f[i] = integrate_element(x, i, n); /* inline-in-integrate */
}

__attribute__((noinline)) void calc_kinematics(double *v, const double *x, long n)
{
    for (long i = 0; i < n; i++)
        v[i] = kinematics_element(x, i, n); /* inline-in-kinematics */
}

__attribute__((noinline)) void lagrange_step(double *f, double *v, const double *x, long n)
{
    integrate_stress(f, x, n);
    calc_kinematics(v, x, n);
    /* not a tail call: lagrange_step stays on calc_kinematics' stack */
    steps++;
}

int main(int argc, char **argv)
{
    long iterations = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
    long n = argc > 2 ? strtol(argv[2], NULL, 10) : 4096;
    if (n < 1)
        return 1;
    double *x = malloc((size_t)n * sizeof *x), *f = malloc((size_t)n * sizeof *f),
           *v = malloc((size_t)n * sizeof *v);
    if (!x || !f || !v)
        return 1;
    for (long i = 0; i < n; i++)
        x[i] = (double)(i % 13) * 0.1;
    double check = 0;
    for (long it = 0; it < iterations; it++) {
        tracefold_region_begin("step");
        lagrange_step(f, v, x, n);
        tracefold_region_end("step");
        check += f[it % n] + v[it % n];
    }
    printf("%g\n", check);
    free(x);
    free(f);
    free(v);
    return 0;
}
