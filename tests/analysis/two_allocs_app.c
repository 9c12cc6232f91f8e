/* SPDX-License-Identifier: BSD-3-Clause */
/* Two allocations on one line, then an iteration that adds one array into
 * the other: tests/analysis/object_names.sh tells the two apart by their
 * call sites' columns.  Arguments: iterations, doubles per array. */
#include <stdio.h>
#include <stdlib.h>

#include "tracefold.h"

static double add(double *a, const double *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        a[i] += b[i];
        s += a[i];
    }
    return s;
}

int main(int argc, char **argv)
{
    int iterations = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 100;
    size_t n = argc > 2 ? (size_t)strtoul(argv[2], NULL, 10) : 100000;
    double *a = calloc(n, sizeof *a), *b = calloc(n, sizeof *b); /* the-allocations */
    if (!a || !b)
        return 1;
    double s = 0;
    for (int it = 0; it < iterations; it++) {
        tracefold_region_begin("iteration");
        s += add(a, b, n);
        tracefold_region_end("iteration");
    }
    printf("%g\n", s);
    free(a);
    free(b);
    return 0;
}
