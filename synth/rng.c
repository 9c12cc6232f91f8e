/* SPDX-License-Identifier: BSD-3-Clause */
/* SplitMix64 (Steele, Lea, Flood 2014): a Weyl sequence through a 64-bit
 * finaliser.  Statistically sound for simulation, one add and three
 * multiplies per draw, and trivially seekable by its state. */
#include "rng.h"

#include <math.h>

#include "common/tf_hash.h"

void tf_rng_init(tf_rng *r, uint64_t seed, uint64_t stream, uint64_t substream)
{
    /* Mixing each part in turn keeps streams of nearby seeds unrelated. */
    r->state = tf_mix64(tf_mix64(tf_mix64(seed) ^ stream) + substream);
}

uint64_t tf_rng_next(tf_rng *r)
{
    r->state += UINT64_C(0x9e3779b97f4a7c15);
    return tf_mix64(r->state);
}

double tf_rng_uniform(tf_rng *r)
{
    /* The top 53 bits fill a double's mantissa exactly. */
    return (double)(tf_rng_next(r) >> 11) * 0x1.0p-53;
}

uint64_t tf_rng_below(tf_rng *r, uint64_t n)
{
    /* Rejection keeps small n exactly uniform. */
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do
        x = tf_rng_next(r);
    while (x >= limit);
    return x % n;
}

double tf_rng_normal(tf_rng *r, double limit)
{
    /* Box–Muller; one value per call keeps the draw order simple. */
    double u = 1.0 - tf_rng_uniform(r);   /* (0, 1] */
    double v = tf_rng_uniform(r);
    double g = sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
    return g > limit ? limit : g < -limit ? -limit : g;
}

double tf_rng_exponential(tf_rng *r)
{
    return -log(1.0 - tf_rng_uniform(r));
}
