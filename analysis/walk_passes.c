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

/* What the passes are timed from: the pairs (gap, ns; advance, share of
 * the footprint), the walk's samples, and the phase's sampling interval. */
struct walk_input {
    const double *gap, *advance;
    size_t npairs;
    const struct visit *v;
    size_t nv;
    double footprint, duration_ns, interval;
};

static int by_thread_order(const void *pa, const void *pb)
{
    const struct visit *p = pa, *q = pb;
    if (p->group != q->group)
        return p->group < q->group ? -1 : 1;
    return (p->point > q->point) - (p->point < q->point);
}


/* Mean cosine of the pairs' misfit to passes of frequency f (passes per
 * ns): a walk at a steady speed advances by the part of a pass its gap
 * leaves over, frac(gap × f), so the misfits gather at 0 for its f. */
static double lined_up(const double *gap, const double *advance, size_t n, double f)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += cos(2 * M_PI * (advance[i] - gap[i] * f));
    return sum / (double)n;
}

/* Times the passes from pairs (gap, advance), filling out's pass_ns,
 * coherence and candidates; `scratch` holds n doubles.  The frequencies
 * from 0 (a walk that does not move) to TF_WALK_MAX_PASSES per median gap
 * are tried a tenth of a pass at the longest gap apart; pairs whose gaps
 * span a range R tell apart frequencies about 1 / R apart, which makes
 * the number of independent candidates. */
/* The walk's samples folded onto m passes an iteration: the length of
 * the mean of exp(2 pi i (position - m x)), position the sample's share of
 * the footprint along the walk, x its place in the folded iteration.  A
 * walk phase-locked to the iteration (a blocked product's 16 tile passes)
 * lines up at its m whatever the sampler's period; one far faster than
 * the fold resolves, at none. */
static double folded_coherence(const struct visit *v, size_t n, double footprint, double m)
{
    double c = 0, s = 0;
    for (size_t i = 0; i < n; i++) {
        double pos = fmod(v[i].offset * v[i].direction, footprint) / footprint;
        c += cos(2 * M_PI * (pos - m * v[i].x));
        s += sin(2 * M_PI * (pos - m * v[i].x));
    }
    return n ? hypot(c, s) / (double)n : 0;
}

/* A sampler whose gaps are whole sampling intervals T cannot tell the
 * pass's frequency f from its aliases f + k/T: the pairs line up at all
 * of them alike, but for the sampler's jitter (matmul_vec's z, passes of
 * 87 us sampled every 0.5 ms with a whole CPU, lined up at an alias of
 * 0.67 ms, and got no advice).  When the aliases next to the best line up
 * nearly as well (within the noise of the mean cosine, 1/sqrt(2n)), the
 * fold decides: the alias whose passes an iteration line up the folded
 * samples (Rayleigh test at 1 % over the aliases tried), else none (a
 * walk faster than the fold resolves): 0. */
static double settle_alias(const struct walk_input *in, double best_f, double coherence)
{
    double T = in->interval, margin = 1 / sqrt(2.0 * (double)in->npairs);
    if (!(T > 0))
        return best_f;
    bool up = lined_up(in->gap, in->advance, in->npairs, best_f + 1 / T) >= coherence - margin,
         down = best_f - 1 / T > 0 &&
                lined_up(in->gap, in->advance, in->npairs, best_f - 1 / T) >= coherence - margin;
    if (!up && !down)
        return best_f;
    double f = best_f, top = 0;
    unsigned tried = 0;
    for (int k = -TF_WALK_ALIASES; k <= TF_WALK_ALIASES; k++) {
        double fk = best_f + k / T;
        if (!(fk > 0))
            continue;
        tried++;
        double r = folded_coherence(in->v, in->nv, in->footprint, fk * in->duration_ns);
        if (r > top) {
            top = r;
            f = fk;
        }
    }
    return (double)in->nv * top * top > log(tried / 0.01) ? f : 0;
}

static void time_passes(const struct walk_input *in, double *scratch, tf_walk_passes *out)
{
    const double *gap = in->gap, *advance = in->advance;
    size_t n = in->npairs;
    double shortest = INFINITY, longest = 0;
    for (size_t i = 0; i < n; i++) {
        shortest = fmin(shortest, gap[i]);
        longest = fmax(longest, gap[i]);
        scratch[i] = gap[i];
    }
    out->gap_ns = tf_median_sorted(scratch, n);
    if (n < TF_WALK_MIN_PAIRS)
        return;
    double f_max = TF_WALK_MAX_PASSES / out->gap_ns, step = 0.1 / longest, best_f = 0;
    out->candidates = fmax(1, f_max * (longest - shortest));
    out->coherence = -1;
    for (double f = 0; f <= f_max; f += step) {
        double c = lined_up(gap, advance, n, f);
        if (c > out->coherence) {
            out->coherence = c;
            best_f = f;
        }
    }
    /* then the peak around the best, by golden-section search: the mean
     * cosine is smooth, one peak within a step */
    double lo = fmax(0, best_f - step), hi = best_f + step;
    const double g = (sqrt(5) - 1) / 2;
    for (int i = 0; i < 48; i++) {
        double f1 = hi - g * (hi - lo), f2 = lo + g * (hi - lo);
        if (lined_up(gap, advance, n, f1) < lined_up(gap, advance, n, f2))
            lo = f1;
        else
            hi = f2;
    }
    double c = lined_up(gap, advance, n, (lo + hi) / 2);
    if (c > out->coherence) {
        out->coherence = c;
        best_f = (lo + hi) / 2;
    }
    /* Under no walk the misfits are uniform: their mean cosine has mean 0
     * and variance 1 / (2n), and exceeds c with probability at most
     * exp(-n c^2); at 1 % over all the candidates. */
    if (!(out->coherence > sqrt(log(out->candidates / 0.01) / (double)n)))
        return;
    if (best_f > 0 && !((best_f = settle_alias(in, best_f, out->coherence)) > 0))
        return;   /* aliases the fold does not settle: faster than the sampling */
    out->pass_ns = best_f > 0 ? 1 / best_f : INFINITY;
}

