/* SPDX-License-Identifier: BSD-3-Clause */
/* Segments of the source-line axis. */
#include "config.h"

#include <stdlib.h>

#include "line_axis.h"

/* Share of the panel between two segments. */
#define SEGMENT_GAP 0.04
/* A gap between line clusters is cut when it is longer than this many
 * lines and than twice the larger of the two clusters. */
#define MIN_CUT 40

typedef struct range {
    uint32_t lo, hi;
} range;

static int range_cmp(const void *a, const void *b)
{
    const range *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

int tf_line_axis_build(const tf_report_page *p, tf_line_axis *a, tf_error *err)
{
    a->n = 0;
    if (p->ncode == 0)
        return 0;
    /* The line range of each routine, then clusters of overlapping or
     * near ranges. */
    size_t nr = p->nroutines ? p->nroutines : 1;
    range *r = malloc(nr * sizeof *r);
    if (!r)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for %zu line ranges", nr);
    for (size_t i = 0; i < nr; i++)
        r[i] = (range){UINT32_MAX, 0};
    for (size_t i = 0; i < p->ncode; i++) {
        range *x = &r[p->code[i].routine < nr ? p->code[i].routine : 0];
        x->lo = p->code[i].line < x->lo ? p->code[i].line : x->lo;
        x->hi = p->code[i].line > x->hi ? p->code[i].line : x->hi;
    }
    qsort(r, nr, sizeof *r, range_cmp);
    range cl[64];
    size_t n = 0;
    for (size_t i = 0; i < nr && r[i].lo != UINT32_MAX; i++) {
        if (n > 0) {
            range *last = &cl[n - 1];
            uint32_t gap = r[i].lo > last->hi ? r[i].lo - last->hi : 0;
            uint32_t big = last->hi - last->lo > r[i].hi - r[i].lo ? last->hi - last->lo
                                                                   : r[i].hi - r[i].lo;
            if (gap <= MIN_CUT || gap <= 2 * big || n == 64) {
                last->hi = r[i].hi > last->hi ? r[i].hi : last->hi;
                continue;
            }
        }
        cl[n++] = r[i];
    }
    free(r);
    /* Too many clusters: join those separated by the smallest gaps. */
    while (n > TF_LINE_SEGMENTS_MAX) {
        size_t best = 1;
        for (size_t i = 2; i < n; i++)
            if (cl[i].lo - cl[i - 1].hi < cl[best].lo - cl[best - 1].hi)
                best = i;
        cl[best - 1].hi = cl[best].hi;
        for (size_t i = best; i + 1 < n; i++)
            cl[i] = cl[i + 1];
        n--;
    }
    /* Heights: half equal shares, half by line span. */
    double span[TF_LINE_SEGMENTS_MAX], total = 0;
    for (size_t i = 0; i < n; i++) {
        double pad = 0.06 * (cl[i].hi - cl[i].lo) + 1.5;
        a->seg[i].lo = cl[i].lo - pad;
        a->seg[i].hi = cl[i].hi + pad;
        span[i] = a->seg[i].hi - a->seg[i].lo;
        total += span[i];
    }
    double avail = 1.0 - SEGMENT_GAP * (double)(n - 1), top = 1.0;
    for (size_t i = 0; i < n; i++) {
        double h = avail * (0.5 / (double)n + 0.5 * span[i] / total);
        a->seg[i].y1 = top;
        a->seg[i].y0 = top - h;
        top -= h + SEGMENT_GAP;
    }
    a->n = n;
    return 0;
}

double tf_line_axis_place(const tf_line_axis *a, uint32_t line)
{
    for (size_t i = 0; i < a->n; i++) {
        const tf_line_segment *s = &a->seg[i];
        if (line <= s->hi || i + 1 == a->n) {
            double f = (line - s->lo) / (s->hi - s->lo);
            f = f < 0 ? 0 : f > 1 ? 1 : f;
            return s->y1 - f * (s->y1 - s->y0);
        }
    }
    return 0;
}
