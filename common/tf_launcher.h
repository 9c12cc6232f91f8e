/* SPDX-License-Identifier: BSD-3-Clause */
/* Where this process stands in a parallel launch, as the launcher's
 * environment says before MPI_Init (MPI knows better once initialised).
 * One reading for the recorder (the rank a trace is named and labelled
 * with) and for `tracefold fold` (whether it runs as several ranks). */
#ifndef TF_LAUNCHER_H
#define TF_LAUNCHER_H

#include <stdbool.h>

/* This process's rank among those launched together; -1 when no launcher
 * says. */
int tf_launcher_rank(void);
/* How many processes were launched together; 0 when no launcher says
 * (a PMIx launcher gives the rank alone). */
int tf_launcher_size(void);
/* Whether an MPI launcher started this process (mpirun, a PMI or PMIx
 * launcher: their rank variables), not a Slurm step without MPI's
 * process management, which also starts programs that know nothing of
 * MPI. */
bool tf_launcher_is_mpi(void);

#endif
