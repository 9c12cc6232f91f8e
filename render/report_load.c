/* SPDX-License-Identifier: BSD-3-Clause */
/* From fold.h5 to report pages. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/analysis.h"
#include "analysis/analysis_run.h"
#include "fold/fold_result.h"
#include "fold/fold_steps.h"
#include "report_load.h"
#include "time_units.h"
#include "analysis/analysis_h5.h"
#include "report_machine.h"
#include "report_tables.h"
#include "common/tf_hash.h"
#include "formats/trace.h"
#include "formats/trace_input.h"

/* Counters whose per-instruction ratio belongs on the left axis: misses
 * (generic names, and PAPI's *_DCM, *_ICM, *_TCM, *_LDM, *_STM). */
static bool miss_like(const char *name)
{
    static const char *const marks[] = {"miss", "_DCM", "_ICM", "_TCM", "_LDM", "_STM"};
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
        if (strcasestr(name, marks[i]))
            return true;
    return false;
}

static bool events_unit(const char *unit)
{
    return !unit || !*unit || !strcmp(unit, "events");
}

static bool finite_row(const double *row, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (isfinite(row[i]))
            return true;
    return false;
}

/* One series from row c of the group's curves: value row `y` scaled by
 * `scale`, band from the rate band when the fold has one.  A ratio's band
 * is the counter's relative rate band (the instructions rate is much the
 * more certain of the two). */
static int add_series(tf_report_series *s, const char *name, const tf_fold_group *g, size_t c,
                      const double *y, double scale, tf_error *err)
{
    size_t n = g->grid;
    const double *rate = g->rate + c * n, *lo = g->rate_lo ? g->rate_lo + c * n : NULL,
                 *hi = g->rate_hi ? g->rate_hi + c * n : NULL;
    bool band = lo && hi && finite_row(lo, n) && finite_row(hi, n);
    if (tf_report_series_init(s, name, n, band, err) < 0)
        return -err->code;
    for (size_t j = 0; j < n; j++) {
        s->x[j] = g->x[j];
        s->y[j] = y[j] * scale;
        if (band) {
            double rel_lo = rate[j] > 0 ? lo[j] / rate[j] : 1, rel_hi = rate[j] > 0 ? hi[j] / rate[j] : 1;
            s->lo[j] = s->y[j] * (isfinite(rel_lo) ? rel_lo : 1);
            s->hi[j] = s->y[j] * (isfinite(rel_hi) ? rel_hi : 1);
        }
    }
    return 0;
}

/* Whether counter c's fit rests on enough instances to be drawn
 * (tf_fold_counter_representative). */
static bool enough_instances(const tf_fold_group *g, size_t c)
{
    return !g->counter_instances ||
           tf_fold_counter_representative(g->counter_instances[c], g->instances);
}

/* The step counters (fold_steps.h): drawn as a rate, such a counter is a
 * spike of millions of times its mean rate where the add is, and nothing
 * elsewhere; the report gives their mean totals per folded instance. */
static int totals(tf_report_page *p, const tf_fold_region *reg, const tf_fold_group *g,
                  const bool *step, tf_error *err)
{
    size_t C = reg->ncounters, count = 0;
    for (size_t c = 0; c < C; c++)
        count += step[c];
    if (count == 0)
        return 0;
    if (!(p->totals = calloc(count, sizeof *p->totals)))
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for the totals");
    for (size_t c = 0; c < C; c++) {
        if (!step[c])
            continue;
        tf_report_total *t = &p->totals[p->ntotals++];
        t->per_iteration = tf_fold_group_total(reg, g, (uint32_t)c, NULL);
        if (!(t->name = tf_report_strdup("%s", reg->counter_names[c])))
            return tf_fail(err, TF_ERR_NOMEM, "report: no memory for the totals");
    }
    return 0;
}

/* Whether name is an item of the comma-separated list. */
static bool listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *s = list; *s;) {
        const char *end = strchr(s, ',');
        size_t len = end ? (size_t)(end - s) : strlen(s);
        if (len == n && !strncmp(s, name, n))
            return true;
        s += len + (end != NULL);
    }
    return false;
}

/* How a counter is drawn on the left axis: a counter of time (task-clock,
 * cpu-clock: nanoseconds of CPU per second) as the CPU utilisation, an
 * event counter per instruction when the fold has instructions, else as
 * its rate. */
enum rate_kind { KIND_RATIO, KIND_RATE, KIND_CPU };

static bool time_unit(const char *unit)
{
    return unit && !strcmp(unit, "ns");
}

static enum rate_kind kind_of(const tf_fold_region *reg, const tf_fold_group *g, size_t c)
{
    if (time_unit(reg->counter_units[c]))
        return KIND_CPU;
    return g->instructions >= 0 && g->ratio ? KIND_RATIO : KIND_RATE;
}

static const char *const kind_unit[] = {
    [KIND_RATIO] = "events per instruction", [KIND_RATE] = "rate [M events/s]",
    [KIND_CPU] = "CPU utilisation [%]",
};

