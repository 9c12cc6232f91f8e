/* SPDX-License-Identifier: BSD-3-Clause */
/* A process whose MPI rank comes late: what libtracefold-mpi does at
 * MPI_Init under a launcher whose variables the recorder does not know
 * (common/tf_launcher.c), after the writer has created the trace.
 * Usage: late_rank_app RANK SIZE. */
#include <stdlib.h>
#include <time.h>

#include <tracefold.h>
#include <tracefold_mpi.h>

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    /* long enough for the writer to find the process and create its trace */
    struct timespec nap = { 0, 100000000 };
    nanosleep(&nap, NULL);
    tracefold_mpi_rank((int)strtol(argv[1], NULL, 10), (int)strtol(argv[2], NULL, 10));
    tracefold_region_begin("iteration");
    tracefold_region_end("iteration");
    return 0;
}
