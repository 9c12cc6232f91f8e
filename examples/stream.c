/* SPDX-License-Identifier: BSD-3-Clause */
/* STREAM, modified as in Servat et al. (Parallel Computing, 2018) so that the
 * folded report has something to reveal:
 *   - `a` and `c` are static arrays, `b` comes from malloc;
 *   - Scale reads `c` through pseudo-random indices, with a proportionally
 *     shorter trip count (random accesses cost more per element);
 *   - Copy, Scale, Add and Triad are each a region inside the "iteration"
 *     region, so folding can split the iteration into its four kernels.
 * It prints its own bandwidth per kernel (bytes moved / time, MB/s), the
 * figure the folded estimate is checked against. */
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tracefold.h>

/* Static arrays are sized at build time (the study's static `a` and `c`);
 * -n chooses how much of them an iteration uses. */
#define STREAM_MAX (4u << 20)
static double a[STREAM_MAX];
static double c[STREAM_MAX];

enum kernel { COPY, SCALE, ADD, TRIAD, NKERNELS };
static const char *const kernel_names[NKERNELS] = {"Copy", "Scale", "Add", "Triad"};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void copy(size_t n)
{
    for (size_t j = 0; j < n; j++)
        c[j] = a[j];
}

static void scale(double *restrict b, const uint32_t *restrict idx, size_t m, double s)
{
    for (size_t j = 0; j < m; j++)
        b[j] = s * c[idx[j]];
}

static void add(const double *restrict b, size_t n)
{
    for (size_t j = 0; j < n; j++)
        c[j] = a[j] + b[j];
}

static void triad(const double *restrict b, size_t n, double s)
{
    for (size_t j = 0; j < n; j++)
        a[j] = b[j] + s * c[j];
}

static int by_value(const void *pa, const void *pb)
{
    double x = *(const double *)pa, y = *(const double *)pb;
    return (x > y) - (x < y);
}

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: stream [-n ELEMENTS] [-i ITERATIONS] [-r RANDOM_DIVISOR]\n"
            "STREAM with a heap array and a random-access Scale kernel, instrumented\n"
            "with the tracefold API (region \"iteration\" around Copy, Scale, Add, Triad).\n\n"
            "  -n ELEMENTS        elements per array (default 2097152, at most %u)\n"
            "  -i ITERATIONS      iterations of the main loop (default 100)\n"
            "  -r DIVISOR         Scale touches ELEMENTS/DIVISOR random elements (default 8)\n"
            "  -h, --help         show this help\n",
            STREAM_MAX);
}

static int parse_size(const char *arg, size_t *out)
{
    char *end;
    unsigned long long v = strtoull(arg, &end, 10);
    if (*arg == '\0' || *end != '\0' || v == 0)
        return -1;
    *out = (size_t)v;
    return 0;
}

int main(int argc, char **argv)
{
    size_t n = 2u << 20, iterations = 100, divisor = 8;
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "n:i:r:h", longopts, NULL)) != -1) {
        switch (opt) {
        case 'n':
            if (parse_size(optarg, &n) || n > STREAM_MAX) {
                fprintf(stderr, "stream: -n: expected 1..%u elements, got '%s'\n", STREAM_MAX, optarg);
                return 2;
            }
            break;
        case 'i':
            if (parse_size(optarg, &iterations)) {
                fprintf(stderr, "stream: -i: expected a positive count, got '%s'\n", optarg);
                return 2;
            }
            break;
        case 'r':
            if (parse_size(optarg, &divisor)) {
                fprintf(stderr, "stream: -r: expected a positive divisor, got '%s'\n", optarg);
                return 2;
            }
            break;
        case 'h':
            usage(stdout);
            return 0;
        default:
            usage(stderr);
            return 2;
        }
    }

    size_t m = n / divisor ? n / divisor : 1;
    double *b = malloc(n * sizeof *b);
    uint32_t *idx = malloc(m * sizeof *idx);
    if (!b || !idx) {
        fprintf(stderr, "stream: cannot allocate %zu elements\n", n);
        return 1;
    }
    /* A fixed LCG makes the random indices reproducible between runs. */
    uint64_t state = 88172645463325252ull;
    for (size_t j = 0; j < m; j++) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        idx[j] = (uint32_t)((state >> 33) % n);
    }
    for (size_t j = 0; j < n; j++) {
        a[j] = 1.0;
        b[j] = 2.0;
        c[j] = 0.0;
    }
    tracefold_memory_region("idx", idx, idx + m);

    /* Bytes each kernel moves per iteration, counted as STREAM does
     * (Scale: one read of c and one write of b per touched element). */
    const double bytes[NKERNELS] = {
        2.0 * sizeof(double) * (double)n,
        (2.0 * sizeof(double) + sizeof(uint32_t)) * (double)m,
        3.0 * sizeof(double) * (double)n,
        3.0 * sizeof(double) * (double)n,
    };
    double best[NKERNELS], total[NKERNELS] = {0};
    for (int k = 0; k < NKERNELS; k++)
        best[k] = 1e30;
    /* Every iteration's time per kernel, for the median: the figure to set
     * against a fold, which leaves disturbed iterations out too. */
    double *times = malloc(iterations * NKERNELS * sizeof *times);
    if (!times) {
        fprintf(stderr, "stream: cannot allocate %zu timings\n", iterations);
        return 1;
    }

    const double s = 3.0;
    for (size_t it = 0; it < iterations; it++) {
        double t[NKERNELS + 1];
        tracefold_region_begin("iteration");
        t[0] = now_s();
        tracefold_region_begin("Copy");
        copy(n);
        tracefold_region_end("Copy");
        t[1] = now_s();
        tracefold_region_begin("Scale");
        scale(b, idx, m, s);
        tracefold_region_end("Scale");
        t[2] = now_s();
        tracefold_region_begin("Add");
        add(b, n);
        tracefold_region_end("Add");
        t[3] = now_s();
        tracefold_region_begin("Triad");
        triad(b, n, s);
        tracefold_region_end("Triad");
        t[4] = now_s();
        tracefold_region_end("iteration");
        for (int k = 0; k < NKERNELS; k++) {
            double dt = t[k + 1] - t[k];
            times[(size_t)k * iterations + it] = dt;
            total[k] += dt;
            if (dt < best[k])
                best[k] = dt;
        }
    }

    printf("stream: %zu elements, %zu iterations, Scale over %zu random elements\n", n,
           iterations, m);
    printf("%-8s %14s %14s %14s %12s\n", "kernel", "mean_MBps", "median_MBps", "best_MBps",
           "mean_ms");
    for (int k = 0; k < NKERNELS; k++) {
        double mean = total[k] / (double)iterations;
        double *kt = times + (size_t)k * iterations;
        qsort(kt, iterations, sizeof *kt, by_value);
        double median = iterations % 2 ? kt[iterations / 2]
                                       : 0.5 * (kt[iterations / 2 - 1] + kt[iterations / 2]);
        printf("%-8s %14.1f %14.1f %14.1f %12.3f\n", kernel_names[k], bytes[k] / mean / 1e6,
               bytes[k] / median / 1e6, bytes[k] / best[k] / 1e6, mean * 1e3);
    }
    free(times);
    /* Keeps the compiler from dropping the kernels. */
    double check = 0;
    for (size_t j = 0; j < n; j += n / 16 + 1)
        check += a[j] + b[j] + c[j];
    printf("checksum %.6e\n", check);
    free(idx);
    free(b);
    return 0;
}
