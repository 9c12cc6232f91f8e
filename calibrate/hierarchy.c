/* SPDX-License-Identifier: BSD-3-Clause */
#include "hierarchy.h"

#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "chase.h"

/* A load is "served by the same level" while its latency stays within this
 * fraction of the level's plateau.  Levels differ by ×2 or more in latency,
 * timing noise on a shared machine is a few percent. */
#define SAME_LEVEL 0.15
/* Successive cache levels are at least this much slower than the previous. */
#define DISTINCT_LEVEL 1.5
/* A cache level's plateau spans at least this ratio of sizes: it runs from
 * the previous level's size to its own, and levels grow by ×4 or more on
 * every machine this targets (L1 32–48 KiB, L2 256 KiB–2 MiB, L3 several
 * MiB).  Shorter flat stretches are the way from one level to the next:
 * a physically indexed cache shared with another core or tenant, or
 * replaced gradually, loses its hits over a range of sizes, and on the
 * AMD Zen 3 VM this was measured on the L2-to-L3 rise paused for two grid
 * steps at 1.7× the L2 latency. */
#define MIN_PLATEAU_SPAN 2.0
/* Sweeps of the capacity curve, each size keeping its fastest. */
#define CAPACITY_PASSES 4
#define CAPACITY_PASSES_QUICK 3

void tf_cal_default_options(tf_cal_options *o)
{
    memset(o, 0, sizeof *o);
    o->min_bytes = 4096;
    o->max_bytes = (size_t)512 << 20;
    o->grid = 1.25;
    o->repeats = 5;
    o->loads = 200000;
}

static void report(const tf_cal_options *o, const char *what, size_t done, size_t total)
{
    if (o->progress)
        o->progress(o->progress_ctx, what, done, total);
}

static bool within(double v, double ref) { return v <= ref * (1 + SAME_LEVEL); }

/* A flat stretch of the capacity curve: points first..last, its lowest
 * latency (noise on a shared machine only ever adds time) and the last
 * point still within SAME_LEVEL of it, whose size is the level's. */
typedef struct plateau {
    size_t first, last, end;
    double ns;
} plateau;

static void plateau_close(const tf_cal_curve *c, plateau *p)
{
    p->end = p->first;
    for (size_t i = p->first; i <= p->last; i++)
        if (within(c->ns[i], p->ns))
            p->end = i;
}

static double plateau_span(const tf_cal_curve *c, const plateau *p)
{
    return c->bytes[p->last] / c->bytes[p->first];
}

/* Joins plateau k+1 into plateau k. */
static void plateau_join(const tf_cal_curve *c, plateau *pl, size_t *n, size_t k)
{
    pl[k].last = pl[k + 1].last;
    if (pl[k + 1].ns < pl[k].ns)
        pl[k].ns = pl[k + 1].ns;
    plateau_close(c, &pl[k]);
    memmove(pl + k + 1, pl + k + 2, (*n - k - 2) * sizeof *pl);
    (*n)--;
}

/* Joins every neighbour less than DISTINCT_LEVEL slower than the previous
 * plateau: one level seen through noise. */
static void plateaus_join_close(const tf_cal_curve *c, plateau *pl, size_t *n)
{
    for (size_t k = 0; k + 1 < *n;) {
        double lo = pl[k].ns < pl[k + 1].ns ? pl[k].ns : pl[k + 1].ns;
        double hi = pl[k].ns < pl[k + 1].ns ? pl[k + 1].ns : pl[k].ns;
        if (hi < lo * DISTINCT_LEVEL)
            plateau_join(c, pl, n, k);
        else
            k++;
    }
}

