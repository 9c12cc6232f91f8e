/* SPDX-License-Identifier: BSD-3-Clause */
/* From folded points to analysis samples.  Per process, a symboliser and
 * an object map; per distinct instruction address a cached (routine, line)
 * and, for memory instructions, the stride read from the code, so the cost
 * grows with the distinct addresses, not the samples.  Every point is
 * placed, but beyond tf_analysis_params.max_samples only a uniform choice of
 * them becomes samples (docs/algorithms.md, "Samples analysed"): the
 * caches and maps are kept, and fold.h5's per-point columns are read from
 * them again when written.  The samples are laid out by coarse bucket of
 * x, which the sort by x then keeps in place instead of copying them
 * all. */
#include "from_fold.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_steps.h"
#include "extract/code_stride.h"
#include "fold/fold_steps.h"
#include "objmap.h"
#include "extract/symbolize.h"
#include "extract/trace_names.h"
#include "common/tf_hash.h"
#include "common/tf_memory.h"

/* Code read around a memory instruction to find its loop: loop bodies and
 * the branch closing them lie within this many bytes either side. */
#define CODE_WINDOW 4096

/* Not yet looked up (a real stride of INT32_MIN bytes is no stride). */
#define STRIDE_UNKNOWN INT32_MIN

/* First slots of a process's code cache (a power of 2; it doubles at half
 * full).  Small: a fold of 1000 processes has 1000 caches, most holding a
 * few dozen addresses. */
#define CODE_CACHE_START 64

/* (routine, line, stride, access width) per instruction address, open
 * addressing. */
struct code_cache {
    uint64_t *ip;        /* 0: empty */
    uint32_t *routine, *line;
    int32_t  *stride;    /* STRIDE_UNKNOWN until a memory sample asks */
    uint8_t  *width;     /* set with stride */
    size_t    cap, n;
};

static size_t cache_slot(const struct code_cache *c, uint64_t ip)
{
    size_t i = (size_t)((ip * 0x9e3779b97f4a7c15ull) >> 20) & (c->cap - 1);
    while (c->ip[i] && c->ip[i] != ip)
        i = (i + 1) & (c->cap - 1);
    return i;
}

static int cache_init(struct code_cache *c, size_t cap)
{
    c->cap = cap;
    c->n = 0;
    c->ip = calloc(cap, sizeof *c->ip);
    c->routine = malloc(cap * sizeof *c->routine);
    c->line = malloc(cap * sizeof *c->line);
    c->stride = malloc(cap * sizeof *c->stride);
    c->width = malloc(cap * sizeof *c->width);
    return c->ip && c->routine && c->line && c->stride && c->width ? 0 : -1;
}

static void cache_free(struct code_cache *c)
{
    free(c->ip);
    free(c->routine);
    free(c->line);
    free(c->stride);
    free(c->width);
}

