/* SPDX-License-Identifier: BSD-3-Clause */
/* How often a walk repeats, from successive samples of one thread
 * (walk_passes.h). */
#include "config.h"

#include <math.h>
#include <stdlib.h>

#include "analysis_steps.h"
#include "walk_passes.h"
#include "common/tf_sort.h"
#include "formats/trace.h"

/* One sample of the walk, in the order the thread took it. */
struct visit {
    uint32_t group, point;
    double   x, offset;
    int      direction;   /* of the sample's instruction's loop, else the stream's */
};

static int by_thread_order(const void *pa, const void *pb)
{
    const struct visit *p = pa, *q = pb;
    if (p->group != q->group)
        return p->group < q->group ? -1 : 1;
    return (p->point > q->point) - (p->point < q->point);
}


int tf_walk_passes_of(const tf_analysis *a, const tf_analysis_stream *st, double footprint,
                      tf_walk_passes *out, tf_error *err)
{
    *out = (tf_walk_passes){ 0 };
    if (st->phase >= a->nphases || !(footprint > 0) || !(a->duration_ns > 0))
        return 0;
    const tf_analysis_phase *ph = &a->phases[st->phase];
    size_t lo = tf_analysis_lower_index(a, ph->x0), hi = tf_analysis_end_index(a, ph->x1), n = 0;
    struct visit *v = malloc((hi > lo ? hi - lo : 1) * sizeof *v);
    /* per candidate pair: its gap (ns), then its speed (bytes per ns) and
     * its advance (share of the footprint) */
    double *gap = malloc((hi > lo ? hi - lo : 1) * sizeof *gap),
           *speed = malloc((hi > lo ? hi - lo : 1) * sizeof *speed),
           *advance = malloc((hi > lo ? hi - lo : 1) * sizeof *advance);
    if (!v || !gap || !speed || !advance) {
        free(v);
        free(gap);
        free(speed);
        free(advance);
        return tf_fail(err, TF_ERR_NOMEM, "walk passes of region %s: out of memory", a->region);
    }
    for (size_t i = lo; i < hi; i++) {
        const tf_analysis_sample *s = &a->samples[i];
        if (s->kind == TF_SAMPLE_TIMER || (st->object != TF_ANALYSIS_NONE && s->object != st->object))
            continue;
        int dir = s->code_stride > 0 ? 1 : s->code_stride < 0 ? -1 : st->direction < 0 ? -1 : 1;
        v[n++] = (struct visit){ s->group, s->point, s->x, (double)s->offset, dir };
    }
    qsort(v, n, sizeof *v, by_thread_order);
    /* successive samples of a thread, later in the iteration: the same
     * instance, unless the gap shows an instance's end between them */
    size_t ngap = 0;
    for (size_t i = 1; i < n; i++)
        if (v[i].group == v[i - 1].group && v[i].x > v[i - 1].x)
            gap[ngap++] = (v[i].x - v[i - 1].x) * a->duration_ns;
    if (ngap) {
        double limit = TF_WALK_MAX_GAP * tf_median_sorted(gap, ngap);
        ngap = 0;
        for (size_t i = 1; i < n; i++) {
            double dt = (v[i].x - v[i - 1].x) * a->duration_ns;
            if (v[i].group != v[i - 1].group || !(dt > 0) || dt > limit)
                continue;
            /* the advance along the walk, modulo its footprint: a walk that
             * ended a pass and began the next still advanced */
            double d = fmod((v[i].offset - v[i - 1].offset) * v[i - 1].direction, footprint);
            d += d < 0 ? footprint : 0;
            advance[ngap] = d / footprint;
            gap[ngap] = dt;
            speed[ngap++] = d / dt;
        }
    }
    out->pairs = ngap;
    if (ngap) {
        /* Kolmogorov-Smirnov distance of the advances from uniform */
        tf_sort_double(advance, ngap);
        for (size_t i = 0; i < ngap; i++) {
            double below = advance[i] - (double)i / (double)ngap,
                   above = (double)(i + 1) / (double)ngap - advance[i];
            out->ks_distance = fmax(out->ks_distance, fmax(below, above));
        }
        double speed_median = tf_median_sorted(speed, ngap);
        out->gap_ns = tf_median_sorted(gap, ngap);
        /* the slowest walk the advances allow (a faster one would alias
         * onto them too); one seen not to move has passes without end */
        if (ngap >= TF_WALK_MIN_PAIRS && out->ks_distance > TF_WALK_KS_1PC / sqrt((double)ngap))
            out->pass_ns = speed_median > 0 ? footprint / speed_median : INFINITY;
    }
    free(v);
    free(gap);
    free(speed);
    free(advance);
    return 0;
}
