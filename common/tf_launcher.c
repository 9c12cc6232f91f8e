/* SPDX-License-Identifier: BSD-3-Clause */
/* The launchers' variables, first match wins:
 *   Open MPI's mpirun           OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE
 *   PMI launchers (MPICH's
 *   Hydra, srun --mpi=pmi2)     PMI_RANK, PMI_SIZE
 *   PMIx launchers              PMIX_RANK (no size)
 *   Slurm's srun                SLURM_PROCID, SLURM_STEP_NUM_TASKS
 * Slurm's are read only inside a job step (SLURM_STEP_NUM_TASKS set, by
 * srun): a batch script, one process, also has SLURM_PROCID = 0 and
 * SLURM_NTASKS = the tasks it may start, and is no rank of them. */
#include "config.h"

#include "tf_launcher.h"

#include <stdlib.h>

#define MAX_RANKS (1 << 30)

/* The value of the first of names that holds a decimal number in
 * [0, MAX_RANKS]; -1 when none does. */
static int first_number(const char *const *names)
{
    for (; *names; names++) {
        const char *v = getenv(*names);
        if (!v || *v < '0' || *v > '9')
            continue;
        char *end;
        long n = strtol(v, &end, 10);
        if (*end == '\0' && n <= MAX_RANKS)
            return (int)n;
    }
    return -1;
}

static int in_slurm_step(void)
{
    static const char *const step[] = { "SLURM_STEP_NUM_TASKS", NULL };
    return first_number(step) > 0;
}

/* The MPI launchers' rank variables. */
static const char *const mpi_ranks[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", NULL };

int tf_launcher_rank(void)
{
    static const char *const slurm[] = { "SLURM_PROCID", NULL };
    int rank = first_number(mpi_ranks);
    return rank >= 0 || !in_slurm_step() ? rank : first_number(slurm);
}

bool tf_launcher_is_mpi(void)
{
    return first_number(mpi_ranks) >= 0;
}

int tf_launcher_size(void)
{
    static const char *const names[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                         "SLURM_STEP_NUM_TASKS", NULL };
    int size = first_number(names);
    return size < 0 ? 0 : size;
}
