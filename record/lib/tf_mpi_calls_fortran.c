/* SPDX-License-Identifier: BSD-3-Clause */
/* The Fortran entry points (mpif.h and `use mpi`, gfortran's lower case
 * with a trailing underscore) of the calls tf_mpi_calls.c records.  Open
 * MPI's Fortran layer calls the C profiling entries directly (its
 * mpi_send_ calls PMPI_Send), so the C wrappers never see a Fortran
 * program's calls.  Each wrapper records what its C twin records, from the
 * handles translated to C, and passes the caller's own arguments to the
 * Fortran profiling entry (pmpi_send_), so that Fortran's MPI_BOTTOM,
 * MPI_IN_PLACE and MPI_STATUS_IGNORE keep the meaning MPI gives them. */
#include "config.h"

#include <stdlib.h>

#include "tf_mpi.h"
#include "tracefold_mpi.h"

/* The integers of one Fortran status: MPI 4.0 names it MPI_F_STATUS_SIZE;
 * older C headers (Open MPI 4) lack it, and there a Fortran status mirrors
 * the C struct (Open MPI 6 integers, MPICH 5). */
#ifdef MPI_F_STATUS_SIZE
#define F_STATUS_SIZE MPI_F_STATUS_SIZE
#else
#define F_STATUS_SIZE (sizeof(MPI_Status) / sizeof(MPI_Fint))
#endif

void pmpi_send_(const void *buf, const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *dest,
                const MPI_Fint *tag, const MPI_Fint *comm, MPI_Fint *ierr);
void pmpi_isend_(const void *buf, const MPI_Fint *count, const MPI_Fint *type,
                 const MPI_Fint *dest, const MPI_Fint *tag, const MPI_Fint *comm, MPI_Fint *req,
                 MPI_Fint *ierr);
void pmpi_recv_(void *buf, const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *source,
                const MPI_Fint *tag, const MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr);
void pmpi_irecv_(void *buf, const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *source,
                 const MPI_Fint *tag, const MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr);
void pmpi_sendrecv_(const void *sbuf, const MPI_Fint *scount, const MPI_Fint *stype,
                    const MPI_Fint *dest, const MPI_Fint *stag, void *rbuf, const MPI_Fint *rcount,
                    const MPI_Fint *rtype, const MPI_Fint *source, const MPI_Fint *rtag,
                    const MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr);
void pmpi_wait_(MPI_Fint *req, MPI_Fint *status, MPI_Fint *ierr);
void pmpi_waitall_(const MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *statuses, MPI_Fint *ierr);
void pmpi_test_(MPI_Fint *req, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr);
void pmpi_testall_(const MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *flag, MPI_Fint *statuses,
                   MPI_Fint *ierr);
void pmpi_waitany_(const MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *index, MPI_Fint *status,
                   MPI_Fint *ierr);
void pmpi_waitsome_(const MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *outcount, MPI_Fint *indices,
                    MPI_Fint *statuses, MPI_Fint *ierr);
void pmpi_barrier_(const MPI_Fint *comm, MPI_Fint *ierr);
void pmpi_bcast_(void *buf, const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *root,
                 const MPI_Fint *comm, MPI_Fint *ierr);
void pmpi_reduce_(const void *sbuf, void *rbuf, const MPI_Fint *count, const MPI_Fint *type,
                  const MPI_Fint *op, const MPI_Fint *root, const MPI_Fint *comm, MPI_Fint *ierr);
void pmpi_allreduce_(const void *sbuf, void *rbuf, const MPI_Fint *count, const MPI_Fint *type,
                     const MPI_Fint *op, const MPI_Fint *comm, MPI_Fint *ierr);

void mpi_send_(const void *buf, const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *dest,
               const MPI_Fint *tag, const MPI_Fint *comm, MPI_Fint *ierr);
void mpi_isend_(const void *buf, const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *dest,
                const MPI_Fint *tag, const MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr);
