/* SPDX-License-Identifier: BSD-3-Clause */
/* Readable time units. */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "time_units.h"

tf_time_unit tf_time_unit_for(double ns)
{
    if (ns >= 1e9)
        return (tf_time_unit){"s", 1e9};
    if (ns >= 1e6)
        return (tf_time_unit){"ms", 1e6};
    return (tf_time_unit){"µs", 1e3};
}

void tf_time_format(double ns, char *buf, size_t len)
{
    tf_time_unit u = tf_time_unit_for(ns);
    snprintf(buf, len, "%.4g %s", ns / u.ns, u.name);
}

tf_si_prefix tf_si_prefix_for(double max)
{
    static const tf_si_prefix prefixes[] = {
        {"T", 1e12}, {"G", 1e9}, {"M", 1e6}, {"k", 1e3},
    };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (isfinite(max) && max >= prefixes[i].factor)
            return prefixes[i];
    return (tf_si_prefix){"", 1};
}
