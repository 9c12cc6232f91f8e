/* SPDX-License-Identifier: BSD-3-Clause */
/* Aligning the phases of two folds and comparing them with bands
 * (docs/algorithms.md, "Comparing two folds"). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_diff.h"

/* The z of a two-sided normal band of coverage c, by bisection on erfc
 * (libm has no inverse). */
static double z_of(double c)
{
    double lo = 0, hi = 40;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (erfc(mid / M_SQRT2) > 1 - c)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* P(|T| < t) for Student's t with nu degrees of freedom, nu a whole
 * number: the finite series of Abramowitz & Stegun 26.7.3 (nu odd) and
 * 26.7.4 (nu even) in theta = atan(t / sqrt(nu)). */
static double t_coverage(double t, unsigned nu)
{
    double th = atan(t / sqrt((double)nu)), s = sin(th), c2 = cos(th) * cos(th);
    double term = 1, sum = 1;
    if (nu % 2 == 0) {
        for (unsigned k = 2; k < nu; k += 2) {
            term *= c2 * (double)(k - 1) / (double)k;
            sum += term;
        }
        return s * sum;
    }
    if (nu == 1)
        return 2 * th / M_PI;
    for (unsigned k = 3; k < nu; k += 2) {
        term *= c2 * (double)(k - 1) / (double)k;
        sum += term;
    }
    return 2 / M_PI * (th + s * cos(th) * sum);
}

/* The half width, in standard errors, of a two-sided band of coverage c
 * around an estimate whose standard error has df degrees of freedom:
 * Student's t, for df rounded down (the wider band); the normal z past
 * 1000, where the two differ by under 0.1 %. */
static double t_of(double c, double df)
{
    if (!(df < 1000))
        return z_of(c);
    unsigned nu = df < 1 ? 1 : (unsigned)df;
    double lo = 0, hi = 1;
    while (t_coverage(hi, nu) < c && hi < 1e12)
        hi *= 2;
    for (int i = 0; i < 200; i++) {
        double mid = (lo + hi) / 2;
        if (t_coverage(mid, nu) < c)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

static const char *routine_of(const tf_report_page *p, size_t k)
{
    uint32_t r = p->phases[k].routine;
    return r < p->nroutines ? p->routines[r] : "?";
}

/* Phases that do the same work: the same routine at the same line. */
static bool same_key(const tf_report_page *a, size_t i, const tf_report_page *b, size_t j)
{
    return a->phases[i].line == b->phases[j].line && !strcmp(routine_of(a, i), routine_of(b, j));
}

static double mid(const tf_report_phase *ph)
{
    return (ph->x0 + ph->x1) / 2;
}

/* The best alignment of a prefix pair: most matched phases, then the
 * least distance in time between the matched ones (so that a routine that
 * runs twice, memset before two kernels, is matched with its own
 * neighbour). */
typedef struct cell {
    size_t matches;
    double distance;
    unsigned char from;        /* 0 start, 1 skip a, 2 skip b, 3 match */
} cell;

static bool better(size_t m, double d, const cell *c)
{
    return m > c->matches || (m == c->matches && d < c->distance);
}

/* Matched pairs (i, j) in order into pairs[2k], pairs[2k+1]; *n of them. */
static int align(const tf_report_page *a, const tf_report_page *b, size_t *pairs, size_t *n,
                 tf_error *err)
{
    size_t na = a->nphases, nb = b->nphases, w = nb + 1;
    cell *t = calloc((na + 1) * w, sizeof *t);
    if (!t)
        return tf_fail(err, TF_ERR_NOMEM, "diff: no memory to align %zu x %zu phases", na, nb);
    for (size_t i = 0; i <= na; i++)
        for (size_t j = 0; j <= nb; j++) {
            cell *c = &t[i * w + j];
            if (i == 0 && j == 0)
                continue;
            c->matches = 0;
            c->distance = INFINITY;
            if (i > 0 && better(t[(i - 1) * w + j].matches, t[(i - 1) * w + j].distance, c))
                *c = (cell){t[(i - 1) * w + j].matches, t[(i - 1) * w + j].distance, 1};
            if (j > 0 && better(t[i * w + j - 1].matches, t[i * w + j - 1].distance, c))
                *c = (cell){t[i * w + j - 1].matches, t[i * w + j - 1].distance, 2};
            if (i > 0 && j > 0 && same_key(a, i - 1, b, j - 1)) {
                const cell *d = &t[(i - 1) * w + j - 1];
                double dist = d->distance + fabs(mid(&a->phases[i - 1]) - mid(&b->phases[j - 1]));
                if (better(d->matches + 1, dist, c))
                    *c = (cell){d->matches + 1, dist, 3};
            }
        }
    size_t k = t[na * w + nb].matches, i = na, j = nb;
    *n = k;
    while (i > 0 || j > 0) {
        unsigned char from = t[i * w + j].from;
        if (from == 3) {
            k--;
            pairs[2 * k] = i - 1;
            pairs[2 * k + 1] = j - 1;
            i--;
            j--;
        } else if (from == 1) {
            i--;
        } else {
            j--;
        }
    }
    free(t);
    return 0;
}

/* Relative standard error of the mean duration of the used instances,
 * and its degrees of freedom in *df.  Instances are not independent: a
 * machine busy with other work slows runs of consecutive ones (a load
 * episode), which the instances' own spread over sqrt(n) takes for
 * independent noise.  So the mean is also estimated from batch means
 * (the used instances in their order, cut into b = floor(sqrt(n))
 * consecutive batches: Law & Kelton, "Simulation Modeling and Analysis",
 * the method of batch means), whose spread over sqrt(b) includes such
 * episodes; the larger of the two errors is taken, with its degrees of
 * freedom (n - 1 or b - 1).  Under 9 instances (3 batches) the batches
 * say nothing and the instances' own error stands. */
static double duration_rel_se(const tf_report_page *p, double *df)
{
    double sum = 0, sum2 = 0;
    size_t n = 0;
    *df = 0;
    for (size_t i = 0; i < p->ninstances; i++)
        if (p->instance_used[i]) {
            sum += p->instance_ns[i];
            n++;
        }
    if (n < 2 || sum <= 0)
        return INFINITY;
    double mean = sum / (double)n;
    for (size_t i = 0; i < p->ninstances; i++)
        if (p->instance_used[i])
            sum2 += (p->instance_ns[i] - mean) * (p->instance_ns[i] - mean);
    double se = sqrt(sum2 / (double)(n - 1) / (double)n) / mean;
    *df = (double)(n - 1);
    size_t nb = (size_t)sqrt((double)n);
    if (nb < 3)
        return se;
    /* batch k holds the used instances [k n / nb, (k + 1) n / nb) */
    double bsum = 0, bsum2 = 0, acc = 0;
    size_t used = 0, k = 0, in_batch = 0;
    for (size_t i = 0; i < p->ninstances; i++) {
        if (!p->instance_used[i])
            continue;
        acc += p->instance_ns[i];
        in_batch++;
        if (++used == (k + 1) * n / nb) {
            double bm = acc / (double)in_batch;
            bsum += bm;
            bsum2 += bm * bm;
            acc = 0;
            in_batch = 0;
            k++;
        }
    }
    double bmean = bsum / (double)nb, bvar = (bsum2 - (double)nb * bmean * bmean) / (double)(nb - 1);
    double bse = sqrt(bvar > 0 ? bvar / (double)nb : 0) / mean;
    if (bse > se) {
        *df = (double)(nb - 1);
        return bse;
    }
    return se;
}

/* Samples that locate the phases: the code samples, else the memory ones. */
static size_t span_samples(const tf_report_page *p)
{
    return p->ncode ? p->ncode : p->nmem;
}

static void side_fill(const tf_report_page *p, size_t first, size_t last, bool whole,
                      tf_diff_side *s)
{
    memset(s, 0, sizeof *s);
    s->first = first;
    s->last = last;
    s->mips = s->mips_half = s->bandwidth = s->time_ns = NAN;
    if (first == last)
        return;
    /* a phase without line information is named by its routine alone */
    if (p->phases[first].line)
        snprintf(s->name, sizeof s->name, "%s[%u]%s", routine_of(p, first),
                 p->phases[first].line, last - first > 1 ? "+" : "");
    else
        snprintf(s->name, sizeof s->name, "%s%s", routine_of(p, first),
                 last - first > 1 ? "+" : "");
    double w = 0, bw = 0, bw_w = 0;
    for (size_t k = first; k < last; k++) {
        const tf_report_phase *ph = &p->phases[k];
        w += ph->x1 - ph->x0;
        if (isfinite(ph->bandwidth)) {
            bw += ph->bandwidth * (ph->x1 - ph->x0);
            bw_w += ph->x1 - ph->x0;
        }
    }
    s->x0 = whole ? 0 : p->phases[first].x0;
    s->x1 = whole ? 1 : p->phases[last - 1].x1;
    if (whole)
        w = 1;
    s->time_ns = w * p->duration_ns;
    /* The span's share of the iteration is known as well as a share counted
     * from the samples that locate it (binomial), the iteration's length as
     * well as the mean of the instances' durations. */
    double n = (double)span_samples(p), rd = duration_rel_se(p, &s->duration_df);
    double rw = w >= 1 ? 0 : n > 0 && w > 0 ? sqrt(w * (1 - w) / n) / w : INFINITY;
    s->duration_rel_se = rd;
    s->time_rel_se = sqrt(rd * rd + rw * rw);
    s->bandwidth = bw_w > 0 ? bw / bw_w : NAN;
    if (p->mips) {
        s->mips = tf_report_series_mean(p->mips, p->mips->y, s->x0, s->x1);
        if (p->mips->lo && p->mips->hi)
            s->mips_half = (tf_report_series_mean(p->mips, p->mips->hi, s->x0, s->x1) -
                            tf_report_series_mean(p->mips, p->mips->lo, s->x0, s->x1)) / 2;
    }
    for (size_t i = 0; i < p->nmem; i++) {
        const tf_report_mem_point *m = &p->mem[i];
        if (m->access != TF_REPORT_LOAD || m->level >= TF_REPORT_LEVELS || m->x < s->x0 ||
            (m->x >= s->x1 && !(whole && m->x <= 1)))
            continue;
        s->loads++;
        s->level_loads[m->level]++;
    }
}

static double share(const tf_diff_side *s, size_t l)
{
    return s->loads ? (double)s->level_loads[l] / (double)s->loads : NAN;
}

/* Degrees of freedom of a sum of variances, each side's duration part
 * with its own and the share part (counted from many samples) with
 * infinitely many: Welch-Satterthwaite. */
static double time_df(const tf_diff_side *a, const tf_diff_side *b)
{
    double v = a->time_rel_se * a->time_rel_se + (b ? b->time_rel_se * b->time_rel_se : 0);
    double da = pow(a->duration_rel_se, 4) / a->duration_df;
    double db = b ? pow(b->duration_rel_se, 4) / b->duration_df : 0;
    return da + db > 0 ? v * v / (da + db) : INFINITY;
}

static void compare(tf_diff *d, tf_diff_row *r)
{
    const tf_diff_side *a = &r->a, *b = &r->b;
    double z = d->z;
    r->ratio = r->ratio_lo = r->ratio_hi = NAN;
    if (a->first == a->last || b->first == b->last) {
        /* A phase of one fold only: a change when its time is measured. */
        const tf_diff_side *s = a->first == a->last ? b : a;
        r->t = t_of(d->confidence, time_df(s, NULL));
        r->significant = r->t * s->time_rel_se < 1;
        return;
    }
    double se = sqrt(a->time_rel_se * a->time_rel_se + b->time_rel_se * b->time_rel_se);
    /* the time's band in standard errors: Student's t for its degrees of freedom */
    double q = r->t = isfinite(se) ? t_of(d->confidence, time_df(a, b)) : z;
    r->ratio = b->time_ns / a->time_ns;
    /* The band of a ratio of two positive estimates: symmetric in its log. */
    r->ratio_lo = r->ratio * exp(-q * se);
    r->ratio_hi = r->ratio * exp(q * se);
    r->significant = isfinite(se) && (r->ratio_lo > 1 || r->ratio_hi < 1);
    /* The MIPS bands are the fold's own (bootstrap over instances). */
    r->mips_significant = isfinite(a->mips_half) && isfinite(b->mips_half) &&
                          fabs(b->mips - a->mips) > hypot(a->mips_half, b->mips_half);
    /* Bandwidth is bytes over the phase's time: it inherits the time's band. */
    r->bandwidth_significant = a->bandwidth > 0 && b->bandwidth > 0 && isfinite(se) &&
                               fabs(log(b->bandwidth / a->bandwidth)) > q * se;
    for (size_t l = 0; l < TF_REPORT_LEVELS; l++) {
        if (!a->loads || !b->loads)
            continue;
        double pa = share(a, l), pb = share(b, l);
        double sel = sqrt(pa * (1 - pa) / (double)a->loads + pb * (1 - pb) / (double)b->loads);
        r->level_delta[l] = pb - pa;
        r->level_significant[l] = fabs(pb - pa) > z * sel && pb != pa;
        d->levels[l] |= a->level_loads[l] || b->level_loads[l];
    }
}

static tf_diff_row *row_add(tf_diff *d, size_t cap, enum tf_diff_match match)
{
    if (d->nrows >= cap)
        return NULL;
    tf_diff_row *r = &d->rows[d->nrows++];
    memset(r, 0, sizeof *r);
    r->match = match;
    snprintf(r->phase, sizeof r->phase, "%zu", d->nrows);
    return r;
}

/* The phases between two matched ones: paired by order when both folds
 * have as many, else compared as one span; one fold's alone, one by one. */
static void gap_rows(tf_diff *d, size_t cap, size_t ia, size_t ja, size_t ib, size_t jb)
{
    size_t na = ja - ia, nb = jb - ib;
    if (na == nb) {
        for (size_t k = 0; k < na; k++) {
            tf_diff_row *r = row_add(d, cap, TF_DIFF_ORDER);
            side_fill(d->a, ia + k, ia + k + 1, false, &r->a);
            side_fill(d->b, ib + k, ib + k + 1, false, &r->b);
        }
    } else if (na && nb) {
        tf_diff_row *r = row_add(d, cap, TF_DIFF_SPAN);
        side_fill(d->a, ia, ja, false, &r->a);
        side_fill(d->b, ib, jb, false, &r->b);
    } else {
        for (size_t k = ia; k < ja; k++)
            side_fill(d->a, k, k + 1, false, &row_add(d, cap, TF_DIFF_ORDER)->a);
        for (size_t k = ib; k < jb; k++)
            side_fill(d->b, k, k + 1, false, &row_add(d, cap, TF_DIFF_ORDER)->b);
    }
}

int tf_diff_compute(const tf_report_page *a, const tf_report_page *b, double confidence,
                    tf_diff *d, tf_error *err)
{
    memset(d, 0, sizeof *d);
    d->a = a;
    d->b = b;
    d->z = z_of(confidence);
    d->confidence = confidence;
    size_t cap = a->nphases + b->nphases + 1;
    size_t most = a->nphases < b->nphases ? a->nphases : b->nphases;
    size_t *pairs = malloc((2 * most + 1) * sizeof *pairs);
    d->rows = malloc(cap * sizeof *d->rows);
    if (!pairs || !d->rows) {
        free(pairs);
        tf_diff_free(d);
        return tf_fail(err, TF_ERR_NOMEM, "diff: no memory for %zu rows", cap);
    }
    size_t npairs = 0;
    int rc = align(a, b, pairs, &npairs, err);
    size_t ia = 0, ib = 0;
    for (size_t k = 0; rc == 0 && k <= npairs; k++) {
        size_t ja = k < npairs ? pairs[2 * k] : a->nphases;
        size_t jb = k < npairs ? pairs[2 * k + 1] : b->nphases;
        gap_rows(d, cap, ia, ja, ib, jb);
        if (k < npairs) {
            tf_diff_row *r = row_add(d, cap, TF_DIFF_ROUTINE);
            side_fill(a, ja, ja + 1, false, &r->a);
            side_fill(b, jb, jb + 1, false, &r->b);
        }
        ia = ja + 1;
        ib = jb + 1;
    }
    free(pairs);
    if (rc < 0) {
        tf_diff_free(d);
        return rc;
    }
    tf_diff_row *total = &d->rows[d->nrows++];
    memset(total, 0, sizeof *total);
    snprintf(total->phase, sizeof total->phase, "total");
    total->match = TF_DIFF_ORDER;
    side_fill(a, 0, a->nphases, true, &total->a);
    side_fill(b, 0, b->nphases, true, &total->b);
    /* A fold without phases still has its iteration. */
    if (a->nphases == 0 || b->nphases == 0) {
        total->a.first = total->b.first = 0;
        total->a.last = total->b.last = 1;
        total->a.time_ns = a->duration_ns;
        total->b.time_ns = b->duration_ns;
        total->a.time_rel_se = total->a.duration_rel_se = duration_rel_se(a, &total->a.duration_df);
        total->b.time_rel_se = total->b.duration_rel_se = duration_rel_se(b, &total->b.duration_df);
    }
    for (size_t k = 0; k < d->nrows; k++)
        compare(d, &d->rows[k]);
    return 0;
}

void tf_diff_free(tf_diff *d)
{
    free(d->rows);
    memset(d, 0, sizeof *d);
}
