/* SPDX-License-Identifier: BSD-3-Clause */
/* Conversion of an Extrae/Paraver trace (.prv or .prv.gz, with the .pcf and
 * .row beside it when present) into a tracefold trace, with Extrae's
 * meanings: counter deltas accumulated per thread, user functions as
 * regions, sampled callers and lines as samples with call stacks and
 * symbols, memory samples, dynamic memory as data objects.  The mapping is
 * documented in docs/paraver.md ("Reading Extrae traces"). */
#ifndef TF_PRV_IMPORT_H
#define TF_PRV_IMPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "trace.h"

typedef struct tf_prv_import_stats {
    uint64_t records;        /* .prv records read */
    uint64_t skipped;        /* bad records skipped (lenient mode) */
    char     first_skip[600];/* the first of them, "line N: what" */
    uint64_t events, samples, objects, regions;
    uint32_t counters;
    bool     have_pcf, have_row;
} tf_prv_import_stats;

typedef void (*tf_prv_progress_fn)(void *arg, uint64_t done, uint64_t total);

/* Writes h5_path atomically (nothing is left behind on error).  progress
 * (may be NULL) gets bytes of .prv text read and the file size. */
int tf_prv_import(const char *prv_path, const char *h5_path, bool lenient,
                  tf_prv_progress_fn progress, void *progress_arg,
                  tf_prv_import_stats *stats, tf_error *err);

/* The /paraver group of an imported trace: for each region, the Paraver
 * event type and value it came from and their .pcf labels, so region specs
 * "TYPE=VALUE" resolve (either side numeric or a label). */
#define TF_PRV_IMPORT_GROUP "paraver"

/* Resolves spec against the /paraver group of tr: *name gets the region
 * name (malloc'ed).  TF_ERR_NOTFOUND when tr was not imported from Paraver
 * or no region matches (the message lists what the trace has). */
int tf_prv_region_resolve(const tf_trace *tr, const char *spec, char **name, tf_error *err);

#endif
