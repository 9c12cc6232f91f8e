/* SPDX-License-Identifier: BSD-3-Clause */
/* Units a reader takes in at a glance.  Time in s, ms or µs, chosen so
 * the value is at least 1 ("14.65 s", not "1.465e+04 ms"); rates and
 * bandwidths with an SI prefix (k, M, G, T), chosen so the largest value
 * on an axis reads from 1 to below 1000. */
#ifndef TF_RENDER_TIME_UNITS_H
#define TF_RENDER_TIME_UNITS_H

#include <stddef.h>

typedef struct tf_time_unit {
    const char *name;     /* "s", "ms", "µs" */
    double      ns;       /* nanoseconds per unit */
} tf_time_unit;

/* The unit for times up to ns. */
tf_time_unit tf_time_unit_for(double ns);
/* ns as "14.65 s" (4 significant digits) into buf. */
void tf_time_format(double ns, char *buf, size_t len);

typedef struct tf_si_prefix {
    const char *name;     /* "", "k", "M", "G", "T" */
    double      factor;   /* 1, 1e3, ... */
} tf_si_prefix;

/* The prefix for values up to max (in the unprefixed unit); values below
 * 1 (or not finite) keep no prefix. */
tf_si_prefix tf_si_prefix_for(double max);

#endif
