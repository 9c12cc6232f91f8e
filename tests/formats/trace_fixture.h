/* SPDX-License-Identifier: BSD-3-Clause */
/* A small, fully populated trace for the formats tests and make_bad_trace:
 * 1 process with 3 counters and 2 threads, every table non-empty. */
#ifndef TF_TEST_TRACE_FIXTURE_H
#define TF_TEST_TRACE_FIXTURE_H

#include "trace.h"

#define FIXTURE_COUNTERS 3
#define FIXTURE_THREADS 2
#define FIXTURE_EVENTS 6      /* per thread */
#define FIXTURE_SAMPLES 100   /* per thread */

/* A fresh scratch directory under the current one (the build tree), and
 * its removal with everything in it. */
char *fixture_tmpdir(void);
void fixture_rmtree(char *dir);
/* dir/name, malloc'ed. */
char *fixture_path(const char *dir, const char *name);

/* HDF5 identifiers still open in the process (files, groups, datasets,
 * types, attributes): 0 after every trace or writer is closed, on success
 * and failure paths alike. */
long fixture_open_hdf5_ids(void);

/* Writes the fixture trace to path; returns 0 or a negative tf_error code. */
int fixture_write(const char *path, unsigned flags, tf_error *err);

#endif
