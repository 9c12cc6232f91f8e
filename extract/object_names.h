/* SPDX-License-Identifier: BSD-3-Clause */
/* The names of a process's data objects: the one place they are made, so
 * that `info`, the fold's tables, the report and the synthetic Paraver
 * trace call an object alike. */
#ifndef TF_EXTRACT_OBJECT_NAMES_H
#define TF_EXTRACT_OBJECT_NAMES_H

#include <stddef.h>
#include <stdint.h>

#include "symbolize.h"
#include "trace.h"

/* One name per object of process proc, in the order of its objects table
 * (names[i] for objects[i]), each malloc'ed, the array too
 * (tf_object_names_free).  The label: a heap object's recorded call site;
 * else the object's name (a static's variable, a user region's name);
 * else the call site, or the allocation stack's first frame symbolised
 * with sym (may be NULL) as a return address, "file.c:LINE:COLUMN"
 * (tf_sym_location_label); else "stack@PROC.ID" or "object@PROC.ID".
 * The Nth object (N >= 2) of one kind and label in allocation order gets
 * "#N" (the second allocation from one call site is "site#2" in every
 * process, whatever its addresses).  *names is NULL for a process without
 * objects.  Unless order is NULL, *order (malloc'ed, NULL without objects)
 * gets the objects' indexes in allocation order (time, then id). */
int  tf_object_names(const tf_trace *tr, uint32_t proc, tf_symbolizer *sym, char ***names,
                     size_t **order, tf_error *err);
void tf_object_names_free(char **names, size_t n);

#endif
