/* SPDX-License-Identifier: BSD-3-Clause */
#include "open_trace.h"

/* The Paraver importer replaces this with a dispatch on the file name. */
int tf_cli_open_trace(const char *path, tf_trace **tr, tf_error *err)
{
    return tf_trace_open(tr, path, err);
}

void tf_cli_close_trace(tf_trace *tr)
{
    tf_trace_close(tr);
}
