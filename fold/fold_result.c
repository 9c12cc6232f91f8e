/* SPDX-License-Identifier: BSD-3-Clause */
/* Parameters, names and ownership of the fold result structs. */
#include "fold_result.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void tf_fold_params_default(tf_fold_params *p)
{
    *p = (tf_fold_params){
        .filter = TF_FILTER_ROBUST,
        /* 3.5 scaled MADs: Iglewicz and Hoaglin's cut-off for modified
         * z-scores; ordinary jitter (normal) stays inside with 99.95 %. */
        .filter_k = 3.5,
        .preempted = TF_PREEMPTED_EXCLUDE,
        .shape_k = 6.0,
        .groups = 1,
        .grid = 1000,
        .bootstrap = 100,
        .confidence = 0.95,
        .seed = 1,
        .min_change = 0.25,
        .region_scope = TF_REGION_SCOPE_AUTO,
    };
}

static const char *const filter_names[] = {
    [TF_FILTER_ROBUST] = "robust",
    [TF_FILTER_MAD15] = "mad15",
    [TF_FILTER_NONE] = "none",
};

const char *tf_fold_filter_name(enum tf_fold_filter f)
{
    return (unsigned)f < sizeof filter_names / sizeof filter_names[0] ? filter_names[f] : NULL;
}

int tf_fold_filter_parse(const char *name)
{
    for (size_t i = 0; i < sizeof filter_names / sizeof filter_names[0]; i++)
        if (!strcmp(name, filter_names[i]))
            return (int)i;
    return -1;
}

/* Names instructions counters carry in perf, PAPI, libpfm4 and Extrae
 * traces; the first match wins. */
static const char *const instruction_names[] = {
    "instructions", "PAPI_TOT_INS", "INST_RETIRED", "INST_RETIRED:ANY_P",
    "INST_RETIRED.ANY", "INSTRUCTIONS_RETIRED", "RETIRED_INSTRUCTIONS",
};

int tf_fold_instructions_counter(const char *const *names, uint32_t n)
{
    for (size_t k = 0; k < sizeof instruction_names / sizeof instruction_names[0]; k++)
        for (uint32_t c = 0; c < n; c++)
            if (!strcasecmp(names[c], instruction_names[k]))
                return (int)c;
    return -1;
}

void tf_fold_group_clear(tf_fold_group *g)
{
    free(g->counter_instances);
    free(g->rate_dropped);
    free(g->mean_total);
    free(g->x);
    free(g->curve);
    free(g->curve_lo);
    free(g->curve_hi);
    free(g->rate);
    free(g->rate_lo);
    free(g->rate_hi);
    free(g->ratio);
    free(g->changes);
    free(g->boundaries);
    tf_fold_points_free(&g->points);
    memset(g, 0, sizeof *g);
}

void tf_fold_region_clear(tf_fold_region *r)
{
    free(r->name);
    for (uint32_t c = 0; c < r->ncounters; c++) {
        if (r->counter_names)
            free(r->counter_names[c]);
        if (r->counter_units)
            free(r->counter_units[c]);
    }
    free(r->counter_names);
    free(r->counter_units);
    free(r->instances);
    free(r->counter_delta);
    free(r->observer_events);
    for (uint32_t g = 0; g < r->ngroups && r->groups; g++)
        tf_fold_group_clear(&r->groups[g]);
    free(r->groups);
    memset(r, 0, sizeof *r);
}

int tf_fold_region_instances(tf_fold_region *r, tf_fold_input *in, tf_error *err)
{
    r->ncounters = in->ncounters;
    r->instances = calloc(in->ninstances + 1, sizeof *r->instances);
    if (!r->instances)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for %zu instances", in->ninstances);
    r->counter_delta = in->counter_delta;
    in->counter_delta = NULL;
    r->ninstances = in->ninstances;
    for (size_t i = 0; i < in->ninstances; i++) {
        const tf_instance *s = &in->instances[i];
        tf_fold_instance *d = &r->instances[i];
        *d = (tf_fold_instance){
            .proc = s->proc, .thread = s->thread,
            .begin = s->begin, .end = s->end, .duration = s->end - s->begin,
            .status = TF_FOLD_USED, .reason = TF_FOLD_REASON_NONE, .group = -1,
            .samples = in->samples[i], .score = NAN,
        };
        if (s->status != TF_INSTANCE_COMPLETE) {
            d->status = TF_FOLD_INCOMPLETE;
            d->reason = s->status == TF_INSTANCE_NO_END ? TF_FOLD_REASON_NO_END
                                                        : TF_FOLD_REASON_MISMATCHED;
        } else if (d->duration == 0) {
            d->status = TF_FOLD_EXCLUDED;
            d->reason = TF_FOLD_REASON_EMPTY;
        }
    }
    if (in->ninstances && tf_fold_region_threads(r) == 0)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for %zu instances", in->ninstances);
    return 0;
}

