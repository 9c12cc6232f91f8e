/* SPDX-License-Identifier: BSD-3-Clause */
/* The Fortran entry points of MPI_Init, MPI_Init_thread and MPI_Finalize
 * (mpif.h and `use mpi`, gfortran's lower case with a trailing underscore):
 * Open MPI's Fortran layer calls PMPI_Init directly, so the C wrappers of
 * tf_mpi.c never see a Fortran program start. */
#include "config.h"

#include "tf_mpi.h"

void pmpi_init_(MPI_Fint *ierr);
void pmpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
void pmpi_finalize_(MPI_Fint *ierr);
void mpi_init_(MPI_Fint *ierr);
void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
void mpi_finalize_(MPI_Fint *ierr);

void mpi_init_(MPI_Fint *ierr)
{
    pmpi_init_(ierr);
    if (*ierr == MPI_SUCCESS)
        tf_mpi_started();
}

void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    pmpi_init_thread_(required, provided, ierr);
    if (*ierr == MPI_SUCCESS)
        tf_mpi_started();
}

void mpi_finalize_(MPI_Fint *ierr)
{
    tf_mpi_finishing();
    pmpi_finalize_(ierr);
}
