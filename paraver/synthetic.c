/* SPDX-License-Identifier: BSD-3-Clause */
/* The synthetic Paraver trace of a fold result (docs/paraver.md): one
 * Paraver thread per folded region and group over one synthetic iteration,
 * with the folded samples, the fitted curves as counter increments, the
 * rates, and the phases.  Written in two parts: what needs only the fold
 * (labels, the points ordered by time) and, once the analysis is known,
 * the phases and every record in time order. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/trace_input.h"
#include "formats/prv_fields.h"
#include "formats/prv_index.h"
#include "symbols.h"
#include "analysis/analysis_h5.h"
#include "synthetic.h"
#include "formats/prv_types.h"
#include "formats/prv_out.h"
#include "common/tf_handoff.h"
#include "common/tf_memory.h"

/* One record of one Paraver thread of the synthetic trace (the thread's
 * records are an array of their own), generated in order once sorted.  A
 * point's kind, instance, process and address are copied into it, so that
 * writing in time order reads no point column and no instance at random
 * (but memory samples' columns): each such read is a cache miss. */
enum synthetic_kind { SYN_STATE, SYN_PHASE, SYN_GRID, SYN_POINT };

typedef struct synthetic_rec {
    uint64_t time;
    uint64_t ip;          /* points */
    uint32_t index;       /* grid step, point or phase */
    uint32_t instance;    /* points */
    uint32_t proc;        /* points: the instance's process */
    uint8_t  kind;        /* enum synthetic_kind, also the order at equal times */
    uint8_t  sample_kind; /* points: enum tf_sample_kind */
} synthetic_rec;
/* As many records as folded samples: the thread is that of the array
 * holding the record, which leaves room for the process. */
_Static_assert(sizeof(synthetic_rec) == 32, "a synthetic record is 32 bytes");

/* A folded point as its record is built from it, whichever part of its
 * group holds it (a team member's, fetched, or the points here). */
typedef struct synthetic_point {
    uint64_t time, ip, addr;
    uint32_t index;       /* in the group */
    uint32_t instance, proc, weight;
    uint8_t  sample_kind, level;
} synthetic_point;

/* One part of a group's points in time order: ordered here (rec, records
 * of the points pts) or by the team member `rank` (> 0), which sends them
 * a batch at a time. */
typedef struct point_source {
    const synthetic_rec *rec;
    const tf_fold_points *pts;
    int rank;
    synthetic_point *batch;      /* a member's: nbatch of them, read up to at */
    size_t nbatch, at;
    size_t n, done;              /* points in the part, given out */
    size_t first;                /* the index in the group of the part's first point */
    synthetic_point cur;         /* the next one, while done < n */
} point_source;

typedef struct synthetic_thread {
    const tf_fold_region *region;
    const tf_fold_group  *group;
    double                duration;   /* ns */
    uint32_t             *ctype;      /* Paraver type of each counter */
    uint64_t             *carry_total;/* counts written so far per counter */
    uint32_t              region_index, group_index;
    uint32_t              nphases;
    double               *phase_x;    /* [nphases + 1] */
    uint64_t             *phase_fn, *phase_line;
    synthetic_rec        *points;     /* the points' records in time order (in recs) */
    int                   waiting;    /* TF_PRV_FOLD_WAITING's value last written, -1 none */
    synthetic_rec        *small;      /* its state, phase and grid records, in order */
    size_t                nsmall;
    point_source         *src;        /* its points' parts: those here first */
    uint32_t              nsrc;
    const uint32_t       *proc_of;    /* with parts from members: the trace's, of its region */
} synthetic_thread;

struct tf_prv_synthetic {
    const tf_fold_result *res;
    tf_fold_result *loaded;       /* res when read from fold_h5 */
    tf_trace       *opened;       /* tr when opened here */
    char           *unnamed;      /* why the folded trace could not be opened, or NULL */
    char           *fold_h5;
    const tf_analysis_set *analyses;  /* the same in memory, or NULL */
    const tf_trace *tr;           /* the folded trace, for symbols and objects; may be NULL */
    const tf_fold_team *team;     /* whose members hold parts of the points, or NULL */
    tf_trace_names *names;        /* the analyses' when in memory, else own_names */
    tf_trace_names *own_names;
    const tf_alloc_rules *rules;  /* the caller's, for an analysis made here */
    tf_prv_out  *w;
    tf_pcf         *pcf;
    synthetic_thread   *th;
    uint32_t        nth;
    /* With parts from team members: each region's instances' processes,
     * for the members' points as they arrive, in time order, at instances
     * all over the region's table (an instance is 64 bytes: a read from
     * the table missed the caches each time, 0.15 s of rank 0's CPU in the
     * synthetic trace of a 64 x 3000 fold under mpirun -np 2). */
    uint32_t      **proc_of;      /* [res->nregions], each built when first needed */
    /* Routine and line values: labels interned in order of first use. */
    char          **fn_labels, **line_labels;
    size_t          nfn, nline, capfn, capline;
    /* Their values for each address already seen, per process: folded
     * samples repeat a few thousand addresses millions of times. */
    tf_prv_index   *site_index;
    uint64_t       *site_values;   /* [SITE_VALUES × sites]: routine, line, waiting */
    size_t          capsites;
    tf_prv_objects  objects;      /* of the folded trace */
    synthetic_rec  *recs;         /* every thread's points' records */
};
typedef struct tf_prv_synthetic synthetic;

static int intern_label(char ***labels, size_t *n, size_t *cap, const char *s, uint64_t *value,
                        tf_error *err)
{
    /* Values 0 (end) and 1 (unresolved) are fixed; names start at 2. */
    for (size_t i = 0; i < *n; i++)
        if (!strcmp((*labels)[i], s)) {
            *value = i + 2;
            return 0;
        }
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        char **nl = realloc(*labels, c * sizeof *nl);
        if (!nl)
            return tf_fail(err, TF_ERR_NOMEM, "out of memory");
        *labels = nl;
        *cap = c;
    }
    if (!((*labels)[*n] = strdup(s)))
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    *value = (*n)++ + 2;
    return 0;
}

/* Values kept per address: routine, line, and whether the routine waits. */
enum { SITE_VALUES = 3 };

/* Whether a routine named as tf_prv_symbols_resolve names it waits for
 * other threads (analysis/waiting.c).  A module's unnamed code comes as
 * the module's file name with no source file, which the analysis calls
 * "[module]". */
static bool site_waits(const tf_prv_source *src)
{
    if (tf_analysis_is_waiting_routine(src->function))
        return true;
    char module[300];
    return !*src->file && snprintf(module, sizeof module, "[%s]", src->function) < (int)sizeof module
        && tf_analysis_is_waiting_routine(module);
}

/* The cached values of (proc, ip): *v NULL for an address that names
 * nothing, else its slot, *added when new (the caller names it). */
static int site_slot(synthetic *sy, uint32_t proc, uint64_t ip, uint64_t **v, bool *added,
                     tf_error *err)
{
    *v = NULL;
    *added = false;
    if (!sy->tr || !ip || proc >= tf_trace_nprocesses(sy->tr) || ip == UINT64_MAX)
        return 0;
    uint32_t k;
    if (tf_prv_index_get(&sy->site_index[proc], ip, &k, added) < 0)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    if (*added && k >= sy->capsites) {
        size_t cap = 2 * (size_t)k + 256;
        uint64_t *nv = realloc(sy->site_values, SITE_VALUES * cap * sizeof *nv);
        if (!nv)
            return tf_fail(err, TF_ERR_NOMEM, "out of memory");
        sy->site_values = nv;
        sy->capsites = cap;
    }
    *v = sy->site_values + SITE_VALUES * (size_t)k;
    return 0;
}

