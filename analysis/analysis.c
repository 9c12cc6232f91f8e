/* SPDX-License-Identifier: BSD-3-Clause */
/* The analysis of one folded region: its parameters and its owned data
 * (the order of its steps is analysis_compute.c's). */
#include "analysis.h"

#include <stdlib.h>
#include <string.h>

#include "analysis_steps.h"
#include "formats/trace.h"

void tf_analysis_params_default(tf_analysis_params *p)
{
    *p = (tf_analysis_params){
        .windows = 0,
        .min_phase_share = 0.005,
        .boundary_tol = 0.01,
        .min_change = 0.25,
        .min_phase_length = 0.02,
        .line_bytes = 64,
        .ordered_r2 = 0.9,
        .trend_r2 = 0.5,
        .trend_rho = 0.5,
        .min_stream_samples = 8,
        .min_stream_share = 0.03,
        .max_samples = TF_ANALYSIS_MAX_SAMPLES,
    };
}

void tf_analysis_objects_count(tf_analysis *a)
{
    size_t total = 0;
    for (size_t o = 0; o < a->nobjects; o++)
        a->objects[o].refs = a->objects[o].loads = a->objects[o].stores = 0;
    for (size_t i = 0; i < a->nsamples; i++) {
        const tf_analysis_sample *s = &a->samples[i];
        if (s->object == TF_ANALYSIS_NONE || s->object >= a->nobjects)
            continue;
        tf_analysis_object *o = &a->objects[s->object];
        o->refs++;
        o->loads += s->kind == TF_SAMPLE_LOAD || s->kind == TF_SAMPLE_RMW;
        o->stores += s->kind == TF_SAMPLE_STORE || s->kind == TF_SAMPLE_RMW;
        total++;
    }
    for (size_t o = 0; o < a->nobjects; o++)
        a->objects[o].share = total ? (double)a->objects[o].refs / (double)total : 0;
}

int tf_analysis_add_routine(tf_analysis *a, const char *function, const char *file,
                            uint32_t *index, tf_error *err)
{
    for (size_t i = 0; i < a->nroutines; i++)
        if (!strcmp(a->routines[i].function, function) && !strcmp(a->routines[i].file, file)) {
            *index = (uint32_t)i;
            return 0;
        }
    tf_analysis_routine *v = realloc(a->routines, (a->nroutines + 1) * sizeof *v);
    if (!v)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for routines");
    a->routines = v;
    char *fn = strdup(function), *fl = strdup(file);
    if (!fn || !fl) {
        free(fn);
        free(fl);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for routines");
    }
    v[a->nroutines] = (tf_analysis_routine){ fn, fl, tf_analysis_is_waiting_routine(fn) };
    *index = (uint32_t)a->nroutines++;
    return 0;
}

void tf_analysis_clear(tf_analysis *a)
{
    free(a->region);
    for (size_t i = 0; i < a->nroutines; i++) {
        free(a->routines[i].function);
        free(a->routines[i].file);
    }
    free(a->routines);
    for (size_t i = 0; i < a->nobjects; i++) {
        free(a->objects[i].name);
        free(a->objects[i].routine);
    }
    free(a->objects);
    free(a->samples);
    if (a->places)
        a->places->free(a->places);
    for (size_t c = 0; c < a->ncounters; c++)
        free(a->counter_names[c]);
    free(a->counter_names);
    free(a->rate_dropped);
    free(a->windows);
    for (size_t k = 0; k < a->nphases; k++)
        free(a->phases[k].per_unit);
    free(a->phases);
    free(a->streams);
    free(a->levels);
    free(a->advice);
    memset(a, 0, sizeof *a);
}

int tf_analysis_point_places(const tf_analysis *a, const struct tf_fold_points *part,
                              size_t first, size_t at, size_t n,
                              const tf_analysis_point_columns *c, tf_error *err)
{
    if (a->places)
        return a->places->columns(a->places, part, first, at, n, c, err);
    for (size_t k = 0; k < n; k++) {
        c->routine[k] = c->object[k] = -1;
        c->line[k] = 0;
        c->offset[k] = 0;
    }
    return 0;
}

static const char *const pattern_names[] = { "linear", "strided", "random", "fixed", "sparse" };
static const char *const stride_from_names[] = { "", "samples", "code" };
static const char *const object_kind_names[] = { "heap", "static", "user", "stack", "mmap",
                                                 "small" };
#define COUNT(list) (sizeof list / sizeof *list)

static int parse(const char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(names[i], name))
            return (int)i;
    return -1;
}

const char *tf_analysis_pattern_name(uint8_t pattern)
{
    return pattern < COUNT(pattern_names) ? pattern_names[pattern] : "unknown";
}

int tf_analysis_pattern_parse(const char *name)
{
    return parse(pattern_names, COUNT(pattern_names), name);
}

const char *tf_analysis_stride_from_name(uint8_t from)
{
    return from < COUNT(stride_from_names) ? stride_from_names[from] : "unknown";
}

int tf_analysis_stride_from_parse(const char *name)
{
    return parse(stride_from_names, COUNT(stride_from_names), name);
}

const char *tf_analysis_level_name(uint8_t level)
{
    /* the levels of enum tf_mem_level, by value */
    static const char *const names[] = { "uncached", "L1", "LFB", "L2", "L3", "remote_cache_1",
                                         "remote_cache_2", "DRAM", "remote_DRAM_1",
                                         "remote_DRAM_2" };
    return level < COUNT(names) ? names[level] : "unknown";
}

const char *tf_analysis_object_kind_name(uint8_t kind)
{
    return kind < COUNT(object_kind_names) ? object_kind_names[kind] : "unknown";
}

int tf_analysis_object_kind_parse(const char *name)
{
    /* addresses in no known object: TF_ANALYSIS_OBJECT_UNKNOWN, named "unknown" */
    return strcmp(name, "unknown") ? parse(object_kind_names, COUNT(object_kind_names), name)
                                   : TF_ANALYSIS_OBJECT_UNKNOWN;
}
