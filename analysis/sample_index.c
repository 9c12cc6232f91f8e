/* SPDX-License-Identifier: BSD-3-Clause */
/* Where a span of the synthetic iteration starts and ends among the
 * analysis's samples sorted by x (analysis_steps.h): what every step uses, in a
 * file of its own so that the steps do not call back into analysis.c. */
#include "analysis_steps.h"

size_t tf_analysis_lower_index(const tf_analysis *a, double v)
{
    size_t lo = 0, hi = a->nsamples;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->samples[mid].x < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t tf_analysis_end_index(const tf_analysis *a, double x1)
{
    return x1 >= 1 ? a->nsamples : tf_analysis_lower_index(a, x1);
}