/* A new site's values from its routine, file and line, into v. */
static int site_name(synthetic *sy, const tf_prv_source *src, uint64_t *v, tf_error *err)
{
    uint64_t fn = 1, line = 1;
    int rc = *src->function ? intern_label(&sy->fn_labels, &sy->nfn, &sy->capfn, src->function,
                                           &fn, err)
                            : 0;
    if (rc == 0 && src->line) {
        char label[600];
        const char *base = strrchr(src->file, '/');
        snprintf(label, sizeof label, "%" PRIu32 " (%s)", src->line, base ? base + 1 : src->file);
        rc = intern_label(&sy->line_labels, &sy->nline, &sy->capline, label, &line, err);
    }
    v[0] = fn;
    v[1] = line;
    v[2] = site_waits(src);
    return rc;
}

/* Routine and line values of an instruction address of the folded trace,
 * and whether its routine waits for other threads (waiting may be NULL):
 * as the analysis named the site (name_sites), unnamed (1) where it did
 * not place the address or there is no analysis. */
static int site_of(synthetic *sy, uint32_t proc, uint64_t ip, uint64_t *fn, uint64_t *line,
                   bool *waiting, tf_error *err)
{
    uint64_t *v;
    bool added;
    int rc = site_slot(sy, proc, ip, &v, &added, err);
    if (rc == 0 && added) {   /* unnamed: 1, not waiting */
        v[0] = v[1] = 1;
        v[2] = 0;
    }
    *fn = v ? v[0] : 1;
    *line = v ? v[1] : 1;
    if (waiting)
        *waiting = v && v[2];
    return rc;
}

/* The same named from routine row `routine` (-1: none) and line of the
 * analysis an, where the analysis looked the address up: a routine it
 * names "[module]" (a module's unnamed code, without a file) is the
 * module, as tf_prv_symbols_resolve names it. */
static int site_from_analysis(synthetic *sy, uint32_t proc, uint64_t ip, const tf_analysis *an,
                              int32_t routine, int32_t line, tf_error *err)
{
    uint64_t *v;
    bool added;
    int rc = site_slot(sy, proc, ip, &v, &added, err);
    if (rc < 0 || !added)
        return rc;
    tf_prv_source src = { "", "", 0 };
    char module[300];
    if (routine >= 0) {
        const tf_analysis_routine *ro = &an->routines[routine];
        size_t len = strlen(ro->function);
        src.file = ro->file ? ro->file : "";
        src.function = ro->function;
        if (!*src.file && len > 2 && ro->function[0] == '[' && ro->function[len - 1] == ']' &&
            len < sizeof module) {
            snprintf(module, sizeof module, "%.*s", (int)len - 2, ro->function + 1);
            src.function = module;
        }
        src.line = line > 0 ? (uint32_t)line : 0;
    }
    return site_name(sy, &src, v, err);
}

static uint64_t fixed(double v, double scale)
{
    if (!isfinite(v) || v <= 0)
        return 0;
    double s = v * scale + 0.5;
    return s >= 9.2e18 ? (uint64_t)INT64_MAX : (uint64_t)s;
}

/* Phases: the group's merged change points cut the iteration; each phase is
 * named by the routine and line most of its samples are in. */
static int alloc_phases(synthetic_thread *st, uint32_t n, tf_error *err)
{
    st->nphases = n;
    st->phase_x = malloc((n + 1) * sizeof *st->phase_x);
    st->phase_fn = calloc(n, sizeof *st->phase_fn);
    st->phase_line = calloc(n, sizeof *st->phase_line);
    return st->phase_x && st->phase_fn && st->phase_line
               ? 0 : tf_fail(err, TF_ERR_NOMEM, "out of memory");
}

/* The top-level phases of a group's analysis (tf_analysis's phases and
 * routines, in memory or as read back from fold.h5), with their routine and
 * line: 1 when there are some, 0 when none. */
static int phases_of_analysis(synthetic *sy, synthetic_thread *st, const tf_analysis_phase *phases,
                              size_t n, const tf_analysis_routine *routines, size_t nr, tf_error *err)
{
    uint32_t top = 0;
    for (size_t i = 0; i < n; i++)
        top += phases[i].parent == TF_ANALYSIS_NONE;
    int rc = top ? alloc_phases(st, top, err) : 0;
    uint32_t t = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const tf_analysis_phase *ph = &phases[i];
        if (ph->parent != TF_ANALYSIS_NONE)
            continue;
        st->phase_x[t] = ph->x0;
        st->phase_x[t + 1] = ph->x1;
        st->phase_fn[t] = st->phase_line[t] = 1;
        if (ph->routine != TF_ANALYSIS_NONE && ph->routine < nr) {
            const tf_analysis_routine *ro = &routines[ph->routine];
            rc = intern_label(&sy->fn_labels, &sy->nfn, &sy->capfn, ro->function,
                              &st->phase_fn[t], err);
            const char *file = ro->file ? ro->file : "";   /* NULL: not recorded */
            const char *base = strrchr(file, '/');
            char label[600];
            snprintf(label, sizeof label, "%" PRIu32 " (%s)", ph->line, base ? base + 1 : file);
            if (rc == 0 && ph->line > 0)
                rc = intern_label(&sy->line_labels, &sy->nline, &sy->capline, label,
                                  &st->phase_line[t], err);
        }
        t++;
    }
    return rc < 0 ? rc : top > 0;
}

/* The routines and lines of phase `phase`'s points, counted. */
struct phase_sites {
    synthetic *sy;
    const synthetic_thread *st;
    uint32_t phase;
    uint32_t *cf, *cl;
    size_t nvals;
    uint64_t best_fn, best_line;
};

static int count_phase_sites(void *arg, const tf_fold_points *pts, size_t first, tf_error *err)
{
    (void)first;
    struct phase_sites *ps = arg;
    const synthetic_thread *st = ps->st;
    for (size_t i = 0; i < pts->n; i++) {
        if (pts->x[i] < st->phase_x[ps->phase] || pts->x[i] > st->phase_x[ps->phase + 1])
            continue;
        uint64_t fn, line;
        uint32_t proc = st->region->instances[pts->instance[i]].proc;
        int rc = site_of(ps->sy, proc, pts->ip[i], &fn, &line, NULL, err);
        if (rc < 0)
            return rc;
        if (fn < ps->nvals && ++ps->cf[fn] > ps->cf[ps->best_fn])
            ps->best_fn = fn;
        if (line < ps->nvals && ++ps->cl[line] > ps->cl[ps->best_line])
            ps->best_line = line;
    }
    return 0;
}

/* Without the analysis: the group's change points cut the iteration, and
 * each phase is named by the routine and line most of its samples are in. */
static int boundary_phases(synthetic *sy, synthetic_thread *st, tf_error *err)
{
    const tf_fold_group *g = st->group;
    int rc = alloc_phases(st, (uint32_t)g->nboundaries + 1, err);
    if (rc < 0)
        return rc;
    st->phase_x[0] = 0;
    for (size_t k = 0; k < g->nboundaries; k++)
        st->phase_x[k + 1] = g->boundaries[k];
    st->phase_x[st->nphases] = 1;
    /* Values are small ids, every site being named already. */
    size_t nvals = sy->nfn + sy->nline + TF_PRV_FIRST_SITE;
    struct phase_sites ps = { sy, st, 0, calloc(nvals, sizeof *ps.cf),
                              calloc(nvals, sizeof *ps.cl), nvals, 0, 0 };
    for (uint32_t ph = 0; rc == 0 && ph < st->nphases; ph++) {
        if (!ps.cf || !ps.cl) {
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
            break;
        }
        memset(ps.cf, 0, nvals * sizeof *ps.cf);
        memset(ps.cl, 0, nvals * sizeof *ps.cl);
        ps.phase = ph;
        ps.best_fn = ps.best_line = 0;
        rc = tf_fold_group_each_part(g, TF_FOLD_COL_INSTANCE | TF_FOLD_COL_X | TF_FOLD_COL_IP,
                                     count_phase_sites, &ps, err);
        st->phase_fn[ph] = ps.best_fn;
        st->phase_line[ph] = ps.best_line;
    }
    free(ps.cf);
    free(ps.cl);
    return rc;
}

