/* SPDX-License-Identifier: BSD-3-Clause */
/* Which threads an instance covers (fold --region-scope).  With thread
 * scope an instance holds the samples of the thread that marked it; with
 * process scope an instance marked by one thread covers every other thread
 * of its process over the same interval (an OpenMP master marking the
 * iteration while the team's workers run its parallel loops).  Those
 * threads recorded no event at the instance's boundaries: their counters
 * there are interpolated between their own samples around each boundary. */
#ifndef TF_EXTRACT_REGION_SCOPE_H
#define TF_EXTRACT_REGION_SCOPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "instances.h"
#include "formats/trace.h"

enum tf_region_scope {
    TF_REGION_SCOPE_AUTO = 0,     /* process where the rule holds (docs/algorithms.md) */
    TF_REGION_SCOPE_THREAD = 1,
    TF_REGION_SCOPE_PROCESS = 2,
};

/* "auto", "thread", "process"; -1 for another name. */
int tf_region_scope_parse(const char *name);
/* The name tf_region_scope_parse takes ("?" for no scope). */
const char *tf_region_scope_name(enum tf_region_scope scope);

/* The instances of one region once the scope is applied. */
typedef struct tf_scoped_instances {
    tf_instance *v;          /* in (process, thread, begin) order; malloc'ed */
    size_t       n;
    /* [n]: offset in `values` of the instance's counter row at its begin
     * (the row at its end follows: the process's counter count later), or
     * SIZE_MAX when the thread's own events give the counters */
    size_t      *bound;
    uint64_t    *values;     /* TF_NOVALUE where a boundary has no sample on each side */
} tf_scoped_instances;

/* Applies `scope` to the instances (proc, thread, begin order) of one
 * region in tr, which it takes over (freed on failure too).  Auto: a
 * process's instances cover its other threads when one thread alone marks
 * the region and another thread has at least half of its samples inside
 * that thread's complete instances; those threads are covered.  Process:
 * every other thread with a sample inside the instances is covered; a
 * process with several marking threads is an error.  unmarked: no event
 * marks the instances (tf_region_given): the marking thread's counters at
 * their boundaries come from its samples too. */
int  tf_region_scope_apply(tf_trace *tr, uint32_t region, enum tf_region_scope scope,
                           bool unmarked, tf_instance *marked, size_t n,
                           tf_scoped_instances *out, tf_error *err);
void tf_scoped_instances_free(tf_scoped_instances *s);

#endif
