/* SPDX-License-Identifier: BSD-3-Clause */
/* A tracefold trace written as a raw Paraver trace: regions as user
 * functions, samples with their callers and lines, counters as Extrae-style
 * deltas, memory samples, data objects; MPI calls as states, Extrae's MPI
 * events and communications (prv_mpi.h).  Type numbers: docs/paraver.md. */
#ifndef TF_PRV_EXPORT_H
#define TF_PRV_EXPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "trace.h"

typedef struct tf_prv_source {
    const char *function;   /* "" when unknown */
    const char *file;       /* "" when unknown */
    uint32_t    line;       /* 0 when unknown */
} tf_prv_source;

/* Resolves an instruction address of process proc (return_address: a call
 * stack frame above the first, to be looked up at ip - 1).  The strings
 * must stay valid until the export ends. */
typedef int (*tf_prv_symbolize_fn)(void *arg, uint32_t proc, uint64_t ip, bool return_address,
                                   tf_prv_source *src, tf_error *err);

typedef struct tf_prv_export_stats {
    uint64_t records, events, samples, objects;
    uint64_t messages;                          /* communication records */
    uint64_t unmatched_sends, unmatched_recvs;  /* MPI messages with one side only */
    uint32_t threads;
} tf_prv_export_stats;

/* Writes out_path (.prv or .prv.gz) with its .pcf and .row.  symbolize may
 * be NULL: the trace's own symbols table is used then.  object_names, when
 * not NULL, labels the data objects as every other output does
 * (tf_prv_objects_init_named). */
int tf_prv_export_raw(tf_trace *tr, const char *out_path, tf_prv_symbolize_fn symbolize,
                      void *arg, char **const *object_names, tf_prv_export_stats *stats,
                      tf_error *err);

#endif
