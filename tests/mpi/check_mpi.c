/* SPDX-License-Identifier: BSD-3-Clause */
/* Reads one rank's trace of an MPI run and prints what libtracefold-mpi
 * recorded, one key=value line: the process's rank and size attributes,
 * the layout events (rank, size, nodes, ranks on the node), the number of
 * MPI call entries, of partners and the bytes summed, and the distinct
 * partner ranks.  The test script compares these across the ranks. */
#include <inttypes.h>
#include <stdio.h>

#include "formats/trace.h"
#include "tracefold_mpi.h"

static void layout(const tf_event *e, int64_t lay[6])
{
    if (e->type >= TRACEFOLD_MPI_EVENT_RANK && e->type <= TRACEFOLD_MPI_EVENT_LOCAL_SIZE)
        lay[e->type - TRACEFOLD_MPI_EVENT_RANK] = (int64_t)e->value;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: check_mpi TRACE\n");
        return 2;
    }
    tf_trace *tr;
    tf_error err;
    if (tf_trace_open(&tr, argv[1], &err)) {
        fprintf(stderr, "check_mpi: %s\n", err.msg);
        return 1;
    }
    int64_t lay[6] = {-1, -1, -1, -1, -1, -1};
    uint64_t calls = 0, partners = 0, bytes = 0, peers = 0;   /* peers: bit per rank < 64 */
    const tf_process *p = tf_trace_process(tr, 0);
    for (uint32_t t = 0; p && t < p->nthreads; t++) {
        for (size_t i = 0; i < p->threads[t].nevents; i++) {
            const tf_event *e = &p->threads[t].events[i];
            if (e->kind != TF_EVENT_USER)
                continue;
            layout(e, lay);
            calls += e->type == TRACEFOLD_MPI_EVENT_CALL && e->value;
            if (e->type == TRACEFOLD_MPI_EVENT_PARTNER) {
                partners++;
                peers |= e->value < 64 ? 1ull << e->value : 0;
            }
            bytes += e->type == TRACEFOLD_MPI_EVENT_BYTES ? e->value : 0;
        }
    }
    printf("rank=%" PRId32 " nranks=%" PRId32 " ev_rank=%" PRId64 " ev_size=%" PRId64
           " node=%" PRId64 " nodes=%" PRId64 " local_rank=%" PRId64 " local_size=%" PRId64
           " calls=%" PRIu64 " partners=%" PRIu64 " bytes=%" PRIu64 " peers=0x%" PRIx64 "\n",
           p ? p->rank : -1, p ? p->nranks : 0, lay[0], lay[1], lay[2], lay[3], lay[4], lay[5],
           calls, partners, bytes, peers);
    tf_trace_close(tr);
    return 0;
}
