/* SPDX-License-Identifier: BSD-3-Clause */
/* The MPI calls a trace recorded (libtracefold-mpi with mpi-calls,
 * include/tracefold_mpi.h) as Paraver shows MPI in Extrae's traces: a state
 * per call, Extrae's MPI event types and values, and the messages as
 * communication records, each send matched with its receive.
 * docs/paraver.md ("MPI") gives the mapping and the matching rule. */
#ifndef TF_PRV_MPI_H
#define TF_PRV_MPI_H

#include <stdbool.h>
#include <stdint.h>

#include "prv_pcf.h"
#include "prv_reader.h"
#include "trace.h"

/* Extrae's MPI event types, and its states. */
#define TF_PRV_MPI_P2P        50000001u
#define TF_PRV_MPI_COLLECTIVE 50000002u
#define TF_PRV_MPI_OTHER      50000003u

enum tf_prv_state {
    TF_PRV_STATE_RUNNING = 1,
    TF_PRV_STATE_WAITING_MESSAGE = 3,
    TF_PRV_STATE_BLOCKING_SEND = 4,
    TF_PRV_STATE_SYNCHRONIZATION = 5,
    TF_PRV_STATE_TEST_PROBE = 6,
    TF_PRV_STATE_IMMEDIATE_SEND = 10,
    TF_PRV_STATE_IMMEDIATE_RECEIVE = 11,
    TF_PRV_STATE_GROUP_COMMUNICATION = 13,
    TF_PRV_STATE_SEND_RECEIVE = 16,
};

/* A call's time on a thread, in its state. */
typedef struct tf_prv_mpi_span {
    uint64_t begin, end;
    uint32_t state;
} tf_prv_mpi_span;

/* A message: the threads are stream indices (the threads of all processes,
 * process by process, in trace order). */
typedef struct tf_prv_mpi_message {
    uint32_t send_thread, recv_thread;
    uint64_t lsend, psend, lrecv, precv, size, tag;
} tf_prv_mpi_message;

typedef struct tf_prv_mpi {
    uint32_t            nthreads;
    tf_prv_mpi_span   **spans;      /* per thread, in time order */
    size_t             *nspans;
    tf_prv_mpi_message *messages;   /* by send time */
    size_t              nmessages;
    uint64_t            unmatched_sends, unmatched_recvs;
} tf_prv_mpi;

/* Reads the MPI call events of every thread of tr.  A trace without them
 * gives no span and no message. */
int  tf_prv_mpi_build(const tf_trace *tr, tf_prv_mpi *m, tf_error *err);
void tf_prv_mpi_free(tf_prv_mpi *m);

/* The Paraver type and value of call id `call` (enum tracefold_mpi_call);
 * false for an id this version does not know. */
bool tf_prv_mpi_call(uint64_t call, uint32_t *type, uint64_t *value);

/* An event of libtracefold-mpi as Paraver gets it: 1 with *out, 0 when the
 * export leaves it out (request handles, an unknown call), -1 when type is
 * not one of libtracefold-mpi's.  *label: the label of out's type, NULL for
 * the call types (tf_prv_mpi_labels has them).  *open: the Paraver type of
 * the call in progress on the thread, 0 for none, updated. */
int tf_prv_mpi_event(uint32_t type, uint64_t value, uint32_t *open, tf_prv_pair *out,
                     const char **label);

/* The states in pcf, and with_calls, the call types and their values. */
int tf_prv_mpi_labels(tf_pcf *pcf, bool with_calls, tf_error *err);

#endif
