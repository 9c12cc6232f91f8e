/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal to libtracefold-read: the library's errors are the project's
 * (common/tf_error.h) handed to the caller as the public tracefold_error. */
#ifndef TF_READ_ERROR_H
#define TF_READ_ERROR_H

#include "common/tf_error.h"
#include "tracefold/read.h"

/* Copies e into out (out may be NULL) and returns -e->code. */
int tf_read_error(tracefold_error *out, const tf_error *e);

/* A failure found by this layer itself (an index out of range): the
 * message, with its context, into out; returns -code. */
int tf_read_fail(tracefold_error *out, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