/* The point columns, a slab of this many points at a time. */
enum { SITE_SLAB = 65536 };

struct sites_pass {
    synthetic *sy;
    const synthetic_thread *st;
    const tf_analysis *an;          /* NULL: the folded trace's symbols */
    tf_analysis_point_columns c;    /* room for SITE_SLAB */
};

static int name_part_sites(void *arg, const tf_fold_points *pts, size_t first, tf_error *err)
{
    const struct sites_pass *sp = arg;
    int rc = 0;
    for (size_t at = 0; rc == 0 && at < pts->n; at += SITE_SLAB) {
        size_t len = pts->n - at < SITE_SLAB ? pts->n - at : SITE_SLAB;
        if (sp->an)
            rc = tf_analysis_point_places(sp->an, pts, first, at, len, &sp->c, err);
        for (size_t i = at; rc == 0 && i < at + len; i++) {
            uint32_t proc = sp->st->region->instances[pts->instance[i]].proc;
            uint64_t fn, line;
            rc = sp->an ? site_from_analysis(sp->sy, proc, pts->ip[i], sp->an,
                                             sp->c.routine[i - at], sp->c.line[i - at], err)
                        : site_of(sp->sy, proc, pts->ip[i], &fn, &line, NULL, err);
        }
    }
    return rc;
}

/* Names the sites of a thread's points, before any phase: phases and
 * samples share the values, numbered in order of first use.  With the
 * group's analysis (an), each address is named where the analysis looked
 * it up (its places), not looked up again. */
static int name_sites(synthetic *sy, const synthetic_thread *st, const tf_analysis *an,
                      tf_error *err)
{
    struct sites_pass sp = { sy, st, an, { 0 } };
    unsigned columns = TF_FOLD_COL_INSTANCE | TF_FOLD_COL_IP;
    int rc = 0;
    if (an) {
        columns |= an->places ? an->places->needs : 0;
        sp.c = (tf_analysis_point_columns){ malloc(SITE_SLAB * sizeof *sp.c.routine),
                                            malloc(SITE_SLAB * sizeof *sp.c.line),
                                            malloc(SITE_SLAB * sizeof *sp.c.object),
                                            malloc(SITE_SLAB * sizeof *sp.c.offset) };
        if (!sp.c.routine || !sp.c.line || !sp.c.object || !sp.c.offset)
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
    }
    if (rc == 0)
        rc = tf_fold_group_each_part(st->group, columns, name_part_sites, &sp, err);
    free(sp.c.routine);
    free(sp.c.line);
    free(sp.c.object);
    free(sp.c.offset);
    return rc;
}

/* Thread t's phases, from its analysis an (in memory, or read from
 * fold.h5), or from the group's change points without one; each labelled
 * in the .pcf. */
static int build_phases(synthetic *sy, synthetic_thread *st, uint32_t thread,
                        const tf_analysis *an, tf_error *err)
{
    int rc = an ? phases_of_analysis(sy, st, an->phases, an->nphases, an->routines,
                                     an->nroutines, err)
                : 0;
    if (rc == 0)
        rc = boundary_phases(sy, st, err);
    for (uint32_t ph = 0; rc >= 0 && ph < st->nphases; ph++) {
        char label[160];
        snprintf(label, sizeof label, "Phase %" PRIu32 " of thread %" PRIu32 " [%.3f, %.3f]",
                 ph + 1, thread + 1, st->phase_x[ph], st->phase_x[ph + 1]);
        /* Phase values: thread × 1000 + phase + 1, so phases of different
         * threads keep their own labels. */
        rc = tf_pcf_add_value(sy->pcf, TF_PRV_FOLD_PHASE, (uint64_t)thread * 1000 + ph + 1, label, err);
    }
    return rc < 0 ? rc : 0;
}

/* The Paraver record of point pt of thread `thread` into *rec, its pairs
 * appended to ps (rec->pairs left to the caller: ps may move as it
 * grows). */
static int build_point_record(synthetic *sy, uint32_t thread, const synthetic_point *pt,
                              tf_prv_record *rec, tf_prv_pairs *ps, tf_error *err)
{
    tf_prv_object obj = {thread + 1, 1, 1, thread + 1};
    *rec = (tf_prv_record){.kind = TF_PRV_EVENT, .obj = obj, .time = pt->time};
    size_t first = ps->n;
    uint64_t fn, line;
    bool waiting;
    int rc;
    if ((rc = site_of(sy, pt->proc, pt->ip, &fn, &line, &waiting, err)) < 0 ||
        (rc = tf_prv_pairs_add(ps, TF_PRV_SAMPLED_CALLER, fn, err)) < 0 ||
        (rc = tf_prv_pairs_add(ps, TF_PRV_SAMPLED_LINE, line, err)) < 0 ||
        (rc = tf_prv_pairs_add(ps, TF_PRV_FOLD_INSTANCE, (uint64_t)pt->instance + 1, err)) < 0)
        return rc;
    /* Whether the samples wait, written where it changes (and at the
     * thread's first sample with a known routine): a value per sample
     * would add a pair to every record of every trace. */
    synthetic_thread *st = &sy->th[thread];
    if (fn != 1 && st->waiting != (int)waiting) {
        st->waiting = waiting;
        if ((rc = tf_prv_pairs_add(ps, TF_PRV_FOLD_WAITING, waiting, err)) < 0)
            return rc;
    }
    if (pt->ip && (rc = tf_prv_pairs_add(ps, TF_PRV_SAMPLE_IP, pt->ip, err)) < 0)
        return rc;
    if (pt->sample_kind != TF_SAMPLE_TIMER) {
        tf_sample m = {.addr = pt->addr, .weight = pt->weight, .kind = pt->sample_kind,
                       .level = pt->level};
        uint32_t object = sy->tr ? tf_prv_objects_find(&sy->objects, pt->proc, pt->addr,
                                                       TF_NOTIME) : 0;
        if ((rc = tf_prv_pairs_memory(ps, &m, object, err)) < 0)
            return rc;
    }
    rec->npairs = ps->n - first;
    return 1;
}

/* The Paraver record of r (a state, phase or grid record) into *rec, its
 * pairs appended to ps (rec->pairs left to the caller: ps may move as it
 * grows): 1, or 0 for a record without pairs, not to be written. */
