/* SPDX-License-Identifier: BSD-3-Clause */
/* The name of a process's trace, from the output pattern (the option
 * output: %p pid, %r rank, %h host, %e program, %% a percent sign), and
 * the file made ready for it (docs/recorder.md, "Output names").  Used by
 * the writer for every traced process and by `tracefold record` before
 * the program starts, where the name is already known. */
#ifndef TF_TRACE_NAME_H
#define TF_TRACE_NAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/tf_error.h"

typedef struct tf_trace_name_vars {
    int64_t     pid;
    int32_t     rank, nranks;    /* -1 and 0 when no launcher or MPI says */
    const char *host;
    const char *exe;             /* the program's path */
} tf_trace_name_vars;

/* The pattern expanded.  One of several ranks (a launcher's or MPI's
 * world of two or more) whose pattern has no %r gets its rank, four digits
 * or more, before the extension (t.h5: t.0002.h5 for rank 2), so that the
 * ranks' traces never collide. */
void tf_trace_name_expand(const char *pattern, const tf_trace_name_vars *v, char *buf,
                          size_t size);

/* Whether the pattern names the trace before the program starts: it uses
 * neither %p nor %e. */
bool tf_trace_name_known(const char *pattern);

/* Makes path ready to be created: its folders are made (as mkdir -p
 * would), and an existing file is refused unless force is given and ours
 * takes it for a tracefold trace (common/tf_output.h): tf_h5_is_trace, or
 * tf_h5_has_signature where libhdf5 is not loaded (formats/h5_probe.h). */
int tf_trace_name_prepare(const char *path, bool force, bool (*ours)(const char *path),
                          tf_error *err);

#endif