/* One series of counter c drawn as its kind. */
static int kind_series(tf_report_series *s, const tf_fold_region *reg, const tf_fold_group *g,
                       size_t c, tf_error *err)
{
    size_t n = g->grid;
    switch (kind_of(reg, g, c)) {
    case KIND_RATIO:
        return add_series(s, reg->counter_names[c], g, c, g->ratio + c * n, 1, err);
    case KIND_CPU: {
        /* ns of CPU per second of the iteration: 1e9 is one CPU busy. */
        char name[160];
        snprintf(name, sizeof name, "%s (CPU utilisation)", reg->counter_names[c]);
        return add_series(s, name, g, c, g->rate + c * n, 1e-7, err);
    }
    case KIND_RATE:
        break;
    }
    return add_series(s, reg->counter_names[c], g, c, g->rate + c * n, 1e-6, err);
}

/* The rates' values, in units of `base` (1e6: M events/s), given with the
 * SI prefix that suits their largest value (tf_si_prefix_for), the axis
 * named "QUANTITY [PREFIX UNIT]" ("rate [k events/s]", "bandwidth
 * [GB/s]"); spaced puts a space between prefix and unit. */
static int rates_prefixed(tf_report_page *p, double base, const char *quantity, const char *unit,
                          bool spaced, tf_error *err)
{
    double max = 0;
    for (size_t i = 0; i < p->nrates; i++) {
        const tf_report_series *s = &p->rates[i];
        for (size_t j = 0; j < s->n; j++) {
            double v = s->hi && isfinite(s->hi[j]) ? s->hi[j] : s->y[j];
            max = isfinite(v) && v > max ? v : max;
        }
    }
    tf_si_prefix pre = tf_si_prefix_for(max * base);
    double k = base / pre.factor;
    for (size_t i = 0; i < p->nrates; i++) {
        tf_report_series *s = &p->rates[i];
        for (size_t j = 0; j < s->n; j++) {
            s->y[j] *= k;
            if (s->lo)
                s->lo[j] *= k;
            if (s->hi)
                s->hi[j] *= k;
        }
    }
    free(p->rates_unit);
    p->rates_unit = tf_report_strdup("%s [%s%s%s]", quantity, pre.name, spaced && *pre.name ? " " : "",
                                     unit);
    return p->rates_unit ? 0 : tf_fail(err, TF_ERR_NOMEM, "report: no memory for the unit");
}

/* The counters of `use` drawn on the left axis, MIPS on the right when
 * mips is set. */
static int draw_chosen(tf_report_page *p, const tf_fold_region *reg, const tf_fold_group *g,
                       const bool *use, bool mips, const char *unit, tf_error *err)
{
    size_t n = g->grid, C = reg->ncounters, count = 0;
    for (size_t c = 0; c < C; c++)
        count += use[c];
    p->rates = calloc(count ? count : 1, sizeof *p->rates);
    if (!p->rates)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for the rates");
    for (size_t c = 0; c < C; c++)
        if (use[c] && kind_series(&p->rates[p->nrates++], reg, g, c, err) < 0)
            return -err->code;
    int ins = g->instructions;
    if (mips && ins >= 0 && finite_row(g->rate + (size_t)ins * n, n)) {
        p->mips = calloc(1, sizeof *p->mips);
        if (!p->mips)
            return tf_fail(err, TF_ERR_NOMEM, "report: no memory for MIPS");
        if (add_series(p->mips, "MIPS", g, (size_t)ins, g->rate + (size_t)ins * n, 1e-6, err) < 0)
            return -err->code;
    }
    if (unit == kind_unit[KIND_RATE])
        return rates_prefixed(p, 1e6, "rate", "events/s", true, err);
    p->rates_unit = tf_report_strdup("%s", unit);
    return 0;
}

/* `tracefold render --counters LIST`: exactly the listed counters this
 * region has, each drawn even when its fit rests on few instances (the
 * user asked for it); instructions as MIPS.  The left axis has one unit,
 * so counters of time and event counters cannot be listed together. */
static int rates_listed(tf_report_page *p, const tf_fold_region *reg, const tf_fold_group *g,
                        const char *list, const bool *step, tf_error *err)
{
    size_t n = g->grid, C = reg->ncounters;
    int ins = g->instructions;
    bool use[TF_MAX_COUNTERS] = {false}, mips = false;
    int first = -1;
    for (size_t c = 0; c < C; c++) {
        if (!listed(list, reg->counter_names[c]) || step[c] || !finite_row(g->rate + c * n, n))
            continue;
        if ((int)c == ins) {
            mips = true;
            continue;
        }
        if (first >= 0 && kind_of(reg, g, c) != kind_of(reg, g, (size_t)first))
            return tf_fail(err, TF_ERR_USAGE,
                           "region %s: --counters: %s (%s) and %s (%s) cannot share the left axis",
                           reg->name, reg->counter_names[first], kind_unit[kind_of(reg, g, (size_t)first)],
                           reg->counter_names[c], kind_unit[kind_of(reg, g, c)]);
        if (first < 0)
            first = (int)c;
        use[c] = true;
    }
    bool misses = first >= 0;
    for (size_t c = 0; c < C; c++)
        misses &= !use[c] || miss_like(reg->counter_names[c]);
    enum rate_kind kind = first >= 0 ? kind_of(reg, g, (size_t)first) : KIND_RATIO;
    int rc = draw_chosen(p, reg, g, use, mips,
                         kind == KIND_RATIO && misses ? "misses per instruction" : kind_unit[kind],
                         err);
    if (rc == 0 && p->nrates == 0 && !p->mips)
        p->rates_missing = tf_report_strdup("no counter chosen with --counters has a fitted "
                                            "rate in this group");
    return rc;
}

