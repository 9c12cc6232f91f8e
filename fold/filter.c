/* SPDX-License-Identifier: BSD-3-Clause */
/* Outlier rules by median and MAD (Hampel's identifier; Iglewicz and
 * Hoaglin's modified z-score).  The existing folding tool's rule, median ±
 * 1.5·MAD with the MAD unscaled, cuts at about one standard deviation of
 * normal jitter and so drops about a third of ordinary iterations.  The
 * robust rule works on log-durations (a delay stretches an iteration by a
 * factor; jitter is relative), and scales each side by its own MAD (the
 * "double MAD" for skewed data): real durations have a long right tail of
 * small delays, which a symmetric scale taken from the tight core would
 * call outliers by the hundred (docs/algorithms.md, "Duration rule"). */
#include "filter.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "robust.h"

/* Automatic groups: the two sides of the best split of the sorted
 * log-durations (Otsu's threshold: the largest between-class variance)
 * are two groups when their medians are more than SEPARATION robust
 * standard deviations apart (a robust form of Ashman's D); a normal sample
 * cut at its median gives about 2.3, two modes a factor 2 apart with 10 %
 * jitter about 7.  Each side holds at least MIN_SHARE of the instances
 * (and 2): a sparse tail of stalls is the filter's business, not a mode. */
#define SEPARATION 4.0
#define MIN_SHARE 0.1
#define MAX_AUTO_GROUPS 4
/* Smallest robust scale of log-durations (0.1 %): below it, durations are
 * identical as far as folding cares. */
#define MIN_LOG_SCALE 1e-3
/* Smallest scale of the duration rule, 1 %: with the default k = 3.5 an
 * instance within 3.5 % of the median duration is always kept (a delay
 * that short hardly moves the fold, while a run with 0.1 % jitter would
 * otherwise lose every iteration that met a timer tick). */
#define MIN_REL_SCALE 0.01

struct ranked {
    double v;
    size_t i;
};

static int by_value(const void *a, const void *b)
{
    const struct ranked *x = a, *y = b;
    return (x->v > y->v) - (x->v < y->v);
}

static double scaled_mad(const struct ranked *r, size_t n, double *work)
{
    for (size_t k = 0; k < n; k++)
        work[k] = r[k].v;
    double m = tf_median_inplace(work, n);
    for (size_t k = 0; k < n; k++)
        work[k] = fabs(r[k].v - m);
    return TF_MAD_SCALE * tf_median_inplace(work, n);
}

/* The split position k in [lo + m, hi - m] of the sorted r[lo, hi) with
 * the largest between-class variance, m being the smallest side; 0 when
 * the range is too small to hold two sides. */
static size_t otsu_split(const struct ranked *r, size_t lo, size_t hi, size_t m)
{
    size_t n = hi - lo, best = 0;
    if (n < 2 * m)
        return 0;
    double total = 0, left = 0, score = -1;
    for (size_t k = lo; k < hi; k++)
        total += r[k].v;
    for (size_t k = lo; k < hi - m; k++) {
        left += r[k].v;
        size_t nl = k + 1 - lo, nr = n - nl;
        if (nl < m)
            continue;
        double ml = left / (double)nl, mr = (total - left) / (double)nr;
        double between = (double)nl * (double)nr * (ml - mr) * (ml - mr);
        /* ties in value cannot be split */
        if (between > score && r[k + 1].v > r[k].v) {
            score = between;
            best = k + 1;
        }
    }
    return best;
}

static double median_of(const struct ranked *r, size_t n, double *work)
{
    for (size_t k = 0; k < n; k++)
        work[k] = r[k].v;
    return tf_median_inplace(work, n);
}

/* Automatic splitting of r[lo, hi) where the log-durations are clearly
 * bimodal; cuts[] collects the split positions; min_side is the smallest
 * group. */
static void split_auto(const struct ranked *r, size_t lo, size_t hi, size_t min_side,
                       double *work, size_t *cuts, size_t *ncuts)
{
    if (*ncuts + 1 >= MAX_AUTO_GROUPS)
        return;
    size_t k = otsu_split(r, lo, hi, min_side);
    if (!k)
        return;
    double left = fmax(scaled_mad(r + lo, k - lo, work), MIN_LOG_SCALE);
    double right = fmax(scaled_mad(r + k, hi - k, work), MIN_LOG_SCALE);
    double apart = median_of(r + k, hi - k, work) - median_of(r + lo, k - lo, work);
    if (apart <= SEPARATION * sqrt(0.5 * (left * left + right * right)))
        return;
    cuts[(*ncuts)++] = k;
    split_auto(r, lo, k, min_side, work, cuts, ncuts);
    split_auto(r, k, hi, min_side, work, cuts, ncuts);
}

static int by_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

