/* SPDX-License-Identifier: BSD-3-Clause */
/* The fold team over MPI (built when configure finds MPI).  The team has a
 * communicator of its own, so nothing else the process might do with MPI
 * can match its messages. */
#include "config.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <mpi.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "fold_team_start.h"
#include "common/tf_launcher.h"

struct mpi_team {
    tf_fold_team team;
    MPI_Comm comm;
    pthread_mutex_t lock;    /* team.lock, when MPI allows several threads */
};

#define TAG 1
/* MPI counts are ints: large arrays travel in pieces. */
#define PIECE ((size_t)INT_MAX / 2)

/* Open MPI and MPICH wait for a message by polling: a CPU at full load
 * for as long as the wait lasts.  A rank waits for another's work at
 * times (a member for the leader's next request while the leader reads
 * or writes the outputs, the leader for a member's results or points),
 * and on a machine with as many CPUs as ranks a polling wait takes the
 * CPU that the rank it waits for, or the leader's output threads, need:
 * under mpirun -np 2 on two CPUs the member's and the leader's polling
 * took a second of CPU from the outputs' threads of a 64 x 3000 fold
 * (bench/RESULTS.md, "Waits that sleep").  So every wait tests its
 * requests now and then, sleeping in between, and takes a message up at
 * most POLL_NS late. */
#define POLL_NS 100000

static int wait_idle(MPI_Request *req, int n)
{
    for (;;) {
        int done = 0;
        if (MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
            return -1;
        if (done)
            return 0;
        struct timespec pause = { 0, POLL_NS };
        nanosleep(&pause, NULL);
    }
}

/* The requests of parts started (transfer_parts), for their wait. */
struct started {
    size_t n;
    MPI_Request req[];
};

/* The parts as messages of at most PIECE bytes each,
 * all started, then waited for together (or, with started_out, left to
 * mpi_sent_wait); a part of 0 bytes is no message on either side. */
static int transfer_parts(struct mpi_team *m, bool send, int peer, const tf_team_part *parts,
                          size_t n, struct started **started_out)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++)
        count += (parts[i].bytes + PIECE - 1) / PIECE;
    struct started *st = malloc(sizeof *st + (count + 1) * sizeof *st->req);
    if (!st)
        return -1;
    MPI_Request *req = st->req;
    size_t started = 0;
    int rc = MPI_SUCCESS;
    for (size_t i = 0; i < n && rc == MPI_SUCCESS; i++) {
        /* MPI_Isend takes a const buffer since MPI 3; recvv's parts are
         * the receiver's own arrays, for it to write */
        char *buf = (char *)(uintptr_t)parts[i].buf;
        for (size_t at = 0; at < parts[i].bytes && rc == MPI_SUCCESS; at += PIECE) {
            size_t len = parts[i].bytes - at < PIECE ? parts[i].bytes - at : PIECE;
            rc = send ? MPI_Isend(buf + at, (int)len, MPI_BYTE, peer, TAG, m->comm, &req[started])
                      : MPI_Irecv(buf + at, (int)len, MPI_BYTE, peer, TAG, m->comm, &req[started]);
            started += rc == MPI_SUCCESS;
        }
    }
    st->n = started;
    if (rc == MPI_SUCCESS && started_out) {
        *started_out = st;
        return 0;
    }
    /* What was started is waited for, also after a failure: the buffers
     * must not be freed under MPI's feet. */
    if (wait_idle(req, (int)started) < 0)
        rc = MPI_ERR_OTHER;
    free(st);
    return rc == MPI_SUCCESS ? 0 : -1;
}

static int mpi_pending(void *ctx, int from)
{
    struct mpi_team *m = ctx;
    int flag = 0;
    if (MPI_Iprobe(from == TF_TEAM_ANY ? MPI_ANY_SOURCE : from, TAG, m->comm, &flag,
                   MPI_STATUS_IGNORE) != MPI_SUCCESS)
        return -1;
    return flag != 0;
}

