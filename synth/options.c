/* SPDX-License-Identifier: BSD-3-Clause */
/* The generator's parameters: defaults and the ranges within which the model
 * stays meaningful (phases in order, positive rates and durations). */
#include "model.h"

#include <string.h>

#include "formats/trace.h"

void tf_synth_defaults(tf_synth_options *o)
{
    *o = (tf_synth_options){
        .scenario = "phases",
        .region = "iteration",
        .seed = 1,
        .processes = 1,
        .threads = 1,
        .iterations = 300,
        .duration_ns = 10000000,
        .samples_per_iteration = 13,
        .period_ns = 0,
        .sample_cost_ns = 0,
        .outliers = 0.05,
        .jitter = 0.02,
        .boundary_shift = 0.01,
        .rate_noise = 0.03,
        .counters = 8,
        .memory = true,
        .memory_samples = 40,
        .grid = 1001,
    };
}

/* Instance rows of the truth are kept in memory: 10 million instances is
 * far beyond any test or benchmark and still a few GB at most. */
#define MAX_INSTANCES UINT64_C(10000000)

int tf_synth_check(const tf_synth_options *o, tf_error *err)
{
    const tf_synth_scenario *sc = tf_synth_scenario_find(o->scenario);
    if (!sc)
        return tf_fail(err, TF_ERR_USAGE, "--scenario: unknown scenario '%s' (known: %s)",
                       o->scenario, tf_synth_scenario_names());
    if (!o->region[0])
        return tf_fail(err, TF_ERR_USAGE, "--region: the region name is empty");
    for (uint32_t k = 0; k < sc->nphases; k++)
        if (!strcmp(o->region, sc->phases[k].name))
            return tf_fail(err, TF_ERR_USAGE,
                           "--region: '%s' is the name of a phase of scenario '%s'",
                           o->region, sc->name);
    if (o->processes < 1 || o->threads < 1 || o->iterations < 1)
        return tf_fail(err, TF_ERR_USAGE,
                       "--processes, --threads and --iterations must be at least 1");
    if ((uint64_t)o->processes * o->threads * o->iterations > MAX_INSTANCES)
        return tf_fail(err, TF_ERR_USAGE, "at most %llu instances in all",
                       (unsigned long long)MAX_INSTANCES);
    if (o->duration_ns < 1000)
        return tf_fail(err, TF_ERR_USAGE, "--duration: at least 1us");
    if (o->period_ns == 0 && !(o->samples_per_iteration > 0 &&
                               o->samples_per_iteration <= 1e6))
        return tf_fail(err, TF_ERR_USAGE, "--samples-per-iteration: between 0 and 1e6");
    double period = o->period_ns ? (double)o->period_ns
                                 : (double)o->duration_ns / o->samples_per_iteration;
    if (period < 1.0)
        return tf_fail(err, TF_ERR_USAGE, "the sampling period must be at least 1ns");
    if (!(o->outliers >= 0 && o->outliers <= 0.5))
        return tf_fail(err, TF_ERR_USAGE, "--outliers: a fraction between 0 and 0.5");
    if ((uint64_t)(o->outliers * o->iterations + 0.5) >= o->iterations)
        return tf_fail(err, TF_ERR_USAGE, "--outliers: no ordinary iteration would be left");
    if (!(o->jitter >= 0 && o->jitter <= 0.2))
        return tf_fail(err, TF_ERR_USAGE, "--jitter: a fraction between 0 and 0.2");
    if (!(o->rate_noise >= 0 && o->rate_noise <= 0.3))
        return tf_fail(err, TF_ERR_USAGE, "--rate-noise: a fraction between 0 and 0.3");
    double shortest = 1.0;
    for (uint32_t kind = 0; kind < (sc->second ? 2u : 1u); kind++)
        for (uint32_t k = 0; k < sc->nphases; k++)
            if (tf_synth_share(sc, kind, k) < shortest)
                shortest = tf_synth_share(sc, kind, k);
    if (!(o->boundary_shift >= 0 && o->boundary_shift < shortest / 2))
        return tf_fail(err, TF_ERR_USAGE,
                       "--boundary-shift: a fraction from 0 to below %g (half the shortest "
                       "phase)", shortest / 2);
    if (o->counters < 1 || o->counters > TF_MAX_COUNTERS)
        return tf_fail(err, TF_ERR_USAGE, "--counters: between 1 and %d", TF_MAX_COUNTERS);
    if (o->memory && !(o->memory_samples > 0 && o->memory_samples <= 1e6))
        return tf_fail(err, TF_ERR_USAGE, "--memory-samples: between 0 and 1e6");
    if (o->grid < 2 || o->grid > 1000000)
        return tf_fail(err, TF_ERR_USAGE, "--grid: between 2 and 1000000 points");
    return 0;
}
