/* SPDX-License-Identifier: BSD-3-Clause */
/* Time in the unit a reader takes in at a glance: s, ms or µs, chosen so
 * the value is at least 1 ("14.65 s", not "1.465e+04 ms"). */
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

#endif