int tf_fold_group_durations(const double *duration, size_t n, uint32_t wanted, int32_t *group,
                            uint32_t *ngroups, tf_error *err)
{
    *ngroups = 1;
    for (size_t i = 0; i < n; i++)
        group[i] = 0;
    if (wanted == 1 || n < 4)
        return 0;
    struct ranked *r = malloc(n * sizeof *r);
    double *work = malloc(n * sizeof *work);
    size_t *cuts = malloc((n + MAX_AUTO_GROUPS) * sizeof *cuts);
    if (!r || !work || !cuts) {
        free(r);
        free(work);
        free(cuts);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory grouping instances");
    }
    for (size_t i = 0; i < n; i++)
        r[i] = (struct ranked){ log(duration[i] > 0 ? duration[i] : 1), i };
    qsort(r, n, sizeof *r, by_value);
    size_t ncuts = 0;
    if (wanted == 0) {
        size_t min_side = (size_t)ceil(MIN_SHARE * (double)n);
        split_auto(r, 0, n, min_side < 2 ? 2 : min_side, work, cuts, &ncuts);
    } else {
        /* The wanted-1 widest gaps that leave at least 2 instances on each
         * side of every cut. */
        struct ranked *gaps = malloc(n * sizeof *gaps);
        if (!gaps) {
            free(r);
            free(work);
            free(cuts);
            return tf_fail(err, TF_ERR_NOMEM, "out of memory grouping instances");
        }
        size_t ng = 0;
        for (size_t k = 2; k + 2 <= n; k++)
            gaps[ng++] = (struct ranked){ r[k].v - r[k - 1].v, k };
        qsort(gaps, ng, sizeof *gaps, by_value);
        size_t keep = 0;
        for (size_t a = ng; a-- > 0 && keep + 1 < wanted;) {
            bool close = false;
            for (size_t b = 0; b < keep; b++)
                close |= gaps[a].i < cuts[b] + 2 && cuts[b] < gaps[a].i + 2;
            if (!close)
                cuts[keep++] = gaps[a].i;
        }
        free(gaps);
        ncuts = keep;
    }
    qsort(cuts, ncuts, sizeof *cuts, by_size);
    size_t g = 0;
    for (size_t k = 0; k < n; k++) {
        while (g < ncuts && k >= cuts[g])
            g++;
        group[r[k].i] = (int32_t)g;
    }
    *ngroups = (uint32_t)ncuts + 1;
    free(r);
    free(work);
    free(cuts);
    return 0;
}

/* Median and unscaled MAD of v[0..n) (0 and 0 when n = 0). */
static int median_mad(const double *v, size_t n, double *median, double *mad, tf_error *err)
{
    *median = *mad = 0;
    if (n == 0)
        return 0;
    double *work = malloc(n * sizeof *work);
    if (!work)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory filtering instances");
    tf_median_mad(v, n, work, median, mad);
    free(work);
    return 0;
}

/* Median of x[0..n) and the scale of each side of it: lo from the values
 * at or below the median, hi from those at or above (a side with no spread
 * takes the other's).  A side's scale is its scaled MAD, or, when larger,
 * the distance of its TAIL_QUANTILE from the median in standard normal
 * units: an exponential tail of ordinary delays reaches farther than its
 * MAD says, while stalls, fewer than 15 % of the instances, leave that
 * quantile among the ordinary ones. */
#define TAIL_QUANTILE 0.85
#define TAIL_Z 1.0364   /* Φ⁻¹(0.85) */
static int sided_scales(const double *x, size_t n, double *median, double *lo, double *hi,
                        tf_error *err)
{
    double *work = malloc((n + 1) * sizeof *work);
    if (!work)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory filtering instances");
    memcpy(work, x, n * sizeof *work);
    double m = tf_median_inplace(work, n);
    double q[2] = { tf_quantile_inplace(work, n, 1 - TAIL_QUANTILE),
                    tf_quantile_inplace(work, n, TAIL_QUANTILE) };
    double side[2];
    for (int s = 0; s < 2; s++) {
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (s ? x[i] >= m : x[i] <= m)
                work[k++] = fabs(x[i] - m);
        side[s] = fmax(TF_MAD_SCALE * tf_median_inplace(work, k), fabs(q[s] - m) / TAIL_Z);
    }
    free(work);
    *median = m;
    *lo = side[0] > 0 ? side[0] : side[1];
    *hi = side[1] > 0 ? side[1] : side[0];
    return 0;
}

int tf_fold_filter_durations(const double *duration, const double *extra, size_t n,
                             enum tf_fold_filter filter, double k, uint8_t *out, double *score,
                             tf_error *err)
{
    if (n == 0)
        return 0;
    double *logd = malloc(n * sizeof *logd);
    if (!logd)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory filtering instances");
    for (size_t i = 0; i < n; i++)
        logd[i] = log(fmax(duration[i], 1));
    double centre = 0, lo = 0, hi = 0, median = 0, mad = 0;
    int rc = sided_scales(logd, n, &centre, &lo, &hi, err);
    if (rc == 0 && filter == TF_FILTER_MAD15)
        rc = median_mad(duration, n, &median, &mad, err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        double dev = logd[i] - centre;
        double scale = fmax(dev < 0 ? lo : hi, MIN_REL_SCALE);
        /* a cost of variance v taken out of d widens log d by v / d² */
        if (extra && extra[i] > 0)
            scale = sqrt(scale * scale + extra[i] / (duration[i] * duration[i]));
        score[i] = fabs(dev) / scale;
        switch (filter) {
        case TF_FILTER_ROBUST: out[i] = score[i] > k; break;
        case TF_FILTER_MAD15: out[i] = fabs(duration[i] - median) > 1.5 * mad; break;
        case TF_FILTER_NONE: out[i] = 0; break;
        }
    }
    free(logd);
    return rc;
}

int tf_fold_robust_z(const double *v, const double *extra, size_t n, double min_scale, double *z,
                     tf_error *err)
{
    double median, lo, hi;
    if (n == 0)
        return 0;
    if (sided_scales(v, n, &median, &lo, &hi, err) < 0)
        return -TF_ERR_NOMEM;
    double scaled = fmax(hi, min_scale);
    for (size_t i = 0; i < n; i++) {
        double dev = v[i] - median;
        double scale = extra && extra[i] > 0 ? sqrt(scaled * scaled + extra[i]) : scaled;
        z[i] = dev <= 0 ? 0 : scale > 0 ? dev / scale : INFINITY;
    }
    return 0;
}