void mpi_recv_(void *buf, const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *source,
               const MPI_Fint *tag, const MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr);
void mpi_irecv_(void *buf, const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *source,
                const MPI_Fint *tag, const MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr);
void mpi_sendrecv_(const void *sbuf, const MPI_Fint *scount, const MPI_Fint *stype,
                   const MPI_Fint *dest, const MPI_Fint *stag, void *rbuf, const MPI_Fint *rcount,
                   const MPI_Fint *rtype, const MPI_Fint *source, const MPI_Fint *rtag,
                   const MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr);
void mpi_wait_(MPI_Fint *req, MPI_Fint *status, MPI_Fint *ierr);
void mpi_waitall_(const MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *statuses, MPI_Fint *ierr);
void mpi_test_(MPI_Fint *req, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr);
void mpi_testall_(const MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *flag, MPI_Fint *statuses,
                  MPI_Fint *ierr);
void mpi_waitany_(const MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *index, MPI_Fint *status,
                  MPI_Fint *ierr);
void mpi_waitsome_(const MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *outcount, MPI_Fint *indices,
                   MPI_Fint *statuses, MPI_Fint *ierr);
void mpi_barrier_(const MPI_Fint *comm, MPI_Fint *ierr);
void mpi_bcast_(void *buf, const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *root,
                const MPI_Fint *comm, MPI_Fint *ierr);
void mpi_reduce_(const void *sbuf, void *rbuf, const MPI_Fint *count, const MPI_Fint *type,
                 const MPI_Fint *op, const MPI_Fint *root, const MPI_Fint *comm, MPI_Fint *ierr);
void mpi_allreduce_(const void *sbuf, void *rbuf, const MPI_Fint *count, const MPI_Fint *type,
                    const MPI_Fint *op, const MPI_Fint *comm, MPI_Fint *ierr);

/* The world rank of rank `rank` of Fortran communicator comm. */
static int world_rank(const MPI_Fint *comm, const MPI_Fint *rank)
{
    return tf_mpi_world_rank(PMPI_Comm_f2c(*comm), (int)*rank);
}

static uint64_t bytes(const MPI_Fint *count, const MPI_Fint *type)
{
    return tf_mpi_bytes((int)*count, PMPI_Type_f2c(*type));
}

/* A Fortran status in C, false when it cannot be read. */
static bool c_status(const MPI_Fint *f, MPI_Status *c)
{
    return PMPI_Status_f2c(f, c) == MPI_SUCCESS;
}

void mpi_send_(const void *buf, const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *dest,
               const MPI_Fint *tag, const MPI_Fint *comm, MPI_Fint *ierr)
{
    if (!tf_mpi_calls) {
        pmpi_send_(buf, count, type, dest, tag, comm, ierr);
        return;
    }
    tf_mpi_enter(TRACEFOLD_MPI_SEND, world_rank(comm, dest), bytes(count, type));
    tf_mpi_tag((int)*tag);
    pmpi_send_(buf, count, type, dest, tag, comm, ierr);
    tf_mpi_leave();
}

void mpi_isend_(const void *buf, const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *dest,
                const MPI_Fint *tag, const MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)
{
    if (!tf_mpi_calls) {
        pmpi_isend_(buf, count, type, dest, tag, comm, req, ierr);
        return;
    }
    tf_mpi_enter(TRACEFOLD_MPI_ISEND, world_rank(comm, dest), bytes(count, type));
    tf_mpi_tag((int)*tag);
    pmpi_isend_(buf, count, type, dest, tag, comm, req, ierr);
    tf_mpi_leave();
}

void mpi_recv_(void *buf, const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *source,
               const MPI_Fint *tag, const MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)
{
    if (!tf_mpi_calls) {
        pmpi_recv_(buf, count, type, source, tag, comm, status, ierr);
        return;
    }
    MPI_Fint own[F_STATUS_SIZE];
    MPI_Fint *st = status == MPI_F_STATUS_IGNORE ? own : status;
    MPI_Status cst;
    tf_mpi_enter(TRACEFOLD_MPI_RECV, -1, 0);
    pmpi_recv_(buf, count, type, source, tag, comm, st, ierr);
    if (*ierr == MPI_SUCCESS && c_status(st, &cst))
        tf_mpi_got(PMPI_Comm_f2c(*comm), PMPI_Type_f2c(*type), &cst);
    tf_mpi_leave();
}

