/* SPDX-License-Identifier: BSD-3-Clause */
/* The Saavedra–Smith experiment (IEEE Trans. Computers, 1995): for an array
 * of N elements and a stride s, read-modify-write elements 0, s, 2s, ...,
 * repeated until the run is long enough to time, with a floating-point
 * update so the loop is not optimised away.  N and s are swept in powers of
 * two (s from 1 to N/2) and the time per access is printed for each pair;
 * each array size is a region, so a recorded run folds per size.
 *
 * With -w, the reuse the blocking advice is about (docs/algorithms.md,
 * "Advice"): each iteration (region "iteration") makes PASSES passes over
 * an array of BYTES, touching one double per cache line, so that every
 * access brings a line of its own and a pass runs at the speed of the level
 * the array fits in.  With -b, the same updates blocked (Hennessy &
 * Patterson ch. 5.2, "blocking"): all passes over a block of BLOCK_BYTES
 * (rounded down to whole lines) before the next, so that the passes after
 * a block's first find it in the cache.  Each element gets the same updates in the same order either
 * way: the checksum printed is the same. */
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

/* Touches every s-th of n elements `reps` times.  Inlined, so that a
 * constant s is a constant step in the code, which the analysis reads
 * (docs/algorithms.md, "Strides from the code"). */
static inline __attribute__((always_inline)) void rmw(double *x, size_t n, size_t s, size_t reps)
{
    for (size_t r = 0; r < reps; r++)
        for (size_t i = 0; i < n; i += s)
            x[i] = x[i] * 1.0000001 + 1e-9;
}

/* rmw timed; returns seconds. */
static double rmw_sweep(double *x, size_t n, size_t s, size_t reps)
{
    double t0 = now_s();
    rmw(x, n, s, reps);
    return now_s() - t0;
}

/* Doubles in a 64-byte cache line (x86-64, AArch64). */
#define LINE_DOUBLES (64 / sizeof(double))

/* `passes` passes over the n elements of x, one per cache line, `block`
 * elements at a time; block >= n is the unblocked loop. */
static __attribute__((noinline)) void reuse_passes(double *x, size_t n, size_t passes,
                                                   size_t block)
{
    for (size_t b = 0; b < n; b += block)
        rmw(x + b, n - b < block ? n - b : block, LINE_DOUBLES, passes);
}

/* The -w mode: `iterations` regions "iteration" of reuse_passes; prints
 * the mean time of an iteration and a checksum. */
