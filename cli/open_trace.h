/* SPDX-License-Identifier: BSD-3-Clause */
/* Opens any trace a command accepts: a tracefold HDF5 trace, or a Paraver
 * trace (.prv, .prv.gz) converted on the fly. */
#ifndef TF_CLI_OPEN_TRACE_H
#define TF_CLI_OPEN_TRACE_H

#include "fold/fold_result.h"
#include "formats/prv_import.h"
#include "formats/trace.h"

int tf_cli_open_trace(const char *path, tf_trace **tr, tf_error *err);
/* Several tracefold HDF5 traces, or one directory of them (its *.h5 files),
 * opened as one multi-process trace (tf_trace_open_set: processes by MPI
 * rank); one path that is not a directory is tf_cli_open_trace. */
int tf_cli_open_traces(char *const *paths, size_t n, tf_trace **tr, tf_error *err);
/* The path the user gave for tr: a Paraver trace's own, not the temporary
 * HDF5 it was converted to (tf_trace_path's). */
const char *tf_cli_trace_source(const tf_trace *tr);
/* Closes the trace and removes any temporary conversion. */
void tf_cli_close_trace(tf_trace *tr);

/* Turns a --region argument into a region name of the trace: a plain name is
 * taken as it is; a Paraver spec TYPE=VALUE (either side numeric or a .pcf
 * label, e.g. "User function=main", "60000019=5") is resolved for traces
 * imported from Paraver.  *name is malloc'ed. */
int tf_cli_region_name(const tf_trace *tr, const char *spec, char **name, tf_error *err);

/* Paraver input: true for a .prv or .prv.gz path; lenient conversion counts
 * and skips bad records (a warning says how many) instead of failing. */
bool tf_cli_is_paraver(const char *path);
void tf_cli_set_lenient(bool lenient);
/* Warns about what a conversion of path left out: skipped records, the
 * labels of a missing .pcf. */
void tf_cli_report_import(const char *path, const tf_prv_import_stats *st);

#endif