static int cache_grow(struct code_cache *c)
{
    struct code_cache bigger;
    if (cache_init(&bigger, 2 * c->cap)) {
        cache_free(&bigger);
        return -1;
    }
    for (size_t i = 0; i < c->cap; i++)
        if (c->ip[i]) {
            size_t j = cache_slot(&bigger, c->ip[i]);
            bigger.ip[j] = c->ip[i];
            bigger.routine[j] = c->routine[i];
            bigger.line[j] = c->line[i];
            bigger.stride[j] = c->stride[i];
            bigger.width[j] = c->width[i];
        }
    bigger.n = c->n;
    cache_free(c);
    *c = bigger;
    return 0;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The routine of a location: its innermost function, or "[module]" when
 * only the module is known (so that one unsymbolised library is one
 * routine, not one per address). */
static int routine_of(tf_analysis *a, const tf_sym_location *loc, uint32_t *routine,
                      uint32_t *line, tf_error *err)
{
    *line = loc->frames[0].line;
    if (loc->source == TF_SYM_NONE) {
        *routine = TF_ANALYSIS_NONE;
        return 0;
    }
    if (loc->frames[0].function[0])
        return tf_analysis_add_routine(a, loc->frames[0].function, loc->frames[0].file, routine,
                                       err);
    char name[300];
    snprintf(name, sizeof name, "[%s]", base_name(loc->module));
    return tf_analysis_add_routine(a, name, "", routine, err);
}

struct process_tools {
    tf_symbolizer   *sym;      /* the run's (tf_trace_names), not freed here */
    tf_analysis_objmap    *objects;
    struct code_cache code;
    struct code_cache names;   /* (routine, line) per name frame (fold_input.h) */
    bool             ready;
};

/* The places of the points (tf_analysis_places), which are the tools of
 * the processes once the analysis is worked out: their code caches and
 * object maps, which hold every folded point's place, without their
 * symbolisers (the synthetic trace's end symbolises with them on another
 * thread meanwhile, and libdw is not known to be thread-safe). */
struct locator {
    tf_analysis_places base;
    const tf_fold_region *region;
    uint32_t nproc;
    struct process_tools *tools;
};

static int tools_for(struct process_tools *t, tf_analysis *a, tf_trace_names *names, uint32_t proc,
                     tf_error *err)
{
    if (t->ready)
        return 0;
    const tf_object_naming *naming;
    int rc = tf_trace_names_symbolizer(names, proc, &t->sym, err);
    if (!rc)
        rc = tf_trace_names_objects(names, proc, &naming, err);
    if (!rc)
        rc = tf_analysis_objmap_create(&t->objects, a, tf_trace_names_trace(names), proc, naming,
                                       err);
    if (!rc && (cache_init(&t->code, CODE_CACHE_START) |
                cache_init(&t->names, CODE_CACHE_START))) {
        cache_free(&t->code);
        cache_free(&t->names);
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for the code cache");
    }
    t->ready = !rc;
    return rc;
}

/* The routine and line of the instruction at ip, symbolised once per
 * address; with a NULL from the cache only (not there: no routine). */
static int code_of(struct process_tools *t, tf_analysis *a, uint64_t ip, uint32_t *routine,
                   uint32_t *line, tf_error *err)
{
    *routine = TF_ANALYSIS_NONE;
    *line = 0;
    if (!ip)
        return 0;
    size_t i = cache_slot(&t->code, ip);
    if (!t->code.ip[i]) {
        if (!a)
            return 0;
        const tf_sym_location *loc;
        int rc = tf_symbolize(t->sym, ip, false, &loc, err);
        if (!rc)
            rc = routine_of(a, loc, &t->code.routine[i], &t->code.line[i], err);
        if (rc)
            return rc;
        t->code.ip[i] = ip;
        t->code.stride[i] = STRIDE_UNKNOWN;
        if (2 * ++t->code.n > t->code.cap && cache_grow(&t->code))
            return tf_fail(err, TF_ERR_NOMEM, "out of memory for the code cache");
        i = cache_slot(&t->code, ip);
    }
    *routine = t->code.routine[i];
    *line = t->code.line[i];
    return 0;
}

/* The routine and line that name a sample's phase at the fold's
 * --phase-level: frame TF_NAME_FRAME_INLINED(v) of the location at its
 * address (a caller's line is the line of its call), once per name frame;
 * a frame without a function name is named as its location is. */
static int named_of(struct process_tools *t, tf_analysis *a, uint64_t v, uint32_t *routine,
                    uint32_t *line, tf_error *err)
{
    size_t i = cache_slot(&t->names, v);
    if (!t->names.ip[i]) {
        const tf_sym_location *loc;
        int rc = tf_symbolize(t->sym, TF_NAME_FRAME_ADDRESS(v), false, &loc, err);
        if (rc)
            return rc;
        uint32_t k = TF_NAME_FRAME_INLINED(v);
        const tf_sym_frame *f = &loc->frames[k < loc->nframes ? k : loc->nframes - 1];
        if (f->function[0] && loc->source != TF_SYM_NONE) {
            t->names.line[i] = f->line;
            rc = tf_analysis_add_routine(a, f->function, f->file, &t->names.routine[i], err);
        } else {
            rc = routine_of(a, loc, &t->names.routine[i], &t->names.line[i], err);
        }
        if (rc)
            return rc;
        t->names.ip[i] = v;
        if (2 * ++t->names.n > t->names.cap && cache_grow(&t->names))
            return tf_fail(err, TF_ERR_NOMEM, "out of memory for the code cache");
        i = cache_slot(&t->names, v);
    }
    *routine = t->names.routine[i];
    *line = t->names.line[i];
    return 0;
}

/* The stride of the memory instruction at ip (already in the code cache,
 * by code_of) from its code, 0 when the code gives none, and its access
 * width, 0 when unknown. */
static int stride_of(struct process_tools *t, tf_code_stride_decoder *dec, uint64_t ip,
                     uint8_t *window, int32_t *stride, uint8_t *width, tf_error *err)
{
    size_t i = cache_slot(&t->code, ip);
    if (t->code.stride[i] == STRIDE_UNKNOWN) {
        uint64_t start;
        size_t len;
        int rc = tf_symbolizer_code(t->sym, ip, CODE_WINDOW, CODE_WINDOW, window, &start, &len,
                                    err);
        if (rc)
            return rc;
        tf_code_stride cs;
        tf_code_stride_find(dec, window, len, start, ip, &cs);
        /* the sweep: with the loop's other references through the same
         * registers (an unrolled copy sweeps at its accesses' size) */
        t->code.stride[i] = cs.status == TF_CODE_STRIDE_FOUND && cs.sweep > INT32_MIN &&
                                    cs.sweep <= INT32_MAX
                                ? (int32_t)cs.sweep
                                : 0;
        t->code.width[i] = cs.width <= UINT8_MAX ? (uint8_t)cs.width : 0;
    }
    *stride = t->code.stride[i];
    *width = t->code.width[i];
    return 0;
}

static double clamped_x(float x)
{
    return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* Where a folded point lies: its code line, and for a memory sample its
 * object (TF_ANALYSIS_NONE otherwise) and offset there. */
struct place {
    uint32_t routine, line, object;
    uint64_t offset;
};

/* The place of point i of pts, at x in instance in: looked up, and
 * interned into a, while the analysis is built; with a NULL from the
 * caches and maps only, where the same point was looked up then. */
static int place_of(struct process_tools *t, tf_analysis *a, const tf_fold_points *pts, size_t i,
                    const tf_fold_instance *in, double x, struct place *pl, tf_error *err)
{
    *pl = (struct place){ .object = TF_ANALYSIS_NONE };
    int rc = code_of(t, a, pts->ip[i], &pl->routine, &pl->line, err);
    if (rc || pts->kind[i] == TF_SAMPLE_TIMER || !pts->addr[i])
        return rc;
    uint64_t when = in->begin + (uint64_t)llround(x * (double)in->duration);
    if (!a) {
        tf_analysis_objmap_find(t->objects, pts->addr[i], when, &pl->object, &pl->offset);
        return 0;
    }
    return tf_analysis_objmap_lookup(t->objects, a, pts->addr[i], when, &pl->object, &pl->offset, err);
}

static void tools_free(struct process_tools *tools, uint32_t np)
{
    for (uint32_t p = 0; tools && p < np; p++) {
        tf_analysis_objmap_free(tools[p].objects);
        if (tools[p].ready) {
            cache_free(&tools[p].code);
            cache_free(&tools[p].names);
        }
    }
    free(tools);
}

/* The passes over the group's points, a part at a time
 * (tf_fold_group_each_part); i is a point's index in the group. */
static int count_timed(void *arg, const tf_fold_points *pts, size_t first, tf_error *err)
{
    (void)first;
    (void)err;
    size_t *n = arg;
    for (size_t i = 0; i < pts->n; i++)
        *n += !isnan(pts->x[i]);
    return 0;
}

struct choice {
    uint64_t threshold;   /* tf_choice_threshold's */
    size_t *next;         /* [TF_ANALYSIS_COARSE + 1]: first the chosen per bucket, shifted by one */
    size_t nchosen;
};

static int count_chosen(void *arg, const tf_fold_points *pts, size_t first, tf_error *err)
{
    (void)err;
    struct choice *ch = arg;
    for (size_t i = 0; i < pts->n; i++)
        if (!isnan(pts->x[i]) && tf_chosen(first + i, ch->threshold)) {
            ch->next[tf_analysis_coarse_bucket(clamped_x(pts->x[i])) + 1]++;
            ch->nchosen++;
        }
    return 0;
}

struct placing {
    tf_analysis *a;
    const tf_trace *tr;
    const tf_fold_region *reg;
    tf_trace_names *names;
    struct process_tools *tools;
    uint32_t np;
    struct choice *ch;    /* next[b]: where the next sample of coarse bucket b goes */
    tf_code_stride_decoder *dec;
    uint8_t *window;
};

/* Every point is placed, chosen or not: fold.h5's columns name the
 * routines and objects of them all; the chosen ones become samples. */
static int place_part(void *arg, const tf_fold_points *pts, size_t first, tf_error *err)
{
    const struct placing *pc = arg;
    tf_analysis *a = pc->a;
    for (size_t i = 0; i < pts->n; i++) {
        const tf_fold_instance *in = &pc->reg->instances[pts->instance[i]];
        if (in->proc >= pc->np)
            return tf_fail(err, TF_ERR_FORMAT, "%s: folded point %zu names process %u of %u",
                           tf_trace_path(pc->tr), first + i, in->proc, pc->np);
        if (isnan(pts->x[i]))
            continue;
        struct process_tools *t = &pc->tools[in->proc];
        int rc = tools_for(t, a, pc->names, in->proc, err);
        double x = clamped_x(pts->x[i]);
        struct place pl;
        if (rc || (rc = place_of(t, a, pts, i, in, x, &pl, err)))
            return rc;
        if (!tf_chosen(first + i, pc->ch->threshold))
            continue;
        /* the phases are named at the --phase-level; fold.h5's columns keep
         * the code the point was in */
        if (pts->name_frame && pts->name_frame[i] &&
            (rc = named_of(t, a, pts->name_frame[i], &pl.routine, &pl.line, err)))
            return rc;
        tf_analysis_sample *s = &a->samples[pc->ch->next[tf_analysis_coarse_bucket(x)]++];
        a->nsamples++;
        *s = (tf_analysis_sample){ .x = x, .offset = pl.offset, .routine = pl.routine, .line = pl.line,
                                   .object = pl.object, .group = in->thread,
                                   .point = (uint32_t)(first + i), .weight = pts->weight[i],
                                   .kind = pts->kind[i], .level = pts->level[i] };
        if (s->kind != TF_SAMPLE_TIMER && pts->addr[i] && pts->ip[i] &&
            (rc = stride_of(t, pc->dec, pts->ip[i], pc->window, &s->code_stride,
                            &s->access_bytes, err)))
            return rc;
    }
    return 0;
}

/* The columns of points again from the code caches and object maps of
 * tf_analysis_from_fold (every lookup a hit: no symboliser is called,
 * nothing interned), so that they can be written a slab at a time. */
static int locator_columns(const tf_analysis_places *pl, const tf_fold_points *part,
                           size_t first, size_t at, size_t n, const tf_analysis_point_columns *c,
                           tf_error *err)
{
    (void)first;
    (void)err;
    const struct locator *l = (const struct locator *)pl;
    for (size_t k = 0; k < n; k++) {
        size_t i = at + k;
        struct place w = { .routine = TF_ANALYSIS_NONE, .object = TF_ANALYSIS_NONE };
        const tf_fold_instance *in = part ? &l->region->instances[part->instance[i]] : NULL;
        if (in && !isnan(part->x[i]) && in->proc < l->nproc && l->tools[in->proc].ready)
            place_of(&l->tools[in->proc], NULL, part, i, in, clamped_x(part->x[i]), &w, NULL);
        c->routine[k] = w.routine == TF_ANALYSIS_NONE ? -1 : (int32_t)w.routine;
        c->line[k] = w.line <= INT32_MAX ? (int32_t)w.line : 0;
        c->object[k] = w.object == TF_ANALYSIS_NONE ? -1 : (int32_t)w.object;
        c->offset[k] = w.offset;   /* 0 without an object (place_of) */
    }
    return 0;
}

static void locator_free(tf_analysis_places *pl)
{
    struct locator *l = (struct locator *)pl;
    tools_free(l->tools, l->nproc);
    free(l);
}

int tf_analysis_from_fold(tf_analysis *a, const tf_trace *tr, const tf_fold_region *reg,
                          uint32_t g, tf_trace_names *names, const tf_analysis_params *params,
                          tf_error *err)
{
    memset(a, 0, sizeof *a);
    if (g >= reg->ngroups)
        return tf_fail(err, TF_ERR_USAGE, "region %s has no group %u", reg->name, g);
    tf_analysis_params defaults;
    if (!params) {
        tf_analysis_params_default(&defaults);
        params = &defaults;
    }
    const tf_fold_group *grp = &reg->groups[g];
    uint32_t np = tf_trace_nprocesses(tr);
    struct process_tools *tools = calloc(np ? np : 1, sizeof *tools);
    tf_analysis_counter *counters = calloc(reg->ncounters + 1, sizeof *counters);
    bool *step = calloc(reg->ncounters + 1, sizeof *step);
    uint32_t *dropped = calloc(reg->ncounters + 1, sizeof *dropped);
    a->region = strdup(reg->name);
    a->group = g;
    a->duration_ns = grp->mean_duration_ns;
    tf_fold_sampling_density(reg, g, &a->sampling);
    uint8_t *window = malloc(2 * CODE_WINDOW);
    tf_code_stride_decoder *dec = NULL;
    size_t *next = calloc(TF_ANALYSIS_COARSE + 1, sizeof *next);
    tf_trace_names *own = NULL;
    int rc = 0;
    if (!tools || !counters || !step || !dropped || !a->region || !window || !next) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory analysing region %s", reg->name);
        goto done;
    }
    if (!names && (rc = tf_trace_names_create(&own, tr, NULL, &params->alloc_rules, err)))
        goto done;
    if ((rc = tf_code_stride_decoder_create(&dec, err)))
        goto done;
    /* a point without a time (not expected from the fold) is no sample */
    if ((rc = tf_fold_group_each_part(grp, TF_FOLD_COL_X, count_timed, &a->nfolded, err)))
        goto done;
    struct choice ch = { tf_choice_threshold(a->nfolded, params->max_samples), next, 0 };
    if ((rc = tf_fold_group_each_part(grp, TF_FOLD_COL_X, count_chosen, &ch, err)))
        goto done;
    for (size_t b = 1; b < TF_ANALYSIS_COARSE; b++)
        next[b] += next[b - 1];
    a->samples = tf_malloc_large((ch.nchosen + 1) * sizeof *a->samples);
    if (!a->samples) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for %zu samples of region %s",
                     ch.nchosen, reg->name);
        goto done;
    }
    struct placing pc = { a, tr, reg, names ? names : own, tools, np, &ch, dec, window };
    if ((rc = tf_fold_group_each_part(grp, TF_FOLD_COL_SAMPLE, place_part, &pc, err)))
        goto done;
    /* A counter that moves in one step per instance has no rate in any
     * phase: its total per iteration is its figure (fold_steps.h). */
    if ((rc = tf_fold_group_steps(reg, grp, step, err)))
        goto done;
    size_t nc = 0;
    for (uint32_t c = 0; c < reg->ncounters; c++) {
        const double *curve = grp->curve + (size_t)c * grp->grid;
        if (grp->grid < 2 || isnan(curve[0]) || isnan(grp->mean_total[c]) || step[c])
            continue;
        counters[nc++] = (tf_analysis_counter){
            reg->counter_names[c], grp->mean_total[c], grp->grid, curve,
            grp->rate_lo ? grp->rate_lo + (size_t)c * grp->grid : NULL,
            grp->rate_hi ? grp->rate_hi + (size_t)c * grp->grid : NULL };
        dropped[nc - 1] = grp->rate_dropped ? grp->rate_dropped[c] : 0;
    }
    rc = tf_analysis_compute(a, counters, nc, grp->boundaries, grp->nboundaries, params, err);
    if (rc == 0 && nc) {   /* the analysis's counters are counters[0..nc) */
        a->rate_dropped = dropped;
        dropped = NULL;
    }
    struct locator *l = rc == 0 ? malloc(sizeof *l) : NULL;
    if (rc == 0 && !l)
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory analysing region %s", reg->name);
    if (rc == 0) {
        for (uint32_t p = 0; p < np; p++)
            tools[p].sym = NULL;
        *l = (struct locator){ { tf_fold_group_npoints(grp), TF_FOLD_COL_SAMPLE, locator_columns,
                                 locator_free },
                               reg, np, tools };
        a->places = &l->base;
        tools = NULL;
    }
done:
    tools_free(tools, np);
    tf_trace_names_free(own);
    free(counters);
    free(step);
    free(dropped);
    free(window);
    tf_code_stride_decoder_free(dec);
    free(next);
    if (rc)
        tf_analysis_clear(a);
    return rc;
}