/* Without --counters: when the fold has instructions, MIPS and the misses
 * per instruction (or, without miss counters, every other event counter);
 * without, the rates of every event counter.  Counters of time wait for
 * cpu_rates.  The scheduler's events (context switches, migrations) are
 * the machine's, not the program's: drawn only when listed, so they never
 * take the panel from the bandwidth on a machine without a PMU. */
static int rates(tf_report_page *p, const tf_fold_region *reg, const tf_fold_group *g,
                 const char *list, tf_error *err)
{
    size_t n = g->grid, C = reg->ncounters;
    int ins = g->instructions;
    bool use[TF_MAX_COUNTERS] = {false}, step[TF_MAX_COUNTERS] = {false}, any_miss = false;
    if (C > TF_MAX_COUNTERS || n == 0) {
        p->rates_missing = tf_report_strdup(n ? "too many counters" : "no fitted curves in this fold");
        return 0;
    }
    int rc = tf_fold_group_steps(reg, g, step, err);
    /* the totals drawn: the listed counters', or all but the scheduler's */
    if (rc == 0)
        for (size_t c = 0; c < C; c++)
            step[c] &= list ? listed(list, reg->counter_names[c])
                            : !tf_analysis_is_scheduling(reg->counter_names[c]);
    if (rc == 0)
        rc = totals(p, reg, g, step, err);
    if (rc < 0)
        return rc;
    if (list)
        return rates_listed(p, reg, g, list, step, err);
    for (size_t c = 0; c < C; c++)
        any_miss |= (int)c != ins && !step[c] && miss_like(reg->counter_names[c]) &&
                    finite_row(g->rate + c * n, n) && enough_instances(g, c);
    for (size_t c = 0; c < C; c++) {
        if ((int)c == ins || step[c] || !finite_row(g->rate + c * n, n) ||
            !events_unit(reg->counter_units[c]) || !enough_instances(g, c) ||
            tf_analysis_is_scheduling(reg->counter_names[c]))
            continue;
        use[c] = ins < 0 || !any_miss || miss_like(reg->counter_names[c]);
    }
    bool ratio = ins >= 0 && g->ratio;
    rc = draw_chosen(p, reg, g, use, true,
                     !ratio     ? kind_unit[KIND_RATE]
                     : any_miss ? "misses per instruction"
                                : kind_unit[KIND_RATIO],
                     err);
    if (rc == 0 && p->nrates == 0 && !p->mips)
        p->rates_missing = tf_report_strdup("no counter has a fitted rate in this fold");
    return rc;
}

/* Nothing else to draw (no event counter with a rate, no linear stream):
 * the CPU utilisation from a counter of time (task-clock), which every
 * recording has, even on a machine without a PMU. */
static int cpu_rates(tf_report_page *p, const tf_fold_region *reg, const tf_fold_group *g,
                     tf_error *err)
{
    size_t n = g->grid, C = reg->ncounters;
    bool use[TF_MAX_COUNTERS] = {false}, any = false;
    if (p->nrates || p->mips || C > TF_MAX_COUNTERS || n == 0)
        return 0;
    for (size_t c = 0; c < C && !any; c++)
        any = use[c] = time_unit(reg->counter_units[c]) && finite_row(g->rate + c * n, n) &&
                       enough_instances(g, c);
    if (!any)
        return 0;
    free(p->rates);
    free(p->rates_unit);
    free(p->rates_missing);
    p->rates = NULL;
    p->rates_unit = p->rates_missing = NULL;
    return draw_chosen(p, reg, g, use, false, kind_unit[KIND_CPU], err);
}

/* The summed bandwidth of phase k's linear streams, or of its nearest
 * enclosing phase that has some (MB/s); NaN when none has any. */
static double phase_bandwidth(const tf_analysis *an, size_t k)
{
    for (size_t depth = 0; depth < an->nphases; depth++) {
        double bw = 0;
        bool any = false;
        for (size_t s = 0; s < an->nstreams; s++)
            if (an->streams[s].phase == k && isfinite(an->streams[s].bandwidth)) {
                bw += an->streams[s].bandwidth;
                any = true;
            }
        if (any)
            return bw;
        if (an->phases[k].parent >= an->nphases)   /* TF_ANALYSIS_NONE: the top */
            return NAN;
        k = an->phases[k].parent;
    }
    return NAN;
}

/* Without any counter rate (a machine without a PMU, whose software
 * counters barely change within an iteration), the panel shows what the
 * analysis measured instead: each phase's memory bandwidth, summed over
 * its linear access streams (docs/algorithms.md, "Bytes and bandwidth"),
 * as steps over the phases drawn (p->phases, in time order), with gaps
 * where a phase has none (random or sparse references). */
static int bandwidth_rates(tf_report_page *p, const tf_analysis *an, tf_error *err)
{
    if (p->nrates || p->mips || p->nphases == 0 || an->nstreams == 0)
        return 0;
    if (!p->rates && !(p->rates = calloc(1, sizeof *p->rates)))
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for the bandwidth");
    double *bw = malloc(p->nphases * sizeof *bw);
    if (!bw)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for the bandwidth");
    bool any = false;
    for (size_t i = 0; i < p->nphases; i++) {
        bw[i] = p->phases[i].bandwidth;
        any |= bw[i] > 0;
    }
    int rc = 0;
    if (any && (rc = tf_report_series_init(&p->rates[0], "memory bandwidth (linear streams)",
                                           2 * p->nphases, false, err)) == 0) {
        for (size_t i = 0; i < p->nphases; i++) {
            p->rates[0].x[2 * i] = p->phases[i].x0;
            p->rates[0].x[2 * i + 1] = p->phases[i].x1;
            p->rates[0].y[2 * i] = p->rates[0].y[2 * i + 1] = bw[i];
        }
        p->nrates = 1;
        free(p->rates_missing);
        p->rates_missing = NULL;
        rc = rates_prefixed(p, 1e6, "bandwidth", "B/s", false, err);
    }
    free(bw);
    return rc;
}

