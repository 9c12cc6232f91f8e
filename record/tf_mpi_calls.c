/* SPDX-License-Identifier: BSD-3-Clause */
/* Point-to-point and collective calls recorded as events (option
 * mpi-calls): the call's id at entry with the world rank of its partner
 * (peer or root) and its bytes, 0 at its return.  Off, each wrapper is one
 * test of a flag before the PMPI_ call. */
#include "config.h"

#include "tf_mpi.h"
#include "tracefold_mpi.h"

/* A call with one partner (a rank of comm, < 0 for none) and its bytes. */
#define TF_MPI_RECORDED(call, comm, peer, bytes, pmpi_call)           \
    do {                                                              \
        if (!tf_mpi_calls)                                            \
            return pmpi_call;                                         \
        tf_mpi_enter(call, tf_mpi_world_rank(comm, peer), bytes);     \
        int rc_ = pmpi_call;                                          \
        tf_mpi_leave();                                               \
        return rc_;                                                   \
    } while (0)

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_SEND, comm, dest, tf_mpi_bytes(count, type),
                    PMPI_Send(buf, count, type, dest, tag, comm));
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_ISEND, comm, dest, tf_mpi_bytes(count, type),
                    PMPI_Isend(buf, count, type, dest, tag, comm, req));
}

/* A receive from any source learns its partner and size at completion. */
int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    if (!tf_mpi_calls)
        return PMPI_Recv(buf, count, type, source, tag, comm, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    tf_mpi_enter(TRACEFOLD_MPI_RECV, -1, 0);
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
    int got = 0;
    if (rc == MPI_SUCCESS && PMPI_Get_count(st, type, &got) == MPI_SUCCESS &&
        got != MPI_UNDEFINED)
        tf_mpi_peer(tf_mpi_world_rank(comm, st->MPI_SOURCE), tf_mpi_bytes(got, type));
    tf_mpi_leave();
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_IRECV, comm, source, tf_mpi_bytes(count, type),
                    PMPI_Irecv(buf, count, type, source, tag, comm, req));
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                 int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                 MPI_Status *status)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_SENDRECV, comm, dest, tf_mpi_bytes(scount, stype),
                    PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source,
                                  rtag, comm, status));
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_WAIT, MPI_COMM_WORLD, -1, 0, PMPI_Wait(req, status));
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_WAITALL, MPI_COMM_WORLD, -1, 0, PMPI_Waitall(n, reqs, statuses));
}

int MPI_Barrier(MPI_Comm comm)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_BARRIER, comm, -1, 0, PMPI_Barrier(comm));
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_BCAST, comm, root, tf_mpi_bytes(count, type),
                    PMPI_Bcast(buf, count, type, root, comm));
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_REDUCE, comm, root, tf_mpi_bytes(count, type),
                    PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm));
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_ALLREDUCE, comm, -1, tf_mpi_bytes(count, type),
                    PMPI_Allreduce(sbuf, rbuf, count, type, op, comm));
}

/* Gathers and scatters: the bytes of this rank's own block (taken from the
 * receive side where MPI_IN_PLACE leaves the send side unused). */
int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
               MPI_Datatype rtype, int root, MPI_Comm comm)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_GATHER, comm, root,
                    sbuf == MPI_IN_PLACE ? tf_mpi_bytes(rcount, rtype) : tf_mpi_bytes(scount, stype),
                    PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm));
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_ALLGATHER, comm, -1, tf_mpi_bytes(rcount, rtype),
                    PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm));
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_SCATTER, comm, root,
                    rbuf == MPI_IN_PLACE ? tf_mpi_bytes(scount, stype) : tf_mpi_bytes(rcount, rtype),
                    PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm));
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_ALLTOALL, comm, -1, tf_mpi_bytes(rcount, rtype),
                    PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm));
}
