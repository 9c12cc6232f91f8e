/* SPDX-License-Identifier: BSD-3-Clause */
/* The names of a process's data objects: the one place they are made, so
 * that `info`, the fold's tables, the report and the synthetic Paraver
 * trace call an object alike. */
#ifndef TF_EXTRACT_OBJECT_NAMES_H
#define TF_EXTRACT_OBJECT_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "alloc_site.h"
#include "symbolize.h"
#include "formats/trace.h"

/* The names of one process's objects, in the order of its objects table
 * (names[i] for objects[i]).  The strings are interned: names and
 * routines point into strings[0..nstrings), which tf_object_naming_free
 * frees. */
typedef struct tf_object_naming {
    size_t  n;
    char  **names;
    char  **routines;   /* the call site's routine, "" when none (not a heap
                           object named from its allocation stack) */
    size_t *order;      /* the objects' indexes in allocation order (time, then id) */
    char  **strings;
    size_t  nstrings;
} tf_object_naming;

/* Names the objects of process proc.  The label: a heap object's recorded
 * call site; else the object's name (a static's variable, a user region's
 * name); else the call site, or the allocation's call site found in its
 * stack with sym (may be NULL) through allocator layers (alloc_site.h,
 * rules may be NULL; the wrappers the trace names count too),
 * "file.c:LINE:COLUMN"; else "stack@PROC.ID" or
 * "object@PROC.ID".
 * Objects of one kind and label form families: in allocation order, each
 * joins the first family whose last object was freed by then (a
 * temporary allocated anew every iteration is one family), else starts a
 * new one; the Nth family (N >= 2) is "label#N" (two blocks from one site
 * alive together, in every process whatever its addresses).  Small
 * blocks (TF_OBJECT_SMALL) of one label are one family named label: a
 * matrix stored as a block per row is one object.
 * out->names is NULL for a process without objects. */
int  tf_object_names(const tf_trace *tr, uint32_t proc, tf_symbolizer *sym,
                     const tf_alloc_rules *rules, tf_object_naming *out, tf_error *err);
void tf_object_naming_free(tf_object_naming *naming);

/* Whether object i of process proc is the system's rather than the
 * program's: a static variable of a system library or of the recorder
 * (tf_system_library), or small blocks allocated from one.  `tracefold
 * info` lists them only when asked. */
bool tf_object_is_system(const tf_trace *tr, uint32_t proc, size_t i);

#endif
