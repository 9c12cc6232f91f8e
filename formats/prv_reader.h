/* SPDX-License-Identifier: BSD-3-Clause */
/* Streaming reader of Paraver .prv traces (plain or gzip-compressed): the
 * header, then one record at a time.  Format notes: docs/paraver.md. */
#ifndef TF_PRV_READER_H
#define TF_PRV_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/tf_error.h"

/* The longest line read, in bytes: longer is not a Paraver trace (a real
 * header of 100 000 tasks takes about 1 MiB).  It bounds the read buffer,
 * also when the input holds no newline at all. */
#define TF_PRV_MAX_LINE (16u << 20)

/* Threads a header may declare: TF_PRV_THREADS_FREE, plus one for every
 * TF_PRV_BYTES_PER_THREAD bytes of the file (see check_thread_count). */
#define TF_PRV_THREADS_FREE      256u
#define TF_PRV_BYTES_PER_THREAD  16u

typedef struct tf_prv_task {
    uint32_t nthreads;
    uint32_t node;          /* 1-based node the threads run on */
} tf_prv_task;

typedef struct tf_prv_appl {
    uint32_t     ntasks;
    tf_prv_task *tasks;
} tf_prv_appl;

typedef struct tf_prv_header {
    char         date[64];      /* free text between the parentheses */
    uint64_t     end_time;      /* in the trace's unit */
    uint64_t     unit_ns;       /* ns per time unit: 1 (_ns), 1000 (none, _us), 1000000 (_ms) */
    uint32_t     nnodes;        /* 0: no resource information */
    uint32_t    *node_cpus;     /* CPUs of each node */
    uint32_t     ncpus;         /* sum of node_cpus */
    uint32_t     nappls;
    tf_prv_appl *appls;
    uint32_t     ncomms;
    char       **comms;         /* communicator lines, verbatim */
} tf_prv_header;

/* The Paraver object a record belongs to; all indices 1-based, cpu 0 = none. */
typedef struct tf_prv_object {
    uint32_t cpu, appl, task, thread;
} tf_prv_object;

/* Event values are signed 64-bit in Paraver; values written without a sign
 * up to 2^64-1 are accepted too and kept as their two's-complement bits. */
typedef struct tf_prv_pair {
    uint32_t type;
    uint64_t value;
} tf_prv_pair;

enum tf_prv_kind { TF_PRV_STATE = 1, TF_PRV_EVENT = 2, TF_PRV_COMM = 3 };

typedef struct tf_prv_record {
    uint8_t       kind;         /* enum tf_prv_kind */
    tf_prv_object obj;          /* the thread (sender for communications) */
    uint32_t      thread_index; /* 0-based index of obj over all threads: applications,
                                   then tasks, then threads in header order */
    uint64_t      time;         /* state begin, event time, logical send */
    /* state */
    uint64_t      end;
    uint32_t      state;
    /* event: npairs type/value pairs, owned by the reader until the next call */
    size_t        npairs;
    tf_prv_pair  *pairs;
    /* communication */
    uint64_t      psend, lrecv, precv;
    tf_prv_object partner;
    uint64_t      size, tag;
} tf_prv_record;

typedef struct tf_prv_reader tf_prv_reader;

/* Opens path and parses the header and the communicator lines.  Strict:
 * the first malformed record fails with the file and line; lenient: bad
 * records are counted and skipped (a bad header always fails). */
int  tf_prv_open(tf_prv_reader **r, const char *path, bool lenient, tf_error *err);
void tf_prv_close(tf_prv_reader *r);

const tf_prv_header *tf_prv_get_header(const tf_prv_reader *r);
/* Total threads over all applications. */
uint32_t tf_prv_nthreads(const tf_prv_header *h);

/* Next record: 1 with *rec filled, 0 at the end, < 0 on error. */
int  tf_prv_next(tf_prv_reader *r, tf_prv_record *rec, tf_error *err);

/* Lenient mode: records skipped so far, and the message of the first. */
uint64_t    tf_prv_skipped(const tf_prv_reader *r);
const char *tf_prv_first_skip(const tf_prv_reader *r);
/* Line number of the last record returned; bytes of text consumed. */
uint64_t tf_prv_line(const tf_prv_reader *r);
uint64_t tf_prv_bytes(const tf_prv_reader *r);

void tf_prv_header_free(tf_prv_header *h);

#endif
