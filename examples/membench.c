/* SPDX-License-Identifier: BSD-3-Clause */
/* The Saavedra–Smith experiment (IEEE Trans. Computers, 1995): for an array
 * of N elements and a stride s, read-modify-write elements 0, s, 2s, ...,
 * repeated until the run is long enough to time, with a floating-point
 * update so the loop is not optimised away.  N and s are swept in powers of
 * two (s from 1 to N/2) and the time per access is printed for each pair;
 * each array size is a region, so a recorded run folds per size. */
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

/* Touches every s-th of n elements `reps` times; returns seconds. */
static double rmw_sweep(double *x, size_t n, size_t s, size_t reps)
{
    double t0 = now_s();
    for (size_t r = 0; r < reps; r++)
        for (size_t i = 0; i < n; i += s)
            x[i] = x[i] * 1.0000001 + 1e-9;
    return now_s() - t0;
}

int main(int argc, char **argv)
{
    size_t min_bytes = 4096, max_bytes = 64u << 20;
    double target_s = 0.01;
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "m:M:t:h", longopts, NULL)) != -1) {
        if (opt == 'h') {
            printf("Usage: membench [-m MIN_BYTES] [-M MAX_BYTES] [-t SECONDS]\n"
                   "Saavedra-Smith stride x size sweep; prints bytes, stride_bytes, ns per\n"
                   "access.  Defaults: 4096 to 67108864 bytes, 0.01 s per measurement.\n");
            return 0;
        }
        char *end;
        double v = strtod(optarg ? optarg : "", &end);
        if (opt == '?' || !optarg || *optarg == '\0' || *end != '\0' || v <= 0) {
            fprintf(stderr, "Usage: membench [-m MIN_BYTES] [-M MAX_BYTES] [-t SECONDS]\n");
            return 2;
        }
        if (opt == 'm')
            min_bytes = (size_t)v;
        else if (opt == 'M')
            max_bytes = (size_t)v;
        else
            target_s = v;
    }
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
