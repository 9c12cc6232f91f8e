/* SPDX-License-Identifier: BSD-3-Clause */
/* Whether the sampling period was coarse for a region's instances, and
 * the period to record with instead: one rule and one sentence for
 * `record`'s closing notes and `fold`'s notes and summary.md. */
#ifndef TF_EXTRACT_SAMPLING_ADVICE_H
#define TF_EXTRACT_SAMPLING_ADVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/trace.h"

typedef struct tf_sampling_density {
    size_t instances;       /* complete instances looked at */
    size_t unsampled;       /* of them, holding no sample */
    /* Their typical length (median, or a group's mean) in the clock the
     * period counts, the thread's CPU time, where the trace has it (the
     * TF_SAMPLING_CPU_COUNTER read at their ends); else their wall-clock
     * duration, longer when the thread waited or was preempted. */
    double duration_ns;
    bool   cpu_time;        /* duration_ns is CPU time */
} tf_sampling_density;

/* The software counter of the thread's CPU time, in ns, that the
 * recorder reads at every region boundary where the PMU is absent too. */
#define TF_SAMPLING_CPU_COUNTER "task-clock"

/* Coarse: more than half of at least 2 instances hold no sample. */
bool tf_sampling_coarse(const tf_sampling_density *d);

/* The period that gives an instance of this duration about
 * TF_SAMPLING_WANTED samples: duration / TF_SAMPLING_WANTED rounded down
 * to 1, 2 or 5 times a power of ten, and not below the recorder's 10 us. */
#define TF_SAMPLING_WANTED 2
uint64_t tf_sampling_period_for(double duration_ns);

/* A period as `--period` takes it: "1ms", "200us", "2s". */
void tf_sampling_period_text(uint64_t ns, char *buf, size_t size);

/* The advice for a coarse density, to follow "N of the M instances hold
 * no sample: ": "the sampling period is too coarse for these instances
 * (2.0 ms of CPU each), and the fold has few points: record with --period
 * 1ms (about 2 samples an instance)". */
void tf_sampling_advice(const tf_sampling_density *d, char *buf, size_t size);

/* The density of region's complete instances in tr: each thread's samples
 * are streamed once past its instances (in begin order; a sample counts
 * for the instance it falls in, or for the outer one of two nested
 * instances of the region); duration_ns is their median CPU time when the
 * process counted it at both ends of every instance, else their median
 * duration. */
int tf_sampling_density_of(tf_trace *tr, uint32_t region, tf_sampling_density *d,
                           tf_error *err);

#endif
