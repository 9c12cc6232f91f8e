/* SPDX-License-Identifier: BSD-3-Clause */
/* What one run knows of a trace's code and data objects: a symboliser and
 * the objects' names (tf_object_names) per process, each made when first
 * asked for and then kept, so that every output of the run that names
 * code or objects (the analysis of every group, the synthetic Paraver
 * trace, the raw Paraver export) resolves an address once and names an
 * object the same way.  Not thread-safe: one thread at a time (libdw is
 * not known to be thread-safe either). */
#ifndef TF_EXTRACT_TRACE_NAMES_H
#define TF_EXTRACT_TRACE_NAMES_H

#include <stdint.h>

#include "common/tf_error.h"
#include "extract/alloc_site.h"
#include "extract/object_names.h"
#include "extract/symbolize.h"
#include "formats/trace.h"

typedef struct tf_trace_names tf_trace_names;

/* For tr (may be NULL: nothing is known, every question answered with
 * nothing), which must outlive *tn.  debug_dir (may be NULL): where
 * binaries and debug files are looked up by build-id; rules (may be
 * NULL: the built-in ones) is copied, its arrays must outlive *tn. */
int tf_trace_names_create(tf_trace_names **tn, const tf_trace *tr, const char *debug_dir,
                          const tf_alloc_rules *rules, tf_error *err);

const tf_trace *tf_trace_names_trace(const tf_trace_names *tn);

/* Process proc's symboliser (*sym NULL without a trace or past its
 * processes), valid until tf_trace_names_free. */
int tf_trace_names_symbolizer(tf_trace_names *tn, uint32_t proc, tf_symbolizer **sym,
                              tf_error *err);

/* Process proc's objects named with its symboliser and the rules (*naming
 * NULL without a trace or past its processes), valid until
 * tf_trace_names_free. */
int tf_trace_names_objects(tf_trace_names *tn, uint32_t proc, const tf_object_naming **naming,
                           tf_error *err);

void tf_trace_names_free(tf_trace_names *tn);

#endif
