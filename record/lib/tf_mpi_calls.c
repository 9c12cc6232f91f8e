/* SPDX-License-Identifier: BSD-3-Clause */
/* Point-to-point and collective calls recorded as events (option
 * mpi-calls): the call's id at entry with the world rank of its partner
 * (peer or root), its bytes and its tag, 0 at its return; receives say at
 * their completion whom they received from, with what tag, so that the
 * raw Paraver export can match each message's send and receive
 * (formats/prv_mpi.c).  Off, each wrapper is one test of a flag before
 * the PMPI_ call. */
#include "config.h"

#include <stdlib.h>

#include "tf_mpi.h"
#include "tracefold_mpi.h"

/* A call with one partner (a rank of comm, < 0 for none), its tag (< 0 for
 * none) and its bytes. */
#define TF_MPI_RECORDED(call, comm, peer, tag, bytes, pmpi_call)      \
    do {                                                              \
        if (!tf_mpi_calls)                                            \
            return pmpi_call;                                         \
        tf_mpi_enter(call, tf_mpi_world_rank(comm, peer), bytes);     \
        tf_mpi_tag(tag);                                              \
        int rc_ = pmpi_call;                                          \
        tf_mpi_leave();                                               \
        return rc_;                                                   \
    } while (0)

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_SEND, comm, dest, tag, tf_mpi_bytes(count, type),
                    PMPI_Send(buf, count, type, dest, tag, comm));
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_ISEND, comm, dest, tag, tf_mpi_bytes(count, type),
                    PMPI_Isend(buf, count, type, dest, tag, comm, req));
}

/* A receive from any source or with any tag learns its partner, tag and
 * size at completion. */
int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    if (!tf_mpi_calls)
        return PMPI_Recv(buf, count, type, source, tag, comm, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    tf_mpi_enter(TRACEFOLD_MPI_RECV, -1, 0);
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
    if (rc == MPI_SUCCESS)
        tf_mpi_got(comm, type, st);
    tf_mpi_leave();
    return rc;
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *req)
{
    if (!tf_mpi_calls)
        return PMPI_Irecv(buf, count, type, source, tag, comm, req);
    int partner = tf_mpi_world_rank(comm, source);
    tf_mpi_enter(TRACEFOLD_MPI_IRECV, partner, tf_mpi_bytes(count, type));
    tf_mpi_tag(tag);
    int rc = PMPI_Irecv(buf, count, type, source, tag, comm, req);
    if (rc == MPI_SUCCESS && tf_mpi_request_traceable(comm, source, partner))
        tf_mpi_request(*req);
    tf_mpi_leave();
    return rc;
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag, void *rbuf,
                 int rcount, MPI_Datatype rtype, int source, int rtag, MPI_Comm comm,
                 MPI_Status *status)
{
    if (!tf_mpi_calls)
        return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                             comm, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    tf_mpi_enter(TRACEFOLD_MPI_SENDRECV, tf_mpi_world_rank(comm, dest),
                 tf_mpi_bytes(scount, stype));
    tf_mpi_tag(stag);
    int rc = PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag,
                           comm, st);
    if (rc == MPI_SUCCESS)
        tf_mpi_received(comm, st, false, MPI_REQUEST_NULL);
    tf_mpi_leave();
    return rc;
}

/* ---- completions ---------------------------------------------------------------
 * A wait or test frees the requests it completes, so their handles are
 * kept before the call; the statuses say whom each receive got its message
 * from.  Up to SMALL requests live on the stack; more are allocated, and
 * when that fails the call is recorded without its completions. */
enum { SMALL = 32 };

typedef struct completions {
    MPI_Request  handles_small[SMALL];
    MPI_Status   statuses_small[SMALL];
    MPI_Request *handles;
    MPI_Status  *statuses;    /* the caller's, or ours when it ignores them */
    bool         own_statuses, ok;
} completions;

/* statuses: the caller's array of n, or MPI_STATUSES_IGNORE; array: false
 * when the call has one status of its own (Waitany). */
static void completions_begin(completions *c, int n, const MPI_Request reqs[],
                              MPI_Status *statuses, bool array)
{
    c->handles = n > SMALL ? malloc((size_t)n * sizeof *c->handles) : c->handles_small;
    c->own_statuses = array && statuses == MPI_STATUSES_IGNORE;
    c->statuses = NULL;
    if (array)
        c->statuses = !c->own_statuses ? statuses
                      : n > SMALL     ? malloc((size_t)n * sizeof *c->statuses)
                                      : c->statuses_small;
    c->ok = n >= 0 && c->handles && (c->statuses || !array);
    for (int i = 0; c->ok && i < n; i++)
        c->handles[i] = reqs[i];
}

/* The status array for the call: ours only when complete. */
static MPI_Status *completions_statuses(const completions *c, MPI_Status *statuses)
{
    return c->ok && c->own_statuses ? c->statuses : statuses;
}

/* Request i completed with status st. */
static void completed(const completions *c, int i, const MPI_Status *st)
{
    if (c->ok && c->handles[i] != MPI_REQUEST_NULL)
        tf_mpi_received(MPI_COMM_WORLD, st, true, c->handles[i]);
}

static void completions_end(completions *c)
{
    if (c->handles != c->handles_small)
        free(c->handles);
    if (c->own_statuses && c->statuses != c->statuses_small)
        free(c->statuses);
}

