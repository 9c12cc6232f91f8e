/* SPDX-License-Identifier: BSD-3-Clause */
/* A sweep forward then backward over one object inside one routine: the
 * object-relative offsets of the phase's most referenced object (one
 * thread index, the one with most samples) against x, fitted by two
 * straight lines joined at a breakpoint.  The breakpoint minimising the
 * total squared error is found in one pass over the points sorted by x,
 * with prefix sums of x, y, x², xy and y² (each segment's least-squares
 * error in O(1)).  A turn is reported when the two slopes have opposite
 * signs, each segment holds at least 10 points and 10 % of the span and
 * sweeps at least a cache line, the two lines explain at least 90 % of
 * the offsets' variance (R²), and they leave at most half the squared
 * error of a single line. */
#include "analysis_steps.h"

#include <math.h>
#include <stdlib.h>

#include "formats/trace.h"

struct xy {
    double x, y;
};

struct sums {
    double n, x, y, xx, xy, yy;
};

static struct sums diff(const struct sums *hi, const struct sums *lo)
{
    return (struct sums){ hi->n - lo->n, hi->x - lo->x, hi->y - lo->y,
                          hi->xx - lo->xx, hi->xy - lo->xy, hi->yy - lo->yy };
}

/* Least-squares line of a segment: its slope and its squared error. */
static double line_fit(const struct sums *s, double *slope)
{
    double sxx = s->xx - s->x * s->x / s->n, sxy = s->xy - s->x * s->y / s->n;
    double syy = s->yy - s->y * s->y / s->n;
    *slope = sxx > 0 ? sxy / sxx : 0;
    double sse = sxx > 0 ? syy - sxy * sxy / sxx : syy;
    return sse > 0 ? sse : 0;
}

static int by_x(const void *pa, const void *pb)
{
    const struct xy *p = pa, *q = pb;
    return (p->x > q->x) - (p->x < q->x);
}

#define TURN_MIN_POINTS 10

bool tf_analysis_direction_turn(const tf_analysis *a, double x0, double x1, const tf_analysis_params *p,
                                double *x_turn)
{
    size_t i0 = tf_analysis_lower_index(a, x0), i1 = tf_analysis_end_index(a, x1);
    /* the most referenced object, then its thread index with most samples */
    size_t *count = calloc(a->nobjects + 1, sizeof *count);
    uint32_t max_group = 0;
    if (!count)
        return false;
    for (size_t i = i0; i < i1; i++) {
        const tf_analysis_sample *s = &a->samples[i];
        if (s->object != TF_ANALYSIS_NONE && s->object < a->nobjects && s->kind != TF_SAMPLE_TIMER) {
            count[s->object]++;
            max_group = s->group > max_group ? s->group : max_group;
        }
    }
    uint32_t best_obj = 0;
    for (uint32_t o = 1; o < a->nobjects; o++)
        if (count[o] > count[best_obj])
            best_obj = o;
    free(count);
    count = calloc((size_t)max_group + 1, sizeof *count);
    if (!count)
        return false;
    for (size_t i = i0; i < i1; i++) {
        const tf_analysis_sample *s = &a->samples[i];
        if (s->object == best_obj && s->kind != TF_SAMPLE_TIMER)
            count[s->group]++;
    }
    uint32_t best_group = 0;
    for (uint32_t g = 1; g <= max_group; g++)
        if (count[g] > count[best_group])
            best_group = g;
    size_t best_n = count[best_group];
    free(count);
    if (best_n < 4 * TURN_MIN_POINTS)
        return false;
    struct xy *pt = malloc(best_n * sizeof *pt);
    struct sums *pre = malloc((best_n + 1) * sizeof *pre);
    if (!pt || !pre) {
        free(pt);
        free(pre);
        return false;
    }
    size_t n = 0;
    for (size_t i = i0; i < i1; i++) {
        const tf_analysis_sample *s = &a->samples[i];
        if (s->object == best_obj && s->group == best_group && s->kind != TF_SAMPLE_TIMER)
            pt[n++] = (struct xy){ s->x, (double)s->offset };
    }
    qsort(pt, n, sizeof *pt, by_x);
    pre[0] = (struct sums){ 0 };
    for (size_t i = 0; i < n; i++)
        pre[i + 1] = (struct sums){ pre[i].n + 1, pre[i].x + pt[i].x, pre[i].y + pt[i].y,
                                    pre[i].xx + pt[i].x * pt[i].x, pre[i].xy + pt[i].x * pt[i].y,
                                    pre[i].yy + pt[i].y * pt[i].y };
    double one_slope;
    double sse_one = line_fit(&pre[n], &one_slope);
    double total = pre[n].yy - pre[n].y * pre[n].y / pre[n].n;
    double best = INFINITY, sa = 0, sb = 0;
    size_t split = 0;
    for (size_t k = TURN_MIN_POINTS; k + TURN_MIN_POINTS <= n; k++) {
        struct sums right = diff(&pre[n], &pre[k]);
        double ka, kb;
        double sse = line_fit(&pre[k], &ka) + line_fit(&right, &kb);
        if (sse < best) {
            best = sse;
            split = k;
            sa = ka;
            sb = kb;
        }
    }
    bool turn = false;
    if (split) {
        double xs = (pt[split - 1].x + pt[split].x) / 2, span = x1 - x0;
        turn = sa * sb < 0 && xs - x0 >= 0.1 * span && x1 - xs >= 0.1 * span &&
               fabs(sa) * (xs - pt[0].x) >= (double)p->line_bytes &&
               fabs(sb) * (pt[n - 1].x - xs) >= (double)p->line_bytes && total > 0 &&
               1 - best / total >= 0.9 && sse_one > 2 * best;
        *x_turn = xs;
    }
    free(pt);
    free(pre);
    return turn;
}
