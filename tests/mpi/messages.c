/* SPDX-License-Identifier: BSD-3-Clause */
/* Two ranks exchange messages by every kind of point-to-point call the
 * recorder wraps, with distinct sizes and tags, and write each message
 * they send as "SENDER RECEIVER BYTES TAG" to PREFIX.RANK (messages
 * PREFIX): the test compares these
 * lines with the communication records of the raw Paraver export
 * (tests/mpi/prv_messages.sh).  Receives use wildcards too, so that the
 * partner and tag must come from the statuses. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { ROUNDS = 3, MAXN = 64 };

static FILE *out;

static void sent(int from, int to, int count, MPI_Datatype type, int tag)
{
    int size;
    MPI_Type_size(type, &size);
    fprintf(out, "%d %d %d %d\n", from, to, count * size, tag);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char path[4096];
    if (argc != 2 || snprintf(path, sizeof path, "%s.%d", argv[1], rank) >= (int)sizeof path ||
        size != 2 || !(out = fopen(path, "w"))) {
        fprintf(stderr, "usage: mpirun -np 2 messages PREFIX (writes PREFIX.RANK)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int peer = 1 - rank;
    double buf[MAXN], in[MAXN];
    memset(buf, 0, sizeof buf);
    for (int round = 0; round < ROUNDS; round++) {
        /* Blocking: rank 0 sends round + 1 doubles, tag 10 + round; rank 1
         * receives from any source with any tag, every other round. */
        if (rank == 0) {
            MPI_Send(buf, round + 1, MPI_DOUBLE, 1, 10 + round, MPI_COMM_WORLD);
            sent(0, 1, round + 1, MPI_DOUBLE, 10 + round);
        } else {
            MPI_Status st;
            MPI_Recv(in, MAXN, MPI_DOUBLE, round % 2 ? MPI_ANY_SOURCE : 0,
                     round % 2 ? MPI_ANY_TAG : 10 + round, MPI_COMM_WORLD, &st);
        }
        /* Immediate, both ways, two messages each: ints, tags 20 and 21,
         * completed by one Waitall (statuses ignored) or by two Waits. */
        MPI_Request req[4];
        int ibuf[2][8] = {{0}}, iin[2][8];
        for (int k = 0; k < 2; k++)
            MPI_Irecv(iin[k], 8, MPI_INT, k ? MPI_ANY_SOURCE : peer, 20 + k, MPI_COMM_WORLD,
                      &req[k]);
        for (int k = 0; k < 2; k++) {
            MPI_Isend(ibuf[k], 4 + k, MPI_INT, peer, 20 + k, MPI_COMM_WORLD, &req[2 + k]);
            sent(rank, peer, 4 + k, MPI_INT, 20 + k);
        }
        if (round % 2 == 0) {
            MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        } else {
            MPI_Wait(&req[1], MPI_STATUS_IGNORE);
            MPI_Wait(&req[0], MPI_STATUS_IGNORE);
            MPI_Waitall(2, req + 2, MPI_STATUSES_IGNORE);
        }
        /* Both at once: 2 doubles out, tag 30 + rank. */
        MPI_Sendrecv(buf, 2, MPI_DOUBLE, peer, 30 + rank, in, MAXN, MPI_DOUBLE, peer,
                     MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        sent(rank, peer, 2, MPI_DOUBLE, 30 + rank);
        /* Collectives: no message records, their own states. */
        double x = rank, sum;
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return fclose(out) == 0 ? 0 : 1;
}
