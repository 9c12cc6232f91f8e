/* SPDX-License-Identifier: BSD-3-Clause */
/* How often a walk over an object repeats within a phase, from the
 * successive samples of one thread (docs/algorithms.md, "Reuse distance
 * past a cache → blocking").  The fold blurs every walk shorter than the
 * iterations' jitter; two samples of one instance a sampling interval
 * apart do not blur: a walk much faster than that interval lands anywhere
 * in its footprint, a slower one follows from the first sample. */
#ifndef TF_ANALYSIS_WALK_PASSES_H
#define TF_ANALYSIS_WALK_PASSES_H

#include "analysis.h"

/* A walk's passes are timed from at least this many pairs of successive
 * samples: the pass whose frequency lines up their advances best (each
 * the part of a pass its gap leaves over), when it does so beyond chance
 * at 1 % (walk_passes.c, time_passes).  A walk much faster than the gaps
 * lines up with no frequency the pairs can tell apart. */
#define TF_WALK_MIN_PAIRS 16
/* The fastest walk tried: this many passes per median gap.  Beyond it,
 * the walk's speed would have to hold within a few % over a gap for its
 * passes to line up, which a walk sharing caches and a core does not. */
#define TF_WALK_MAX_PASSES 8
/* Aliases of the best pass's frequency tried on each side when the
 * sampler's whole intervals leave them undecided (walk_passes.c,
 * settle_alias). */
#define TF_WALK_ALIASES 8
/* Pairs further apart than this many times their median gap straddle
 * two instances (or a preemption) and are left out. */
#define TF_WALK_MAX_GAP 4

typedef struct tf_walk_passes {
    size_t pairs;        /* successive samples of the walk in one thread and instance */
    double coherence;    /* of their advances with the best pass (mean cosine of the
                            misfits, 1: all lined up); 0: fewer than TF_WALK_MIN_PAIRS */
    double candidates;   /* independent passes tried */
    double gap_ns;       /* median time between the two samples of a pair; 0: no pair */
    double pass_ns;      /* resolved: the pass that lines up the pairs' advances
                            (INFINITY: the pairs do not move); 0: not resolved (faster
                            than the sampling, or too few pairs) */
} tf_walk_passes;

/* The phase's sampling interval: the median gap between successive
 * memory samples of a thread (0 when it has none). */
int tf_walk_sampling_interval(const tf_analysis *a, uint32_t phase, double *interval,
                              tf_error *err);

/* The passes of stream st (of analysis a, samples sorted by x) over a
 * footprint of `footprint` bytes (the range its offsets span), sampled
 * every `interval` ns (tf_walk_sampling_interval; 0: unknown); needs
 * a->duration_ns. */
int tf_walk_passes_of(const tf_analysis *a, const tf_analysis_stream *st, double footprint,
                      double interval, tf_walk_passes *out, tf_error *err);

#endif
