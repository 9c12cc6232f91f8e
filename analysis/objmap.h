/* SPDX-License-Identifier: BSD-3-Clause */
/* Data addresses → data objects, by address and lifetime, for one process;
 * and the identity of an object across processes, so that the same
 * allocation in processes with different address layouts (ASLR) becomes one
 * object of the analysis, addressed by offset from its start. */
#ifndef TF_ANALYSIS_OBJMAP_H
#define TF_ANALYSIS_OBJMAP_H

#include "analysis.h"
#include "extract/object_names.h"
#include "formats/trace.h"

typedef struct tf_analysis_objmap tf_analysis_objmap;

/* The objects of process proc, named by tf_object_names into naming
 * (object_names.h: heap objects by call site; the objects of one family,
 * as a temporary allocated anew each iteration, share one name), interned
 * into a->objects by kind and name, in allocation order: one analysis
 * object per family, its allocations counted (the names copied).
 * Built in O(n) for n objects; lookups then take O(log² n). */
int tf_analysis_objmap_create(tf_analysis_objmap **m, tf_analysis *a, const tf_trace *tr, uint32_t proc,
                              const tf_object_naming *naming, tf_error *err);

/* The analysis object holding addr at time t (ns, trace time) and the
 * offset of addr in it.  An address in no object maps to the object
 * "[unknown]" at its absolute address.  Among overlapping live objects, a
 * user region comes first (it groups allocations on purpose), then the
 * smallest. */
int tf_analysis_objmap_lookup(tf_analysis_objmap *m, tf_analysis *a, uint64_t addr, uint64_t t,
                              uint32_t *object, uint64_t *offset, tf_error *err);
/* The same without interning anything: false when addr falls in no object,
 * *object then being the "[unknown]" object of an earlier lookup that
 * found none (TF_ANALYSIS_NONE before any). */
bool tf_analysis_objmap_find(const tf_analysis_objmap *m, uint64_t addr, uint64_t t, uint32_t *object,
                             uint64_t *offset);

void tf_analysis_objmap_free(tf_analysis_objmap *m);

#endif
