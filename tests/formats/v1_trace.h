/* SPDX-License-Identifier: BSD-3-Clause */
/* Version-1 traces for the tests: version 1 stored every string as an
 * HDF5 variable-length string (the /strings table and the string
 * attributes), kept in global heap collections.  The conversion rewrites a
 * version-2 trace in that old layout, as tracefold before format version 2
 * wrote it (docs/trace-format.md, "Version 1"). */
#ifndef TF_TEST_V1_TRACE_H
#define TF_TEST_V1_TRACE_H

#include <stddef.h>

/* Rewrites the HDF5 file at path in the version-1 layout: every string
 * attribute variable-length, each string table named in tables (a
 * NULL-terminated list of dataset names, as the last part of their path)
 * a table of variable-length strings, and the root's version 1.  Returns
 * 0, or -1 with the reason in why.  Fold files too (tables
 * "counter_names" and "counter_units"). */
int v1_convert(const char *path, const char *const *tables, char *why, size_t whylen);
/* The same for a trace, whose one string table is /strings. */
int v1_trace_convert(const char *path, char *why, size_t whylen);

#endif
