/* SPDX-License-Identifier: BSD-3-Clause */
/* Starting a program under the recorder: the job of `tracefold record`
 * once its options are resolved (cli/cmd_record.c parses them and says
 * what went wrong).  The program gets the options as TRACEFOLD_*
 * variables and the recorder library preloaded, then the calling process
 * becomes the trace writer (tracefold-writer, cli/record_writer.c) on the
 * session's directory, which loads HDF5 while the program starts.
 * Nothing here needs more than the C library. */
#ifndef TF_RECORD_LAUNCH_H
#define TF_RECORD_LAUNCH_H

#include <stdbool.h>

#include "common/tf_error.h"
#include "record/tf_options.h"

typedef struct tf_launch {
    const tf_options *opt;
    const char *library;     /* libtracefold.so */
    const char *mpi_layer;   /* libtracefold-mpi.so, preloaded too; NULL: none */
    const char *writer;      /* tracefold-writer */
    bool        quiet;
    char *const *argv;       /* the program and its arguments, NULL-terminated */
} tf_launch;

/* Before the program starts, so that no run is wasted, what is known of
 * the trace's name already: the whole name when the pattern uses neither
 * %p nor %e (its folders are made, an existing file is refused as the
 * writer would refuse it), else its folders when their names use neither
 * (made, with a placeholder for the file).  -1 with err when the trace
 * cannot be written. */
int tf_launch_prepare_output(const tf_options *o, tf_error *err);

/* Makes the session, the program's environment, starts the program and
 * becomes the writer: returns only when that failed (err says why, the
 * program killed if it had started). */
int tf_launch_run(const tf_launch *l, tf_error *err);

/* The helper of a linked program: the options go to the writer, which
 * this process becomes on the program's session dir.  Returns only when
 * that failed. */
int tf_launch_helper(const tf_options *o, const char *writer, const char *dir, tf_error *err);

#endif