static int reuse(size_t bytes, size_t passes, size_t block_bytes, size_t iterations)
{
    /* whole lines per block, so that the blocks touch the elements a pass
     * over the whole array touches */
    size_t n = bytes / sizeof(double),
           block = block_bytes ? block_bytes / (LINE_DOUBLES * sizeof(double)) * LINE_DOUBLES : n;
    if (n < LINE_DOUBLES || block < LINE_DOUBLES || !passes || !iterations) {
        fprintf(stderr, "membench: -w and -b need at least %zu bytes, -p and -i at least 1\n",
                LINE_DOUBLES * sizeof(double));
        return 2;
    }
    double *x = malloc(n * sizeof *x);
    if (!x) {
        fprintf(stderr, "membench: cannot allocate %zu bytes\n", bytes);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        x[i] = 1.0;
    double seconds = 0;
    for (size_t it = 0; it < iterations; it++) {
        double t0 = now_s();
        tracefold_region_begin("iteration");
        reuse_passes(x, n, passes, block);
        tracefold_region_end("iteration");
        seconds += now_s() - t0;
    }
    double sum = 0;
    for (size_t i = 0; i < n; i += LINE_DOUBLES)
        sum += x[i];
    printf("membench: %zu bytes, %zu passes, block %zu bytes, %zu iterations\n"
           "mean_ms %.3f\nchecksum %.17g\n",
           n * sizeof *x, passes, block * sizeof *x, iterations, 1e3 * seconds / (double)iterations,
           sum);
    free(x);
    return 0;
}

#define USAGE                                                                                      \
    "Usage: membench [-m MIN_BYTES] [-M MAX_BYTES] [-t SECONDS]\n"                                 \
    "       membench -w BYTES [-p PASSES] [-b BLOCK_BYTES] [-i ITERATIONS]\n"

int main(int argc, char **argv)
{
    size_t min_bytes = 4096, max_bytes = 64u << 20;
    double target_s = 0.01;
    size_t reuse_bytes = 0, passes = 8, block_bytes = 0, iterations = 100;
    int reuse_options = 0; /* -p, -b or -i given */
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "m:M:t:w:p:b:i:h", longopts, NULL)) != -1) {
        if (opt == 'h') {
            printf(USAGE "Saavedra-Smith stride x size sweep; prints bytes, stride_bytes, ns per\n"
                         "access.  Defaults: 4096 to 67108864 bytes, 0.01 s per measurement.\n"
                         "With -w: each iteration (region \"iteration\") makes PASSES passes\n"
                         "over BYTES, one double per 64-byte line, all over a block of\n"
                         "BLOCK_BYTES before the next with -b; prints the mean time of an\n"
                         "iteration.  Defaults: 8 passes, no blocking, 100 iterations.\n");
            return 0;
        }
        char *end;
        double v = strtod(optarg ? optarg : "", &end);
        if (opt == '?' || !optarg || *optarg == '\0' || *end != '\0' || v <= 0) {
            fprintf(stderr, USAGE);
            return 2;
        }
        if (opt == 'm')
            min_bytes = (size_t)v;
        else if (opt == 'M')
            max_bytes = (size_t)v;
        else if (opt == 't')
            target_s = v;
        else {
            reuse_options |= opt != 'w';
            *(opt == 'w' ? &reuse_bytes : opt == 'p' ? &passes : opt == 'b' ? &block_bytes
                                                                          : &iterations) = (size_t)v;
        }
    }
    if (reuse_options && !reuse_bytes) {
        fprintf(stderr, "membench: -p, -b and -i need -w\n" USAGE);
        return 2;
    }
    if (reuse_bytes)
        return reuse(reuse_bytes, passes, block_bytes, iterations);
    if (min_bytes < 2 * sizeof(double) || max_bytes < min_bytes) {
        fprintf(stderr, "membench: need 16 <= MIN_BYTES <= MAX_BYTES\n");
        return 2;
    }
    double *x = malloc(max_bytes);
    if (!x) {
        fprintf(stderr, "membench: cannot allocate %zu bytes\n", max_bytes);
        return 1;
    }
    for (size_t i = 0; i < max_bytes / sizeof *x; i++)
        x[i] = 1.0;
    printf("%12s %12s %10s\n", "bytes", "stride_bytes", "ns");
    for (size_t bytes = min_bytes; bytes <= max_bytes; bytes *= 2) {
        size_t n = bytes / sizeof *x;
        char region[32];
        snprintf(region, sizeof region, "N=%zu", bytes);
        tracefold_region_begin(region);
        for (size_t s = 1; s <= n / 2; s *= 2) {
            size_t accesses = (n + s - 1) / s;
            /* Calibrate the repetition count so each point runs ~target_s. */
            size_t reps = 1;
            double t = rmw_sweep(x, n, s, reps);
            while (t < target_s / 4 && reps < (1u << 30)) {
                reps *= 4;
                t = rmw_sweep(x, n, s, reps);
            }
            double best = t;
            for (int k = 0; k < 2; k++) {
                double tk = rmw_sweep(x, n, s, reps);
                if (tk < best)
                    best = tk;
            }
            printf("%12zu %12zu %10.3f\n", bytes, s * sizeof *x,
                   1e9 * best / (double)(reps * accesses));
        }
        tracefold_region_end(region);
    }
    free(x);
    return 0;
}
