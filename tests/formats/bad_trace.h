/* SPDX-License-Identifier: BSD-3-Clause */
/* Bad traces, one per kind of damage, for the reader's error tests and for
 * other modules' CLI tests (through the make_bad_trace program). */
#ifndef TF_TEST_BAD_TRACE_H
#define TF_TEST_BAD_TRACE_H

#include <stddef.h>

/* The name of mode i ("empty", "not-hdf5", "truncated", ...), NULL past the last. */
const char *bad_trace_mode(size_t i);

/* Writes the damaged trace of that mode to path.  Returns 0, or -1 with the
 * reason in why. */
int bad_trace_make(const char *mode, const char *path, char *why, size_t whylen);

#endif
