/* SPDX-License-Identifier: BSD-3-Clause */
/* The synthetic traces' random numbers: a small counter-based generator, so
 * that every draw depends only on --seed and the order of the draws, on any
 * platform and C library (rand() would tie traces to glibc). */
#ifndef TF_SYNTH_RNG_H
#define TF_SYNTH_RNG_H

#include <stdint.h>

typedef struct tf_rng {
    uint64_t state;
} tf_rng;

/* A generator for one stream of draws, e.g. (seed, process, thread). */
void     tf_rng_init(tf_rng *r, uint64_t seed, uint64_t stream, uint64_t substream);
uint64_t tf_rng_next(tf_rng *r);
/* Uniform in [0, 1). */
double   tf_rng_uniform(tf_rng *r);
/* Uniform integer in [0, n), n > 0. */
uint64_t tf_rng_below(tf_rng *r, uint64_t n);
/* Standard normal, clipped to ±limit. */
double   tf_rng_normal(tf_rng *r, double limit);
/* Exponential with mean 1. */
double   tf_rng_exponential(tf_rng *r);

#endif
