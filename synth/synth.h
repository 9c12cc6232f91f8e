/* SPDX-License-Identifier: BSD-3-Clause */
/* Synthetic traces with a known ground truth (docs/commands/synth.md): the
 * generator behind `tracefold synth`, also callable from tests and
 * benchmarks. */
#ifndef TF_SYNTH_H
#define TF_SYNTH_H

#include <stdbool.h>
#include <stdint.h>

#include "common/tf_error.h"

typedef struct tf_synth_options {
    const char *scenario;          /* "phases" or "flat" */
    const char *region;            /* name of the repeated region */
    const char *command_line;      /* stored in the trace's metadata; may be NULL */
    uint64_t seed;
    uint32_t processes, threads, iterations;
    uint64_t duration_ns;          /* nominal instance duration */
    double   samples_per_iteration;/* used when period_ns is 0 */
    uint64_t period_ns;            /* mean timer sampling period, or 0 */
    bool     poisson;
    uint64_t sample_cost_ns;       /* each sample inside an instance stops the
                                    * program this long (the observer effect) */
    double   outliers;             /* share of instances with a stall */
    double   jitter;               /* relative standard deviation of durations */
    double   boundary_shift;       /* largest boundary shift, normalised time */
    double   rate_noise;           /* relative standard deviation of rates */
    uint32_t counters;
    bool     memory;
    double   memory_samples;       /* mean memory samples per instance */
    bool     aslr;
    bool     nested;
    uint32_t grid;                 /* points of the truth curves */
} tf_synth_options;

/* The defaults documented for `tracefold synth`. */
void tf_synth_defaults(tf_synth_options *o);

/* Checks ranges and names; the message names the offending option. */
int tf_synth_check(const tf_synth_options *o, tf_error *err);

/* Called after each instance is written (done of total instances). */
typedef void (*tf_synth_progress)(uint64_t done, uint64_t total, void *arg);

/* Writes the trace and its /truth group to path (atomically: a failure
 * leaves no file).  An existing path is replaced only when overwrite is set,
 * otherwise TF_ERR_EXISTS. */
int tf_synth_write(const tf_synth_options *o, const char *path, bool overwrite,
                   tf_synth_progress progress, void *arg, tf_error *err);

#endif