/* An instance's interval, for finding the copies of one marked instance. */
struct interval {
    uint32_t proc;
    uint64_t begin, end;
    size_t   row;
};

static int by_interval(const void *pa, const void *pb)
{
    const struct interval *p = pa, *q = pb;
    if (p->proc != q->proc)
        return p->proc < q->proc ? -1 : 1;
    if (p->begin != q->begin)
        return p->begin < q->begin ? -1 : 1;
    return (p->end > q->end) - (p->end < q->end);
}

uint32_t tf_fold_region_threads(tf_fold_region *r)
{
    for (size_t i = 0; i < r->ninstances; i++)
        r->instances[i].threads = 1;
    struct interval *v = malloc((r->ninstances + 1) * sizeof *v);
    if (!v)
        return 0;
    for (size_t i = 0; i < r->ninstances; i++)
        v[i] = (struct interval){ r->instances[i].proc, r->instances[i].begin,
                                  r->instances[i].end, i };
    qsort(v, r->ninstances, sizeof *v, by_interval);
    uint32_t most = r->ninstances ? 1 : 0;
    for (size_t i = 0, j; i < r->ninstances; i = j) {
        for (j = i + 1; j < r->ninstances && by_interval(&v[i], &v[j]) == 0; j++)
            ;
        for (size_t k = i; k < j; k++)
            r->instances[v[k].row].threads = (uint16_t)(j - i < UINT16_MAX ? j - i : UINT16_MAX);
        if (j - i > most)
            most = (uint32_t)(j - i);
    }
    free(v);
    return most;
}

void tf_fold_result_free(tf_fold_result *r)
{
    if (!r)
        return;
    free(r->producer);
    free(r->trace);
    if (r->parts_free)
        r->parts_free(r->parts_owner);
    for (uint32_t i = 0; i < r->nregions && r->regions; i++)
        tf_fold_region_clear(&r->regions[i]);
    free(r->regions);
    free(r);
}

int tf_fold_group_each_part(const tf_fold_group *g, unsigned columns, tf_fold_part_fn fn,
                            void *arg, tf_error *err)
{
    const tf_fold_parts *ps = g->parts;
    if (!ps)
        return fn(arg, &g->points, 0, err);
    tf_fold_points room = { 0 };
    size_t first = 0;
    int rc = 0;
    for (size_t k = 0; k < ps->n && rc == 0; k++) {
        tf_fold_points part;
        if ((rc = ps->take(ps->ctx, k, columns, &room, &part, err)) == 0) {
            rc = fn(arg, &part, first, err);
            first += part.n;
        }
    }
    tf_fold_points_free(&room);
    return rc;
}

size_t tf_fold_group_npoints(const tf_fold_group *g)
{
    return g->parts ? g->parts->npoints : g->points.n;
}

void tf_fold_sampling_density(const tf_fold_region *r, uint32_t g, tf_sampling_density *d)
{
    const tf_fold_group *grp = &r->groups[g];
    *d = (tf_sampling_density){ .duration_ns = grp->mean_duration_ns };
    for (size_t i = 0; i < r->ninstances; i++) {
        const tf_fold_instance *in = &r->instances[i];
        if (in->status == TF_FOLD_USED && in->group == (int32_t)g) {
            d->instances++;
            d->unsampled += in->samples == 0;
        }
    }
    for (uint32_t c = 0; c < r->ncounters; c++)
        if (!strcmp(r->counter_names[c], TF_SAMPLING_CPU_COUNTER) && grp->mean_total &&
            isfinite(grp->mean_total[c]) && grp->mean_total[c] > 0) {
            d->duration_ns = grp->mean_total[c];
            d->cpu_time = true;
        }
}
