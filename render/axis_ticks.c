/* SPDX-License-Identifier: BSD-3-Clause */
/* Tick placement. */
#include "config.h"

#include <math.h>

#include "axis_ticks.h"

void tf_range_pad(double *lo, double *hi, double fraction)
{
    if (!(*hi > *lo)) {
        double m = fabs(*lo) > 0 ? fabs(*lo) * 0.5 : 1.0;
        *lo -= m;
        *hi += m;
        return;
    }
    double d = (*hi - *lo) * fraction;
    *lo -= d;
    *hi += d;
}

void tf_ticks_compute(double lo, double hi, int target, tf_ticks *t)
{
    t->n = 0;
    t->step = 1;
    t->decimals = 0;
    if (!(hi > lo) || target < 1 || !isfinite(lo) || !isfinite(hi))
        return;
    double raw = (hi - lo) / target;
    double mag = pow(10.0, floor(log10(raw)));
    double norm = raw / mag;
    double step = norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10;
    step *= mag;
    t->step = step;
    t->decimals = step >= 1 ? 0 : (int)ceil(-log10(step) - 1e-9);
    double first = ceil(lo / step - 1e-9) * step;
    for (int i = 0; t->n < TF_TICKS_MAX; i++) {
        double v = first + i * step;
        if (v > hi + step * 1e-9)
            break;
        t->value[t->n++] = fabs(v) < step * 1e-9 ? 0.0 : v;
    }
}