int tf_cal_find_levels(const tf_cal_curve *c, tf_cal_level *levels, int max_levels,
                       double *memory_ns)
{
    *memory_ns = 0;
    if (c->n == 0)
        return 0;
    /* 1. Maximal runs of points within SAME_LEVEL of the run's lowest. */
    plateau pl[TF_CAL_MAX_POINTS];
    size_t n = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (n && within(c->ns[i], pl[n - 1].ns) && within(pl[n - 1].ns, c->ns[i])) {
            pl[n - 1].last = i;
            if (c->ns[i] < pl[n - 1].ns)
                pl[n - 1].ns = c->ns[i];
            continue;
        }
        pl[n++] = (plateau){.first = i, .last = i, .ns = c->ns[i]};
    }
    for (size_t k = 0; k < n; k++)
        plateau_close(c, &pl[k]);
    plateaus_join_close(c, pl, &n);
    /* 2. Stretches too short for a level, shortest first, leave the curve;
     * their neighbours may then be one level (a spike removed).  The first
     * plateau starts at the smallest size measured and the last may be cut
     * by the largest: both are kept whatever their span. */
    for (;;) {
        size_t shortest = 0;
        double span = MIN_PLATEAU_SPAN;
        for (size_t k = 1; k + 1 < n; k++)
            if (plateau_span(c, &pl[k]) < span) {
                span = plateau_span(c, &pl[k]);
                shortest = k;
            }
        if (!shortest)
            break;
        memmove(pl + shortest, pl + shortest + 1, (n - shortest - 1) * sizeof *pl);
        n--;
        plateaus_join_close(c, pl, &n);
    }
    /* A last point alone that continues the creep of the plateau before
     * it (less than DISTINCT_LEVEL above that plateau's last point) is part
     * of it; one further up is where the sweep ended still rising. */
    if (n >= 2 && pl[n - 1].first == pl[n - 1].last &&
        c->ns[pl[n - 1].first] < c->ns[pl[n - 2].last] * DISTINCT_LEVEL)
        plateau_join(c, pl, &n, n - 2);
    /* 3. Every plateau but the last is a cache level; the last is memory
     * (when the sweep ended still rising, its last point: a lower bound). */
    size_t ncache = n - 1;
    *memory_ns = pl[n - 1].ns;
    int nlevels = 0;
    for (size_t k = 0; k < ncache && nlevels < max_levels; k++)
        levels[nlevels++] = (tf_cal_level){.size_bytes = c->bytes[pl[k].end],
                                           .hit_ns = pl[k].ns};
    for (int k = 0; k < nlevels; k++)
        levels[k].miss_penalty_ns = (k + 1 < nlevels ? levels[k + 1].hit_ns : *memory_ns) -
                                    levels[k].hit_ns;
    return nlevels;
}

static size_t pow2_at_least(double v)
{
    size_t p = 1;
    while ((double)p < v)
        p <<= 1;
    return p;
}

/* How many nodes `s` bytes apart stay at the level's hit latency (65: more
 * than 64, or the arena ends first). */
static int nodes_that_fit(tf_chase_arena *a, const tf_cal_options *o, const tf_cal_level *lv,
                          size_t s)
{
    for (size_t m = 2; m <= 64; m++) {
        if (m * s > a->bytes)
            return 65;
        double ns = tf_chase_nodes(a, m, s, 0, o->loads / 4, o->repeats);
        if (ns <= 0 || !within(ns, lv->hit_ns))
            return (int)m - 1;
    }
    return 65;
}

/* Saavedra–Smith regime 2.c: addresses a multiple of the set span apart all
 * fall into one set, so m of them hit while m <= a.  Below the span they
 * spread over several sets and more fit; so a is the count that stops
 * changing when the stride doubles.  Strides start at 4 KiB, the span of
 * any virtually indexed L1; physically indexed caches need the physical
 * contiguity the 2 MiB huge pages give.  Hashed last-level caches never
 * settle: not measurable (0). */
static int measure_associativity(tf_chase_arena *a, const tf_cal_options *o,
                                 const tf_cal_level *lv)
{
    int prev = -1;
    for (size_t s = 4096; s <= 2 * pow2_at_least(lv->size_bytes); s <<= 1) {
        int fit = nodes_that_fit(a, o, lv, s);
        if (fit == prev && fit <= 64)
            return fit;
        prev = fit;
    }
    return 0;
}

