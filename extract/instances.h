/* SPDX-License-Identifier: BSD-3-Clause */
/* Region instances: the begin/end pairs of named regions on each thread,
 * nested or not.  The first step of extraction; `info` and `fold` build on it. */
#ifndef TF_EXTRACT_INSTANCES_H
#define TF_EXTRACT_INSTANCES_H

#include <stddef.h>
#include <stdint.h>

#include "formats/trace.h"

enum tf_instance_status {
    TF_INSTANCE_COMPLETE = 0,  /* begin and end found */
    TF_INSTANCE_NO_END = 1,    /* the thread's events ended inside the region */
    TF_INSTANCE_MISMATCHED = 2,/* closed by the end of an enclosing region */
};

typedef struct tf_instance {
    uint32_t proc, thread;     /* indexes in the trace */
    uint32_t region;           /* string id of the region name */
    uint32_t depth;            /* regions open around it at its begin (0: outermost) */
    uint64_t begin, end;       /* ns; end = last event time when not complete */
    size_t   begin_event;      /* index in the thread's events */
    size_t   end_event;        /* index of the end event (begin_event when none) */
    uint8_t  status;           /* enum tf_instance_status */
} tf_instance;

/* Instances that no event marks (extract/iteration_find.h), folded as a
 * region named `name`. */
typedef struct tf_region_given {
    const char        *name;
    const tf_instance *v;      /* (process, thread, begin) order, all complete */
    size_t             n;
} tf_region_given;

/* All instances of one region (string id), or of every region when
 * region == UINT32_MAX, in (process, thread, begin) order.  *out is
 * malloc'ed; free() it. */
int tf_instances_find(const tf_trace *tr, uint32_t region, tf_instance **out, size_t *n,
                      tf_error *err);

typedef struct tf_region_stats {
    uint32_t region;           /* string id */
    size_t   count;            /* complete instances */
    size_t   incomplete;       /* instances without a proper end */
    uint64_t total;            /* sum of complete durations, ns */
    uint64_t min, median, max; /* durations of complete instances, ns */
} tf_region_stats;

/* One entry per region name seen in the trace, sorted by total time,
 * largest first.  *out is malloc'ed; free() it. */
int tf_region_stats_compute(const tf_trace *tr, tf_region_stats **out, size_t *n,
                            tf_error *err);

/* The region `fold` folds when none is named: the repeated one (at least
 * 2 complete instances) that covers the most time; NULL when none repeats.
 * st as tf_region_stats_compute gives it. */
const tf_region_stats *tf_region_stats_main(const tf_region_stats *st, size_t n);

#endif
