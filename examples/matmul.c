/* SPDX-License-Identifier: BSD-3-Clause */
/* Hennessy & Patterson's compiler optimisations for caches (Computer
 * Architecture, ch. 5.2), each variant its own region:
 *   scale_ji   for j, for i: x[i][j] = 2*x[i][j]   strides by a row
 *   scale_ij   the same after loop interchange      walks memory sequentially
 *   mm_naive   x = y*z, i-j-k order                 z walked by column
 *   mm_ikj     loop interchange (i-k-j)             all rows walked sequentially
 *   mm_blocked mm_ikj over B×B tiles of z           each tile reused from the cache
 * In the folded address space the column walk shows a stride of N×8 bytes,
 * the interchanged variants a stride of 8 bytes.
 *
 * As in the book's fixed-size arrays (and Fortran PARAMETER dimensions, or
 * the NAS benchmarks' compile-time classes), the kernels see N as a
 * compile-time constant for the sizes run_variant lists: the compiler then
 * advances each pointer by a constant (a row, N×8 bytes, for a column
 * walk), which the analysis reads from the code (docs/algorithms.md,
 * "Strides from the code").  Any other N runs the same kernels with N in a
 * register; the stride is then a register's value, not in the code, and the
 * analysis has only the samples.  Built without auto-vectorisation
 * (examples/Makefile.inc.am): the book's loops move one double at a time;
 * built again vectorised as examples/matmul_vec, where the interchanged
 * loops move two doubles an instruction and blocking pays. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tracefold.h>

/* Inlined where run_variant calls them, so each call sees its n. */
#define KERNEL static inline __attribute__((always_inline))

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

KERNEL void scale_ji(double *x, size_t n)
{
    for (size_t j = 0; j < n; j++)
        for (size_t i = 0; i < n; i++)
            x[i * n + j] = 2 * x[i * n + j];
}

KERNEL void scale_ij(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            x[i * n + j] = 2 * x[i * n + j];
}

KERNEL void mm_naive(double *restrict x, const double *restrict y, const double *restrict z,
                     size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            double r = 0;
            for (size_t k = 0; k < n; k++)
                r += y[i * n + k] * z[k * n + j];
            x[i * n + j] = r;
        }
}

KERNEL void mm_ikj(double *restrict x, const double *restrict y, const double *restrict z,
                   size_t n)
{
    memset(x, 0, n * n * sizeof *x);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < n; k++) {
            double r = y[i * n + k];
            for (size_t j = 0; j < n; j++)
                x[i * n + j] += r * z[k * n + j];
        }
}

/* Blocking after the interchange (H&P ch. 5.2, "blocking"): z in B x B
 * tiles, each used for every row of x before the next, so that the tile
 * stays in the cache while mm_ikj brings all of z in again for each row of
 * x.  The innermost loop walks a row of the tile and of x, as mm_ikj's does;
 * each x[i][j] sums over k in the same order as mm_ikj, so the result is
 * the same to the bit. */
KERNEL void mm_blocked(double *restrict x, const double *restrict y, const double *restrict z,
                       size_t n, size_t bs)
{
    memset(x, 0, n * n * sizeof *x);
    for (size_t kk = 0; kk < n; kk += bs)
        for (size_t jj = 0; jj < n; jj += bs) {
            size_t ke = kk + bs < n ? kk + bs : n, je = jj + bs < n ? jj + bs : n;
            for (size_t i = 0; i < n; i++)
                for (size_t k = kk; k < ke; k++) {
                    double r = y[i * n + k];
                    for (size_t j = jj; j < je; j++)
                        x[i * n + j] += r * z[k * n + j];
                }
        }
}

/* Variant v with N as given (a constant where run_variant passes one). */
#define RUN_VARIANT(v, x, y, z, N, bs)              \
    switch (v) {                                    \
    case 0: scale_ji(x, N); break;                  \
    case 1: scale_ij(x, N); break;                  \
    case 2: mm_naive(x, y, z, N); break;            \
    case 3: mm_ikj(x, y, z, N); break;              \
    default: mm_blocked(x, y, z, N, bs); break;     \
    }

