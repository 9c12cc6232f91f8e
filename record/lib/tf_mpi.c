/* SPDX-License-Identifier: BSD-3-Clause */
/* libtracefold-mpi: the recorder's MPI layer.  Its MPI_Init,
 * MPI_Init_thread and MPI_Finalize (profiling interface: they call the PMPI_
 * versions) give the recorder the process's rank, the world size and the
 * node layout, and switch the call wrappers (tf_mpi_calls.c) on when the
 * option mpi-calls asks for them.  The collectives of the layout run on
 * every rank whether or not its recorder is on, so a rank whose recorder
 * stood aside cannot make the others wait. */
#include "config.h"

#include <string.h>

#include "tf_mpi.h"
#include "tracefold.h"
#include "tracefold_mpi.h"

bool tf_mpi_calls;

typedef struct tf_mpi_layout {
    int rank, size, node, nodes, local_rank, local_size;
} tf_mpi_layout;

/* Ranks sharing memory form a node; the lowest world rank of each node
 * leads it, and the leaders, ordered by world rank, number the nodes. */
static void find_layout(tf_mpi_layout *l)
{
    PMPI_Comm_rank(MPI_COMM_WORLD, &l->rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &l->size);
    l->node = 0;
    l->nodes = 1;
    l->local_rank = 0;
    l->local_size = 1;
    MPI_Comm local, leaders;
    if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local) !=
        MPI_SUCCESS)
        return;
    PMPI_Comm_rank(local, &l->local_rank);
    PMPI_Comm_size(local, &l->local_size);
    int node[2] = {0, 1};
    if (PMPI_Comm_split(MPI_COMM_WORLD, l->local_rank == 0 ? 0 : MPI_UNDEFINED, l->rank,
                        &leaders) == MPI_SUCCESS &&
        leaders != MPI_COMM_NULL) {
        PMPI_Comm_rank(leaders, &node[0]);
        PMPI_Comm_size(leaders, &node[1]);
        PMPI_Comm_free(&leaders);
    }
    PMPI_Bcast(node, 2, MPI_INT, 0, local);
    PMPI_Comm_free(&local);
    l->node = node[0];
    l->nodes = node[1];
}

void tf_mpi_started(void)
{
    tf_mpi_layout l;
    find_layout(&l);
    tracefold_init();
    /* Through the public API: libtracefold exports nothing else
     * (record/lib/libtracefold.map). */
    int calls = tracefold_mpi_rank(l.rank, l.size);
    if (calls < 0)
        return;
    tracefold_event(TRACEFOLD_MPI_EVENT_RANK, (uint64_t)l.rank);
    tracefold_event(TRACEFOLD_MPI_EVENT_SIZE, (uint64_t)l.size);
    tracefold_event(TRACEFOLD_MPI_EVENT_NODE, (uint64_t)l.node);
    tracefold_event(TRACEFOLD_MPI_EVENT_NODES, (uint64_t)l.nodes);
    tracefold_event(TRACEFOLD_MPI_EVENT_LOCAL_RANK, (uint64_t)l.local_rank);
    tracefold_event(TRACEFOLD_MPI_EVENT_LOCAL_SIZE, (uint64_t)l.local_size);
    tf_mpi_calls = calls > 0;
}

void tf_mpi_finishing(void)
{
    tf_mpi_calls = false;
    tracefold_flush();
}

void tf_mpi_enter(int call, int partner, uint64_t bytes)
{
    tracefold_event(TRACEFOLD_MPI_EVENT_CALL, (uint64_t)call);
    tf_mpi_peer(partner, bytes);
}

void tf_mpi_peer(int partner, uint64_t bytes)
{
    if (partner >= 0)
        tracefold_event(TRACEFOLD_MPI_EVENT_PARTNER, (uint64_t)partner);
    if (bytes)
        tracefold_event(TRACEFOLD_MPI_EVENT_BYTES, bytes);
}

void tf_mpi_got(MPI_Comm comm, MPI_Datatype type, const MPI_Status *st)
{
    int got = 0;
    if (PMPI_Get_count(st, type, &got) != MPI_SUCCESS || got == MPI_UNDEFINED)
        return;
    tf_mpi_peer(tf_mpi_world_rank(comm, st->MPI_SOURCE), tf_mpi_bytes(got, type));
    tf_mpi_tag(st->MPI_TAG);
}

void tf_mpi_tag(int tag)
{
    if (tag >= 0)
        tracefold_event(TRACEFOLD_MPI_EVENT_TAG, (uint64_t)tag);
}

/* The handle's bits: a pointer in Open MPI, an int in MPICH.  A handle is
 * reused once its request is freed, which a wait does: the request a
 * completion names is the last one posted with that handle before it. */
static uint64_t handle_bits(MPI_Request req)
{
    uint64_t bits = 0;
    memcpy(&bits, &req, sizeof req < sizeof bits ? sizeof req : sizeof bits);
    return bits;
}

/* Whether the ranks of comm are those of MPI_COMM_WORLD (the world or a
 * duplicate of it), so that a status's source is a world rank. */
static bool world_ranks(MPI_Comm comm)
{
    int same = MPI_UNEQUAL;
    return comm == MPI_COMM_WORLD ||
           (PMPI_Comm_compare(comm, MPI_COMM_WORLD, &same) == MPI_SUCCESS &&
            (same == MPI_IDENT || same == MPI_CONGRUENT));
}

bool tf_mpi_request_traceable(MPI_Comm comm, int source, int partner)
{
    return partner >= 0 || (source == MPI_ANY_SOURCE && world_ranks(comm));
}

void tf_mpi_request(MPI_Request req)
{
    tracefold_event(TRACEFOLD_MPI_EVENT_REQUEST, handle_bits(req));
}

void tf_mpi_received(MPI_Comm comm, const MPI_Status *st, bool req, MPI_Request handle)
{
    if (req)
        tracefold_event(TRACEFOLD_MPI_EVENT_COMPLETED, handle_bits(handle));
    /* A completed send request's status carries no source (MPI 4.0,
     * section 3.2.5): nothing more is known then. */
    int source = st->MPI_SOURCE >= 0 ? tf_mpi_world_rank(comm, st->MPI_SOURCE) : -1;
    if (source < 0)
        return;
    tracefold_event(TRACEFOLD_MPI_EVENT_RECV_SOURCE, (uint64_t)source);
    if (st->MPI_TAG >= 0)
        tracefold_event(TRACEFOLD_MPI_EVENT_RECV_TAG, (uint64_t)st->MPI_TAG);
}

void tf_mpi_leave(void)
{
    tracefold_event(TRACEFOLD_MPI_EVENT_CALL, 0);
}

int tf_mpi_world_rank(MPI_Comm comm, int rank)
{
    if (rank < 0)
        return -1;   /* MPI_PROC_NULL, MPI_ANY_SOURCE */
    if (comm == MPI_COMM_WORLD)
        return rank;
    MPI_Group group, world;
    int out = -1;
    if (PMPI_Comm_group(comm, &group) != MPI_SUCCESS)
        return -1;
    if (PMPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS) {
        if (PMPI_Group_translate_ranks(group, 1, &rank, world, &out) != MPI_SUCCESS ||
            out == MPI_UNDEFINED)
            out = -1;
        PMPI_Group_free(&world);
    }
    PMPI_Group_free(&group);
    return out;
}

uint64_t tf_mpi_bytes(int count, MPI_Datatype type)
{
    int size = 0;
    if (count <= 0 || PMPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        tf_mpi_started();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        tf_mpi_started();
    return rc;
}

int MPI_Finalize(void)
{
    tf_mpi_finishing();
    return PMPI_Finalize();
}