void mpi_irecv_(void *buf, const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *source,
                const MPI_Fint *tag, const MPI_Fint *comm, MPI_Fint *req, MPI_Fint *ierr)
{
    if (!tf_mpi_calls) {
        pmpi_irecv_(buf, count, type, source, tag, comm, req, ierr);
        return;
    }
    int partner = world_rank(comm, source);
    tf_mpi_enter(TRACEFOLD_MPI_IRECV, partner, bytes(count, type));
    tf_mpi_tag((int)*tag);
    pmpi_irecv_(buf, count, type, source, tag, comm, req, ierr);
    /* named by its C handle, as the wait that completes it names it */
    if (*ierr == MPI_SUCCESS && tf_mpi_request_traceable(PMPI_Comm_f2c(*comm), (int)*source, partner))
        tf_mpi_request(PMPI_Request_f2c(*req));
    tf_mpi_leave();
}

void mpi_sendrecv_(const void *sbuf, const MPI_Fint *scount, const MPI_Fint *stype,
                   const MPI_Fint *dest, const MPI_Fint *stag, void *rbuf, const MPI_Fint *rcount,
                   const MPI_Fint *rtype, const MPI_Fint *source, const MPI_Fint *rtag,
                   const MPI_Fint *comm, MPI_Fint *status, MPI_Fint *ierr)
{
    if (!tf_mpi_calls) {
        pmpi_sendrecv_(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm,
                       status, ierr);
        return;
    }
    MPI_Fint own[F_STATUS_SIZE];
    MPI_Fint *st = status == MPI_F_STATUS_IGNORE ? own : status;
    MPI_Status cst;
    tf_mpi_enter(TRACEFOLD_MPI_SENDRECV, world_rank(comm, dest), bytes(scount, stype));
    tf_mpi_tag((int)*stag);
    pmpi_sendrecv_(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, source, rtag, comm, st,
                   ierr);
    if (*ierr == MPI_SUCCESS && c_status(st, &cst))
        tf_mpi_received(PMPI_Comm_f2c(*comm), &cst, false, MPI_REQUEST_NULL);
    tf_mpi_leave();
}

void mpi_wait_(MPI_Fint *req, MPI_Fint *status, MPI_Fint *ierr)
{
    if (!tf_mpi_calls) {
        pmpi_wait_(req, status, ierr);
        return;
    }
    MPI_Fint own[F_STATUS_SIZE];
    MPI_Fint *st = status == MPI_F_STATUS_IGNORE ? own : status;
    MPI_Request handle = PMPI_Request_f2c(*req);
    MPI_Status cst;
    tf_mpi_enter(TRACEFOLD_MPI_WAIT, -1, 0);
    pmpi_wait_(req, st, ierr);
    if (*ierr == MPI_SUCCESS && handle != MPI_REQUEST_NULL && c_status(st, &cst))
        tf_mpi_received(MPI_COMM_WORLD, &cst, true, handle);
    tf_mpi_leave();
}

void mpi_test_(MPI_Fint *req, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr)
{
    if (!tf_mpi_calls) {
        pmpi_test_(req, flag, status, ierr);
        return;
    }
    MPI_Fint own[F_STATUS_SIZE];
    MPI_Fint *st = status == MPI_F_STATUS_IGNORE ? own : status;
    MPI_Request handle = PMPI_Request_f2c(*req);
    MPI_Status cst;
    tf_mpi_enter(TRACEFOLD_MPI_TEST, -1, 0);
    pmpi_test_(req, flag, st, ierr);
    if (*ierr == MPI_SUCCESS && *flag && handle != MPI_REQUEST_NULL && c_status(st, &cst))
        tf_mpi_received(MPI_COMM_WORLD, &cst, true, handle);
    tf_mpi_leave();
}

