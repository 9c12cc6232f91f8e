/* SPDX-License-Identifier: BSD-3-Clause */
/* Hennessy & Patterson's compiler-inserted prefetch example (Computer
 * Architecture, ch. 5.2): a 3×N array `a` and an (N+1)×3 array `b`,
 *     a[i][j] = b[j][0] * b[j+1][0]
 * first as written, then with prefetches DIST iterations ahead, split as in
 * the book: the first row of `a` prefetches both arrays, the other rows only
 * `a` (b's first column is then in cache).  N = 100 reproduces the book's
 * sizes; a larger N makes the arrays outgrow the caches so the gain shows. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <tracefold.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#define A(i, j) a[(size_t)(i) * n + (j)]
#define B(j, k) b[(size_t)(j) * 3 + (k)]

static void plain(double *restrict a, const double *restrict b, size_t n)
{
    for (size_t i = 0; i < 3; i++)
        for (size_t j = 0; j < n; j++)
            A(i, j) = B(j, 0) * B(j + 1, 0);
}

static void prefetched(double *restrict a, const double *restrict b, size_t n, size_t dist)
{
    for (size_t j = 0; j < n; j++) {
        if (j + dist < n) {
            __builtin_prefetch(&B(j + dist, 0), 0);
            __builtin_prefetch(&A(0, j + dist), 1);
        }
        A(0, j) = B(j, 0) * B(j + 1, 0);
    }
    for (size_t i = 1; i < 3; i++)
        for (size_t j = 0; j < n; j++) {
            if (j + dist < n)
                __builtin_prefetch(&A(i, j + dist), 1);
            A(i, j) = B(j, 0) * B(j + 1, 0);
        }
}

int main(int argc, char **argv)
{
    size_t n = 1u << 20, dist = 7, iterations = 50;
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "n:d:i:h", longopts, NULL)) != -1) {
        if (opt == 'h') {
            printf("Usage: prefetch [-n N] [-d DISTANCE] [-i ITERATIONS]\n"
                   "H&P's prefetch example: regions \"plain\" and \"prefetched\" inside\n"
                   "\"iteration\".  Defaults: N=1048576 (the book uses 100), DISTANCE=7,\n"
                   "50 iterations.\n");
            return 0;
        }
        char *end;
        unsigned long long v = strtoull(optarg ? optarg : "", &end, 10);
        if (opt == '?' || !optarg || *optarg == '\0' || *end != '\0' || (v == 0 && opt != 'd')) {
            fprintf(stderr, "Usage: prefetch [-n N] [-d DISTANCE] [-i ITERATIONS]\n");
            return 2;
        }
        *(opt == 'n' ? &n : opt == 'd' ? &dist : &iterations) = (size_t)v;
    }
    double *a = malloc(3 * n * sizeof *a), *b = malloc(3 * (n + 1) * sizeof *b);
    if (!a || !b) {
        fprintf(stderr, "prefetch: cannot allocate arrays for N=%zu\n", n);
        return 1;
    }
    for (size_t j = 0; j < 3 * (n + 1); j++)
        b[j] = 1.0 + (double)(j % 5);
    double t_plain = 0, t_pref = 0;
    for (size_t it = 0; it < iterations; it++) {
        tracefold_region_begin("iteration");
        double t0 = now_s();
        tracefold_region_begin("plain");
        plain(a, b, n);
        tracefold_region_end("plain");
        double t1 = now_s();
        tracefold_region_begin("prefetched");
        prefetched(a, b, n, dist);
        tracefold_region_end("prefetched");
        double t2 = now_s();
        tracefold_region_end("iteration");
        t_plain += t1 - t0;
        t_pref += t2 - t1;
    }
    printf("prefetch: N=%zu, distance %zu, %zu iterations\n", n, dist, iterations);
    printf("plain      %10.3f ms\nprefetched %10.3f ms\nspeedup    %10.2f\n",
           1e3 * t_plain / (double)iterations, 1e3 * t_pref / (double)iterations,
           t_plain / t_pref);
    printf("checksum %.6e\n", a[n / 2]);
    free(a);
    free(b);
    return 0;
}
