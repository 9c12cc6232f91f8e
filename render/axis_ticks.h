/* SPDX-License-Identifier: BSD-3-Clause */
/* Round tick values (1, 2, 5 times a power of ten) for a linear axis. */
#ifndef TF_RENDER_AXIS_TICKS_H
#define TF_RENDER_AXIS_TICKS_H

#include <stddef.h>

#define TF_TICKS_MAX 24

typedef struct tf_ticks {
    size_t n;
    double value[TF_TICKS_MAX];
    double step;
    int    decimals;       /* digits after the point that show the step */
} tf_ticks;

/* About `target` ticks covering [lo, hi]; the range may be empty. */
void tf_ticks_compute(double lo, double hi, int target, tf_ticks *t);
/* Widens [*lo, *hi] to a little headroom above and below (non-empty). */
void tf_range_pad(double *lo, double *hi, double fraction);

#endif
