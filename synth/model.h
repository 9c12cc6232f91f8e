/* SPDX-License-Identifier: BSD-3-Clause */
/* One synthetic instance: its drawn duration, phase boundaries, rates and
 * stall, cut into segments of constant rates, and the exact integral of the
 * counters over it.  Shared by the trace generator and the truth. */
#ifndef TF_SYNTH_MODEL_H
#define TF_SYNTH_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rng.h"
#include "scenario.h"
#include "synth.h"

#define TF_SYNTH_MAX_SEGMENTS (TF_SYNTH_MAX_PHASES + 2)
/* Counter rates during a stall, relative to the phase it interrupts. */
#define TF_SYNTH_STALL_FACTOR 0.01

typedef struct tf_synth_segment {
    uint64_t t0, t1;       /* ns relative to the instance begin */
    uint32_t phase;
    bool     stall;
} tf_synth_segment;

typedef struct tf_synth_instance {
    uint32_t nphases, ncounters;
    uint32_t kind;                                /* 0, or 1: the scenario's second kind */
    uint64_t duration;                            /* stall included */
    uint64_t phase_begin[TF_SYNTH_MAX_PHASES + 1];/* real time; [nphases] = duration */
    uint64_t work_begin[TF_SYNTH_MAX_PHASES + 1]; /* the same without the stall */
    uint64_t stall_at, stall_len;                 /* 0, 0 for an ordinary instance */
    uint32_t stall_phase;
    uint32_t nseg;
    tf_synth_segment seg[TF_SYNTH_MAX_SEGMENTS];
    double  *rates;        /* [nphases][ncounters] events/s, caller-owned */
    double  *seg_f0;       /* [nseg][ncounters] integral at each segment's start */
    double  *total;        /* [ncounters] integral over the instance */
} tf_synth_instance;

/* Points rates, seg_f0 and total into caller memory of
 * tf_synth_instance_doubles(...) doubles. */
size_t tf_synth_instance_doubles(uint32_t nphases, uint32_t ncounters);
void tf_synth_instance_init(tf_synth_instance *in, uint32_t nphases, uint32_t ncounters,
                            double *mem);

/* Draws one instance of the scenario, of the given kind (with a stall when
 * outlier). */
void tf_synth_instance_draw(tf_synth_instance *in, const tf_synth_scenario *sc,
                            const tf_synth_options *o, uint32_t kind, bool outlier,
                            tf_rng *rng);

/* The segment holding time tau (ns, relative), searching on from *hint. */
uint32_t tf_synth_segment_at(const tf_synth_instance *in, double tau, uint32_t hint);
/* Rate of counter c in segment s, events/s. */
double tf_synth_segment_rate(const tf_synth_instance *in, uint32_t s, uint32_t c);
/* Integral of counter c from the instance begin to tau, which lies in s. */
double tf_synth_integral(const tf_synth_instance *in, uint32_t s, double tau, uint32_t c);

/* Bytes of an object's slice per thread: its largest stream span,
 * page-rounded; 0 when no stream uses it.  Objects have ids from 1 on, in
 * the scenario's order (TF_SYNTH_OBJECT_ID). */
#define TF_SYNTH_OBJECT_ID(index) ((uint32_t)(index) + 1)
uint64_t tf_synth_object_slice(const tf_synth_scenario *sc, uint32_t obj);

#endif