static int instances(tf_report_page *p, const tf_fold_region *reg, uint32_t group, tf_error *err)
{
    p->instance_ns = malloc((reg->ninstances ? reg->ninstances : 1) * sizeof *p->instance_ns);
    p->instance_used = malloc((reg->ninstances ? reg->ninstances : 1) * sizeof *p->instance_used);
    if (!p->instance_ns || !p->instance_used)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for %zu instances", reg->ninstances);
    for (size_t i = 0; i < reg->ninstances; i++) {
        const tf_fold_instance *in = &reg->instances[i];
        if (in->status == TF_FOLD_INCOMPLETE || in->group != (int32_t)group)
            continue;
        p->instance_ns[p->ninstances] = (double)in->duration;
        p->instance_used[p->ninstances++] = in->status == TF_FOLD_USED;
    }
    return 0;
}

static int by_count_desc(const void *a, const void *b, void *counts)
{
    const size_t *n = counts;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return n[x] < n[y] ? 1 : n[x] > n[y] ? -1 : (x > y) - (x < y);
}

/* The page's routines: those of the analysis with code samples, in the
 * order of their sample counts (so the most frequent get the clearest
 * colours); code points and phases are renumbered accordingly.  Their
 * files where the analysis has them (not in folds written before). */
static int routines(tf_report_page *p, const tf_analysis *an, tf_error *err)
{
    size_t n = an->nroutines;
    bool files = true;
    for (size_t i = 0; i < n; i++)
        files &= an->routines[i].file != NULL;
    size_t *counts = calloc(n ? n : 1, sizeof *counts);
    uint32_t *order = malloc((n ? n : 1) * sizeof *order), *rank = malloc((n ? n : 1) * sizeof *rank);
    p->routines = calloc(n ? n : 1, sizeof *p->routines);
    if (files)
        p->routine_files = calloc(n ? n : 1, sizeof *p->routine_files);
    int rc = 0;
    if (!counts || !order || !rank || !p->routines || (files && !p->routine_files)) {
        rc = tf_fail(err, TF_ERR_NOMEM, "report: no memory for %zu routines", n);
        goto done;
    }
    for (size_t i = 0; i < p->ncode; i++)
        counts[p->code[i].routine]++;
    for (size_t i = 0; i < n; i++) {
        order[i] = (uint32_t)i;
        rank[i] = TF_REPORT_NONE;
    }
    qsort_r(order, n, sizeof *order, by_count_desc, counts);
    for (size_t i = 0; i < n && counts[order[i]] > 0; i++) {
        rank[order[i]] = (uint32_t)i;
        if (!(p->routines[p->nroutines++] =
                  tf_report_strdup("%s", an->routines[order[i]].function)) ||
            (files &&
             !(p->routine_files[i] = tf_report_strdup("%s", an->routines[order[i]].file)))) {
            rc = tf_fail(err, TF_ERR_NOMEM, "report: no memory for routine names");
            goto done;
        }
    }
    for (size_t i = 0; i < p->ncode; i++)
        p->code[i].routine = rank[p->code[i].routine];
    for (size_t i = 0; i < p->nphases; i++)
        if (p->phases[i].routine < n)
            p->phases[i].routine = rank[p->phases[i].routine];
done:
    free(counts);
    free(order);
    free(rank);
    return rc;
}

/* The clouds draw at most about this many of a group's points, a uniform
 * choice beyond (tf_choice_threshold): a million dots saturate a panel,
 * and each point drawn is 12 or 24 bytes held until the page is done. */
#define CLOUD_POINTS 1048576

struct kinds {
    uint64_t threshold;
    size_t all[2], drawn[2];   /* timer samples, memory samples */
};

static int count_kinds(void *arg, const tf_fold_points *pt, size_t first, tf_error *err)
{
    (void)err;
    struct kinds *k = arg;
    for (size_t i = 0; i < pt->n; i++) {
        bool memory = pt->kind[i] != TF_SAMPLE_TIMER;
        k->all[memory]++;
        k->drawn[memory] += tf_chosen(first + i, k->threshold);
    }
    return 0;
}

/* Room for the group's points drawn (*threshold: those tf_chosen takes),
 * reading them a part at a time (fold_result.h), and the memory fields
 * every source shares; *ntimer: its timer samples, drawn or not. */