static void run_variant(size_t v, double *x, double *y, double *z, size_t n, size_t bs)
{
    switch (n) {
    case 128: RUN_VARIANT(v, x, y, z, 128, bs); break;
    case 256: RUN_VARIANT(v, x, y, z, 256, bs); break;
    case 384: RUN_VARIANT(v, x, y, z, 384, bs); break;
    case 512: RUN_VARIANT(v, x, y, z, 512, bs); break;
    case 640: RUN_VARIANT(v, x, y, z, 640, bs); break;
    default: RUN_VARIANT(v, x, y, z, n, bs); break;
    }
}

static const char *const variants[] = {"scale_ji", "scale_ij", "mm_naive", "mm_ikj", "mm_blocked"};
#define NVARIANTS (sizeof variants / sizeof variants[0])

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: matmul [-n N] [-b BLOCK] [-i ITERATIONS] [-v VARIANT[,VARIANT...]]\n"
            "Hennessy-Patterson cache optimisations, each variant a region inside the\n"
            "region \"iteration\".  Variants: scale_ji scale_ij mm_naive mm_ikj mm_blocked\n"
            "(default: all).  Defaults: N=384, BLOCK=32, 10 iterations.  N of 128, 256,\n"
            "384, 512 and 640 are compiled in as constants.\n");
}

int main(int argc, char **argv)
{
    size_t n = 384, bs = 32, iterations = 10;
    int enabled[NVARIANTS];
    for (size_t v = 0; v < NVARIANTS; v++)
        enabled[v] = 1;
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "n:b:i:v:h", longopts, NULL)) != -1) {
        if (opt == 'h') {
            usage(stdout);
            return 0;
        }
        if (opt == 'v') {
            memset(enabled, 0, sizeof enabled);
            char *list = strdup(optarg), *save = NULL;
            for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                size_t v = 0;
                while (v < NVARIANTS && strcmp(tok, variants[v]))
                    v++;
                if (v == NVARIANTS) {
                    fprintf(stderr, "matmul: -v: unknown variant '%s'\n", tok);
                    free(list);
                    return 2;
                }
                enabled[v] = 1;
            }
            free(list);
            continue;
        }
        char *end;
        unsigned long long val = strtoull(optarg ? optarg : "", &end, 10);
        if (opt == '?' || !optarg || *optarg == '\0' || *end != '\0' || val == 0) {
            usage(stderr);
            return 2;
        }
        *(opt == 'n' ? &n : opt == 'b' ? &bs : &iterations) = (size_t)val;
    }
    double *x = malloc(n * n * sizeof *x), *y = malloc(n * n * sizeof *y),
           *z = malloc(n * n * sizeof *z);
    if (!x || !y || !z) {
        fprintf(stderr, "matmul: cannot allocate three %zux%zu matrices\n", n, n);
        return 1;
    }
    for (size_t i = 0; i < n * n; i++) {
        x[i] = 1.0;
        y[i] = 1.0 / (double)(i % 13 + 1);
        z[i] = 1.0 / (double)(i % 7 + 1);
    }
    double seconds[NVARIANTS] = {0};
    for (size_t it = 0; it < iterations; it++) {
        tracefold_region_begin("iteration");
        for (size_t v = 0; v < NVARIANTS; v++) {
            if (!enabled[v])
                continue;
            double t0 = now_s();
            tracefold_region_begin(variants[v]);
            run_variant(v, x, y, z, n, bs);
            tracefold_region_end(variants[v]);
            seconds[v] += now_s() - t0;
        }
        tracefold_region_end("iteration");
    }
    printf("matmul: N=%zu, block %zu, %zu iterations\n%-11s %10s\n", n, bs, iterations,
           "variant", "mean_ms");
    for (size_t v = 0; v < NVARIANTS; v++)
        if (enabled[v])
            printf("%-11s %10.3f\n", variants[v], 1e3 * seconds[v] / (double)iterations);
    /* every element, to the last bit: mm_naive, mm_ikj and mm_blocked sum
     * each element's products in the same order */
    double sum = 0;
    for (size_t i = 0; i < n * n; i++)
        sum += x[i];
    printf("checksum %.17g\n", sum);
    free(x);
    free(y);
    free(z);
    return 0;
}