static int build_record(synthetic *sy, uint32_t thread, const synthetic_rec *r,
                        tf_prv_record *rec, tf_prv_pairs *ps, tf_error *err)
{
    synthetic_thread *st = &sy->th[thread];
    const tf_fold_group *g = st->group;
    const tf_fold_region *reg = st->region;
    tf_prv_object obj = {thread + 1, 1, 1, thread + 1};
    *rec = (tf_prv_record){.kind = TF_PRV_EVENT, .obj = obj, .time = r->time};
    size_t first = ps->n;
    int rc = 0;
    switch (r->kind) {
    case SYN_STATE:
        rec->kind = TF_PRV_STATE;
        rec->end = (uint64_t)llround(st->duration);
        rec->state = 1;
        return 1;
    case SYN_PHASE: {
        uint32_t ph = r->index;
        if (ph < st->nphases) {
            rc = tf_prv_pairs_add(ps, TF_PRV_FOLD_PHASE, (uint64_t)thread * 1000 + ph + 1, err);
            if (rc == 0)
                rc = tf_prv_pairs_add(ps, TF_PRV_FOLD_PHASE_ROUTINE, st->phase_fn[ph], err);
            if (rc == 0)
                rc = tf_prv_pairs_add(ps, TF_PRV_FOLD_PHASE_LINE, st->phase_line[ph], err);
        } else {
            rc = tf_prv_pairs_add(ps, TF_PRV_FOLD_PHASE, 0, err);
            if (rc == 0)
                rc = tf_prv_pairs_add(ps, TF_PRV_FOLD_PHASE_ROUTINE, 0, err);
            if (rc == 0)
                rc = tf_prv_pairs_add(ps, TF_PRV_FOLD_PHASE_LINE, 0, err);
        }
        break;
    }
    case SYN_GRID: {
        /* Counter increments between grid steps, rounded so that their sum
         * stays the rounded curve; rates and ratios as fixed point. */
        uint32_t j = r->index;
        for (uint32_t c = 0; rc == 0 && c < reg->ncounters; c++) {
            double cur = g->curve[(size_t)c * g->grid + j];
            if (!isfinite(cur) || !isfinite(g->mean_total[c]))
                continue;
            uint64_t target = fixed(cur * g->mean_total[c], 1);
            uint64_t inc = target > st->carry_total[c] ? target - st->carry_total[c] : 0;
            st->carry_total[c] += inc;
            if (j > 0)
                rc = tf_prv_pairs_add(ps, st->ctype[c], inc, err);
            if (rc == 0)
                rc = tf_prv_pairs_add(ps, TF_PRV_FOLD_RATE + c, fixed(g->rate[(size_t)c * g->grid + j], 1e-3), err);
            if (rc == 0 && g->ratio)
                rc = tf_prv_pairs_add(ps, TF_PRV_FOLD_PER_INS + c, fixed(g->ratio[(size_t)c * g->grid + j], 1e6), err);
            /* The instructions rate again under one fixed type, for the MIPS view. */
            if (rc == 0 && (int32_t)c == g->instructions)
                rc = tf_prv_pairs_add(ps, TF_PRV_FOLD_MIPS, fixed(g->rate[(size_t)c * g->grid + j], 1e-3), err);
        }
        break;
    }
    default:
        return tf_fail(err, TF_ERR_INTERNAL, "synthetic record of kind %u", r->kind);
    }
    if (rc < 0)
        return rc;
    rec->npairs = ps->n - first;
    return rec->npairs > 0;
}

static int cmp_synthetic_rec(const void *a, const void *b)
{
    const synthetic_rec *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The time of normalised time x: x × duration rounded half away from zero,
 * as llround does, inline (a libm call for each of millions of points
 * took a tenth of their ordering).  Exact: below 2^53 ns the fraction
 * t − trunc(t) is exact in double. */
static uint64_t at(double duration, double x)
{
    double t = x * duration;
    if (!(t > 0))
        return 0;
    uint64_t whole = (uint64_t)t;
    return whole + (t - (double)whole >= 0.5);
}

/* Coarse buckets of the points' first counting sort: few enough that
 * their counts and write positions stay in cache. */
#define COARSE 4096

typedef struct sort_buffers {
    synthetic_rec *tmp;
    size_t    *count;
    size_t     ntmp, ncount;
} sort_buffers;

/* Sorts the n records of one coarse bucket by time, keeping the order of
 * equal times: a counting sort on time × scale (about one record a key)
 * through buf, then insertion within keys (qsort for a crowded one). */
static int sort_bucket(synthetic_rec *r, size_t n, double scale, sort_buffers *buf, tf_error *err)
{
    if (n < 2)
        return 0;
    size_t kmin = SIZE_MAX, kmax = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k = (size_t)((double)r[i].time * scale);
        kmin = k < kmin ? k : kmin;
        kmax = k > kmax ? k : kmax;
    }
    size_t nkeys = kmax - kmin + 1;
    if (buf->ntmp < n) {
        free(buf->tmp);
        buf->ntmp = 2 * n;
        if (!(buf->tmp = malloc(buf->ntmp * sizeof *buf->tmp)))
            return tf_fail(err, TF_ERR_NOMEM, "out of memory ordering %zu records", n);
    }
    if (buf->ncount < nkeys + 1) {
        free(buf->count);
        buf->ncount = 2 * nkeys + 1;
        if (!(buf->count = malloc(buf->ncount * sizeof *buf->count)))
            return tf_fail(err, TF_ERR_NOMEM, "out of memory ordering %zu records", n);
    }
    size_t *end = buf->count;
    memset(end, 0, (nkeys + 1) * sizeof *end);
    for (size_t i = 0; i < n; i++)
        end[(size_t)((double)r[i].time * scale) - kmin + 1]++;
    for (size_t k = 1; k <= nkeys; k++)
        end[k] += end[k - 1];
    for (size_t i = 0; i < n; i++)
        buf->tmp[end[(size_t)((double)r[i].time * scale) - kmin]++] = r[i];
    memcpy(r, buf->tmp, n * sizeof *r);
    /* end[k] is now the end of key k */
    for (size_t k = 0, lo = 0; k < nkeys; lo = end[k], k++) {
        if (end[k] - lo > 32) {
            qsort(r + lo, end[k] - lo, sizeof *r, cmp_synthetic_rec);
            continue;
        }
        for (size_t i = lo + 1; i < end[k]; i++) {
            synthetic_rec v = r[i];
            size_t j = i;
            for (; j > lo && r[j - 1].time > v.time; j--)
                r[j] = r[j - 1];
            r[j] = v;
        }
    }
    return 0;
}

/* The records of points p (of instances `ins`, for their processes; NULL:
 * none), on a synthetic iteration of `duration` ns, in the order of
 * cmp_synthetic_rec, into out: each instance's points are a sorted run, and millions of
 * them are sorted by two counting sorts on their time, COARSE buckets and
 * then about one key a point within each (a single pass of one key a point
 * spent its time in cache misses), so that equal times share keys and keep
 * their index order (a comparison sort of every record took a tenth of the
 * fold).  The order is total (time, then index), so the records of
 * consecutive parts of the points, each ordered alone, merge into those
 * of the whole. */
static int order_points(const tf_fold_points *p, double duration, const tf_fold_instance *ins,
                        synthetic_rec *out, tf_error *err)
{
    size_t n = p->n;
    size_t *start = calloc(COARSE + 2, sizeof *start);
    if (!start)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory ordering %zu records", n);
    uint64_t tmax = 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t ti = at(duration, p->x[i]);
        tmax = ti > tmax ? ti : tmax;
    }
    double coarse = (double)(COARSE - 1) / (double)tmax;
    for (size_t i = 0; i < n; i++)
        start[(size_t)((double)at(duration, p->x[i]) * coarse) + 1]++;
    for (size_t b = 1; b <= COARSE; b++)
        start[b] += start[b - 1];
    for (size_t i = 0; i < n; i++) {
        uint64_t ti = at(duration, p->x[i]);
        out[start[(size_t)((double)ti * coarse)]++] = (synthetic_rec){
            .time = ti, .kind = SYN_POINT, .sample_kind = p->kind[i],
            .index = (uint32_t)i, .instance = p->instance[i],
            .proc = ins ? ins[p->instance[i]].proc : 0, .ip = p->ip[i]};
    }
    /* start[b] is now the end of coarse bucket b */
    double fine = n > 1 ? (double)(n - 1) / (double)tmax : 0;
    sort_buffers buf = {0};
    int rc = 0;
    for (size_t b = 0, lo = 0; rc == 0 && b < COARSE; lo = start[b], b++)
        rc = sort_bucket(out + lo, start[b] - lo, fine, &buf, err);
    free(buf.tmp);
    free(buf.count);
    free(start);
    return rc;
}

