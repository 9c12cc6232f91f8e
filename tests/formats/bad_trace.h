/* SPDX-License-Identifier: BSD-3-Clause */
/* Bad traces, one per kind of damage, for the reader's error tests and for
 * other modules' CLI tests (through the make_bad_trace program). */
#ifndef TF_TEST_BAD_TRACE_H
#define TF_TEST_BAD_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The name of mode i ("empty", "not-hdf5", "truncated", ...), NULL past the last. */
const char *bad_trace_mode(size_t i);

/* Writes the damaged trace of that mode to path.  Returns 0, or -1 with the
 * reason in why. */
int bad_trace_make(const char *mode, const char *path, char *why, size_t whylen);

/* Replaces the dataset name of the HDF5 file by one that claims more than
 * the file holds (docs/trace-format.md, "The extent rule"): the old one's
 * element type and chunk shape (65536 rows when it was not chunked),
 * deflate, rows rows of which only the first `stored` are written, with
 * bytes that do not compress (a fixed pseudo-random sequence); fill gives
 * it a fill value of its own (zero bytes), as the numeric datasets of
 * fold.h5 once had.  libhdf5 reads the unwritten rows as fill values, so a
 * reader that believed the extent would allocate all the rows.  0, or -1. */
int bad_trace_claim(int64_t file, const char *name, uint64_t rows, uint64_t stored, bool fill);

#endif
