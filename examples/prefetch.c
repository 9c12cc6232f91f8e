/* SPDX-License-Identifier: BSD-3-Clause */
/* Software prefetching, each variant its own region inside "iteration":
 *   plain, prefetched   Hennessy & Patterson's compiler-inserted prefetch
 *                       example (Computer Architecture, ch. 5.2): a 3×N
 *                       array `a` and an (N+1)×3 array `b`,
 *                           a[i][j] = b[j][0] * b[j+1][0]
 *                       first as written, then with prefetches DIST
 *                       iterations ahead, split as in the book: the first
 *                       row of `a` prefetches both arrays, the other rows
 *                       only `a` (b's first column is then in cache).  N =
 *                       100 reproduces the book's sizes; a larger N makes
 *                       the arrays outgrow the caches so the gain shows.
 *   gather,             a gather through a random index (issue 33): the sum
 *   gather_prefetched   of a cubic of c[idx[j]], idx a random permutation
 *                       of c's indices, c of MIB mebibytes (past the last-
 *                       level cache); then the same with c[idx[j + GDIST]]
 *                       prefetched.  The index array is read in order, so
 *                       the addresses are known GDIST elements early; the
 *                       hardware prefetchers cannot guess them, and the
 *                       cubic's instructions fill the out-of-order window
 *                       so that only a few misses overlap without help.
 * The H&P pair is the default; the strides of its streams are regular, so
 * no advice names a prefetch on it.  The gather's stream is random over an
 * object several times the last-level cache: the advice "random over a
 * large object" (docs/algorithms.md, "Advice") suggests the prefetch the
 * second gather makes. */
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The cubic each gathered element goes through: a few dependent
 * multiply-adds, the work a real gather does with what it loads.  A macro,
 * not an inline function: the debug information would give its samples
 * the function's line and routine, a phase of its own in the fold. */
#define CUBIC(v) (((0.25 * (v) - 0.5) * (v) + 1.0) * (v) + 0.125)

static double gather(const double *c, const uint32_t *idx, size_t n)
{
    double s = 0;
    for (size_t j = 0; j < n; j++) {
        double v = c[idx[j]];
        s += CUBIC(v);
    }
    return s;
}

static double gather_prefetched(const double *c, const uint32_t *idx, size_t n, size_t dist)
{
    double s = 0;
    for (size_t j = 0; j < n; j++) {
        if (j + dist < n)
            __builtin_prefetch(&c[idx[j + dist]], 0);
        double v = c[idx[j]];
        s += CUBIC(v);
    }
    return s;
}

/* idx: a random permutation of [0, n) (Fisher-Yates, a fixed-seed LCG). */
static void permutation(uint32_t *idx, size_t n)
{
    uint64_t x = 42;
    for (size_t i = 0; i < n; i++)
        idx[i] = (uint32_t)i;
    for (size_t i = n - 1; i > 0; i--) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        size_t j = (size_t)((x >> 33) % (i + 1));
        uint32_t t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
}

static int by_value(const void *pa, const void *pb)
{
    double x = *(const double *)pa, y = *(const double *)pb;
    return (x > y) - (x < y);
}

enum { PLAIN, PREFETCHED, GATHER, GATHER_PREFETCHED, NVARIANTS };
static const char *const variants[NVARIANTS] = {"plain", "prefetched", "gather",
                                                "gather_prefetched"};

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: prefetch [-n N] [-d DISTANCE] [-m MIB] [-g DISTANCE] [-i ITERATIONS]\n"
            "                [-v VARIANT,...]\n"
            "Software prefetching, each variant a region inside \"iteration\".  Variants:\n"
            "plain prefetched (H&P's example: 3xN and (N+1)x3 arrays, prefetches -d\n"
            "iterations ahead) gather gather_prefetched (a cubic of c[idx[j]], idx a\n"
            "random permutation, c of -m MiB; prefetches -g elements ahead).  Defaults:\n"
            "N=1048576 (the book uses 100), -d 7, -m 64, -g 32, 50 iterations, -v\n"
            "plain,prefetched.  Prints each variant's mean and median time per iteration.\n");
}

/* -v LIST: the variants named in the comma-separated LIST, in *chosen. */
static int choose(char *list, bool *chosen)
{
    memset(chosen, 0, NVARIANTS * sizeof *chosen);
    char *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        size_t v = 0;
        while (v < NVARIANTS && strcmp(tok, variants[v]))
            v++;
        if (v == NVARIANTS) {
            fprintf(stderr, "prefetch: -v: unknown variant '%s'\n", tok);
            return -1;
        }
        chosen[v] = true;
    }
    return 0;
}

