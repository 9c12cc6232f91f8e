/* SPDX-License-Identifier: BSD-3-Clause */
/* Phases of the synthetic iteration.
 *
 * Top level: runs of windows with the same dominant routine; a run holding
 * fewer than min_phase_share of the code samples is relabelled as its
 * larger neighbour (noise, or a routine too short to resolve).  Each
 * boundary between routines A and B is then placed on the samples
 * themselves: among the samples of A or B between the previous boundary
 * and the end of B's run, the split minimising the misplaced samples
 * (B before it plus A after it) — the least-misclassification threshold,
 * which is the median of the two populations' overlap when boundaries
 * jitter from iteration to iteration.
 *
 * Nested level, inside each routine phase: the same on the routine's most
 * observed lines (a sweep forward on one line, backward on another), kept
 * only where the mixes of lines on the two sides differ clearly (total
 * variation distance of at least 0.5), plus the places where a counter's
 * rate or ratio per instruction changes for real inside the phase
 * (rate_changes.c: by at least min_change, beyond the fit's band, into
 * parts of at least min_phase_length); failing both, the point where the references to the phase's main object
 * turn round (a sweep forward then backward on the same lines, see
 * direction_turn.c). */
#include "analysis_steps.h"
#include "common/tf_array.h"
#include "common/tf_sort.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

struct run {
    size_t   w0, w1;     /* windows [w0, w1) */
    uint32_t label;
    size_t   count;
};

/* Runs of equal labels over windows [w0, w1); windows without a label
 * (TF_ANALYSIS_NONE) join the run before them (the first run takes leading ones). */
static size_t build_runs(const uint32_t *label, const size_t *count, size_t w0, size_t w1,
                         struct run *out)
{
    size_t n = 0;
    for (size_t k = w0; k < w1; k++) {
        if (label[k] == TF_ANALYSIS_NONE || (n && out[n - 1].label == label[k])) {
            if (n) {
                out[n - 1].w1 = k + 1;
                out[n - 1].count += label[k] == TF_ANALYSIS_NONE ? 0 : count[k];
            }
            continue;
        }
        out[n] = (struct run){ n ? k : w0, k + 1, label[k], count[k] };
        n++;
    }
    return n;
}

static void coalesce(struct run *r, size_t *n)
{
    size_t m = 0;
    for (size_t i = 0; i < *n; i++) {
        if (m && r[m - 1].label == r[i].label) {
            r[m - 1].w1 = r[i].w1;
            r[m - 1].count += r[i].count;
        } else {
            r[m++] = r[i];
        }
    }
    *n = m;
}

/* Relabels the smallest run below min_count as its larger neighbour until
 * none is left (both neighbours alike: the three become one). */
static void merge_short_runs(struct run *r, size_t *n, size_t min_count)
{
    for (;;) {
        coalesce(r, n);
        if (*n < 2)
            return;
        size_t k = 0;
        for (size_t i = 1; i < *n; i++)
            if (r[i].count < r[k].count)
                k = i;
        if (r[k].count >= min_count)
            return;
        size_t into = k == 0 ? 1 : k + 1 == *n ? k - 1
                    : r[k - 1].count >= r[k + 1].count ? k - 1 : k + 1;
        r[k].label = r[into].label;
    }
}

/* What a sample counts as at the current level: its routine, or, inside a
 * routine's phase, its line when it is in that routine and known (an
 * unknown line, 0, is no line of its own). */
struct labeller {
    bool     timer_only;
    bool     by_line;
    uint32_t routine;
};

static uint32_t label_of(const struct labeller *l, const tf_analysis_sample *s)
{
    if (!tf_analysis_is_code_sample(s, l->timer_only))
        return TF_ANALYSIS_NONE;
    if (!l->by_line)
        return s->routine;
    return s->routine == l->routine && s->line ? s->line : TF_ANALYSIS_NONE;
}

/* The boundary between la (left) and lb (right) among the samples with x
 * in [x_lo, x_hi): the split with fewest misplaced samples; on a tie, the
 * middle of the tied splits.  fallback when neither label occurs. */