/* Thread t's few state, phase and grid records, sorted by comparison. */
static int thread_small(synthetic_thread *st, tf_error *err)
{
    size_t nsmall = 2 + (size_t)st->nphases + st->group->grid;
    synthetic_rec *small = malloc(nsmall * sizeof *small);
    if (!small)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory ordering %zu records", nsmall);
    size_t k = 0;
    small[k++] = (synthetic_rec){.time = 0, .kind = SYN_STATE};
    for (uint32_t ph = 0; ph <= st->nphases; ph++)
        small[k++] = (synthetic_rec){.time = at(st->duration, st->phase_x[ph]), .kind = SYN_PHASE,
                                     .index = ph};
    for (uint32_t j = 0; j < st->group->grid; j++)
        small[k++] = (synthetic_rec){.time = at(st->duration, st->group->x[j]), .kind = SYN_GRID,
                                     .index = j};
    qsort(small, nsmall, sizeof *small, cmp_synthetic_rec);
    st->small = small;
    st->nsmall = nsmall;
    return 0;
}

/* ---- the points' parts, merged ------------------------------------------ */

/* What the leader asks a member holding part of a group's points
 * (tf_fold_team_call): to order them (answered at once with their count,
 * then ordered while the leader goes on), then their next records, a
 * batch at a time. */
enum { CALL_ORDER = 1, CALL_NEXT = 2 };

struct synthetic_call {
    uint32_t kind, group;
    double   duration;        /* CALL_ORDER: the group's, ns */
    uint64_t n;               /* CALL_NEXT: records asked for */
};

/* Records of a member's part sent in one message. */
#define REMOTE_BATCH 8192

/* The point of record r of points p (whose first is point `first` of
 * the group). */
static synthetic_point point_of(const synthetic_rec *r, const tf_fold_points *p, size_t first)
{
    bool memory = r->sample_kind != TF_SAMPLE_TIMER;
    return (synthetic_point){
        .time = r->time, .ip = r->ip, .index = (uint32_t)(first + r->index),
        .instance = r->instance, .proc = r->proc, .sample_kind = r->sample_kind,
        /* a memory sample's columns: read at random (a cache miss each) */
        .addr = memory ? p->addr[r->index] : 0, .weight = memory ? p->weight[r->index] : 0,
        .level = memory ? p->level[r->index] : 0,
    };
}

/* Source ps's next point into ps->cur (ps->done < ps->n): from its
 * records here, or from the member's next batch. */
static int source_fill(synthetic *sy, const synthetic_thread *st, point_source *ps, tf_error *err)
{
    if (ps->rank == 0) {
        ps->cur = point_of(&ps->rec[ps->done], ps->pts, ps->first);
        return 0;
    }
    if (ps->at == ps->nbatch) {
        size_t want = ps->n - ps->done < REMOTE_BATCH ? ps->n - ps->done : REMOTE_BATCH;
        struct synthetic_call q = { .kind = CALL_NEXT, .group = st->group_index, .n = want };
        tf_team_part reply = { ps->batch, want * sizeof *ps->batch };
        int rc = tf_fold_team_call(sy->team, ps->rank, &q, sizeof q, &reply, 1, err);
        if (rc < 0)
            return rc;
        ps->nbatch = want;
        ps->at = 0;
    }
    ps->cur = ps->batch[ps->at++];
    if (ps->cur.instance >= st->region->ninstances)
        return tf_fail(err, TF_ERR_INTERNAL, "rank %d: a record of instance %u of %zu",
                       ps->rank, ps->cur.instance, st->region->ninstances);
    ps->cur.index += (uint32_t)ps->first;
    ps->cur.proc = st->proc_of[ps->cur.instance];
    return 0;
}

/* The source of thread st's next point, by time then index; NULL when
 * none is left. */
static point_source *next_point(synthetic_thread *st)
{
    point_source *best = NULL;
    for (uint32_t k = 0; k < st->nsrc; k++) {
        point_source *ps = &st->src[k];
        if (ps->done < ps->n &&
            (!best || ps->cur.time < best->cur.time ||
             (ps->cur.time == best->cur.time && ps->cur.index < best->cur.index)))
            best = ps;
    }
    return best;
}

static int source_advance(synthetic *sy, const synthetic_thread *st, point_source *ps,
                          tf_error *err)
{
    return ++ps->done < ps->n ? source_fill(sy, st, ps, err) : 0;
}

/* Thread st's sources: the points here (to be ordered into st->points), then,
 * when the group's points are spread over a team (fold_team.h), each
 * member's part, which it is asked to order now. */
static int point_sources(synthetic *sy, synthetic_thread *st, tf_error *err)
{
    bool spread = sy->team && st->group->parts;
    uint32_t most = spread ? (uint32_t)sy->team->size : 1;
    st->src = calloc(most, sizeof *st->src);
    if (!st->src)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    st->src[0] = (point_source){ .rec = st->points, .pts = &st->group->points,
                                 .n = st->group->points.n };
    st->nsrc = 1;
    if (spread && !sy->proc_of &&
        !(sy->proc_of = calloc(sy->res->nregions, sizeof *sy->proc_of)))
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    uint32_t **proc_of = spread ? &sy->proc_of[st->region_index] : NULL;
    if (proc_of && !*proc_of) {
        const tf_fold_region *r = st->region;
        if (!(*proc_of = malloc((r->ninstances + 1) * sizeof **proc_of)))
            return tf_fail(err, TF_ERR_NOMEM, "out of memory");
        for (size_t i = 0; i < r->ninstances; i++)
            (*proc_of)[i] = r->instances[i].proc;
    }
    st->proc_of = proc_of ? *proc_of : NULL;
    size_t first = st->group->points.n;
    for (int w = 1; spread && w < sy->team->size; w++) {
        struct synthetic_call q = { .kind = CALL_ORDER, .group = st->group_index,
                                    .duration = st->duration };
        uint64_t n = 0;
        tf_team_part reply = { &n, sizeof n };
        int rc = tf_fold_team_call(sy->team, w, &q, sizeof q, &reply, 1, err);
        if (rc < 0)
            return rc;
        if (n > tf_fold_group_npoints(st->group) - first)
            return tf_fail(err, TF_ERR_INTERNAL, "rank %d holds %llu points of group %u, of "
                           "%zu", w, (unsigned long long)n, st->group_index,
                           tf_fold_group_npoints(st->group));
        if (n == 0)
            continue;
        point_source *ps = &st->src[st->nsrc++];
        *ps = (point_source){ .rank = w, .n = n, .first = first,
                              .batch = malloc(REMOTE_BATCH * sizeof *ps->batch) };
        if (!ps->batch)
            return tf_fail(err, TF_ERR_NOMEM, "out of memory");
        first += n;
    }
    return 0;
}

/* Every source's first point, before the records are emitted. */
static int sources_start(synthetic *sy, tf_error *err)
{
    int rc = 0;
    for (uint32_t t = 0; t < sy->nth && rc == 0; t++)
        for (uint32_t k = 0; k < sy->th[t].nsrc && rc == 0; k++)
            if (sy->th[t].src[k].n)
                rc = source_fill(sy, &sy->th[t], &sy->th[t].src[k], err);
    return rc;
}

/* Records built and not yet written: a batch of them with their pairs. */
#define WRITE_BATCH 8192

typedef struct write_batch {
    tf_prv_record rec[WRITE_BATCH];
    size_t        first[WRITE_BATCH];   /* each record's first pair */
    tf_prv_pairs  pairs;
    size_t        n;
} write_batch;

