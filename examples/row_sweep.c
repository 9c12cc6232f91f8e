/* SPDX-License-Identifier: BSD-3-Clause */
/* The symmetric sweep of examples/sweep.c over a matrix stored as one
 * small allocation per row, as HPCG's default build stores its sparse
 * matrix (issue 29): every row is a heap block below the recorder's heap
 * threshold.  The rows should fold into one object named by the call that
 * allocates them, with one allocation per row, swept up then down. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

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
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "r:c:i:h", longopts, NULL)) != -1) {
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
        case 'h':
            printf("Usage: row_sweep [-r ROWS] [-c COLUMNS] [-i ITERATIONS]\n"
                   "Forward-then-backward sweeps over a matrix of doubles stored as one\n"
                   "allocation per row, inside the region \"iteration\" (defaults: 2000\n"
                   "rows of 128 columns, 1 KiB each, 200 iterations).\n");
            return 0;
        default:
            fprintf(stderr, "Usage: row_sweep [-r ROWS] [-c COLUMNS] [-i ITERATIONS]\n");
            return 2;
        }
    }
    double **row = malloc(rows * sizeof *row);
    if (!row) {
        fprintf(stderr, "row_sweep: cannot allocate %zu rows\n", rows);
        return 1;
    }
    for (size_t r = 0; r < rows; r++) {
        row[r] = calloc(cols, sizeof *row[r]);   /* the matrix: a block per row */
        if (!row[r]) {
            fprintf(stderr, "row_sweep: cannot allocate row %zu\n", r);
            return 1;
        }
    }
    for (size_t it = 0; it < iterations; it++) {
        tracefold_region_begin("iteration");
        row_sweep(row, rows, cols);
        tracefold_region_end("iteration");
    }
    printf("row_sweep: %zu rows of %zu, %zu iterations, row[rows/2][0] = %.6e\n", rows, cols,
           iterations, row[rows / 2][0]);
    for (size_t r = 0; r < rows; r++)
        free(row[r]);
    free(row);
    return 0;
}