static int points_alloc(tf_report_page *p, const tf_fold_group *g, uint64_t *threshold,
                        size_t *ntimer, tf_error *err)
{
    struct kinds k = { tf_choice_threshold(tf_fold_group_npoints(g), CLOUD_POINTS), {0}, {0} };
    int rc = tf_fold_group_each_part(g, TF_FOLD_COL_KIND, count_kinds, &k, err);
    if (rc < 0)
        return rc;
    *threshold = k.threshold;
    *ntimer = k.all[0];
    p->code = malloc((k.drawn[0] ? k.drawn[0] : 1) * sizeof *p->code);
    p->waiting = malloc((k.drawn[0] ? k.drawn[0] : 1) * sizeof *p->waiting);
    p->mem = malloc((k.drawn[1] ? k.drawn[1] : 1) * sizeof *p->mem);
    if (!p->code || !p->waiting || !p->mem)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for %zu folded points",
                       k.drawn[0] + k.drawn[1]);
    if (k.all[1] == 0)
        p->mem_missing = tf_report_strdup("no memory samples in this trace");
    return 0;
}

static tf_report_mem_point *mem_point(tf_report_page *p, const tf_fold_points *pt, size_t i)
{
    tf_report_mem_point *m = &p->mem[p->nmem++];
    memset(m, 0, sizeof *m);
    m->x = pt->x[i];
    m->addr = pt->addr[i];
    m->object = TF_REPORT_NONE;
    m->cost = pt->weight[i];
    m->level = pt->level[i];
    m->access = pt->kind[i] == TF_SAMPLE_LOAD ? TF_REPORT_LOAD : TF_REPORT_STORE;
    return m;
}

/* The memory references of a group whose analysis is missing, without
 * their objects. */
struct bare_points {
    tf_report_page *p;
    uint64_t threshold;      /* of the points drawn */
};

static int bare_points_part(void *arg, const tf_fold_points *pt, size_t first, tf_error *err)
{
    (void)err;
    const struct bare_points *bp = arg;
    for (size_t i = 0; i < pt->n; i++)
        if (pt->kind[i] != TF_SAMPLE_TIMER && tf_chosen(first + i, bp->threshold))
            mem_point(bp->p, pt, i);
    return 0;
}

/* A group without an analysis (its trace could not be read: `why`): the
 * counters and the memory references are drawn, the code panel says why it
 * is empty, and the phase boundaries are the fold's own change points. */
static int points_without_analysis(tf_report_page *p, const tf_fold_group *g, const char *why,
                                   tf_error *err)
{
    size_t ntimer;
    struct bare_points bp = { p, 0 };
    if (points_alloc(p, g, &bp.threshold, &ntimer, err) < 0 ||
        tf_fold_group_each_part(g, TF_FOLD_COL_SAMPLE, bare_points_part, &bp, err) < 0)
        return -err->code;
    p->code_missing = ntimer == 0 ? tf_report_strdup("no timer samples in this fold")
                                  : tf_report_strdup("%s", why);
    p->phases = malloc((g->nboundaries + 1) * sizeof *p->phases);
    if (!p->code_missing || !p->phases)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for the phases");
    double x0 = 0;
    for (size_t i = 0; i <= g->nboundaries; i++) {
        double x1 = i < g->nboundaries ? g->boundaries[i] : 1;
        if (x1 <= x0 || (x1 >= 1 && i < g->nboundaries))
            continue;
        p->phases[p->nphases++] = (tf_report_phase){ .x0 = x0, .x1 = x1,
                                                     .routine = TF_REPORT_NONE, .bandwidth = NAN };
        x0 = x1;
    }
    return 0;
}

/* The point columns, a slab of this many points at a time: whole, they
 * are 20 bytes a point. */
enum { COLUMN_SLAB = 65536 };

typedef tf_analysis_point_columns column_slab;

/* The columns of a part that the points' places are worked out from
 * (tf_analysis_places.needs), with those the report reads itself. */
static unsigned place_columns(const tf_analysis *an, unsigned read)
{
    return an->places ? an->places->needs | read : read;
}

/* Objects of the analysis (addresses in no known object left out).  An
 * object keeps its absolute addresses when all its references agree on
 * where it starts (one process), else it is drawn by offsets. */
struct object_starts {
    const tf_analysis *an;
    const column_slab *col;
    uint64_t *start;
    bool *seen, *relative;
};

static int object_starts_part(void *arg, const tf_fold_points *pt, size_t first, tf_error *err)
{
    const struct object_starts *os = arg;
    for (size_t at = 0; at < pt->n; at += COLUMN_SLAB) {
        size_t len = pt->n - at < COLUMN_SLAB ? pt->n - at : COLUMN_SLAB;
        int rc = tf_analysis_point_places(os->an, pt, first, at, len, os->col, err);
        if (rc < 0)
            return rc;
        for (size_t i = at; i < at + len; i++) {
            int64_t k = os->col->object[i - at];
            if (pt->kind[i] == TF_SAMPLE_TIMER || k < 0)
                continue;
            uint64_t s = pt->addr[i] - os->col->offset[i - at];
            if (os->seen[k] && s != os->start[k])
                os->relative[k] = true;
            os->seen[k] = true;
            os->start[k] = s;
        }
    }
    return 0;
}

