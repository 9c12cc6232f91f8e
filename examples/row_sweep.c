/* SPDX-License-Identifier: BSD-3-Clause */
/* A matrix stored as one small allocation per row, as HPCG's default build
 * stores its sparse matrix (issue 29): every row is a heap block below the
 * recorder's heap threshold, by default 32 doubles (256 bytes; a row of
 * HPCG's matrix holds 27).  The rows should fold into one object named
 * by the call that allocates them, with one allocation per row, swept up
 * then down.  With -C the same rows are slices of one allocation, the
 * change the advice "many small allocations" suggests (issue 33); the
 * kernel and every other allocation are the same.
 *
 * Why the rows are scattered.  A row per allocation costs little while
 * the rows lie next to each other, as they do when a fresh heap hands
 * them out one after another (each row 16 bytes of header after the
 * previous one): the sweep is then one stream in all but name.  A
 * real code allocates its rows while other objects come and go: an
 * assembly or an input reader allocates each row between its own
 * temporaries (a buffer grown to the row's length, a list of neighbours,
 * a parsed record) and the objects it keeps (a row's indices, its
 * metadata), and frees some of those later.  The allocator carves the
 * next row out of whatever hole fits, so after the setup consecutive rows
 * are neither adjacent nor in address order.  The setup below stands in
 * for that with a fixed pseudo-random sequence (the same in every run):
 * before each row a temporary of 16 B to 2 KiB, freed when a later row's
 * temporary takes its place (one of 16 places, at random), after it a
 * kept object of 24 to 424 bytes, a quarter of which are freed again 8 to
 * 15 rows later.  With glibc's
 * malloc 7 rows in 10 then start elsewhere than right after the row
 * before, and 2 in 10 below it (8000 rows of 256 bytes): each row is a
 * short stream of its own, 4 or 5 cache lines, which the hardware
 * prefetchers cannot run ahead of as they run ahead of one long one.
 * The shorter the rows, the more it costs: one allocation took 0.62-0.87
 * of the time of the scattered rows of 256 bytes, 0.76-0.92 of that of
 * rows of 1 KiB (the same 2 MiB; docs/examples.md).
 *
 * Why this kernel.  A power iteration for the matrix's largest singular
 * value (its leading right singular vector x, as the first principal
 * component of a data matrix is computed): y = A x with the rows in
 * order, then x = A'y / |A'y| with the rows in reverse, so that the
 * second pass starts with the rows the first left in the cache.  Each
 * row's work depends on no other row's, so the core overlaps the loads of
 * one row with the arithmetic of the last, and the time is the memory's:
 * there the rows' placement shows.  A kernel that chains every element to
 * the one before (a Gauss-Seidel-like relaxation) waits on its
 * arithmetic instead, six times as long, and shows less of it: one
 * allocation took 0.70-0.88 of its time over these rows, 0.90-0.96 over
 * rows of 1 KiB (docs/examples.md, "Advice and diff: prefetch and
 * row_sweep"). */
#include <getopt.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <tracefold.h>

/* One step of the power iteration on A'A: y = A x (rows up), then x the
 * unit vector along A'y, accumulated in sum (rows down, each row
 * backwards).  Returns |A'y|, which converges to the largest singular
 * value squared. */
static double power_step(double *const *row, size_t rows, size_t cols, double *x, double *y,
                         double *sum)
{
    for (size_t r = 0; r < rows; r++) {
        double dot = 0;
        for (size_t j = 0; j < cols; j++)
            dot += row[r][j] * x[j];
        y[r] = dot;
    }
    memset(sum, 0, cols * sizeof *sum);
    for (size_t r = rows; r-- > 0;)
        for (size_t j = cols; j-- > 0;)
            sum[j] += row[r][j] * y[r];
    double norm = 0;
    for (size_t j = 0; j < cols; j++)
        norm += sum[j] * sum[j];
    norm = sqrt(norm);
    for (size_t j = 0; j < cols; j++)
        x[j] = sum[j] / norm;
    return norm;
}

/* The setup's pseudo-random sizes and lifetimes: xorshift64 (Marsaglia,
 * 2003) from a fixed seed, so every run builds the same heap. */
static uint64_t xorshift_state = 0x9e3779b97f4a7c15u;
static size_t below(size_t n)
{
    xorshift_state ^= xorshift_state << 13;
    xorshift_state ^= xorshift_state >> 7;
    xorshift_state ^= xorshift_state << 17;
    return (size_t)(xorshift_state % n);
}

enum { TEMPORARIES = 16 };   /* temporaries alive at once */

/* The rows, each allocated between the setup's other objects (see the
 * comment at the top), or slices of one block when contiguous; every
 * other allocation the same.  Element (r, j) is 1 / (1 + r + j), a
 * Hilbert-like matrix.  Frees the temporaries; the kept objects, a
 * program's data, stay in *kept (freed by the caller).  0, or -1 when out
 * of memory. */
