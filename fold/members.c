/* SPDX-License-Identifier: BSD-3-Clause */
/* A group's members and their points: copies, compaction in place, and the
 * deviations of the shape rule. */
#include "members.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tf_fold_members_free(tf_fold_members *m)
{
    free(m->rows);
    free(m->first);
    tf_fold_points_free(&m->points);
    memset(m, 0, sizeof *m);
}

void tf_fold_points_move(tf_fold_points *dst, size_t dst_stride, size_t at,
                         const tf_fold_points *src, size_t src_stride, size_t from, size_t len,
                         uint32_t nc)
{
    memmove(dst->instance + at, src->instance + from, len * sizeof *dst->instance);
    memmove(dst->x + at, src->x + from, len * sizeof *dst->x);
    memmove(dst->kind + at, src->kind + from, len * sizeof *dst->kind);
    memmove(dst->ip + at, src->ip + from, len * sizeof *dst->ip);
    memmove(dst->addr + at, src->addr + from, len * sizeof *dst->addr);
    memmove(dst->level + at, src->level + from, len * sizeof *dst->level);
    memmove(dst->weight + at, src->weight + from, len * sizeof *dst->weight);
    memmove(dst->name_frame + at, src->name_frame + from, len * sizeof *dst->name_frame);
    for (uint32_t c = 0; c < nc; c++)
        memmove(dst->y + c * dst_stride + at, src->y + c * src_stride + from,
                len * sizeof *dst->y);
}

int tf_fold_members_copy(const tf_fold_members *src, const size_t *pick, size_t n, uint32_t nc,
                         tf_fold_members *dst, tf_error *err)
{
    memset(dst, 0, sizeof *dst);
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += src->first[pick[i] + 1] - src->first[pick[i]];
    dst->rows = malloc((n ? n : 1) * sizeof *dst->rows);
    dst->first = malloc((n + 1) * sizeof *dst->first);
    if (!dst->rows || !dst->first || tf_fold_points_alloc(&dst->points, total, nc, err) < 0) {
        tf_fold_members_free(dst);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory gathering %zu folded samples", total);
    }
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
        size_t from = src->first[pick[i]], len = src->first[pick[i] + 1] - from;
        dst->rows[i] = src->rows[pick[i]];
        dst->first[i] = at;
        tf_fold_points_move(&dst->points, total, at, &src->points, src->points.n, from, len, nc);
        at += len;
    }
    dst->first[n] = at;
    dst->n = n;
    return 0;
}

void tf_fold_members_compact(tf_fold_members *m, const uint8_t *keep, uint32_t nc)
{
    tf_fold_points *p = &m->points;
    size_t stride = p->n, at = 0, kept = 0;
    for (size_t i = 0; i < m->n; i++) {
        size_t from = m->first[i], len = m->first[i + 1] - from;
        if (!keep[i])
            continue;
        if (at != from)   /* before the first dropped member nothing moves */
            tf_fold_points_move(p, stride, at, p, stride, from, len, nc);
        m->rows[kept] = m->rows[i];
        m->first[kept] = at;
        at += len;
        kept++;
    }
    m->first[kept] = at;
    m->n = kept;
    tf_fold_points_shrink(p, at, stride, nc);
}

int tf_fold_members_gather(tf_fold_members *all, const uint32_t *rows, size_t n, bool take,
                           uint32_t nc, tf_fold_members *m, tf_error *err)
{
    if (!take) {
        size_t *pick = malloc((n + 1) * sizeof *pick);
        if (!pick)
            return tf_fail(err, TF_ERR_NOMEM, "out of memory gathering folded samples");
        for (size_t i = 0; i < n; i++)
            pick[i] = rows[i];   /* all's members are the region's rows */
        int rc = tf_fold_members_copy(all, pick, n, nc, m, err);
        free(pick);
        return rc;
    }
    uint8_t *keep = calloc(all->n + 1, 1);
    if (!keep)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory gathering folded samples");
    for (size_t i = 0; i < n; i++)
        keep[rows[i]] = 1;
    *m = *all;
    memset(all, 0, sizeof *all);
    tf_fold_members_compact(m, keep, nc);
    free(keep);
    return 0;
}

void tf_fold_members_deviation(const tf_fold_members *m, size_t lo, size_t hi, uint32_t c,
                               const double *curve, size_t grid, double *dev)
{
    const float *y = m->points.y + (size_t)c * m->points.n, *x = m->points.x;
    bool fitted = !isnan(curve[0]);   /* a counter without a curve: no deviation */
    for (size_t i = lo; i < hi; i++) {
        double worst = -1;
        for (size_t k = m->first[i]; fitted && k < m->first[i + 1]; k++) {
            if (isnan(y[k]))
                continue;
            double pos = x[k] * (double)(grid - 1);
            size_t j = pos <= 0 ? 0 : pos >= (double)(grid - 1) ? grid - 2 : (size_t)pos;
            double t = pos - (double)j;
            t = t < 0 ? 0 : t > 1 ? 1 : t;
            double d = fabs(y[k] - (curve[j] + t * (curve[j + 1] - curve[j])));
            worst = d > worst ? d : worst;   /* not fmax: a libm call here */
        }
        dev[i - lo] = worst;
    }
}

/* The first of the n instances whose share is above w. */
static size_t share_bound(const uint32_t *share, const uint32_t *rows, size_t n, uint32_t w)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (share[rows ? rows[mid] : mid] <= w)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void tf_fold_share_span(const uint32_t *share, const uint32_t *rows, size_t n, uint32_t w,
                        size_t *lo, size_t *hi)
{
    *lo = w == 0 ? 0 : share_bound(share, rows, n, w - 1);
    *hi = share_bound(share, rows, n, w);
}
