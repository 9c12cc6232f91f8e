/* SPDX-License-Identifier: BSD-3-Clause */
/* The symmetric sweep of examples/sweep.c over a matrix stored as one
 * small allocation per row, as HPCG's default build stores its sparse
 * matrix (issue 29): every row is a heap block below the recorder's heap
 * threshold.  The rows should fold into one object named by the call that
 * allocates them, with one allocation per row, swept up then down.  With
 * -C the same rows are slices of one allocation, the change the advice
 * "many small allocations" suggests (issue 33); the kernel is the same. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <tracefold.h>

/* Each element relaxes towards its neighbours in the row order; the
 * forward pass runs through the rows in order, the backward pass in
 * reverse. */
static void row_sweep(double **row, size_t rows, size_t cols)
{
    double prev = 0;
    for (size_t r = 0; r < rows; r++)
        for (size_t j = 0; j < cols; j++)
            prev = row[r][j] = 0.5 * (prev + row[r][j]) + 1e-9;
    for (size_t r = rows; r-- > 0;)
        for (size_t j = cols; j-- > 0;)
            prev = row[r][j] = 0.5 * (prev + row[r][j]) + 1e-9;
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
    size_t rows = 2000, cols = 128, iterations = 200;
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
                   "Forward-then-backward sweeps over a matrix of doubles stored as one\n"
                   "allocation per row, inside the region \"iteration\" (defaults: 2000\n"
                   "rows of 128 columns, 1 KiB each, 200 iterations).  -C, --contiguous:\n"
                   "the rows as slices of one allocation.  Prints the mean and the median\n"
                   "time of an iteration.\n");
            return 0;
        default:
            fprintf(stderr, "Usage: row_sweep [-r ROWS] [-c COLUMNS] [-i ITERATIONS] [-C]\n");
            return 2;
        }
    }
    double **row = malloc(rows * sizeof *row);
    double *block = contiguous ? calloc(rows * cols, sizeof *block) : NULL; /* the matrix: one block */
    if (!row || (contiguous && !block)) {
        fprintf(stderr, "row_sweep: cannot allocate %zu rows\n", rows);
        return 1;
    }
    for (size_t r = 0; r < rows; r++) {
        row[r] = contiguous ? block + r * cols : calloc(cols, sizeof *row[r]); /* a block per row */
        if (!row[r]) {
            fprintf(stderr, "row_sweep: cannot allocate row %zu\n", r);
            return 1;
        }
    }
    double *seconds = malloc(iterations * sizeof *seconds), total = 0;
    if (!seconds) {
        fprintf(stderr, "row_sweep: cannot allocate %zu timings\n", iterations);
        return 1;
    }
    for (size_t it = 0; it < iterations; it++) {
        double t0 = now_s();
        tracefold_region_begin("iteration");
        row_sweep(row, rows, cols);
        tracefold_region_end("iteration");
        seconds[it] = now_s() - t0;
        total += seconds[it];
    }
    /* The median as well as the mean: an iteration preempted by another
     * program moves the mean, not the median. */
    qsort(seconds, iterations, sizeof *seconds, by_value);
    printf("row_sweep: %zu rows of %zu, %s, %zu iterations, row[rows/2][0] = %.6e\n", rows, cols,
           contiguous ? "one allocation" : "a row per allocation", iterations, row[rows / 2][0]);
    printf("mean_ms %.3f\nmedian_ms %.3f\n", 1e3 * total / (double)iterations,
           1e3 * seconds[iterations / 2]);
    free(seconds);
    for (size_t r = 0; !contiguous && r < rows; r++)
        free(row[r]);
    free(block);
    free(row);
    return 0;
}
