/* SPDX-License-Identifier: BSD-3-Clause */
/* The iteration of a trace without regions, found from its samples: the
 * sampled routine changes that recur with a regular period (entering the
 * first routine of the loop body, once per iteration) become the
 * boundaries of instances that `fold` folds as if they were marked.
 * Method and measured accuracy: docs/algorithms.md, "An iteration found
 * without marks". */
#ifndef TF_EXTRACT_ITERATION_FIND_H
#define TF_EXTRACT_ITERATION_FIND_H

#include <stddef.h>
#include <stdint.h>

#include "instances.h"
#include "formats/trace.h"

/* Candidates listed at most. */
#define TF_ITERATION_CANDIDATES 6

/* One recurring routine change: leaving `after` for `function`. */
typedef struct tf_iteration_candidate {
    char   function[128];    /* the routine each instance begins in */
    char   after[128];       /* the routine left there */
    size_t instances;        /* consecutive changes one period apart */
    double period_ns;        /* mean span of those instances */
    double regular;          /* share of the spans within 10 % of their median */
} tf_iteration_candidate;

typedef struct tf_iteration_found {
    uint32_t proc, thread;   /* the thread ranked: the one with most samples */
    size_t   samples;        /* its timer samples with a routine */
    size_t   ncandidates;    /* best first */
    tf_iteration_candidate candidates[TF_ITERATION_CANDIDATES];
    size_t   chosen;         /* index of the folded candidate */
    tf_instance *instances;  /* of the chosen candidate: on (proc, thread), then on the
                                busiest thread of each other process; malloc'ed */
    size_t   ninstances;
    size_t   processes;      /* processes with instances */
} tf_iteration_found;

/* A candidate is regular when this share of its spans or more lies within
 * 10 % of their median. */
#define TF_ITERATION_REGULAR 0.6

/* Looks for the iteration; `function` (may be NULL) asks for the
 * candidate that begins in that routine.  Fails with TF_ERR_NOTFOUND,
 * saying why, when no candidate is regular (or none begins in
 * `function`); *out then still lists the candidates seen. */
int  tf_iteration_find(tf_trace *tr, const char *function, const char *debug_dir,
                       tf_iteration_found *out, tf_error *err);
void tf_iteration_found_free(tf_iteration_found *f);

#endif