/* With threads, the records are built on one thread (the sites, phases and
 * counter increments, in order) and formatted on another (the kernel's copy
 * into the page cache on a third), two batches in turn, so that the
 * output's state and the builder's stay each on its own thread. */
typedef struct write_pipe {
    tf_handoff     h;
    write_batch   *b;                   /* [2] */
    tf_prv_out *w;
    int            rc;                  /* the writing thread's, with err */
    tf_error       err;
} write_pipe;

/* Writes batch b's records and empties it. */
static int write_batch_records(tf_prv_out *w, write_batch *b, tf_error *err)
{
    int rc = 0;
    for (size_t i = 0; i < b->n && rc == 0; i++) {
        b->rec[i].pairs = b->pairs.p + b->first[i];
        rc = tf_prv_write(w, &b->rec[i], err);
    }
    b->n = 0;
    b->pairs.n = 0;
    return rc;
}

static void *write_batches(void *arg)
{
    write_pipe *wp = arg;
    for (unsigned k = 0; tf_handoff_take(&wp->h, k); k ^= 1) {
        if (wp->rc == 0)
            wp->rc = write_batch_records(wp->w, &wp->b[k], &wp->err);
        tf_handoff_release(&wp->h, k, wp->rc < 0);
    }
    return NULL;
}

/* Batch k is built: handed over to the writing thread, waiting for the other batch
 * to be empty (1 when writing failed: its error in the pipe), or written
 * here (0 or the error). */
static int flush_batch(write_pipe *wp, unsigned k, bool piped, tf_error *err)
{
    if (!piped)
        return write_batch_records(wp->w, &wp->b[0], err);
    tf_handoff_put(&wp->h, k);
    return !tf_handoff_wait_empty(&wp->h, k ^ 1);
}

/* Emits every thread's records, merged by time, then thread: a handful of
 * threads. */
static int emit_merged(synthetic *sy, unsigned threads, tf_error *err)
{
    size_t *small = calloc(sy->nth + 1, sizeof *small);
    write_pipe wp = { .b = calloc(2, sizeof *wp.b), .w = sy->w };
    if (!small || !wp.b) {
        free(small);
        free(wp.b);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    }
    tf_handoff_init(&wp.h);
    pthread_t thread;
    bool piped = threads > 1 && pthread_create(&thread, NULL, write_batches, &wp) == 0;
    /* The kernel's copy of the text into the page cache, as long as the
     * formatting, on a third thread. */
    if (piped)
        tf_prv_out_write_behind(sy->w);
    unsigned k = 0;
    int rc = sources_start(sy, err);
    while (rc == 0) {
        /* the earliest thread's next record; a thread's small one first at
         * a tie with its point */
        uint32_t best = sy->nth;
        uint64_t best_time = 0;
        point_source *best_point = NULL;
        for (uint32_t t = 0; t < sy->nth; t++) {
            synthetic_thread *st = &sy->th[t];
            const synthetic_rec *sm = small[t] < st->nsmall ? &st->small[small[t]] : NULL;
            point_source *ps = next_point(st);
            if (!sm && !ps)
                continue;
            bool take_small = sm && (!ps || ps->cur.time >= sm->time);
            uint64_t time = take_small ? sm->time : ps->cur.time;
            if (best == sy->nth || time < best_time) {
                best = t;
                best_time = time;
                best_point = take_small ? NULL : ps;
            }
        }
        if (best == sy->nth)
            break;
        write_batch *b = &wp.b[piped ? k : 0];
        size_t first = b->pairs.n;
        synthetic_thread *st = &sy->th[best];
        int built = best_point
                        ? build_point_record(sy, best, &best_point->cur, &b->rec[b->n], &b->pairs,
                                             err)
                        : build_record(sy, best, &st->small[small[best]], &b->rec[b->n],
                                       &b->pairs, err);
        if (built < 0) {
            rc = built;
            break;
        }
        if (built)
            b->first[b->n++] = first;
        if (best_point)
            rc = source_advance(sy, st, best_point, err);
        else
            small[best]++;
        if (rc == 0 && b->n == WRITE_BATCH) {
            if ((rc = flush_batch(&wp, k, piped, err)) != 0)
                break;
            k ^= 1;
        }
    }
    if (rc == 0 && wp.b[piped ? k : 0].n)
        rc = flush_batch(&wp, k, piped, err);
    if (piped) {
        tf_handoff_end(&wp.h);
        pthread_join(thread, NULL);
        if (wp.rc < 0 && rc >= 0) {
            rc = wp.rc;
            *err = wp.err;
        }
    }
    tf_handoff_destroy(&wp.h);
    for (int i = 0; i < 2; i++)
        tf_prv_pairs_free(&wp.b[i].pairs);
    free(wp.b);
    free(small);
    return rc;
}

/* The synthetic trace's own types beside those of the samples. */
static const struct { uint32_t type; const char *label; } synthetic_types[] = {
    {TF_PRV_FOLD_INSTANCE, "Folded instance of the sample (row + 1)"},
    {TF_PRV_FOLD_PHASE, "Folded phase"},
    {TF_PRV_FOLD_MIPS, "Folded MIPS x 1000"},
    {TF_PRV_FOLD_WAITING, "Folded samples wait for other threads"},
};

static int synthetic_labels(synthetic *sy, tf_error *err)
{
    int rc = tf_prv_label_samples(sy->pcf, err);
    for (size_t i = 0; rc == 0 && i < sizeof synthetic_types / sizeof synthetic_types[0]; i++)
        rc = tf_pcf_add_type(sy->pcf, synthetic_types[i].type, 9, synthetic_types[i].label, err);
    if (rc == 0)
        rc = tf_pcf_add_value(sy->pcf, TF_PRV_FOLD_PHASE, 0, "End", err);
    if (rc == 0)
        rc = tf_pcf_add_value(sy->pcf, TF_PRV_FOLD_WAITING, 0, "No: the iteration's code", err);
    if (rc == 0)
        rc = tf_pcf_add_value(sy->pcf, TF_PRV_FOLD_WAITING, 1,
                              "Waiting (barrier, idle loop, MPI wait or progress)", err);
    return rc;
}

/* Counter, rate and ratio types of a thread's region, labelled once. */
static int thread_counters(synthetic *sy, synthetic_thread *st, tf_error *err)
{
    const tf_fold_region *reg = st->region;
    st->ctype = calloc(reg->ncounters ? reg->ncounters : 1, sizeof *st->ctype);
    st->carry_total = calloc(reg->ncounters ? reg->ncounters : 1, sizeof *st->carry_total);
    if (!st->ctype || !st->carry_total)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    int rc = tf_prv_counter_types(sy->pcf, (const char *const *)reg->counter_names,
                                  (const char *const *)reg->counter_units, reg->ncounters,
                                  st->ctype, err);
    for (uint32_t c = 0; rc == 0 && c < reg->ncounters; c++) {
        char label[300];
        snprintf(label, sizeof label, "Folded rate of %s (events per ms; MIPS x 1000 for instructions)",
                 reg->counter_names[c]);
        if ((rc = tf_pcf_add_type(sy->pcf, TF_PRV_FOLD_RATE + c, 7, label, err)) < 0)
            break;
        snprintf(label, sizeof label, "Folded %s per instruction (x 10^6)", reg->counter_names[c]);
        if (st->group->ratio)
            rc = tf_pcf_add_type(sy->pcf, TF_PRV_FOLD_PER_INS + c, 7, label, err);
    }
    return rc;
}