int MPI_Wait(MPI_Request *req, MPI_Status *status)
{
    if (!tf_mpi_calls)
        return PMPI_Wait(req, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    MPI_Request handle = *req;
    tf_mpi_enter(TRACEFOLD_MPI_WAIT, -1, 0);
    int rc = PMPI_Wait(req, st);
    if (rc == MPI_SUCCESS && handle != MPI_REQUEST_NULL)
        tf_mpi_received(MPI_COMM_WORLD, st, true, handle);
    tf_mpi_leave();
    return rc;
}

int MPI_Test(MPI_Request *req, int *flag, MPI_Status *status)
{
    if (!tf_mpi_calls)
        return PMPI_Test(req, flag, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    MPI_Request handle = *req;
    tf_mpi_enter(TRACEFOLD_MPI_TEST, -1, 0);
    int rc = PMPI_Test(req, flag, st);
    if (rc == MPI_SUCCESS && *flag && handle != MPI_REQUEST_NULL)
        tf_mpi_received(MPI_COMM_WORLD, st, true, handle);
    tf_mpi_leave();
    return rc;
}

int MPI_Waitall(int n, MPI_Request reqs[], MPI_Status statuses[])
{
    if (!tf_mpi_calls)
        return PMPI_Waitall(n, reqs, statuses);
    completions c;
    completions_begin(&c, n, reqs, statuses, true);
    tf_mpi_enter(TRACEFOLD_MPI_WAITALL, -1, 0);
    int rc = PMPI_Waitall(n, reqs, completions_statuses(&c, statuses));
    for (int i = 0; rc == MPI_SUCCESS && c.ok && i < n; i++)
        completed(&c, i, &c.statuses[i]);
    tf_mpi_leave();
    completions_end(&c);
    return rc;
}

int MPI_Testall(int n, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    if (!tf_mpi_calls)
        return PMPI_Testall(n, reqs, flag, statuses);
    completions c;
    completions_begin(&c, n, reqs, statuses, true);
    tf_mpi_enter(TRACEFOLD_MPI_TESTALL, -1, 0);
    int rc = PMPI_Testall(n, reqs, flag, completions_statuses(&c, statuses));
    for (int i = 0; rc == MPI_SUCCESS && c.ok && *flag && i < n; i++)
        completed(&c, i, &c.statuses[i]);
    tf_mpi_leave();
    completions_end(&c);
    return rc;
}

int MPI_Waitany(int n, MPI_Request reqs[], int *index, MPI_Status *status)
{
    if (!tf_mpi_calls)
        return PMPI_Waitany(n, reqs, index, status);
    MPI_Status own;
    MPI_Status *st = status == MPI_STATUS_IGNORE ? &own : status;
    completions c;
    completions_begin(&c, n, reqs, MPI_STATUSES_IGNORE, false);
    tf_mpi_enter(TRACEFOLD_MPI_WAITANY, -1, 0);
    int rc = PMPI_Waitany(n, reqs, index, st);
    if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED && *index >= 0 && *index < n)
        completed(&c, *index, st);
    tf_mpi_leave();
    completions_end(&c);
    return rc;
}

int MPI_Waitsome(int n, MPI_Request reqs[], int *outcount, int indices[], MPI_Status statuses[])
{
    if (!tf_mpi_calls)
        return PMPI_Waitsome(n, reqs, outcount, indices, statuses);
    completions c;
    completions_begin(&c, n, reqs, statuses, true);
    tf_mpi_enter(TRACEFOLD_MPI_WAITSOME, -1, 0);
    int rc = PMPI_Waitsome(n, reqs, outcount, indices, completions_statuses(&c, statuses));
    for (int k = 0; rc == MPI_SUCCESS && c.ok && *outcount != MPI_UNDEFINED && k < *outcount; k++)
        if (indices[k] >= 0 && indices[k] < n)
            completed(&c, indices[k], &c.statuses[k]);
    tf_mpi_leave();
    completions_end(&c);
    return rc;
}

int MPI_Barrier(MPI_Comm comm)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_BARRIER, comm, -1, -1, 0, PMPI_Barrier(comm));
}

int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_BCAST, comm, root, -1, tf_mpi_bytes(count, type),
                    PMPI_Bcast(buf, count, type, root, comm));
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_REDUCE, comm, root, -1, tf_mpi_bytes(count, type),
                    PMPI_Reduce(sbuf, rbuf, count, type, op, root, comm));
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_ALLREDUCE, comm, -1, -1, tf_mpi_bytes(count, type),
                    PMPI_Allreduce(sbuf, rbuf, count, type, op, comm));
}

/* Gathers and scatters: the bytes of this rank's own block (taken from the
 * receive side where MPI_IN_PLACE leaves the send side unused). */
int MPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
               MPI_Datatype rtype, int root, MPI_Comm comm)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_GATHER, comm, root, -1,
                    sbuf == MPI_IN_PLACE ? tf_mpi_bytes(rcount, rtype) : tf_mpi_bytes(scount, stype),
                    PMPI_Gather(sbuf, scount, stype, rbuf, rcount, rtype, root, comm));
}

int MPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                  MPI_Datatype rtype, MPI_Comm comm)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_ALLGATHER, comm, -1, -1, tf_mpi_bytes(rcount, rtype),
                    PMPI_Allgather(sbuf, scount, stype, rbuf, rcount, rtype, comm));
}

int MPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                MPI_Datatype rtype, int root, MPI_Comm comm)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_SCATTER, comm, root, -1,
                    rbuf == MPI_IN_PLACE ? tf_mpi_bytes(scount, stype) : tf_mpi_bytes(rcount, rtype),
                    PMPI_Scatter(sbuf, scount, stype, rbuf, rcount, rtype, root, comm));
}

int MPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf, int rcount,
                 MPI_Datatype rtype, MPI_Comm comm)
{
    TF_MPI_RECORDED(TRACEFOLD_MPI_ALLTOALL, comm, -1, -1, tf_mpi_bytes(rcount, rtype),
                    PMPI_Alltoall(sbuf, scount, stype, rbuf, rcount, rtype, comm));
}