/* The first spacing s at which the second load of a pair stops being free:
 * the line size.  From the line size on every pair is two misses, so the
 * rise must hold for every larger spacing: the fastest pair time from s on
 * exceeds the fastest below s by more than half of `step` (the latency gap
 * to the next level).  Fastest, because noise on a shared machine only adds
 * time: a neighbour's burst on one spacing (seen on the AMD VM: 16 and 32
 * bytes reported for a 64-byte line) or on the smallest one (no line found)
 * moves neither minimum. */
int tf_cal_find_step(const double *t, const size_t *s, int n, double step)
{
    for (int k = 1; k < n; k++) {
        double below = INFINITY, from = INFINITY;
        for (int j = 0; j < n; j++) {
            if (!(t[j] > 0))
                return 0;
            if (j < k)
                below = fmin(below, t[j]);
            else
                from = fmin(from, t[j]);
        }
        if (from - below > 0.5 * step)
            return (int)s[k];
    }
    return 0;
}

static int measure_line(tf_chase_arena *a, const tf_cal_options *o, const tf_cal_profile *p)
{
    if (p->nlevels < 1)
        return 0;
    /* Pairs inside a region 8× the first level: the first load of a pair
     * misses it, the second hits it only while it falls in the same line. */
    size_t block = 1024, blocks = (size_t)(8 * p->levels[0].size_bytes) / block;
    size_t s[8];
    double t[8];
    int n = 0;
    for (size_t step = 8; step < 512; step <<= 1, n++) {
        s[n] = step;
        t[n] = tf_chase_pairs(a, blocks, block, step, o->loads, o->repeats);
    }
    return tf_cal_find_step(t, s, n, p->levels[0].miss_penalty_ns);
}

/* The number of nodes `spacing` bytes apart a chase can visit before it pays
 * page walks: the first node count whose latency exceeds that of the same
 * number of nodes packed into few pages (same cache footprint, few pages).
 * Node offsets are skewed by a line per node so they spread over cache sets. */
static double tlb_step_nodes(tf_chase_arena *a, const tf_cal_options *o, size_t spacing,
                             double *miss_ns)
{
    double prev = 0;
    for (double nodes = 8; nodes * (double)spacing <= (double)a->bytes && nodes <= 65536;
         nodes *= o->grid) {
        size_t n = (size_t)nodes;
        double spread = tf_chase_nodes(a, n, spacing, 64, o->loads / 2, o->repeats);
        double packed = tf_chase_nodes(a, n, 64 + 8, 0, o->loads / 2, o->repeats);
        if (spread > 0 && packed > 0 && spread - packed > SAME_LEVEL * packed + 1.0) {
            *miss_ns = spread - packed;
            return prev;
        }
        prev = (double)n;
    }
    return 0;
}

static void measure_tlb(tf_chase_arena *small_pages, const tf_cal_options *o, tf_cal_profile *p)
{
    /* The arena is mapped MADV_NOHUGEPAGE: its pages are the kernel's base
     * pages, whose size the kernel states.  Measuring it (Saavedra and
     * Smith's spacing sweep) needs far more pages than the TLB holds at the
     * smallest spacing; a second-level TLB of 2048 entries (AMD Zen) already
     * hides the step, and 512 bytes came out on such a VM. */
    long page = sysconf(_SC_PAGESIZE);
    p->page_bytes = page > 0 ? (int)page : 0;
    report(o, "TLB", 1, 2);
    if (p->page_bytes)
        p->tlb_reach_bytes = tlb_step_nodes(small_pages, o, (size_t)p->page_bytes,
                                            &p->tlb_miss_ns) * p->page_bytes;
    report(o, "TLB", 2, 2);
}

/* The classic figure: read-modify-write every s-th element of N bytes,
 * time per access, for each stride (Saavedra–Smith's own experiment). */
static double rmw_ns(double *x, size_t n, size_t s, size_t touches)
{
    struct timespec t0, t1;
    size_t reps = touches / (n / s) + 1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (size_t r = 0; r < reps; r++)
        for (size_t i = 0; i < n; i += s)
            x[i] = x[i] * 1.0000001 + 1e-9;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double ns = 1e9 * (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec);
    return ns / (double)(reps * ((n + s - 1) / s));
}

