/* SPDX-License-Identifier: BSD-3-Clause */
#include "open_trace.h"

#include <stdlib.h>
#include <string.h>

/* The Paraver importer replaces this with a dispatch on the file name. */
int tf_cli_open_trace(const char *path, tf_trace **tr, tf_error *err)
{
    return tf_trace_open(tr, path, err);
}

void tf_cli_close_trace(tf_trace *tr)
{
    tf_trace_close(tr);
}

/* The Paraver importer extends this to TYPE=VALUE specs. */
int tf_cli_region_name(const tf_trace *tr, const char *spec, char **name, tf_error *err)
{
    if (strchr(spec, '='))
        return tf_fail(err, TF_ERR_USAGE,
                       "%s: region '%s': TYPE=VALUE specs apply to Paraver traces only",
                       tf_trace_path(tr), spec);
    *name = strdup(spec);
    return *name ? 0 : tf_fail(err, TF_ERR_NOMEM, "out of memory");
}
