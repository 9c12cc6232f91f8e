/* SPDX-License-Identifier: BSD-3-Clause */
/* A program for the symbolisation test, built twice (with debug
 * information, and a copy stripped of it).  test_symbolize finds the lines
 * by the markers in the comments, so edit them together. */
#include <stdio.h>
#include <stdlib.h>

/* always_inline: inlined even without optimisation, so the DWARF has an
 * inlined-subroutine scope for it */
static inline __attribute__((always_inline)) double tf_target_kernel(const double *v, int n)
{ /* kernel-begin */
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += v[i] * v[i];
    return sum;
} /* kernel-end */

__attribute__((noinline)) double tf_target_outer(const double *v, int n);

__attribute__((noinline)) double tf_target_outer(const double *v, int n)
{ /* outer-begin */
    double s = tf_target_kernel(v, n); /* call-kernel */
    return s / 2;
} /* outer-end */

int main(int argc, char **argv)
{
    double v[4] = { 1, 2, 3, (double)argc };
    printf("%g\n", tf_target_outer(v, 4));
    return argv[0] ? 0 : 1;
}
