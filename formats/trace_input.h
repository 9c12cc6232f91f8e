/* SPDX-License-Identifier: BSD-3-Clause */
/* Opens any trace a command accepts: a tracefold HDF5 trace, or a Paraver
 * trace (.prv, .prv.gz) converted on the fly. */
#ifndef TF_FORMATS_TRACE_INPUT_H
#define TF_FORMATS_TRACE_INPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "prv_import.h"
#include "trace.h"

/* What the caller hears of a conversion: its progress, and when it is over
 * (done) what it left out (imported: skipped records, a missing .pcf);
 * any may be NULL.  The library prints nothing itself. */
typedef struct tf_input_hooks {
    tf_prv_progress_fn progress;
    void (*done)(void *arg);
    void (*imported)(void *arg, const char *path, const tf_prv_import_stats *st);
    void *arg;
} tf_input_hooks;
/* Set once, before the first trace is opened (hooks NULL: none). */
void tf_input_set_hooks(const tf_input_hooks *hooks);

int tf_input_open(const char *path, tf_trace **tr, tf_error *err);
/* Several tracefold HDF5 traces, or one directory of them (its *.h5 files),
 * opened as one multi-process trace (tf_trace_open_set: processes by MPI
 * rank); one path that is not a directory is tf_input_open. */
int tf_input_open_set(char *const *paths, size_t n, tf_trace **tr, tf_error *err);
/* The path the user gave for tr: a Paraver trace's own, not the temporary
 * HDF5 it was converted to (tf_trace_path's). */
const char *tf_input_source(const tf_trace *tr);
/* Closes the trace and removes any temporary conversion. */
void tf_input_close(tf_trace *tr);

/* Turns a --region argument into a region name of the trace: a plain name is
 * taken as it is; a Paraver spec TYPE=VALUE (either side numeric or a .pcf
 * label, e.g. "User function=main", "60000019=5") is resolved for traces
 * imported from Paraver.  *name is malloc'ed. */
int tf_input_region_name(const tf_trace *tr, const char *spec, char **name, tf_error *err);

/* Paraver input: true for a .prv or .prv.gz path; lenient conversion counts
 * and skips bad records (a warning says how many) instead of failing. */
bool tf_input_is_paraver(const char *path);
void tf_input_set_lenient(bool lenient);

#endif
