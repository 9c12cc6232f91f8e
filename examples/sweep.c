/* SPDX-License-Identifier: BSD-3-Clause */
/* One routine that sweeps an array forward and then backward, the access
 * pattern of a symmetric Gauss–Seidel smoother (HPCG's ComputeSYMGS, as the
 * BSC study found it): the folded address space should show one phase with
 * two sub-phases running in opposite directions. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include <tracefold.h>

/* x[i] relaxes towards the mean of its neighbours; the forward pass uses the
 * already-updated x[i-1], the backward pass the already-updated x[i+1]. */
static void symmetric_sweep(double *x, const double *rhs, size_t n)
{
    for (size_t i = 1; i + 1 < n; i++)
        x[i] = 0.5 * (x[i - 1] + x[i + 1]) + rhs[i];
    for (size_t i = n - 2; i > 0; i--)
        x[i] = 0.5 * (x[i - 1] + x[i + 1]) + rhs[i];
}

int main(int argc, char **argv)
{
    size_t n = 1u << 21, iterations = 60;
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "n:i:h", longopts, NULL)) != -1) {
        char *end = NULL;
        unsigned long long v = optarg ? strtoull(optarg, &end, 10) : 0;
        switch (opt) {
        case 'n':
        case 'i':
            if (*optarg == '\0' || *end != '\0' || v < 3) {
                fprintf(stderr, "sweep: -%c: expected a number >= 3, got '%s'\n", opt, optarg);
                return 2;
            }
            *(opt == 'n' ? &n : &iterations) = (size_t)v;
            break;
        case 'h':
            printf("Usage: sweep [-n ELEMENTS] [-i ITERATIONS]\n"
                   "Forward-then-backward sweeps over one array in one routine, inside the\n"
                   "region \"iteration\" (defaults: 2097152 elements, 60 iterations).\n");
            return 0;
        default:
            fprintf(stderr, "Usage: sweep [-n ELEMENTS] [-i ITERATIONS]\n");
            return 2;
        }
    }
    double *x = calloc(n, sizeof *x);
    double *rhs = malloc(n * sizeof *rhs);
    if (!x || !rhs) {
        fprintf(stderr, "sweep: cannot allocate %zu elements\n", n);
        return 1;
    }
    for (size_t i = 0; i < n; i++)
        rhs[i] = 1e-6 * (double)(i % 97);
    for (size_t it = 0; it < iterations; it++) {
        tracefold_region_begin("iteration");
        symmetric_sweep(x, rhs, n);
        tracefold_region_end("iteration");
    }
    printf("sweep: %zu elements, %zu iterations, x[n/2] = %.6e\n", n, iterations, x[n / 2]);
    free(rhs);
    free(x);
    return 0;
}
