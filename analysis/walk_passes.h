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

/* A walk's passes are resolved when at least this many pairs of successive
 * samples ... */
#define TF_WALK_MIN_PAIRS 16
/* ... advance along the walk (modulo its footprint) in a way that a walk
 * much faster than their gaps would not: their Kolmogorov-Smirnov
 * distance from the uniform distribution exceeds this over the square
 * root of their number (the 1 % level, asymptotically).  A fast walk puts
 * the second sample anywhere in the footprint; a slow one a little
 * further on; one about as fast as the gaps at the part of a pass they
 * leave over, which is no more uniform. */
#define TF_WALK_KS_1PC 1.63
/* Pairs further apart than this many times their median gap straddle
 * two instances (or a preemption) and are left out. */
#define TF_WALK_MAX_GAP 4

typedef struct tf_walk_passes {
    size_t pairs;        /* successive samples of the walk in one thread and instance */
    double ks_distance;  /* of their advances (share of the footprint) from uniform */
    double gap_ns;       /* median time between the two samples of a pair; 0: no pair */
    double pass_ns;      /* resolved: the footprint over the median speed of the pairs
                            (INFINITY: the pairs do not move); 0: not resolved (faster
                            than the sampling, or too few pairs) */
} tf_walk_passes;

/* The passes of stream st (of analysis a, samples sorted by x) over a
 * footprint of `footprint` bytes; needs a->duration_ns.  A stream whose
 * object is TF_ANALYSIS_NONE stands for all the memory samples of its
 * phase: its gap_ns is then the phase's sampling interval. */
int tf_walk_passes_of(const tf_analysis *a, const tf_analysis_stream *st, double footprint,
                      tf_walk_passes *out, tf_error *err);

#endif