/* Successive samples of a thread in a phase (visits sorted by thread and
 * order): their gaps, later in the iteration (the same instance, unless
 * an instance's end lies between), into gap[]; returns how many. */
static size_t successive_gaps(const struct visit *v, size_t n, double duration_ns, double *gap)
{
    size_t ngap = 0;
    for (size_t i = 1; i < n; i++)
        if (v[i].group == v[i - 1].group && v[i].x > v[i - 1].x)
            gap[ngap++] = (v[i].x - v[i - 1].x) * duration_ns;
    return ngap;
}

/* The memory samples of a[lo, hi) into v, in each thread's order: all of
 * them, or object o's (with their instruction's loop direction, else the
 * stream's, `direction`); returns how many. */
static size_t thread_visits(const tf_analysis *a, size_t lo, size_t hi, uint32_t o,
                            int direction, struct visit *v)
{
    size_t n = 0;
    for (size_t i = lo; i < hi; i++) {
        const tf_analysis_sample *s = &a->samples[i];
        if (s->kind == TF_SAMPLE_TIMER || (o != TF_ANALYSIS_NONE && s->object != o))
            continue;
        int dir = s->code_stride > 0 ? 1 : s->code_stride < 0 ? -1 : direction < 0 ? -1 : 1;
        v[n++] = (struct visit){ s->group, s->point, s->x, (double)s->offset, dir };
    }
    qsort(v, n, sizeof *v, by_thread_order);
    return n;
}

int tf_walk_sampling_interval(const tf_analysis *a, uint32_t phase, double *interval,
                              tf_error *err)
{
    *interval = 0;
    if (phase >= a->nphases || !(a->duration_ns > 0))
        return 0;
    const tf_analysis_phase *ph = &a->phases[phase];
    size_t lo = tf_analysis_lower_index(a, ph->x0), hi = tf_analysis_end_index(a, ph->x1);
    size_t cap = hi > lo ? hi - lo : 1;
    struct visit *v = malloc(cap * sizeof *v);
    double *gap = malloc(cap * sizeof *gap);
    if (!v || !gap) {
        free(v);
        free(gap);
        return tf_fail(err, TF_ERR_NOMEM, "sampling interval of region %s: out of memory",
                       a->region);
    }
    size_t n = thread_visits(a, lo, hi, TF_ANALYSIS_NONE, 1, v);
    size_t ngap = successive_gaps(v, n, a->duration_ns, gap);
    if (ngap)
        *interval = tf_median_sorted(gap, ngap);
    free(v);
    free(gap);
    return 0;
}

int tf_walk_passes_of(const tf_analysis *a, const tf_analysis_stream *st, double footprint,
                      double interval, tf_walk_passes *out, tf_error *err)
{
    *out = (tf_walk_passes){ 0 };
    if (st->phase >= a->nphases || !(footprint > 0) || !(a->duration_ns > 0))
        return 0;
    const tf_analysis_phase *ph = &a->phases[st->phase];
    size_t lo = tf_analysis_lower_index(a, ph->x0), hi = tf_analysis_end_index(a, ph->x1);
    size_t cap = hi > lo ? hi - lo : 1;
    struct visit *v = malloc(cap * sizeof *v);
    /* per candidate pair: its gap (ns) and its advance (share of the
     * footprint); scratch for the median gap */
    double *gap = malloc(cap * sizeof *gap), *advance = malloc(cap * sizeof *advance),
           *scratch = malloc(cap * sizeof *scratch);
    if (!v || !gap || !advance || !scratch) {
        free(v);
        free(gap);
        free(advance);
        free(scratch);
        return tf_fail(err, TF_ERR_NOMEM, "walk passes of region %s: out of memory", a->region);
    }
    size_t n = thread_visits(a, lo, hi, st->object, st->direction, v);
    /* successive samples of a thread, later in the iteration: the same
     * instance, unless the gap shows an instance's end between them */
    size_t ngap = successive_gaps(v, n, a->duration_ns, scratch);
    double limit = ngap ? TF_WALK_MAX_GAP * tf_median_sorted(scratch, ngap) : 0;
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
        gap[ngap++] = dt;
    }
    out->pairs = ngap;
    struct walk_input in = { gap, advance, ngap, v, n, footprint, a->duration_ns, interval };
    if (ngap)
        time_passes(&in, scratch, out);
    free(v);
    free(gap);
    free(advance);
    free(scratch);
    return 0;
}
