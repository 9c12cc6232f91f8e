/* SPDX-License-Identifier: BSD-3-Clause */
/* tf_launcher_rank and tf_launcher_size on the environments the launchers
 * set up (Open MPI's mpirun, PMI and PMIx launchers, Slurm's srun), and
 * the one a Slurm batch script runs in, which is no launch; and which of
 * them are MPI launchers (tf_launcher_is_mpi). */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "common/tf_launcher.h"

static const char *const all_vars[] = {
    "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMI_RANK", "PMI_SIZE", "PMIX_RANK",
    "SLURM_PROCID", "SLURM_NTASKS", "SLURM_STEP_NUM_TASKS", NULL,
};

typedef struct launch_case {
    int line;
    const char *env[8];   /* NAME=VALUE, NULL-terminated */
    int rank, size;
    bool mpi;             /* tf_launcher_is_mpi */
} launch_case;

static const launch_case cases[] = {
    { __LINE__, { NULL }, -1, 0, false },
    { __LINE__, { "OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=4", NULL }, 3, 4, true },
    { __LINE__, { "PMI_RANK=1", "PMI_SIZE=2", NULL }, 1, 2, true },
    /* srun --mpi=pmix: the rank from PMIx, the size from Slurm */
    { __LINE__, { "PMIX_RANK=5", "SLURM_PROCID=5", "SLURM_STEP_NUM_TASKS=8", NULL }, 5, 8, true },
    /* srun without PMI */
    { __LINE__, { "SLURM_PROCID=2", "SLURM_STEP_NUM_TASKS=3", "SLURM_NTASKS=3", NULL }, 2, 3, false },
    /* a batch script: one process, whatever the tasks it may start */
    { __LINE__, { "SLURM_PROCID=0", "SLURM_NTASKS=64", NULL }, -1, 0, false },
    /* mpirun inside an srun step: mpirun's own ranks */
    { __LINE__, { "OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2", "SLURM_PROCID=0",
                  "SLURM_STEP_NUM_TASKS=1", NULL }, 1, 2, true },
    /* not numbers, or out of range: the next variable, or none */
    { __LINE__, { "OMPI_COMM_WORLD_RANK=", "OMPI_COMM_WORLD_SIZE=x4", "PMI_RANK=7",
                  "PMI_SIZE=8", NULL }, 7, 8, true },
    { __LINE__, { "OMPI_COMM_WORLD_RANK=-1", "OMPI_COMM_WORLD_SIZE=4k", NULL }, -1, 0, false },
    { __LINE__, { "PMI_RANK=99999999999", "PMI_SIZE=2", NULL }, -1, 2, false },
};

static void set_environment(const launch_case *c)
{
    for (const char *const *v = all_vars; *v; v++)
        unsetenv(*v);
    for (const char *const *e = c->env; *e; e++)
        putenv((char *)*e);   /* the strings are static: putenv may keep them */
}

static void launch_cases(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const launch_case *c = &cases[i];
        set_environment(c);
        int rank = tf_launcher_rank(), size = tf_launcher_size();
        bool mpi = tf_launcher_is_mpi();
        if (rank != c->rank || size != c->size || mpi != c->mpi)
            fail_msg("case at line %d: rank %d size %d mpi %d, want rank %d size %d mpi %d",
                     c->line, rank, size, mpi, c->rank, c->size, c->mpi);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(launch_cases) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