static double refine_boundary(const tf_analysis *a, const struct labeller *l, double x_lo,
                              double x_hi, uint32_t la, uint32_t lb, double fallback)
{
    size_t i0 = tf_analysis_lower_index(a, x_lo), i1 = tf_analysis_lower_index(a, x_hi);
    size_t a_right = 0, m = 0;
    for (size_t i = i0; i < i1; i++) {
        uint32_t v = label_of(l, &a->samples[i]);
        a_right += v == la;
        m += v == la || v == lb;
    }
    if (!m)
        return fallback;
    size_t b_left = 0, best = a_right, j = 0;
    double prev_x = NAN, x_first = NAN, x_last = NAN;
    for (size_t i = i0; i < i1; i++) {
        uint32_t v = label_of(l, &a->samples[i]);
        if (v != la && v != lb)
            continue;
        double x = a->samples[i].x;
        /* the split before this sample, at the middle of the gap */
        double split = j == 0 ? x : (prev_x + x) / 2;
        if (j == 0)
            x_first = x_last = split;
        else if (a_right + b_left < best) {
            best = a_right + b_left;
            x_first = x_last = split;
        } else if (a_right + b_left == best) {
            x_last = split;
        }
        a_right -= v == la;
        b_left += v == lb;
        prev_x = x;
        j++;
    }
    /* the split after the last sample */
    if (a_right + b_left < best)
        x_first = x_last = prev_x;
    else if (a_right + b_left == best)
        x_last = prev_x;
    return (x_first + x_last) / 2;
}

struct phase_list {
    tf_analysis_phase *v;
    size_t n, cap;
};

static int push_phase(struct phase_list *pl, uint32_t parent, double x0, double x1,
                      tf_error *err)
{
    tf_analysis_phase *v = tf_array_room(pl->v, pl->n, &pl->cap, sizeof *v, 16);
    if (!v)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for phases");
    pl->v = v;
    pl->v[pl->n++] = (tf_analysis_phase){ .parent = parent, .x0 = x0, .x1 = x1,
                                          .routine = TF_ANALYSIS_NONE, .mips = NAN, .ipc = NAN,
                                          .cpu_share = NAN };
    return 0;
}

/* The lines of routine l->routine among the samples with x in [x0, x1),
 * sorted, into v (malloc'ed); returns their count. */
static size_t lines_in(const tf_analysis *a, const struct labeller *l, double x0, double x1,
                       uint32_t **v)
{
    size_t i0 = tf_analysis_lower_index(a, x0), i1 = tf_analysis_lower_index(a, x1), n = 0;
    *v = malloc((i1 - i0 + 1) * sizeof **v);
    if (!*v)
        return 0;
    for (size_t i = i0; i < i1; i++) {
        uint32_t ln = label_of(l, &a->samples[i]);
        if (ln != TF_ANALYSIS_NONE)
            (*v)[n++] = ln;
    }
    if (!tf_sort_u32(*v, n)) {   /* radix: qsort was a third of the phases' time */
        free(*v);
        *v = NULL;
        return 0;
    }
    return n;
}

/* Total variation distance between the line distributions of the routine's
 * samples in [xa0, xa1) and in [xb0, xb1): ½·Σ|pA(line) − pB(line)|, 0 for
 * the same mix of lines (a loop's header and body lines, whichever is the
 * mode in a window), 1 for disjoint lines (two different loops). */
static double line_distance(const tf_analysis *a, const struct labeller *l, double xa0,
                            double xa1, double xb0, double xb1)
{
    uint32_t *va, *vb;
    size_t na = lines_in(a, l, xa0, xa1, &va), nb = lines_in(a, l, xb0, xb1, &vb);
    double tv = 0;
    if (na && nb) {
        for (size_t i = 0, j = 0; i < na || j < nb;) {
            uint32_t ln = j >= nb || (i < na && va[i] < vb[j]) ? va[i] : vb[j];
            size_t ca = 0, cb = 0;
            while (i < na && va[i] == ln)
                ca++, i++;
            while (j < nb && vb[j] == ln)
                cb++, j++;
            tv += fabs((double)ca / (double)na - (double)cb / (double)nb);
        }
    }
    free(va);
    free(vb);
    return tv / 2;
}

static double window_x0(const tf_analysis *a, size_t w) { return a->windows[w].x0; }
static double window_x1(const tf_analysis *a, size_t w) { return a->windows[w].x1; }

/* The code samples in [x0, x1): the measure of phase_samples, so that the
 * 5 % rule compares like with like (counting memory samples too let a part
 * with 3.5 % of its phase's code samples stand where software-decoded
 * references are dense). */
static size_t code_samples(const tf_analysis *a, bool timer_only, double x0, double x1)
{
    size_t n = 0;
    for (size_t i = tf_analysis_lower_index(a, x0), e = tf_analysis_end_index(a, x1); i < e; i++)
        n += tf_analysis_is_code_sample(&a->samples[i], timer_only);
    return n;
}

/* Boundaries inside the routine phase [x0, x1) from line changes; returns
 * how many were written to out (at most a->nwindows). */