static void measure_strides(tf_chase_arena *a, const tf_cal_options *o, tf_cal_profile *p)
{
    double *x = (double *)a->base;
    size_t max_elems = a->bytes / sizeof *x;
    int ns = 0;
    for (size_t s = 1; s <= max_elems / 2 && ns < TF_CAL_MAX_STRIDES; s *= o->quick ? 8 : 4) {
        tf_cal_curve *c = &p->stride[ns];
        p->stride_bytes[ns] = (double)(s * sizeof *x);
        c->n = 0;
        for (size_t n = 2 * s; n <= max_elems && c->n < TF_CAL_MAX_POINTS; n *= 2) {
            if (n < o->min_bytes / sizeof *x)
                continue;
            double best = 1e300;
            for (int r = 0; r < (o->quick ? 2 : 3); r++) {
                double t = rmw_ns(x, n, s, o->loads * 2);
                if (t < best)
                    best = t;
            }
            c->bytes[c->n] = (double)(n * sizeof *x);
            c->ns[c->n++] = best;
        }
        ns++;
        report(o, "stride sweep", (size_t)ns, TF_CAL_MAX_STRIDES);
    }
    p->nstrides = ns;
}

int tf_cal_measure(const tf_cal_options *o, tf_cal_profile *p, tf_error *err)
{
    memset(p, 0, sizeof *p);
    tf_chase_arena huge, small;
    int rc = tf_chase_arena_init(&huge, o->max_bytes, true, err);
    if (rc)
        return rc;
    size_t small_bytes = o->max_bytes < ((size_t)256 << 20) ? o->max_bytes : (size_t)256 << 20;
    rc = tf_chase_arena_init(&small, small_bytes, false, err);
    if (rc) {
        tf_chase_arena_free(&huge);
        return rc;
    }

    tf_cal_curve *cap = &p->capacity;
    for (double b = (double)o->min_bytes; b <= (double)o->max_bytes && cap->n < TF_CAL_MAX_POINTS;
         b *= o->grid) {
        cap->bytes[cap->n] = b;
        cap->ns[cap->n++] = INFINITY;
    }
    /* Whole sweeps repeated, keeping each size's fastest: a neighbour that
     * shares a cache for a while (another tenant, a hyperthread sibling)
     * slows a stretch of consecutive sizes, which the repeats of one size
     * (back to back, within the same stretch) cannot see past. */
    int passes = o->quick ? CAPACITY_PASSES_QUICK : CAPACITY_PASSES;
    for (int pass = 0; pass < passes; pass++)
        for (size_t i = 0; i < cap->n; i++) {
            /* 64-byte nodes: one per line on every machine this targets;
             * the line size itself is measured separately. */
            double ns = tf_chase_nodes(&huge, (size_t)cap->bytes[i] / 64, 64, 0, o->loads,
                                       o->repeats);
            if (ns > 0 && ns < cap->ns[i])
                cap->ns[i] = ns;
            report(o, "capacity sweep", (size_t)pass * cap->n + i + 1, (size_t)passes * cap->n);
        }
    size_t kept = 0;
    for (size_t i = 0; i < cap->n; i++)
        if (isfinite(cap->ns[i])) {
            cap->bytes[kept] = cap->bytes[i];
            cap->ns[kept++] = cap->ns[i];
        }
    cap->n = kept;
    p->nlevels = tf_cal_find_levels(&p->capacity, p->levels, TF_CAL_MAX_LEVELS, &p->memory_ns);
    p->line_bytes = measure_line(&huge, o, p);
    for (int k = 0; k < p->nlevels; k++)
        p->levels[k].associativity = measure_associativity(&huge, o, &p->levels[k]);
    report(o, "TLB", 0, 1);
    measure_tlb(&small, o, p);
    measure_strides(&huge, o, p);
    tf_chase_arena_free(&small);
    tf_chase_arena_free(&huge);
    return 0;
}
