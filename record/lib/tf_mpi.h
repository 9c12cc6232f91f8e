/* SPDX-License-Identifier: BSD-3-Clause */
/* Internals of libtracefold-mpi shared between its files: the C and Fortran
 * wrappers of MPI_Init and MPI_Finalize, and the call wrappers. */
#ifndef TF_MPI_H
#define TF_MPI_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

/* After PMPI_Init / PMPI_Init_thread returned MPI_SUCCESS: the rank, the
 * size and the node layout into the control file and the trace. */
void tf_mpi_started(void);

/* Before PMPI_Finalize. */
void tf_mpi_finishing(void);

/* Whether calls are recorded (option mpi-calls, read at tf_mpi_started). */
extern bool tf_mpi_calls;

/* A call's entry: its id, the world rank of its partner (< 0: none) and
 * its bytes (0: none). */
void tf_mpi_enter(int call, int partner, uint64_t bytes);
/* Partner and bytes learnt later (a receive from any source). */
void tf_mpi_peer(int partner, uint64_t bytes);
void tf_mpi_leave(void);

/* A blocking receive's status: its sender (a rank of comm) and size as the
 * call's partner and bytes, and its tag. */
void tf_mpi_got(MPI_Comm comm, MPI_Datatype type, const MPI_Status *st);

/* The tag of the message a call sends or received (< 0: MPI_ANY_TAG,
 * nothing recorded). */
void tf_mpi_tag(int tag);

/* Whether a receive request posted on comm from source (partner: its
 * world rank) is named by tf_mpi_request: only when its completion can
 * say whom it received from, a known source or a wildcard over world
 * ranks (the wait that completes it does not know its communicator). */
bool tf_mpi_request_traceable(MPI_Comm comm, int source, int partner);

/* A receive request just posted: its handle, so that the wait or test that
 * completes it names it again. */
void tf_mpi_request(MPI_Request req);

/* The receive of status completed (the receive half of MPI_Sendrecv, or
 * request `handle` when `req` is true): its sender's world rank and tag. */
void tf_mpi_received(MPI_Comm comm, const MPI_Status *st, bool req, MPI_Request handle);

/* The world rank of rank `rank` of comm (rank itself for MPI_COMM_WORLD,
 * -1 for MPI_PROC_NULL or a rank that cannot be translated). */
int tf_mpi_world_rank(MPI_Comm comm, int rank);

/* count elements of type, in bytes (0 when the type has no size). */
uint64_t tf_mpi_bytes(int count, MPI_Datatype type);

#endif
