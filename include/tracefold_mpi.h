/* SPDX-License-Identifier: BSD-3-Clause */
/* Event types written by libtracefold-mpi, the MPI layer of the recorder
 * (docs/recorder.md, "MPI").  They lie in this project's range of
 * docs/paraver.md, so a raw Paraver export keeps them unchanged. */
#ifndef TRACEFOLD_MPI_H
#define TRACEFOLD_MPI_H

#ifdef __cplusplus
extern "C" {
#endif

/** Tells the recorder this process's rank in MPI_COMM_WORLD and the size
 * of it, which the trace stores as the process's rank and nranks.
 * libtracefold-mpi calls it from its MPI_Init; a program whose MPI calls
 * are not wrapped by it may call it after its own MPI_Init.  Returns -1
 * when the recorder is not recording, else 1 when its configuration asks
 * for the MPI calls to be recorded (option mpi-calls), 0 when not.
 * Defined in libtracefold. */
int tracefold_mpi_rank(int rank, int size);

/** Layout, one event each at the return of MPI_Init / MPI_Init_thread. */
#define TRACEFOLD_MPI_EVENT_RANK       780006010u  /**< rank in MPI_COMM_WORLD */
#define TRACEFOLD_MPI_EVENT_SIZE       780006011u  /**< size of MPI_COMM_WORLD */
#define TRACEFOLD_MPI_EVENT_NODE       780006012u  /**< node index, 0 = node of rank 0 */
#define TRACEFOLD_MPI_EVENT_NODES      780006013u  /**< number of nodes */
#define TRACEFOLD_MPI_EVENT_LOCAL_RANK 780006014u  /**< rank among the node's ranks */
#define TRACEFOLD_MPI_EVENT_LOCAL_SIZE 780006015u  /**< ranks on this node */

/** Calls (option mpi-calls): the call's id at entry, 0 at its return;
 *  the events below come between the two when they apply (docs/recorder.md,
 *  "MPI", says which call records which). */
#define TRACEFOLD_MPI_EVENT_CALL       780006000u
#define TRACEFOLD_MPI_EVENT_PARTNER    780006001u  /**< world rank of the peer or root */
#define TRACEFOLD_MPI_EVENT_BYTES      780006002u  /**< bytes sent (received for receives) */
#define TRACEFOLD_MPI_EVENT_TAG        780006003u  /**< message tag (sent, or received) */
/** A receive request (MPI_Irecv): its handle's bits, after the call. */
#define TRACEFOLD_MPI_EVENT_REQUEST    780006004u
/** In a wait or test: the handle of a request that completed there ... */
#define TRACEFOLD_MPI_EVENT_COMPLETED  780006005u
/** ... and, for a receive (a request or the receive half of MPI_Sendrecv),
 *  the world rank of the sender and the tag its status gives. */
#define TRACEFOLD_MPI_EVENT_RECV_SOURCE 780006006u
#define TRACEFOLD_MPI_EVENT_RECV_TAG    780006007u

/** Values of TRACEFOLD_MPI_EVENT_CALL. */
enum tracefold_mpi_call {
    TRACEFOLD_MPI_SEND = 1,
    TRACEFOLD_MPI_RECV,
    TRACEFOLD_MPI_ISEND,
    TRACEFOLD_MPI_IRECV,
    TRACEFOLD_MPI_SENDRECV,
    TRACEFOLD_MPI_WAIT,
    TRACEFOLD_MPI_WAITALL,
    TRACEFOLD_MPI_BARRIER,
    TRACEFOLD_MPI_BCAST,
    TRACEFOLD_MPI_REDUCE,
    TRACEFOLD_MPI_ALLREDUCE,
    TRACEFOLD_MPI_GATHER,
    TRACEFOLD_MPI_ALLGATHER,
    TRACEFOLD_MPI_SCATTER,
    TRACEFOLD_MPI_ALLTOALL,
    TRACEFOLD_MPI_WAITANY,
    TRACEFOLD_MPI_WAITSOME,
    TRACEFOLD_MPI_TEST,
    TRACEFOLD_MPI_TESTALL,
};

#ifdef __cplusplus
}
#endif

#endif
