/* SPDX-License-Identifier: BSD-3-Clause */
/* Selection by quickselect (Hoare's FIND): O(n) on average, which keeps the
 * filters linear in the number of instances. */
#include "robust.h"

#include <math.h>

/* The k-th smallest of v[0..n), moving it to v[k]. */
static double select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[lo + (hi - lo) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break;
    }
    return v[k];
}

double tf_quantile_inplace(double *v, size_t n, double q)
{
    double pos = q * (double)(n - 1);
    size_t k = (size_t)floor(pos);
    double a = select_kth(v, n, k);
    if (k + 1 >= n || pos == (double)k)
        return a;
    /* The next order statistic is the smallest of the upper part. */
    double b = v[k + 1];
    for (size_t i = k + 2; i < n; i++)
        if (v[i] < b)
            b = v[i];
    return a + (pos - (double)k) * (b - a);
}

double tf_median_inplace(double *v, size_t n)
{
    return tf_quantile_inplace(v, n, 0.5);
}

void tf_median_mad(const double *v, size_t n, double *work, double *median, double *mad)
{
    for (size_t i = 0; i < n; i++)
        work[i] = v[i];
    double m = tf_median_inplace(work, n);
    for (size_t i = 0; i < n; i++)
        work[i] = fabs(v[i] - m);
    *median = m;
    *mad = tf_median_inplace(work, n);
}