/* Routines and lines of the samples and of the phases share their values. */
static int synthetic_values(synthetic *sy, tf_error *err)
{
    const char *const *fn = (const char *const *)sy->fn_labels;
    const char *const *line = (const char *const *)sy->line_labels;
    int rc = tf_prv_label_sites(sy->pcf, TF_PRV_SAMPLED_CALLER, "Sampled functions",
                                TF_PRV_SAMPLED_LINE, "Sampled lines", fn, sy->nfn, line,
                                sy->nline, err);
    if (rc == 0)
        rc = tf_prv_label_sites(sy->pcf, TF_PRV_FOLD_PHASE_ROUTINE, "Routine of the folded phase",
                                TF_PRV_FOLD_PHASE_LINE, "Line of the folded phase", fn, sy->nfn,
                                line, sy->nline, err);
    return rc;
}

/* The part that needs no analysis: the Paraver output, the labels of the types,
 * the names, and every thread's points ordered by time.  No HDF5
 * call and no symbol lookup, so it may run beside the analysis. */
static int synthetic_prepare(synthetic *sy, const char *out, tf_error *err)
{
    const tf_fold_result *res = sy->res;
    for (uint32_t r = 0; r < res->nregions; r++)
        sy->nth += res->regions[r].ngroups;
    if (sy->nth == 0)
        return tf_fail(err, TF_ERR_DATA, "%s: the fold result has no folded group", out);
    sy->th = calloc(sy->nth, sizeof *sy->th);
    tf_prv_task task = {sy->nth, 1};
    tf_prv_appl appl = {1, &task};
    uint32_t cpus = sy->nth;
    /* The end: that of the longest thread's state, known before its records. */
    uint64_t end = 0;
    for (uint32_t r = 0; r < res->nregions; r++)
        for (uint32_t g = 0; g < res->regions[r].ngroups; g++) {
            uint64_t e = (uint64_t)llround(res->regions[r].groups[g].mean_duration_ns);
            end = e > end ? e : end;
        }
    tf_prv_header h = {.nnodes = 1, .node_cpus = &cpus, .ncpus = sy->nth, .nappls = 1,
                       .appls = &appl, .unit_ns = 1, .end_time = end};
    if (!sy->th)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    int rc = tf_prv_out_create(&sy->w, out, &h, err);
    if (rc < 0)
        return rc;
    sy->pcf = tf_prv_out_pcf(sy->w);
    tf_row *row = tf_prv_out_row(sy->w);
    rc = synthetic_labels(sy, err);
    size_t npoints = 0, k = 0;
    for (uint32_t r = 0; rc == 0 && r < res->nregions; r++)
        for (uint32_t g = 0; rc == 0 && g < res->regions[r].ngroups; g++, k++) {
            synthetic_thread *st = &sy->th[k];
            st->region = &res->regions[r];
            st->group = &res->regions[r].groups[g];
            st->region_index = r;
            st->group_index = g;
            st->duration = st->group->mean_duration_ns;
            st->waiting = -1;
            char name[600];
            snprintf(name, sizeof name, "THREAD 1.1.%zu %s group %" PRIu32 " (%" PRIu32 " instances)",
                     k + 1, st->region->name, g, st->group->instances);
            if ((rc = tf_row_add(row, TF_ROW_THREAD, name, err)) < 0 ||
                (rc = thread_counters(sy, st, err)) < 0)
                break;
            snprintf(name, sizeof name, "%zu.folded", k + 1);
            rc = tf_row_add(row, TF_ROW_CPU, name, err);
            npoints += st->group->points.n;
        }
    if (rc == 0 && ((rc = tf_row_add(row, TF_ROW_NODE, "folded", err)) < 0 ||
                    (rc = tf_row_add(row, TF_ROW_APPL, res->trace ? res->trace : "folded", err)) < 0))
        return rc;
    if (rc == 0 && !(sy->recs = tf_malloc_large((npoints ? npoints : 1) * sizeof *sy->recs)))
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
    size_t m = 0;
    for (uint32_t t = 0; rc == 0 && t < sy->nth; t++) {
        synthetic_thread *st = &sy->th[t];
        st->points = sy->recs + m;
        /* the members order theirs meanwhile */
        if ((rc = point_sources(sy, st, err)) == 0)
            rc = order_points(&st->group->points, st->duration, st->region->instances,
                              st->points, err);
        m += st->group->points.n;
    }
    return rc;
}

/* The folded trace's data objects, labelled with the names every other
 * output gives them (heap objects by their symbolised call site): once
 * the analysis is done, as the symbols are looked up on this thread. */
static int synthetic_objects(synthetic *sy, tf_error *err)
{
    if (!sy->tr)
        return 0;
    char ***names;
    int rc = tf_prv_symbols_object_names(sy->names, &names, err);
    if (rc == 0)
        rc = tf_prv_objects_init_named(&sy->objects, sy->pcf, sy->tr, names, err);
    free(names);
    return rc;
}

/* The analyses of a fold.h5 that stores none, worked out by analysis/ as
 * `tracefold render` does (the folded trace needed); into an[t] for each
 * thread t that lacks one, the analyses' names becoming the trace's.  A
 * failure leaves those threads without (their sites unnamed), as a
 * missing trace does. */
static void analyse_missing(synthetic *sy, const tf_analysis **an, tf_analysis_set *made)
{
    bool missing = false;
    for (uint32_t t = 0; t < sy->nth; t++)
        missing |= !an[t];
    if (!missing || !sy->tr)
        return;
    tf_analysis_params params;
    tf_analysis_params_default(&params);
    if (sy->rules)
        params.alloc_rules = *sy->rules;
    tf_error aerr;
    if (tf_analysis_run_groups(sy->tr, sy->res, NULL, &params, made, &aerr) < 0)
        return;
    for (uint32_t t = 0; t < sy->nth; t++)   /* the threads in the set's order */
        if (!an[t] && t < made->n)
            an[t] = &made->list[t];
    sy->names = made->names;
}

/* The rest: the objects and sites named, the phases, every record in time
 * order, and the files closed into place. */
static int synthetic_finish(synthetic *sy, unsigned threads, tf_error *err)
{
    /* each thread's analysis: in memory, or the one fold.h5 stores (an
     * HDF5 call), read once for its sites and its phases, or made here */
    const tf_analysis **an = calloc(sy->nth + 1, sizeof *an);
    tf_analysis *stored = sy->analyses ? NULL : calloc(sy->nth + 1, sizeof *stored);
    tf_analysis_set made = { 0 };
    int rc = an && (sy->analyses || stored) ? 0 : tf_fail(err, TF_ERR_NOMEM, "out of memory");
    for (uint32_t t = 0; rc == 0 && t < sy->nth; t++) {
        bool present = false;
        if (sy->analyses)
            an[t] = t < sy->analyses->n ? &sy->analyses->list[t] : NULL;
        else if ((rc = tf_analysis_read_h5(sy->fold_h5, sy->th[t].region_index,
                                           sy->th[t].group_index, &stored[t], &present,
                                           err)) == 0 && present)
            an[t] = &stored[t];
    }
    if (rc == 0 && !sy->analyses)
        analyse_missing(sy, an, &made);
    if (rc == 0)
        rc = synthetic_objects(sy, err);
    for (uint32_t t = 0; rc == 0 && t < sy->nth; t++)
        rc = name_sites(sy, &sy->th[t], an[t], err);
    for (uint32_t t = 0; rc == 0 && t < sy->nth; t++)
        if ((rc = build_phases(sy, &sy->th[t], t, an[t], err)) == 0)
            rc = thread_small(&sy->th[t], err);
    for (uint32_t t = 0; stored && t < sy->nth; t++)
        tf_analysis_clear(&stored[t]);
    free(stored);
    free(an);
    sy->names = sy->own_names;
    tf_analysis_set_free(&made);
    if (rc == 0)
        rc = emit_merged(sy, threads, err);
    if (rc == 0)
        rc = synthetic_values(sy, err);
    if (rc == 0) {
        rc = tf_prv_out_close(sy->w, err);
        sy->w = NULL;
    }
    return rc;
}
static void synthetic_free(synthetic *sy)
{
    if (sy->w)
        tf_prv_out_abort(sy->w);
    for (uint32_t t = 0; sy->th && t < sy->nth; t++) {
        free(sy->th[t].ctype);
        free(sy->th[t].carry_total);
        free(sy->th[t].phase_x);
        free(sy->th[t].phase_fn);
        free(sy->th[t].phase_line);
        free(sy->th[t].small);
        for (uint32_t k = 0; sy->th[t].src && k < sy->th[t].nsrc; k++)
            free(sy->th[t].src[k].batch);
        free(sy->th[t].src);
    }
    for (size_t i = 0; i < sy->nfn; i++)
        free(sy->fn_labels[i]);
    for (size_t i = 0; i < sy->nline; i++)
        free(sy->line_labels[i]);
    free(sy->fn_labels);
    free(sy->line_labels);
    for (uint32_t p = 0; sy->site_index && p < tf_trace_nprocesses(sy->tr); p++)
        tf_prv_index_free(&sy->site_index[p]);
    free(sy->site_index);
    for (uint32_t r = 0; sy->proc_of && r < sy->res->nregions; r++)
        free(sy->proc_of[r]);
    free(sy->proc_of);
    free(sy->site_values);
    free(sy->th);
    free(sy->recs);
    tf_prv_objects_free(&sy->objects);
    tf_trace_names_free(sy->own_names);
    tf_input_close(sy->opened);
    free(sy->unnamed);
    tf_fold_result_free(sy->loaded);
    free(sy->fold_h5);
    free(sy);
}