/* ---- completions of several requests -------------------------------------
 * As in tf_mpi_calls.c: the C handles of the requests are kept before the
 * call (MPI frees them), and the statuses are ours when the caller ignores
 * them.  Up to SMALL requests on the stack; more are allocated, and when
 * that fails the call is recorded without its completions. */
enum { SMALL = 32 };

typedef struct completions {
    MPI_Request  handles_small[SMALL];
    MPI_Fint     statuses_small[SMALL * F_STATUS_SIZE];
    MPI_Request *handles;
    MPI_Fint    *statuses;    /* the caller's, or ours when it ignores them */
    bool         own, ok;
} completions;

static void completions_begin(completions *c, const MPI_Fint *n, const MPI_Fint *reqs,
                              MPI_Fint *statuses)
{
    size_t count = *n > 0 ? (size_t)*n : 0;
    c->handles = count > SMALL ? malloc(count * sizeof *c->handles) : c->handles_small;
    c->own = statuses == MPI_F_STATUSES_IGNORE;
    c->statuses = !c->own       ? statuses
                  : count > SMALL ? malloc(count * F_STATUS_SIZE * sizeof *c->statuses)
                                  : c->statuses_small;
    c->ok = *n >= 0 && c->handles && c->statuses;
    for (size_t i = 0; c->ok && i < count; i++)
        c->handles[i] = PMPI_Request_f2c(reqs[i]);
}

/* The status array for the call: ours only when complete. */
static MPI_Fint *completions_statuses(const completions *c, MPI_Fint *statuses)
{
    return c->ok ? c->statuses : statuses;
}

/* Request i (from 0) completed with the k-th status of the array. */
static void completed(const completions *c, size_t i, size_t k)
{
    MPI_Status cst;
    if (c->ok && c->handles[i] != MPI_REQUEST_NULL &&
        c_status(c->statuses + k * F_STATUS_SIZE, &cst))
        tf_mpi_received(MPI_COMM_WORLD, &cst, true, c->handles[i]);
}

static void completions_end(completions *c)
{
    if (c->handles != c->handles_small)
        free(c->handles);
    if (c->own && c->statuses != c->statuses_small)
        free(c->statuses);
}

void mpi_waitall_(const MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *statuses, MPI_Fint *ierr)
{
    if (!tf_mpi_calls) {
        pmpi_waitall_(n, reqs, statuses, ierr);
        return;
    }
    completions c;
    completions_begin(&c, n, reqs, statuses);
    tf_mpi_enter(TRACEFOLD_MPI_WAITALL, -1, 0);
    pmpi_waitall_(n, reqs, completions_statuses(&c, statuses), ierr);
    for (MPI_Fint i = 0; *ierr == MPI_SUCCESS && i < *n; i++)
        completed(&c, (size_t)i, (size_t)i);
    tf_mpi_leave();
    completions_end(&c);
}

void mpi_testall_(const MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *flag, MPI_Fint *statuses,
                  MPI_Fint *ierr)
{
    if (!tf_mpi_calls) {
        pmpi_testall_(n, reqs, flag, statuses, ierr);
        return;
    }
    completions c;
    completions_begin(&c, n, reqs, statuses);
    tf_mpi_enter(TRACEFOLD_MPI_TESTALL, -1, 0);
    pmpi_testall_(n, reqs, flag, completions_statuses(&c, statuses), ierr);
    for (MPI_Fint i = 0; *ierr == MPI_SUCCESS && *flag && i < *n; i++)
        completed(&c, (size_t)i, (size_t)i);
    tf_mpi_leave();
    completions_end(&c);
}

