/* SPDX-License-Identifier: BSD-3-Clause */
/* What mpirun tells its processes before MPI_Init: their number and rank,
 * in the environment.  Open MPI sets OMPI_COMM_WORLD_SIZE/_RANK; MPICH's
 * Hydra and other PMI launchers set PMI_SIZE/PMI_RANK. */
#include "config.h"

#include <stdlib.h>

#include "args.h"
#include "fold_team_start.h"

static int env_int(const char *const *names, int fallback)
{
    for (const char *const *n = names; *n; n++) {
        const char *v = getenv(*n);
        uint64_t u;
        if (v && tf_arg_uint(v, 0, 1u << 30, &u))
            return (int)u;
    }
    return fallback;
}

int tf_cli_launched_size(void)
{
    static const char *const names[] = { "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", NULL };
    int n = env_int(names, 1);
    return n < 1 ? 1 : n;
}

int tf_cli_launched_rank(void)
{
    static const char *const names[] = { "OMPI_COMM_WORLD_RANK", "PMI_RANK", NULL };
    return env_int(names, 0);
}
