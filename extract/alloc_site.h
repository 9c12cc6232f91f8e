/* SPDX-License-Identifier: BSD-3-Clause */
/* The call site of a heap allocation: the first frame of its allocation
 * stack that is the program's, not an allocator's (the C library's
 * malloc family, operator new, the C++ standard library's allocators, the
 * Fortran runtime, the allocation wrappers the user names) nor a small
 * helper in a header that only passes the request on.  The rule is
 * documented in docs/algorithms.md, "Data objects: call sites". */
#ifndef TF_EXTRACT_ALLOC_SITE_H
#define TF_EXTRACT_ALLOC_SITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolize.h"

/* Routines the user names as allocators: a frame whose routine is NAME
 * (template arguments aside) or whose linkage name is NAME is skipped like
 * malloc's. */
typedef struct tf_alloc_rules {
    const char       **wrappers;    /* --alloc-wrapper NAME of fold, info, paraver */
    size_t             nwrappers;
    const char        *recorded;    /* the trace's, comma-separated
                                       (tf_trace_alloc_wrappers); NULL: none */
} tf_alloc_rules;

/* The call site of the allocation whose stack (return addresses,
 * innermost first) is frames[0..n): "file.c:LINE:COLUMN" into site and its
 * routine (the source name, "" when unknown) into routine, *found true.
 * rules may be NULL.  *found is false, nothing written, when no frame has
 * a source line.  Fails only when symbolising does (out of memory). */
int tf_alloc_site(tf_symbolizer *sym, const uint64_t *frames, uint32_t n,
                  const tf_alloc_rules *rules, char *site, size_t site_size, char *routine,
                  size_t routine_size, bool *found, tf_error *err);

/* True for a file under the system's library folders (the dynamic
 * linker's defaults, ld.so(8), and their multiarch folders) or a recorder
 * library: code and data that are not the program's own. */
bool tf_system_library(const char *path);

#endif
