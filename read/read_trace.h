/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal to libtracefold-read: the body of the opaque tracefold_trace,
 * shared by the files of the trace reader. */
#ifndef TF_READ_TRACE_H
#define TF_READ_TRACE_H

#include "extract/instances.h"
#include "extract/object_names.h"
#include "formats/trace.h"
#include "tracefold/read.h"

struct tracefold_trace {
    tf_trace        *trace;
    tf_region_stats *regions;          /* as `tracefold info` lists them */
    size_t           nregions;
    tracefold_instance **instances;    /* [nregions], each found on first use */
    size_t          *ninstances;       /* [nregions] */
    tf_object_naming *object_names;    /* [nprocesses], each made on first use */
    tf_alloc_rules   alloc_rules;      /* tracefold_trace_set_alloc_wrappers's */
    char           **wrapper_names;    /* the copies alloc_rules.wrappers points to */
};

/* Checks a process (and, unless thread is UINT32_MAX, a thread) index;
 * 0, or the error naming the file and the index. */
int tf_read_check_thread(const tracefold_trace *t, uint32_t process, uint32_t thread,
                         tracefold_error *err);

#endif
