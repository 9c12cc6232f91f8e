/* SPDX-License-Identifier: BSD-3-Clause */
/* A 1-D heat equation on MPI ranks: each rank owns a block of cells, swaps
 * one halo cell with each neighbour (non-blocking send and receive), updates
 * its block with the three-point stencil and joins a global sum of the
 * change every iteration.  Each iteration is a tracefold region with two
 * inner ones (halo, update), so a fold of all ranks shows the phases of
 * one iteration.  Usage: stencil_mpi [-n CELLS_PER_RANK] [-i ITERATIONS]. */
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include <tracefold.h>

#define USAGE "Usage: stencil_mpi [-n CELLS_PER_RANK] [-i ITERATIONS]\n"

/* Before MPI_Init, so that --help needs no MPI launcher: 0 to run, else the
 * exit status. */
static int parse_args(int argc, char **argv, long *n, long *iters)
{
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {0}};
    int opt;
    while ((opt = getopt_long(argc, argv, "n:i:h", longopts, NULL)) != -1) {
        char *end = NULL;
        long v = optarg ? strtol(optarg, &end, 10) : 0;
        switch (opt) {
        case 'n':
        case 'i':
            if (*optarg == '\0' || *end != '\0' || v < 1) {
                fprintf(stderr, "stencil_mpi: -%c: expected a positive number, got '%s'\n", opt,
                        optarg);
                return 2;
            }
            *(opt == 'n' ? n : iters) = v;
            break;
        case 'h':
            printf(USAGE "1-D heat equation over the MPI ranks: halo exchange with the\n"
                   "neighbours, three-point update, a global sum per iteration; regions\n"
                   "\"iteration\", \"halo\" and \"update\" (defaults: 262144 cells per rank,\n"
                   "300 iterations).  Run it under mpirun.\n");
            return 1;
        default:
            fputs(USAGE, stderr);
            return 2;
        }
    }
    return 0;
}

/* Cells 1..n are the rank's; 0 and n+1 hold the neighbours' edge values. */
static void halo(double *u, long n, int left, int right)
{
    MPI_Request req[4];
    MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&u[n + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&u[n], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
}

static double update(const double *u, double *next, long n)
{
    double change = 0.0;
    for (long i = 1; i <= n; i++) {
        next[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        change += fabs(next[i] - u[i]);
    }
    return change;
}

int main(int argc, char **argv)
{
    long n = 1L << 18, iters = 300;
    int status = parse_args(argc, argv, &n, &iters);
    if (status)
        return status == 1 ? 0 : status;
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *u = calloc((size_t)n + 2, sizeof *u), *next = calloc((size_t)n + 2, sizeof *next);
    if (!u || !next) {
        fprintf(stderr, "stencil_mpi: rank %d: out of memory for %ld cells\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    tracefold_memory_region("grid", u, u + n + 2);
    tracefold_memory_region("grid next", next, next + n + 2);
    /* A hot spot in the middle of rank 0's block; the ends stay at 0. */
    if (rank == 0)
        u[n / 2] = 1.0e6;
    int left = rank > 0 ? rank - 1 : MPI_PROC_NULL, right = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    double total = 0.0;
    for (long it = 0; it < iters; it++) {
        tracefold_region_begin("iteration");
        tracefold_region_begin("halo");
        halo(u, n, left, right);
        tracefold_region_end("halo");
        tracefold_region_begin("update");
        double change = update(u, next, n);
        tracefold_region_end("update");
        MPI_Allreduce(&change, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        double *t = u;
        u = next;
        next = t;
        tracefold_region_end("iteration");
    }
    double sum = 0.0, all = 0.0;
    for (long i = 1; i <= n; i++)
        sum += u[i];
    MPI_Reduce(&sum, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("stencil_mpi: %d ranks, %ld iterations, heat %.6g, last change %.6g\n", size, iters,
               all, total);
    free(u);
    free(next);
    MPI_Finalize();
    return 0;
}