int main(int argc, char **argv)
{
    size_t n = 1u << 20, dist = 7, mib = 64, gdist = 32, iterations = 50;
    bool chosen[NVARIANTS] = {true, true, false, false};
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "n:d:m:g:i:v:h", longopts, NULL)) != -1) {
        if (opt == 'h') {
            usage(stdout);
            return 0;
        }
        if (opt == 'v') {
            if (choose(optarg, chosen))
                return 2;
            continue;
        }
        char *end;
        unsigned long long v = strtoull(optarg ? optarg : "", &end, 10);
        if (opt == '?' || !optarg || *optarg == '\0' || *end != '\0' ||
            (v == 0 && opt != 'd' && opt != 'g') || (opt == 'm' && v > 16384)) {
            usage(stderr);
            return 2;
        }
        *(opt == 'n' ? &n : opt == 'd' ? &dist : opt == 'm' ? &mib : opt == 'g' ? &gdist
                                                                               : &iterations) =
            (size_t)v;
    }
    bool hp = chosen[PLAIN] || chosen[PREFETCHED];
    bool gathers = chosen[GATHER] || chosen[GATHER_PREFETCHED];
    double *a = hp ? malloc(3 * n * sizeof *a) : NULL, *b = hp ? malloc(3 * (n + 1) * sizeof *b) : NULL;
    size_t m = mib * 1024 * 1024 / sizeof(double);
    double *c = gathers ? malloc(m * sizeof *c) : NULL;
    uint32_t *idx = gathers ? malloc(m * sizeof *idx) : NULL;
    if ((hp && (!a || !b)) || (gathers && (!c || !idx))) {
        fprintf(stderr, "prefetch: cannot allocate the arrays (N=%zu, %zu MiB)\n", n, mib);
        return 1;
    }
    for (size_t j = 0; hp && j < 3 * (n + 1); j++)
        b[j] = 1.0 + (double)(j % 5);
    for (size_t j = 0; gathers && j < m; j++)
        c[j] = (double)(j % 1000) * 1e-3;
    if (gathers)
        permutation(idx, m);
    double seconds[NVARIANTS] = {0}, sum = 0;
    double *times = malloc(NVARIANTS * iterations * sizeof *times); /* variant v: times[v * iterations + it] */
    if (!times) {
        fprintf(stderr, "prefetch: cannot allocate %zu timings\n", iterations);
        return 1;
    }
    for (size_t it = 0; it < iterations; it++) {
        tracefold_region_begin("iteration");
        for (size_t v = 0; v < NVARIANTS; v++) {
            if (!chosen[v])
                continue;
            double t0 = now_s();
            tracefold_region_begin(variants[v]);
            if (v == PLAIN)
                plain(a, b, n);
            else if (v == PREFETCHED)
                prefetched(a, b, n, dist);
            else if (v == GATHER)
                sum += gather(c, idx, m);
            else
                sum += gather_prefetched(c, idx, m, gdist);
            tracefold_region_end(variants[v]);
            times[v * iterations + it] = now_s() - t0;
            seconds[v] += times[v * iterations + it];
        }
        tracefold_region_end("iteration");
    }
    if (hp)
        printf("prefetch: N=%zu, distance %zu, %zu iterations\n", n, dist, iterations);
    if (gathers)
        printf("prefetch: gather over %zu MiB, distance %zu, %zu iterations\n", mib, gdist,
               iterations);
    /* The median as well as the mean: an iteration preempted by another
     * program moves the mean, not the median. */
    printf("%-17s %10s %10s\n", "variant", "mean_ms", "median_ms");
    for (size_t v = 0; v < NVARIANTS; v++) {
        if (!chosen[v])
            continue;
        qsort(times + v * iterations, iterations, sizeof *times, by_value);
        printf("%-17s %10.3f %10.3f\n", variants[v], 1e3 * seconds[v] / (double)iterations,
               1e3 * times[v * iterations + iterations / 2]);
    }
    if (chosen[PLAIN] && chosen[PREFETCHED])
        printf("speedup           %10.2f\n", seconds[PLAIN] / seconds[PREFETCHED]);
    if (chosen[GATHER] && chosen[GATHER_PREFETCHED])
        printf("gather_speedup    %10.2f\n", seconds[GATHER] / seconds[GATHER_PREFETCHED]);
    printf("checksum %.6e\n", hp ? a[n / 2] : sum);
    free(a);
    free(b);
    free(c);
    free(idx);
    free(times);
    return 0;
}
