/* SPDX-License-Identifier: BSD-3-Clause */
/* The call-stack level that names phases (fold --phase-level;
 * docs/algorithms.md, "Phases named at a call-stack level").  A sample's
 * frames, innermost first, are those of its call stack with the inlined
 * functions of each expanded (the symboliser's frames); the level picks
 * one of them, and the sample counts for that frame's routine and line (a
 * caller's line is the line of its call) when its phase is found. */
#ifndef TF_ANALYSIS_PHASE_LEVEL_H
#define TF_ANALYSIS_PHASE_LEVEL_H

#include <stdint.h>

#include "extract/fold_input.h"
#include "formats/trace.h"

enum tf_phase_level_kind {
    TF_PHASE_LEVEL_INNERMOST = 0,  /* the routine the sample is in (default) */
    TF_PHASE_LEVEL_CALLER = 1,     /* the routine that called it */
    TF_PHASE_LEVEL_DEPTH = 2,      /* the frame `depth` calls below the stack's root */
    TF_PHASE_LEVEL_UNDER = 3,      /* the frame that routine `under` called */
};

typedef struct tf_phase_level {
    enum tf_phase_level_kind kind;
    uint32_t    depth;
    const char *under;       /* a routine's name; points into the parsed text */
} tf_phase_level;

/* Parses "innermost", "caller", "depth N" (or "depth=N") and "under FUNC"
 * (or "under=FUNC"); false for anything else. */
bool tf_phase_level_parse(const char *text, tf_phase_level *level);

/* The namer of extraction (tf_extract_namer) for a level other than
 * innermost: a symboliser per process of tr, made when first needed.
 * debug_dir may be NULL.  tr and level->under must outlive it. */
typedef struct tf_phase_namer tf_phase_namer;

int  tf_phase_namer_create(tf_phase_namer **n, const tf_trace *tr, const tf_phase_level *level,
                           const char *debug_dir, tf_error *err);
/* The callback of tf_extract_namer, with a tf_phase_namer as ctx. */
int  tf_phase_namer_name(void *namer, uint32_t proc, uint64_t ip, const uint64_t *frames,
                         size_t n, uint64_t *name, tf_error *err);
void tf_phase_namer_free(tf_phase_namer *n);

#endif