static int objects_from_analysis(tf_report_page *p, const tf_fold_group *g,
                                 const tf_analysis *an, const column_slab *col,
                                 uint32_t *map, bool *relative, tf_error *err)
{
    uint64_t *start = malloc((an->nobjects ? an->nobjects : 1) * sizeof *start);
    bool *seen = calloc(an->nobjects ? an->nobjects : 1, sizeof *seen);
    p->objects = calloc(an->nobjects ? an->nobjects : 1, sizeof *p->objects);
    if (!start || !seen || !p->objects) {
        free(start);
        free(seen);
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for %zu objects", an->nobjects);
    }
    for (size_t k = 0; k < an->nobjects; k++)
        relative[k] = false;
    struct object_starts os = { an, col, start, seen, relative };
    if (tf_fold_group_each_part(g, place_columns(an, TF_FOLD_COL_KIND | TF_FOLD_COL_ADDR),
                                object_starts_part, &os, err) < 0) {
        free(start);
        free(seen);
        return -err->code;
    }
    int rc = 0;
    for (size_t k = 0; k < an->nobjects && rc == 0; k++) {
        map[k] = TF_REPORT_NONE;
        const char *kind = tf_analysis_object_kind_name(an->objects[k].kind);
        if (!strcmp(kind, "unknown"))
            continue;
        tf_report_object *o = &p->objects[p->nobjects];
        o->name = tf_report_strdup("%s", an->objects[k].name);
        o->kind = tf_report_strdup("%s", kind);
        o->start = seen[k] && !relative[k] ? start[k] : 0;
        o->size = an->objects[k].size;
        map[k] = (uint32_t)p->nobjects++;
        if (!o->name || !o->kind)
            rc = tf_fail(err, TF_ERR_NOMEM, "report: no memory for object names");
    }
    free(start);
    free(seen);
    return rc;
}

static int by_start(const void *a, const void *b)
{
    const tf_report_phase *x = a, *y = b;
    return (x->x0 > y->x0) - (x->x0 < y->x0);
}

struct analysis_points {
    tf_report_page *p;
    const tf_analysis *an;
    const column_slab *col;
    const uint32_t *map;
    const bool *relative;
    uint64_t threshold;      /* of the points drawn */
    size_t timed, waited;    /* symbolised timer samples, drawn or not; those waiting */
};

/* Whether routine r (an analysis row, -1 none) waits for other threads. */
static bool waits(const tf_analysis *an, int32_t r)
{
    return r >= 0 && an->routines[r].waiting;
}

/* Points [at, at + len) of part pt, whose first is point `first` of the
 * group, their columns in ap->col. */
static void analysis_points_slab(struct analysis_points *ap, const tf_fold_points *pt,
                                 size_t first, size_t at, size_t len)
{
    tf_report_page *p = ap->p;
    const column_slab *c = ap->col;
    for (size_t i = at; i < at + len; i++) {
        size_t j = i - at;
        bool timer = pt->kind[i] == TF_SAMPLE_TIMER,
             waiting = timer && waits(ap->an, c->routine[j]);
        ap->timed += timer && c->routine[j] >= 0;
        ap->waited += waiting;
        if (!tf_chosen(first + i, ap->threshold))
            continue;
        if (waiting) {
            p->waiting[p->nwaiting++] = pt->x[i];
            continue;
        }
        if (timer) {
            if (c->routine[j] >= 0 && c->line[j] > 0)
                p->code[p->ncode++] = (tf_report_code_point){pt->x[i], (uint32_t)c->routine[j],
                                                             (uint32_t)c->line[j]};
            continue;
        }
        tf_report_mem_point *m = mem_point(p, pt, i);
        int64_t k = c->object[j];
        if (k < 0 || ap->map[k] == TF_REPORT_NONE)
            continue;
        m->object = ap->map[k];
        if (ap->relative[k]) {
            m->addr = c->offset[j];
            m->flags |= TF_REPORT_MEM_OFFSET;
        }
    }
}

static int analysis_points_part(void *arg, const tf_fold_points *pt, size_t first,
                                tf_error *err)
{
    struct analysis_points *ap = arg;
    for (size_t at = 0; at < pt->n; at += COLUMN_SLAB) {
        size_t len = pt->n - at < COLUMN_SLAB ? pt->n - at : COLUMN_SLAB;
        int rc = tf_analysis_point_places(ap->an, pt, first, at, len, ap->col, err);
        if (rc < 0)
            return rc;
        analysis_points_slab(ap, pt, first, at, len);
    }
    return 0;
}

