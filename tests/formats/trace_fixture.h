/* SPDX-License-Identifier: BSD-3-Clause */
/* A small, fully populated trace for the formats tests and make_bad_trace:
 * 1 process with 3 counters and 2 threads, every table non-empty; the one
 * object's allocation stack is the 3 process frames. */
#ifndef TF_TEST_TRACE_FIXTURE_H
#define TF_TEST_TRACE_FIXTURE_H

#include "formats/trace.h"

#define FIXTURE_COUNTERS 3
#define FIXTURE_THREADS 2
#define FIXTURE_EVENTS 6      /* per thread */
#define FIXTURE_SAMPLES 100   /* per thread */

/* A fresh scratch directory under the current one (the build tree), and
 * its removal with everything in it. */
char *fixture_tmpdir(void);
void fixture_rmtree(char *dir);

/* cmocka group set-up and tear-down: fixture_dir is a scratch directory
 * for the whole test program. */
extern char *fixture_dir;
int fixture_setup(void **state);
int fixture_teardown(void **state);

/* NULL when rc and err show a failure with that code and a message holding
 * every one of the NULL-terminated parts; else what differs. */
const char *fixture_error_mismatch(int rc, const tf_error *err, int code,
                                   const char *const *parts);

/* In cmocka tests: call (which may use `err`) must succeed ... */
#define OK(call)                                                        \
    do {                                                                \
        tf_error e_ = { 0 };                                            \
        tf_error *err = &e_;                                            \
        if ((call) < 0)                                                 \
            fail_msg("%s: %s", #call, e_.msg);                          \
    } while (0)
/* ... or fail with code and a message that contains each given part. */
#define FAILS(call, code, ...)                                          \
    do {                                                                \
        tf_error e_ = { 0 };                                            \
        tf_error *err = &e_;                                            \
        const char *why_ = fixture_error_mismatch(                      \
            (call), &e_, code, (const char *const[]){ __VA_ARGS__, NULL }); \
        if (why_)                                                       \
            fail_msg("%s: %s", #call, why_);                            \
    } while (0)
/* dir/name, malloc'ed. */
char *fixture_path(const char *dir, const char *name);

/* HDF5 identifiers still open in the process (files, groups, datasets,
 * types, attributes): 0 after every trace or output is closed, on success
 * and failure paths alike. */
long fixture_open_hdf5_ids(void);

/* Writes the fixture trace to path; returns 0 or a negative tf_error code. */
int fixture_write(const char *path, unsigned flags, tf_error *err);

/* The fixture's strings: the region's name is also its routine's and the
 * module's, the object's name also the routine's source file. */
typedef struct fixture_strings {
    const char *host, *command_line, *executable, *region, *object;
    const char *counters[FIXTURE_COUNTERS];
} fixture_strings;
/* Strings holding terminal escape sequences, line breaks, DEL, C1 controls
 * and bytes that are not UTF-8, for the tests of what outputs show. */
extern const fixture_strings fixture_hostile_strings;
/* fixture_write with other strings. */
int fixture_write_strings(const char *path, unsigned flags, const fixture_strings *str,
                          tf_error *err);

#endif
