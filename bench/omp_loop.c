/* SPDX-License-Identifier: BSD-3-Clause */
/* An OpenMP loop (bench/README.md, "Recorder: CPU time on real-code
 * patterns"): ITERATIONS parallel passes over two arrays of 1 Mi doubles,
 * a stencil and a reduction, as in a solver's time step.  Built with
 * gcc -fopenmp by bench/record_cpu.sh.  Usage: omp_loop ITERATIONS. */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 20)

int main(int argc, char **argv)
{
    long iterations = argc > 1 ? strtol(argv[1], NULL, 10) : 100;
    double *u = malloc(N * sizeof *u), *v = malloc(N * sizeof *v);
    if (!u || !v)
        return 1;
    for (long i = 0; i < N; i++)
        u[i] = (double)(i % 1000) * 1e-3;
    double norm = 0;
    for (long it = 0; it < iterations; it++) {
#pragma omp parallel for schedule(static)
        for (long i = 1; i < N - 1; i++)
            v[i] = 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
        norm = 0;
#pragma omp parallel for schedule(static) reduction(+ : norm)
        for (long i = 1; i < N - 1; i++) {
            u[i] = v[i] + 1e-6 * (double)it;
            norm += u[i] * u[i];
        }
    }
    printf("%.6f\n", norm);
    free(u);
    free(v);
    return 0;
}