/* Code lines, objects and phases from the fold's own analysis. */
static int points_from_analysis(tf_report_page *p, const tf_fold_group *g,
                                const tf_analysis *an, tf_error *err)
{
    size_t npoints = an->places ? an->places->npoints : tf_fold_group_npoints(g);
    if (npoints != tf_fold_group_npoints(g))
        return tf_fail(err, TF_ERR_FORMAT, "analysis of group %u: %zu points for %zu folded points",
                       g->index, npoints, tf_fold_group_npoints(g));
    size_t ntimer;
    uint64_t threshold;
    if (points_alloc(p, g, &threshold, &ntimer, err) < 0)
        return -err->code;
    size_t no = an->nobjects ? an->nobjects : 1;
    uint32_t *map = malloc(no * sizeof *map);
    bool *relative = malloc(no * sizeof *relative);
    column_slab col = {
        .routine = malloc(COLUMN_SLAB * sizeof *col.routine),
        .line = malloc(COLUMN_SLAB * sizeof *col.line),
        .object = malloc(COLUMN_SLAB * sizeof *col.object),
        .offset = malloc(COLUMN_SLAB * sizeof *col.offset),
    };
    int rc = map && relative && col.routine && col.line && col.object && col.offset
                 ? objects_from_analysis(p, g, an, &col, map, relative, err)
                 : tf_fail(err, TF_ERR_NOMEM, "report: no memory for object maps");
    struct analysis_points ap = { p, an, &col, map, relative, threshold, 0, 0 };
    if (rc == 0)
        rc = tf_fold_group_each_part(g, place_columns(an, TF_FOLD_COL_SAMPLE),
                                     analysis_points_part, &ap, err);
    p->waiting_share = ap.timed ? (double)ap.waited / (double)ap.timed : 0;
    free(map);
    free(relative);
    free(col.routine);
    free(col.line);
    free(col.object);
    free(col.offset);
    if (rc < 0)
        return rc;
    if (p->ncode == 0)
        p->code_missing = tf_report_strdup(ntimer ? "no code-line information: the sampled "
                                                    "addresses have no source lines"
                                                  : "no timer samples in this fold");
    /* The finest phases (those without sub-phases: a phase split into
     * sub-phases is drawn as its sub-phases), in time order. */
    p->phases = malloc((an->nphases ? an->nphases : 1) * sizeof *p->phases);
    bool *split = calloc(an->nphases ? an->nphases : 1, sizeof *split);
    if (!p->phases || !split) {
        free(split);
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for %zu phases", an->nphases);
    }
    for (size_t k = 0; k < an->nphases; k++)
        if (an->phases[k].parent < an->nphases)
            split[an->phases[k].parent] = true;
    for (size_t k = 0; k < an->nphases; k++)
        if (!split[k]) {
            const tf_analysis_phase *from = &an->phases[k];
            tf_report_phase *ph = &p->phases[p->nphases++];
            *ph = (tf_report_phase){
                .x0 = from->x0, .x1 = from->x1,
                .routine = from->routine != TF_ANALYSIS_NONE ? from->routine : TF_REPORT_NONE,
                .line = from->line,
                .bandwidth = phase_bandwidth(an, k)};
            snprintf(ph->label, sizeof ph->label, "%.*s", (int)sizeof ph->label - 1, from->label);
        }
    free(split);
    qsort(p->phases, p->nphases, sizeof *p->phases, by_start);
    return routines(p, an, err);
}

static int page_fill(tf_report_page *p, const tf_fold_result *fr, const tf_fold_region *reg,
                     const tf_fold_group *g, const tf_analysis *an, const char *why,
                     const char *counters, tf_error *err)
{
    p->title = reg->ngroups > 1
                   ? tf_report_strdup("region %s, group %u of %u", reg->name, g->index + 1, reg->ngroups)
                   : tf_report_strdup("region %s", reg->name);
    char mean[32], scope[64] = "";
    tf_time_format(g->mean_duration_ns, mean, sizeof mean);
    /* process scope (extract/region_scope.h): the threads an instance covers */
    unsigned threads = 1;
    for (size_t i = 0; i < reg->ninstances; i++)
        if (reg->instances[i].group == (int32_t)g->index && reg->instances[i].threads > threads)
            threads = reg->instances[i].threads;
    if (threads > 1)
        snprintf(scope, sizeof scope, ", each instance over up to %u threads", threads);
    p->subtitle = tf_report_strdup("%s: %u of %zu instances folded%s, mean %s, %zu samples",
                                   fr->trace ? fr->trace : "trace", g->instances, reg->ninstances,
                                   scope, mean, tf_fold_group_npoints(g));
    if (!p->title || !p->subtitle)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for titles");
    p->duration_ns = g->mean_duration_ns;
    int rc = instances(p, reg, g->index, err);
    if (rc == 0)
        rc = rates(p, reg, g, counters, err);
    if (rc == 0)
        rc = an ? points_from_analysis(p, g, an, err) : points_without_analysis(p, g, why, err);
    if (rc == 0 && an && !counters)
        rc = bandwidth_rates(p, an, err);
    if (rc == 0 && !counters)
        rc = cpu_rates(p, reg, g, err);
    if (rc == 0)
        rc = tf_report_tables_fill(p, an, err);
    return rc;
}

/* Every name of the list is a counter of some folded region. */
static int counters_known(const tf_fold_result *fr, const char *fold_path, const char *list,
                          tf_error *err)
{
    for (const char *s = list; *s;) {
        const char *end = strchr(s, ',');
        int len = (int)(end ? (size_t)(end - s) : strlen(s));
        bool found = false;
        for (uint32_t i = 0; i < fr->nregions && !found; i++)
            for (size_t c = 0; c < fr->regions[i].ncounters && !found; c++)
                found = (int)strlen(fr->regions[i].counter_names[c]) == len &&
                        !strncmp(fr->regions[i].counter_names[c], s, (size_t)len);
        if (!found) {
            char names[512] = "";
            size_t used = 0;
            const tf_fold_region *reg = fr->nregions ? &fr->regions[0] : NULL;
            for (size_t c = 0; reg && c < reg->ncounters && used < sizeof names; c++)
                used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", c ? ", " : "",
                                         reg->counter_names[c]);
            return tf_fail(err, TF_ERR_USAGE, "%s: --counters: no counter '%.*s' in this fold "
                           "(its counters: %s)", fold_path, len, s, *names ? names : "none");
        }
        s += (size_t)len + (end != NULL);
    }
    return 0;
}

int tf_report_load_result(const tf_fold_result *fr, const char *fold_path, tf_report *r,
                          tf_error *err)
{
    return tf_report_load_chosen(fr, fold_path, NULL, r, err);
}

/* The folded trace of a fold.h5 without analysis, analysed by analysis/
 * with the default parameters, every group at once: fold.h5 names the
 * trace (a tracefold trace, or a Paraver trace converted again); when it
 * has moved, a file of that name beside fold.h5 is read.
 * On failure *set stays empty, and why says why (the code panel's note). */