int tf_prv_synthetic_begin(const char *fold_h5, const tf_fold_result *res,
                           const tf_trace *folded, const tf_fold_team *team,
                           const tf_alloc_rules *rules, const char *out, tf_prv_synthetic **sp,
                           tf_error *err)
{
    *sp = NULL;
    synthetic *sy = calloc(1, sizeof *sy);
    if (!sy || !(sy->fold_h5 = strdup(fold_h5))) {
        free(sy);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    }
    sy->res = res;
    sy->team = team;
    int rc = res ? 0 : tf_fold_result_load(fold_h5, &sy->loaded, err);
    if (sy->loaded)
        sy->res = sy->loaded;
    /* The folded trace gives routine names and objects; without it the
     * synthetic trace still has the curves, rates, phases and addresses. */
    sy->tr = folded;
    if (rc == 0 && !sy->tr && sy->res->trace) {
        tf_error terr;
        if (tf_input_open(sy->res->trace, &sy->opened, &terr) < 0 &&
            !(sy->unnamed = strdup(terr.msg)))
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
        sy->tr = sy->opened;
    }
    if (rc == 0)
        rc = tf_trace_names_create(&sy->own_names, sy->tr, NULL, rules, err);
    sy->names = sy->own_names;
    sy->rules = rules;
    if (rc == 0 && sy->tr &&
        !(sy->site_index = calloc(tf_trace_nprocesses(sy->tr) + 1, sizeof *sy->site_index)))
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
    if (rc == 0)
        rc = synthetic_prepare(sy, out, err);
    if (rc < 0) {
        synthetic_free(sy);
        return rc;
    }
    *sp = sy;
    return 0;
}

const char *tf_prv_synthetic_unnamed(const tf_prv_synthetic *sy)
{
    return sy->unnamed;
}

int tf_prv_synthetic_end(tf_prv_synthetic *sy, const tf_analysis_set *analyses, unsigned threads,
                         tf_error *err)
{
    sy->analyses = analyses;
    /* the names the analyses used: each address resolved once in the run */
    if (analyses && analyses->names && tf_trace_names_trace(analyses->names) == sy->tr)
        sy->names = analyses->names;
    int rc = synthetic_finish(sy, threads, err);
    synthetic_free(sy);
    return rc;
}

void tf_prv_synthetic_abort(tf_prv_synthetic *sy)
{
    if (sy)
        synthetic_free(sy);
}

/* ---- a team member's part ----------------------------------------------- */

struct member_part {
    synthetic_rec *rec;       /* ordered, NULL once every one is sent */
    size_t n, sent;
};

struct tf_prv_synthetic_member {
    struct member_part *part;  /* [npart], by group */
    uint32_t npart;
};

tf_prv_synthetic_member *tf_prv_synthetic_member_new(void)
{
    return calloc(1, sizeof(tf_prv_synthetic_member));
}

void tf_prv_synthetic_member_free(tf_prv_synthetic_member *m)
{
    for (uint32_t g = 0; m && g < m->npart; g++)
        free(m->part[g].rec);
    if (m)
        free(m->part);
    free(m);
}

/* CALL_ORDER: the count at once, so that the leader goes on while the
 * points are ordered here. */
static int member_order(tf_prv_synthetic_member *m, tf_fold_team *team,
                        const struct synthetic_call *q, tf_error *err)
{
    const tf_fold_points *p = tf_fold_team_kept(team, q->group);
    uint64_t n = p->n;
    if (team->send(team->ctx, 0, &n, sizeof n) < 0)
        return tf_fail(err, TF_ERR_IO, "synthetic trace: the ranks lost contact");
    if (q->group >= m->npart) {
        struct member_part *grown = realloc(m->part, (q->group + 1) * sizeof *grown);
        if (!grown)
            return tf_fail(err, TF_ERR_NOMEM, "out of memory");
        memset(grown + m->npart, 0, (q->group + 1 - m->npart) * sizeof *grown);
        m->part = grown;
        m->npart = q->group + 1;
    }
    struct member_part *mp = &m->part[q->group];
    free(mp->rec);
    *mp = (struct member_part){ .rec = tf_malloc_large((n ? n : 1) * sizeof *mp->rec), .n = n };
    if (!mp->rec)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory ordering %zu records", p->n);
    return order_points(p, q->duration, NULL, mp->rec, err);
}

/* CALL_NEXT: the next q->n records, as points (their process is the
 * leader's to fill in), the records freed after the last. */
static int member_next(tf_prv_synthetic_member *m, tf_fold_team *team,
                       const struct synthetic_call *q, tf_error *err)
{
    struct member_part *mp = q->group < m->npart ? &m->part[q->group] : NULL;
    if (!mp || !mp->rec || q->n > mp->n - mp->sent || q->n > REMOTE_BATCH)
        return tf_fail(err, TF_ERR_INTERNAL, "synthetic trace: %llu records of group %u "
                       "asked for, not ordered here", (unsigned long long)q->n, q->group);
    const tf_fold_points *p = tf_fold_team_kept(team, q->group);
    synthetic_point *out = malloc((q->n + 1) * sizeof *out);
    if (!out)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < q->n; i++)
        out[i] = point_of(&mp->rec[mp->sent + i], p, 0);
    int rc = team->send(team->ctx, 0, out, q->n * sizeof *out) < 0
                 ? tf_fail(err, TF_ERR_IO, "synthetic trace: the ranks lost contact") : 0;
    free(out);
    mp->sent += q->n;
    if (mp->sent == mp->n) {
        free(mp->rec);
        mp->rec = NULL;
    }
    return rc;
}

int tf_prv_synthetic_member_call(void *arg, tf_fold_team *team, const void *req, tf_error *err)
{
    struct synthetic_call q;
    memcpy(&q, req, sizeof q);
    if (q.kind == CALL_ORDER)
        return member_order(arg, team, &q, err);
    if (q.kind == CALL_NEXT)
        return member_next(arg, team, &q, err);
    return tf_fail(err, TF_ERR_INTERNAL, "synthetic trace: unknown call %u", q.kind);
}