static int mpi_send(void *ctx, int to, const void *buf, size_t bytes)
{
    tf_team_part part = { buf, bytes };
    return transfer_parts(ctx, true, to, &part, 1, NULL);
}

static int mpi_recv(void *ctx, int from, void *buf, size_t bytes)
{
    tf_team_part part = { buf, bytes };
    return transfer_parts(ctx, false, from, &part, 1, NULL);
}

static int mpi_sendv(void *ctx, int to, const tf_team_part *parts, size_t n)
{
    return transfer_parts(ctx, true, to, parts, n, NULL);
}

static int mpi_recvv(void *ctx, int from, const tf_team_part *parts, size_t n)
{
    return transfer_parts(ctx, false, from, parts, n, NULL);
}

static int mpi_sendv_start(void *ctx, int to, const tf_team_part *parts, size_t n,
                           void **started)
{
    struct started *st = NULL;
    int rc = transfer_parts(ctx, true, to, parts, n, &st);
    *started = st;
    return rc;
}

/* A started send waits for its receiver, which takes it up as its own
 * work allows. */
static int mpi_sent_wait(void *ctx, void *started)
{
    struct started *st = started;
    (void)ctx;
    if (!st)
        return 0;
    int rc = wait_idle(st->req, (int)st->n);
    free(st);
    return rc;
}

int tf_fold_team_start(tf_fold_team **team, tf_error *err)
{
    *team = NULL;
    if (tf_launcher_size() < 2)
        return 0;
    int initialised = 0, provided = MPI_THREAD_SINGLE;
    MPI_Initialized(&initialised);
    /* The leader's output steps, on threads of their own, fetch the
     * members' points, one thread at a time (team.lock). */
    if (!initialised &&
        MPI_Init_thread(NULL, NULL, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
        return tf_fail(err, TF_ERR_IO, "MPI_Init failed: cannot fold in parallel");
    if (initialised)
        MPI_Query_thread(&provided);
    struct mpi_team *m = calloc(1, sizeof *m);
    if (!m) {
        /* The other ranks wait for this one: only an abort ends them. */
        MPI_Abort(MPI_COMM_WORLD, 1);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the MPI team");
    }
    int size = 1, rank = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_dup(MPI_COMM_WORLD, &m->comm);
    m->team = (tf_fold_team){
        .size = size, .rank = rank, .ctx = m,
        .send = mpi_send, .recv = mpi_recv, .sendv = mpi_sendv, .recvv = mpi_recvv,
        .sendv_start = mpi_sendv_start, .sent_wait = mpi_sent_wait, .pending = mpi_pending,
    };
    if (provided >= MPI_THREAD_SERIALIZED && pthread_mutex_init(&m->lock, NULL) == 0)
        m->team.lock = &m->lock;
    if (size < 2) {
        /* The launcher started several processes, but MPI cannot reach it
         * (srun without --mpi=pmix, say): each process is a world of its
         * own and would fold alone into the same OUTDIR. */
        tf_fold_team_stop(&m->team);
        if (tf_launcher_rank() > 0)
            return -TF_ERR_UNSUPPORTED;
        return tf_fail(err, TF_ERR_UNSUPPORTED,
                       "started as %d ranks, but MPI sees a world of 1 (a launcher MPI "
                       "cannot reach, such as srun without --mpi=pmix): run one tracefold "
                       "fold, or launch the ranks so that MPI joins them (mpirun, srun "
                       "--mpi=pmix)", tf_launcher_size());
    }
    *team = &m->team;
    return 0;
}

void tf_fold_team_stop(tf_fold_team *team)
{
    if (!team)
        return;
    struct mpi_team *m = team->ctx;
    MPI_Comm_free(&m->comm);
    if (team->lock)
        pthread_mutex_destroy(team->lock);
    free(m);
    MPI_Finalize();
}

void tf_fold_team_abort(tf_fold_team *team)
{
    struct mpi_team *m = team->ctx;
    MPI_Abort(m->comm, 1);
}