static void analyse_loaded(const tf_fold_result *fr, const char *fold_path, tf_trace **tr,
                           tf_analysis_set *set, char *why, size_t len)
{
    const char *trace = fr->trace;
    tf_error err = {0};
    if (!trace || !*trace) {
        snprintf(why, len, "the fold file names no trace");
        return;
    }
    /* a Paraver trace is converted again, as `tracefold fold` did */
    if (tf_input_open(trace, tr, &err) < 0) {
        const char *base = strrchr(trace, '/'), *dir = strrchr(fold_path, '/');
        char alt[4096];
        snprintf(alt, sizeof alt, "%.*s%s", dir ? (int)(dir - fold_path + 1) : 0, fold_path,
                 base ? base + 1 : trace);
        tf_error err2 = {0};
        if (strcmp(alt, trace) == 0 || tf_input_open(alt, tr, &err2) < 0) {
            *tr = NULL;
            snprintf(why, len, "no code lines or objects: %s", err.msg);
            return;
        }
    }
    if (tf_analysis_run_groups(*tr, fr, NULL, NULL, set, &err) < 0)
        snprintf(why, len, "no code lines or objects: %s", err.msg);
}

/* The pages of fr.  The analysis of each group is analyses' (in memory:
 * regions in order, then groups) or, without, fold.h5's; a fold.h5
 * without one is analysed here (analyse_loaded). */
static int load_pages(const tf_fold_result *fr, const tf_analysis_set *analyses,
                      const char *fold_path, const char *counters, tf_report *r, tf_error *err)
{
    memset(r, 0, sizeof *r);
    int rc = counters ? counters_known(fr, fold_path, counters, err) : 0;
    if (rc < 0)
        return rc;
    r->source = tf_report_strdup("%s", fold_path);
    char why[TF_ERROR_MSG_MAX + 64] = "";
    tf_trace *tr = NULL;
    tf_analysis_set own = { 0 };
    bool analysed = false;
    size_t at = 0;   /* the group's place in an analysis set */
    for (uint32_t i = 0; i < fr->nregions && rc == 0; i++) {
        const tf_fold_region *reg = &fr->regions[i];
        for (uint32_t k = 0; k < reg->ngroups && rc == 0; k++, at++) {
            const tf_fold_group *g = &reg->groups[k];
            const tf_analysis *an = analyses && at < analyses->n ? &analyses->list[at] : NULL;
            tf_analysis stored;
            bool have = false;
            if (!analyses && (rc = tf_analysis_read_h5(fold_path, i, k, &stored, &have, err)) == 0 &&
                have)
                an = &stored;
            /* Without the fold's analysis, the trace is analysed once, for all. */
            if (rc == 0 && !analyses && !have && !analysed) {
                analyse_loaded(fr, fold_path, &tr, &own, why, sizeof why);
                analysed = true;
            }
            if (rc == 0 && !analyses && !have && at < own.n)
                an = &own.list[at];
            tf_report_page *p;
            if (rc == 0)
                rc = tf_report_add_page(r, &p, err);
            if (rc == 0)
                rc = page_fill(p, fr, reg, g, an, why, counters, err);
            if (have)
                tf_analysis_clear(&stored);
        }
    }
    if (rc == 0 && r->npages == 0)
        rc = tf_fail(err, TF_ERR_DATA, "%s: no folded region in this file", fold_path);
    tf_analysis_set_free(&own);
    if (tr)
        tf_input_close(tr);
    return rc;
}

int tf_report_load_chosen(const tf_fold_result *fr, const char *fold_path, const char *counters,
                          tf_report *r, tf_error *err)
{
    int rc = load_pages(fr, NULL, fold_path, counters, r, err);
    if (rc == 0)
        rc = tf_report_machine_read(fold_path, r, err);
    if (rc < 0)
        tf_report_free(r);
    return rc;
}

int tf_report_load_analysed(const tf_fold_result *fr, const tf_analysis_set *analyses,
                            const tf_cal_profile *machine, const char *fold_path, tf_report *r,
                            tf_error *err)
{
    int rc = load_pages(fr, analyses, fold_path, NULL, r, err);
    if (rc < 0) {
        tf_report_free(r);
        return rc;
    }
    /* the cache sizes, as /machine/levels holds them (report_machine.c) */
    size_t n = machine && machine->nlevels > 0 ? (size_t)machine->nlevels : 0;
    if (n > TF_REPORT_CACHES)
        n = TF_REPORT_CACHES;
    for (size_t i = 0; i < r->npages; i++) {
        r->pages[i].ncaches = n;
        for (size_t k = 0; k < n; k++)
            r->pages[i].cache_bytes[k] = machine->levels[k].size_bytes;
    }
    return 0;
}

int tf_report_load(const char *fold_path, tf_report *r, tf_error *err)
{
    return tf_report_load_with(fold_path, NULL, r, err);
}

int tf_report_load_with(const char *fold_path, const char *counters, tf_report *r, tf_error *err)
{
    memset(r, 0, sizeof *r);
    tf_fold_result *fr = NULL;
    if (tf_fold_result_load(fold_path, &fr, err) < 0)
        return -err->code;
    int rc = tf_report_load_chosen(fr, fold_path, counters, r, err);
    tf_fold_result_free(fr);
    return rc;
}
