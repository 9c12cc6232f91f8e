/* SPDX-License-Identifier: BSD-3-Clause */
/* Folded samples with a known truth for the analysis tests: the five-phase
 * scenario of docs/commands/synth.md (copy, stencil, gather, symgs forward
 * and backward), generated directly as tf_analysis_sample arrays. */
#ifndef TF_ANALYSIS_FIXTURE_H
#define TF_ANALYSIS_FIXTURE_H

#include "analysis/analysis.h"

#define FX_PHASES 5
#define FX_MAX_STREAMS 2

struct fx_stream {
    uint32_t object;     /* index in the fixture's objects */
    uint8_t  kind;       /* TF_SAMPLE_LOAD or TF_SAMPLE_STORE */
    uint8_t  pattern;    /* enum tf_analysis_pattern */
    int      direction;
    uint64_t stride, bytes;
    uint32_t streams;
};

struct fx_phase {
    const char *routine, *file;
    uint32_t line;
    double share;
    size_t nstreams;
    struct fx_stream stream[FX_MAX_STREAMS];
};

extern const struct fx_phase fx_phases[FX_PHASES];

/* Builds the analysis input: instances × (timer samples + memory samples)
 * over threads thread slices; duration in ns. */
void fx_build(tf_analysis *a, size_t instances, size_t timer_per_instance,
              size_t memory_per_instance, unsigned threads, double duration_ns, uint64_t seed);

/* The mean normalised boundary k (0..FX_PHASES). */
double fx_boundary(size_t k);

#endif