static size_t line_boundaries(const tf_analysis *a, bool timer_only,
                              uint32_t routine, double x0, double x1, size_t phase_samples,
                              struct run *runs, uint32_t *label, size_t *count, double *out)
{
    size_t w0 = a->nwindows, w1 = 0;
    for (size_t k = 0; k < a->nwindows; k++) {
        double c = (a->windows[k].x0 + a->windows[k].x1) / 2;
        label[k] = TF_ANALYSIS_NONE;
        count[k] = a->windows[k].samples;
        if (c < x0 || c >= x1)
            continue;
        if (w0 == a->nwindows)
            w0 = k;
        w1 = k + 1;
        if (a->windows[k].routine == routine && a->windows[k].line)
            label[k] = a->windows[k].line;
    }
    if (w0 >= w1)
        return 0;
    size_t n = build_runs(label, count, w0, w1, runs);
    /* a sub-part holds at least 5 % of its phase's samples */
    double min = fmax(0.05 * (double)phase_samples, 1);
    merge_short_runs(runs, &n, (size_t)ceil(min));
    struct labeller l = { timer_only, true, routine };
    for (size_t k = 0; k + 1 < n; k++) {
        double xa0 = k ? window_x0(a, runs[k].w0) : x0, xa1 = window_x1(a, runs[k].w1 - 1);
        double xb0 = window_x0(a, runs[k + 1].w0), xb1 = window_x1(a, runs[k + 1].w1 - 1);
        if (line_distance(a, &l, xa0, xa1, xb0, xb1) < 0.5)
            runs[k + 1].label = runs[k].label;
    }
    coalesce(runs, &n);
    size_t nb = 0;
    double lo = x0;
    for (size_t k = 0; k + 1 < n; k++) {
        double hi = k + 2 < n ? window_x1(a, runs[k + 1].w1 - 1) : x1;
        lo = refine_boundary(a, &l, lo, hi, runs[k].label, runs[k + 1].label,
                             window_x1(a, runs[k].w1 - 1));
        out[nb++] = lo;
    }
    /* refined, a part may have shrunk below a sub-part: it joins the
     * neighbour across its nearer boundary */
    for (;;) {
        size_t smallest = 0, least = SIZE_MAX;
        for (size_t k = 0; k <= nb; k++) {
            double p0 = k ? out[k - 1] : x0, p1 = k < nb ? out[k] : x1;
            size_t c = code_samples(a, timer_only, p0, p1 >= x1 ? x1 : p1);
            if (c < least) {
                least = c;
                smallest = k;
            }
        }
        if (!nb || least >= (size_t)ceil(min))
            break;
        size_t drop = smallest == nb ? nb - 1 : smallest;
        for (size_t k = drop; k + 1 < nb; k++)
            out[k] = out[k + 1];
        nb--;
    }
    return nb;
}

static int by_double(const void *pa, const void *pb)
{
    double x = *(const double *)pa, y = *(const double *)pb;
    return (x > y) - (x < y);
}

/* routine, most observed known line (0: the routine's samples there have
 * none), sample count and share of phase ph. */
static void describe_phase(const tf_analysis *a, tf_analysis_phase *ph, bool timer_only, size_t ncode,
                          uint32_t *scratch)
{
    size_t n = 0;
    size_t i0 = tf_analysis_lower_index(a, ph->x0), i1 = tf_analysis_end_index(a, ph->x1);
    for (size_t i = i0; i < i1; i++)
        if (tf_analysis_is_code_sample(&a->samples[i], timer_only))
            scratch[n++] = a->samples[i].routine;
    ph->samples = n;
    ph->share = ncode ? (double)n / (double)ncode : 0;
    if (ph->routine == TF_ANALYSIS_NONE)
        ph->routine = n ? tf_analysis_mode_u32(scratch, n, NULL) : TF_ANALYSIS_NONE;
    size_t nl = 0;
    for (size_t i = i0; i < i1; i++)
        if (tf_analysis_is_code_sample(&a->samples[i], timer_only) &&
            a->samples[i].routine == ph->routine && a->samples[i].line)
            scratch[nl++] = a->samples[i].line;
    ph->line = tf_analysis_mode_u32(scratch, nl, NULL);
}

