/* SPDX-License-Identifier: BSD-3-Clause */
/* The Paraver exports' view of a run's symbolisers and object names
 * (extract/trace_names.h): routines and lines of code addresses in the
 * form the exports take them, and the objects' names of every process. */
#ifndef TF_PARAVER_SYMBOLS_H
#define TF_PARAVER_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/tf_error.h"
#include "extract/trace_names.h"
#include "formats/prv_export.h"

/* The routine and line of an address (innermost frame, inlined functions
 * included); "" and 0 when unknown.  A module without symbols gives its
 * file name as the routine.  arg: a tf_trace_names (the source callback of
 * tf_prv_export_raw). */
int tf_prv_symbols_resolve(void *arg, uint32_t proc, uint64_t ip, bool return_address,
                           tf_prv_source *src, tf_error *err);

/* The objects' names of every process of the names' trace, (*names)[proc]
 * [object] (a process without objects: NULL), as tf_object_names gives
 * them; *names NULL without a trace.  The strings are the names'; free the
 * array alone. */
int tf_prv_symbols_object_names(tf_trace_names *tn, char ****names, tf_error *err);

#endif