/* Fortran's indices count from 1 (MPI 4.0, section 19.3.3). */
void mpi_waitany_(const MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *index, MPI_Fint *status,
                  MPI_Fint *ierr)
{
    if (!tf_mpi_calls) {
        pmpi_waitany_(n, reqs, index, status, ierr);
        return;
    }
    MPI_Fint own[F_STATUS_SIZE];
    MPI_Fint *st = status == MPI_F_STATUS_IGNORE ? own : status;
    completions c;
    completions_begin(&c, n, reqs, st);
    tf_mpi_enter(TRACEFOLD_MPI_WAITANY, -1, 0);
    pmpi_waitany_(n, reqs, index, st, ierr);
    if (*ierr == MPI_SUCCESS && *index != MPI_UNDEFINED && *index >= 1 && *index <= *n)
        completed(&c, (size_t)(*index - 1), 0);
    tf_mpi_leave();
    completions_end(&c);
}

void mpi_waitsome_(const MPI_Fint *n, MPI_Fint *reqs, MPI_Fint *outcount, MPI_Fint *indices,
                   MPI_Fint *statuses, MPI_Fint *ierr)
{
    if (!tf_mpi_calls) {
        pmpi_waitsome_(n, reqs, outcount, indices, statuses, ierr);
        return;
    }
    completions c;
    completions_begin(&c, n, reqs, statuses);
    tf_mpi_enter(TRACEFOLD_MPI_WAITSOME, -1, 0);
    pmpi_waitsome_(n, reqs, outcount, indices, completions_statuses(&c, statuses), ierr);
    for (MPI_Fint k = 0; *ierr == MPI_SUCCESS && *outcount != MPI_UNDEFINED && k < *outcount; k++)
        if (indices[k] >= 1 && indices[k] <= *n)
            completed(&c, (size_t)(indices[k] - 1), (size_t)k);
    tf_mpi_leave();
    completions_end(&c);
}

void mpi_barrier_(const MPI_Fint *comm, MPI_Fint *ierr)
{
    if (!tf_mpi_calls) {
        pmpi_barrier_(comm, ierr);
        return;
    }
    tf_mpi_enter(TRACEFOLD_MPI_BARRIER, -1, 0);
    pmpi_barrier_(comm, ierr);
    tf_mpi_leave();
}

void mpi_bcast_(void *buf, const MPI_Fint *count, const MPI_Fint *type, const MPI_Fint *root,
                const MPI_Fint *comm, MPI_Fint *ierr)
{
    if (!tf_mpi_calls) {
        pmpi_bcast_(buf, count, type, root, comm, ierr);
        return;
    }
    tf_mpi_enter(TRACEFOLD_MPI_BCAST, world_rank(comm, root), bytes(count, type));
    pmpi_bcast_(buf, count, type, root, comm, ierr);
    tf_mpi_leave();
}

void mpi_reduce_(const void *sbuf, void *rbuf, const MPI_Fint *count, const MPI_Fint *type,
                 const MPI_Fint *op, const MPI_Fint *root, const MPI_Fint *comm, MPI_Fint *ierr)
{
    if (!tf_mpi_calls) {
        pmpi_reduce_(sbuf, rbuf, count, type, op, root, comm, ierr);
        return;
    }
    tf_mpi_enter(TRACEFOLD_MPI_REDUCE, world_rank(comm, root), bytes(count, type));
    pmpi_reduce_(sbuf, rbuf, count, type, op, root, comm, ierr);
    tf_mpi_leave();
}

void mpi_allreduce_(const void *sbuf, void *rbuf, const MPI_Fint *count, const MPI_Fint *type,
                    const MPI_Fint *op, const MPI_Fint *comm, MPI_Fint *ierr)
{
    if (!tf_mpi_calls) {
        pmpi_allreduce_(sbuf, rbuf, count, type, op, comm, ierr);
        return;
    }
    tf_mpi_enter(TRACEFOLD_MPI_ALLREDUCE, -1, bytes(count, type));
    pmpi_allreduce_(sbuf, rbuf, count, type, op, comm, ierr);
    tf_mpi_leave();
}