int tf_analysis_phases(tf_analysis *a, const tf_analysis_counter *counters, size_t ncounters,
                       const double *change_points, size_t nchange_points,
                       const tf_analysis_params *p, bool timer_only, tf_error *err)
{
    size_t nw = a->nwindows, ncode = 0;
    for (size_t i = 0; i < a->nsamples; i++)
        ncode += tf_analysis_is_code_sample(&a->samples[i], timer_only);
    struct run *runs = malloc((nw + 1) * sizeof *runs);
    uint32_t *label = malloc((nw + 1) * sizeof *label);
    size_t *count = malloc((nw + 1) * sizeof *count);
    size_t splits_cap = nw + 1;   /* line boundaries, then rate changes */
    double *splits = malloc(splits_cap * sizeof *splits);
    double *tops = malloc((nw + 2) * sizeof *tops);
    uint32_t *top_routine = malloc((nw + 1) * sizeof *top_routine);
    uint32_t *scratch = malloc((ncode + 1) * sizeof *scratch);
    struct phase_list pl = { 0 };
    int rc = 0;
    if (!runs || !label || !count || !splits || !tops || !top_routine || !scratch) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for phase detection");
        goto done;
    }
    for (size_t k = 0; k < nw; k++) {
        label[k] = a->windows[k].routine;
        count[k] = a->windows[k].samples;
    }
    size_t nr = build_runs(label, count, 0, nw, runs);
    merge_short_runs(runs, &nr, (size_t)fmax(1, ceil(p->min_phase_share * (double)ncode)));
    struct labeller l = { timer_only, false, TF_ANALYSIS_NONE };
    size_t ntop = nr ? nr : 1;
    tops[0] = 0;
    top_routine[0] = nr ? runs[0].label : TF_ANALYSIS_NONE;
    for (size_t k = 0; k + 1 < nr; k++) {
        double hi = k + 2 < nr ? window_x1(a, runs[k + 1].w1 - 1) : 1.0 + 1e-9;
        tops[k + 1] = refine_boundary(a, &l, tops[k], hi, runs[k].label, runs[k + 1].label,
                                      window_x1(a, runs[k].w1 - 1));
        top_routine[k + 1] = runs[k + 1].label;
    }
    tops[ntop] = 1;
    for (size_t k = 0; k < ntop; k++) {
        if ((rc = push_phase(&pl, TF_ANALYSIS_NONE, tops[k], tops[k + 1], err)))
            goto done;
        pl.v[k].routine = top_routine[k];
        snprintf(pl.v[k].label, sizeof pl.v[k].label, "%zu", k + 1);
        describe_phase(a, &pl.v[k], timer_only, ncode, scratch);
    }
    for (size_t k = 0; k < ntop; k++) {
        tf_analysis_phase top = pl.v[k];
        size_t ns = 0;
        if (top.routine != TF_ANALYSIS_NONE)
            ns = line_boundaries(a, timer_only, top.routine, top.x0, top.x1, top.samples,
                                 runs, label, count, splits);
        /* a rate change splits the phase unless a line boundary is that
         * close (the same boundary, placed on the samples) */
        double *changes;
        size_t nchanges;
        if ((rc = tf_analysis_rate_changes(counters, ncounters, a->duration_ns, change_points,
                                           nchange_points, top.x0, top.x1, p, &changes, &nchanges,
                                           err)))
            goto done;
        size_t nlines = ns;
        if (ns + nchanges > splits_cap) {
            double *more = realloc(splits, (ns + nchanges) * sizeof *splits);
            if (!more) {
                free(changes);
                rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for phase detection");
                goto done;
            }
            splits = more;
            splits_cap = ns + nchanges;
        }
        for (size_t c = 0; c < nchanges; c++) {
            bool near = false;
            for (size_t s = 0; s < nlines && !near; s++)
                near = fabs(splits[s] - changes[c]) < p->min_phase_length;
            if (!near)
                splits[ns++] = changes[c];
        }
        free(changes);
        /* no line or rate change: a sweep that turns round on the same lines */
        if (!ns && top.routine != TF_ANALYSIS_NONE &&
            tf_analysis_direction_turn(a, top.x0, top.x1, p, &splits[0]))
            ns = 1;
        if (!ns)
            continue;
        qsort(splits, ns, sizeof *splits, by_double);
        for (size_t s = 0; s <= ns; s++) {
            double x0 = s ? splits[s - 1] : top.x0, x1 = s < ns ? splits[s] : top.x1;
            if ((rc = push_phase(&pl, (uint32_t)k, x0, x1, err)))
                goto done;
            tf_analysis_phase *ph = &pl.v[pl.n - 1];
            ph->routine = top.routine;
            snprintf(ph->label, sizeof ph->label, "%zu.%zu", k + 1, s + 1);
            describe_phase(a, ph, timer_only, ncode, scratch);
        }
    }
    free(a->phases);
    a->phases = pl.v;
    a->nphases = pl.n;
    pl.v = NULL;
done:
    free(pl.v);
    free(runs);
    free(label);
    free(count);
    free(splits);
    free(tops);
    free(top_routine);
    free(scratch);
    return rc;
}