static int allocate_rows(double **row, size_t rows, size_t cols, bool contiguous, void **kept)
{
    double *block = contiguous ? calloc(rows * cols, sizeof *block) : NULL; /* the matrix: one block */
    void *temporary[TEMPORARIES] = {0};
    int status = contiguous && !block ? -1 : 0;
    for (size_t r = 0; r < rows && status == 0; r++) {
        size_t slot = below(TEMPORARIES);
        free(temporary[slot]);
        temporary[slot] = malloc(16 + below(2048));
        row[r] = contiguous ? block + r * cols : calloc(cols, sizeof *row[r]); /* a block per row */
        kept[r] = malloc(24 + below(401));
        if (!temporary[slot] || !row[r] || !kept[r]) {
            status = -1;
            continue;
        }
        for (size_t j = 0; j < cols; j++)
            row[r][j] = 1.0 / (double)(1 + r + j);
        if (r >= 16 && below(4) == 0) {
            size_t old = r - 8 - below(8);
            free(kept[old]);
            kept[old] = NULL;
        }
    }
    for (size_t s = 0; s < TEMPORARIES; s++)
        free(temporary[s]);
    return status;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int by_value(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static int number(const char *arg, char opt, size_t *out)
{
    char *end = NULL;
    unsigned long long v = strtoull(arg, &end, 10);
    if (*arg == '\0' || *end != '\0' || v < 1) {
        fprintf(stderr, "row_sweep: -%c: expected a number >= 1, got '%s'\n", opt, arg);
        return -1;
    }
    *out = (size_t)v;
    return 0;
}

int main(int argc, char **argv)
{
    size_t rows = 8000, cols = 32, iterations = 1000;
    bool contiguous = false;
    static const struct option longopts[] = {{"contiguous", no_argument, NULL, 'C'},
                                             {"help", no_argument, NULL, 'h'}, {0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "r:c:i:Ch", longopts, NULL)) != -1) {
        switch (opt) {
        case 'r':
            if (number(optarg, 'r', &rows))
                return 2;
            break;
        case 'c':
            if (number(optarg, 'c', &cols))
                return 2;
            break;
        case 'i':
            if (number(optarg, 'i', &iterations))
                return 2;
            break;
        case 'C':
            contiguous = true;
            break;
        case 'h':
            printf("Usage: row_sweep [-r ROWS] [-c COLUMNS] [-i ITERATIONS] [-C]\n"
                   "Power iterations over a matrix of doubles stored as one allocation per\n"
                   "row, the rows allocated among other objects of varied sizes and\n"
                   "lifetimes (so they lie scattered over the heap), inside the region\n"
                   "\"iteration\": y = A x with the rows in order, then x = A'y / |A'y| with\n"
                   "the rows in reverse (defaults: 8000 rows of 32 columns, 256 bytes each,\n"
                   "1000 iterations).  -C, --contiguous: the rows as slices of one\n"
                   "allocation, everything else the same.  Prints the largest singular\n"
                   "value found, and the mean and the median time of an iteration.\n");
            return 0;
        default:
            fprintf(stderr, "Usage: row_sweep [-r ROWS] [-c COLUMNS] [-i ITERATIONS] [-C]\n");
            return 2;
        }
    }
    double **row = calloc(rows, sizeof *row), *block = NULL;
    void **kept = calloc(rows, sizeof *kept);
    double *x = malloc(cols * sizeof *x), *sum = malloc(cols * sizeof *sum);
    double *y = malloc(rows * sizeof *y), *seconds = malloc(iterations * sizeof *seconds);
    if (!row || !kept || !x || !sum || !y || !seconds ||
        allocate_rows(row, rows, cols, contiguous, kept) != 0) {
        fprintf(stderr, "row_sweep: cannot allocate %zu rows of %zu doubles\n", rows, cols);
        return 1;
    }
    block = contiguous ? row[0] : NULL;
    for (size_t j = 0; j < cols; j++)
        x[j] = 1 / sqrt((double)cols);
    double total = 0, norm = 0;
    for (size_t it = 0; it < iterations; it++) {
        double t0 = now_s();
        tracefold_region_begin("iteration");
        norm = power_step(row, rows, cols, x, y, sum);
        tracefold_region_end("iteration");
        seconds[it] = now_s() - t0;
        total += seconds[it];
    }
    /* The median as well as the mean: an iteration preempted by another
     * program moves the mean, not the median. */
    qsort(seconds, iterations, sizeof *seconds, by_value);
    printf("row_sweep: %zu rows of %zu, %s, %zu iterations, largest singular value %.6e\n", rows,
           cols, contiguous ? "one allocation" : "a row per allocation", iterations, sqrt(norm));
    printf("mean_ms %.3f\nmedian_ms %.3f\n", 1e3 * total / (double)iterations,
           1e3 * seconds[iterations / 2]);
    for (size_t r = 0; r < rows; r++) {
        if (!contiguous)
            free(row[r]);
        free(kept[r]);
    }
    free(block);
    free(row);
    free(kept);
    free(x);
    free(sum);
    free(y);
    free(seconds);
    return 0;
}
