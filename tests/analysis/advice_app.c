/* SPDX-License-Identifier: BSD-3-Clause */
/* Patterns the advice names, each before and after the change it suggests
 * (tests/analysis/advice_allocations.sh, advice_gather.sh):
 *   temps N MiB:  a temporary of MiB allocated, filled and summed in every
 *                 iteration (its pages fault each time);
 *   temps1 N MiB: the same temporary allocated once;
 *   rows N K:     a matrix of K rows of 4096 doubles, a row per allocation,
 *                 summed in every iteration;
 *   rows1 N K:    the same matrix in one allocation;
 *   gather N MiB: a sum of c[idx[j]] over an array c of MiB, idx a random
 *                 permutation of its indices;
 *   sorted N MiB: the same with idx sorted (a layout that orders the walk).
 * N: iterations.  Prints the mean ms per iteration.  Blocks of 1 MiB and
 * more come from mmap and go back to the system when freed, as with
 * MALLOC_MMAP_THRESHOLD_ set (glibc otherwise raises its threshold after
 * the first free, up to 32 MiB, and keeps a freed block for the next). */
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracefold.h"

#define ROW 4096

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e3 * (double)ts.tv_sec + 1e-6 * (double)ts.tv_nsec;
}

static double fill_and_sum(double *t, size_t n, int it)
{
    for (size_t i = 0; i < n; i++)
        t[i] = (double)(i + (size_t)it);
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += t[i];
    return s;
}

static double temps(int iterations, size_t mib, int once)
{
    size_t n = mib * 1024 * 1024 / sizeof(double);
    double s = 0, *kept = once ? malloc(n * sizeof *kept) : NULL;
    if (once && !kept)
        return -1;
    for (int it = 0; it < iterations; it++) {
        tracefold_region_begin("iteration");
        double *t = once ? kept : malloc(n * sizeof *t); /* the-temporary */
        if (!t)
            return -1;
        s += fill_and_sum(t, n, it);
        if (!once)
            free(t);
        tracefold_region_end("iteration");
    }
    free(kept);
    return s;
}

static double rows(int iterations, size_t k, int one)
{
    double **row = malloc(k * sizeof *row), *block = one ? malloc(k * ROW * sizeof *block) : NULL;
    if (!row || (one && !block))
        return -1;
    for (size_t r = 0; r < k; r++) {
        row[r] = one ? block + r * ROW : malloc(ROW * sizeof **row); /* the-rows */
        if (!row[r])
            return -1;
        for (size_t j = 0; j < ROW; j++)
            row[r][j] = (double)(r + j);
    }
    double s = 0;
    for (int it = 0; it < iterations; it++) {
        tracefold_region_begin("iteration");
        for (size_t r = 0; r < k; r++)
            for (size_t j = 0; j < ROW; j++)
                s += row[r][j];
        tracefold_region_end("iteration");
    }
    for (size_t r = 0; !one && r < k; r++)
        free(row[r]);
    free(block);
    free(row);
    return s;
}

/* A random permutation of [0, n) (Fisher-Yates with a fixed-seed LCG). */
static void permutation(size_t *idx, size_t n)
{
    uint64_t x = 42;
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    for (size_t i = n - 1; i > 0; i--) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        size_t j = (size_t)((x >> 33) % (i + 1)), t = idx[i];
        idx[i] = idx[j];
        idx[j] = t;
    }
}

static double gather(int iterations, size_t mib, int sorted)
{
    size_t n = mib * 1024 * 1024 / sizeof(double);
    double *c = malloc(n * sizeof *c);
    size_t *idx = malloc(n * sizeof *idx);
    if (!c || !idx)
        return -1;
    for (size_t i = 0; i < n; i++)
        c[i] = (double)i;
    if (sorted)
        for (size_t i = 0; i < n; i++)
            idx[i] = i;
    else
        permutation(idx, n);
    double s = 0;
    for (int it = 0; it < iterations; it++) {
        tracefold_region_begin("iteration");
        for (size_t j = 0; j < n; j++)
            s += c[idx[j]];
        tracefold_region_end("iteration");
    }
    free(c);
    free(idx);
    return s;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s temps|temps1|rows|rows1|gather|sorted ITERATIONS SIZE\n",
                argv[0]);
        return 2;
    }
    mallopt(M_MMAP_THRESHOLD, 1 << 20);
    int iterations = (int)strtol(argv[2], NULL, 10);
    size_t size = (size_t)strtoul(argv[3], NULL, 10);
    double t0 = now_ms(), s;
    if (!strcmp(argv[1], "temps") || !strcmp(argv[1], "temps1"))
        s = temps(iterations, size, argv[1][5] == '1');
    else if (!strcmp(argv[1], "rows") || !strcmp(argv[1], "rows1"))
        s = rows(iterations, size, argv[1][4] == '1');
    else if (!strcmp(argv[1], "gather") || !strcmp(argv[1], "sorted"))
        s = gather(iterations, size, argv[1][0] == 's');
    else
        return 2;
    if (s < 0) {
        fprintf(stderr, "%s: out of memory\n", argv[0]);
        return 1;
    }
    printf("%.3f ms per iteration (%g)\n", (now_ms() - t0) / iterations, s);
    return 0;
}
