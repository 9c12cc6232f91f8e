/* SPDX-License-Identifier: BSD-3-Clause */
/* The CLI's one place for messages to the user: errors, warnings, notes,
 * and progress lines that appear only when stderr is a terminal. */
#ifndef TF_CLI_MSG_H
#define TF_CLI_MSG_H

#include <stdbool.h>
#include <stdint.h>

#include "common/tf_error.h"

/* Exit codes, documented in docs/manual.md ("Exit status"). */
enum tf_exit {
    TF_EXIT_OK = 0,        /* success */
    TF_EXIT_FAILURE = 1,   /* bad input, processing or output error */
    TF_EXIT_USAGE = 2,     /* wrong command line */
};

void tf_msg_set_program(const char *name);   /* "tracefold fold" */
void tf_msg_set_quiet(bool quiet);           /* drops notes and progress */
/* Drops every message, errors too: for a process whose messages another
 * one gives (a fold team's member while it does what its leader does). */
void tf_msg_set_silent(bool silent);

void tf_msg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tf_msg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void tf_msg_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints err->msg as an error and returns TF_EXIT_FAILURE. */
int  tf_msg_fail(const tf_error *err);
/* Prints a usage error with a pointer to --help; returns TF_EXIT_USAGE. */
int  tf_msg_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Progress of long work on a terminal: "what: 42%".  Silent when stderr is
 * not a terminal or in quiet mode; rate-limited, so it is cheap to call. */
void tf_progress(const char *what, uint64_t done, uint64_t total);
void tf_progress_done(void);

#endif
