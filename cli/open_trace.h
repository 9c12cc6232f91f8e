/* SPDX-License-Identifier: BSD-3-Clause */
/* Opens any trace a command accepts: a tracefold HDF5 trace, or a Paraver
 * trace (.prv, .prv.gz) converted on the fly. */
#ifndef TF_CLI_OPEN_TRACE_H
#define TF_CLI_OPEN_TRACE_H

#include "trace.h"

int tf_cli_open_trace(const char *path, tf_trace **tr, tf_error *err);
/* Closes the trace and removes any temporary conversion. */
void tf_cli_close_trace(tf_trace *tr);

#endif
