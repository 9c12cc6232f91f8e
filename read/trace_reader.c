/* SPDX-License-Identifier: BSD-3-Clause */
/* libtracefold-read: a trace's processes, threads, counters, regions,
 * instances and data objects, taken from the trace reader
 * (formats/trace_read.c), the region instances (extract/instances.c) and
 * the objects' names (extract/object_names.c): the code `tracefold info`
 * uses, so that a program sees the numbers it prints. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "extract/object_names.h"
#include "read_error.h"
#include "read_trace.h"
#include "extract/symbolize.h"
#include "formats/trace_input.h"

int tracefold_trace_open(const char *path, tracefold_trace **out, tracefold_error *err)
{
    tf_error e;
    tracefold_trace *t = calloc(1, sizeof *t);
    if (!t)
        return tf_read_fail(err, TF_ERR_NOMEM, "%s: out of memory opening the trace", path);
    if (tf_input_open(path, &t->trace, &e) < 0 ||
        tf_region_stats_compute(t->trace, &t->regions, &t->nregions, &e) < 0)
        goto fail;
    t->instances = calloc(t->nregions + 1, sizeof *t->instances);
    t->ninstances = calloc(t->nregions + 1, sizeof *t->ninstances);
    t->object_names = calloc(tf_trace_nprocesses(t->trace) + 1, sizeof *t->object_names);
    if (!t->instances || !t->ninstances || !t->object_names) {
        tf_fail(&e, TF_ERR_NOMEM, "%s: out of memory opening the trace", path);
        goto fail;
    }
    *out = t;
    return 0;
fail:
    tracefold_trace_close(t);
    return tf_read_error(err, &e);
}

void tracefold_trace_close(tracefold_trace *t)
{
    if (!t)
        return;
    for (size_t r = 0; t->instances && r < t->nregions; r++)
        free(t->instances[r]);
    for (uint32_t p = 0; t->object_names && p < tf_trace_nprocesses(t->trace); p++)
        tf_object_naming_free(&t->object_names[p]);
    free(t->instances);
    free(t->ninstances);
    free(t->object_names);
    free(t->regions);
    for (size_t i = 0; i < t->alloc_rules.nwrappers; i++)
        free(t->wrapper_names[i]);
    free(t->wrapper_names);
    free(t->alloc_rules.wrappers);
    if (t->trace)
        tf_input_close(t->trace);
    free(t);
}

void tracefold_trace_get_info(const tracefold_trace *t, tracefold_trace_info *info)
{
    const tf_trace_meta *m = tf_trace_get_meta(t->trace);
    *info = (tracefold_trace_info){
        .path = tf_input_source(t->trace),
        .producer = m->producer,
        .host = m->host,
        .command_line = m->command_line,
        .clock = m->clock,
        .start_time = m->start_time,
        .complete = tf_trace_complete(t->trace),
        .nprocesses = tf_trace_nprocesses(t->trace),
        .nregions = t->nregions,
        .alloc_wrappers = tf_trace_alloc_wrappers(t->trace),
    };
}

int tf_read_check_thread(const tracefold_trace *t, uint32_t process, uint32_t thread,
                         tracefold_error *err)
{
    const char *path = tf_trace_path(t->trace);
    uint32_t np = tf_trace_nprocesses(t->trace);
    if (process >= np)
        return tf_read_fail(err, TF_ERR_USAGE, "%s: no process %u (the trace has %u)", path,
                            process, np);
    const tf_process *p = tf_trace_process(t->trace, process);
    if (thread != UINT32_MAX && thread >= p->nthreads)
        return tf_read_fail(err, TF_ERR_USAGE, "%s: process %u has no thread %u (it has %u)",
                            path, process, thread, p->nthreads);
    return 0;
}

int tracefold_process_get(const tracefold_trace *t, uint32_t process, tracefold_process *out,
                          tracefold_error *err)
{
    int rc = tf_read_check_thread(t, process, UINT32_MAX, err);
    if (rc < 0)
        return rc;
    const tf_process *p = tf_trace_process(t->trace, process);
    *out = (tracefold_process){
        .pid = p->pid,
        .rank = p->rank,
        .nranks = p->nranks,
        .executable = p->executable,
        .host = p->host,
        .build_id = p->build_id,
        .nthreads = p->nthreads,
        .ncounters = p->ncounters,
        .nobjects = p->nobjects,
        .nmodules = p->nmodules,
        .nsymbols = p->nsymbols,
        .small_blocks_cap = p->small_cap,
        .small_blocks_past_cap = p->small_past_cap,
        .small_blocks_ring_full = p->small_ring_full,
    };
    return 0;
}

int tracefold_counter_get(const tracefold_trace *t, uint32_t process, uint32_t counter,
                          tracefold_counter *out, tracefold_error *err)
{
    int rc = tf_read_check_thread(t, process, UINT32_MAX, err);
    if (rc < 0)
        return rc;
    const tf_process *p = tf_trace_process(t->trace, process);
    if (counter >= p->ncounters)
        return tf_read_fail(err, TF_ERR_USAGE, "%s: process %u has no counter %u (it has %u)",
                            tf_trace_path(t->trace), process, counter, p->ncounters);
    const tf_counter_desc *c = &p->counters[counter];
    *out = (tracefold_counter){
        .name = tf_trace_string(t->trace, c->name),
        .unit = tf_trace_string(t->trace, c->unit),
        .kind = c->kind,
    };
    return 0;
}

int tracefold_thread_get(const tracefold_trace *t, uint32_t process, uint32_t thread,
                         tracefold_thread *out, tracefold_error *err)
{
    if (thread == UINT32_MAX)
        return tf_read_fail(err, TF_ERR_USAGE, "%s: no thread %u", tf_trace_path(t->trace),
                            thread);
    int rc = tf_read_check_thread(t, process, thread, err);
    if (rc < 0)
        return rc;
    const tf_thread *th = &tf_trace_process(t->trace, process)->threads[thread];
    *out = (tracefold_thread){
        .tid = th->tid,
        .nevents = th->nevents,
        .nsamples = th->nsamples,
        .dropped_events = th->dropped_events,
        .dropped_samples = th->dropped_samples,
        .first_event = th->nevents ? th->events[0].time : 0,
        .last_event = th->nevents ? th->events[th->nevents - 1].time : 0,
    };
    return 0;
}

static int check_region(const tracefold_trace *t, size_t region, tracefold_error *err)
{
    if (region >= t->nregions)
        return tf_read_fail(err, TF_ERR_USAGE, "%s: no region %zu (the trace has %zu)",
                            tf_trace_path(t->trace), region, t->nregions);
    return 0;
}

int tracefold_region_get(const tracefold_trace *t, size_t region, tracefold_region *out,
                         tracefold_error *err)
{
    int rc = check_region(t, region, err);
    if (rc < 0)
        return rc;
    const tf_region_stats *r = &t->regions[region];
    *out = (tracefold_region){
        .name = tf_trace_string(t->trace, r->region),
        .ninstances = r->count,
        .incomplete = r->incomplete,
        .total_ns = r->total,
        .min_ns = r->min,
        .median_ns = r->median,
        .max_ns = r->max,
    };
    return 0;
}

int tracefold_region_instances(tracefold_trace *t, size_t region,
                               const tracefold_instance **instances, size_t *n,
                               tracefold_error *err)
{
    int rc = check_region(t, region, err);
    if (rc < 0)
        return rc;
    if (!t->instances[region]) {
        tf_error e;
        tf_instance *found;
        size_t count;
        if (tf_instances_find(t->trace, t->regions[region].region, &found, &count, &e) < 0)
            return tf_read_error(err, &e);
        tracefold_instance *pub = malloc((count ? count : 1) * sizeof *pub);
        if (!pub) {
            free(found);
            return tf_read_fail(err, TF_ERR_NOMEM, "%s: out of memory listing instances",
                                tf_trace_path(t->trace));
        }
        for (size_t i = 0; i < count; i++)
            pub[i] = (tracefold_instance){
                .process = found[i].proc,
                .thread = found[i].thread,
                .depth = found[i].depth,
                .begin = found[i].begin,
                .end = found[i].end,
                .complete = found[i].status == TF_INSTANCE_COMPLETE,
            };
        free(found);
        t->instances[region] = pub;
        t->ninstances[region] = count;
    }
    *instances = t->instances[region];
    *n = t->ninstances[region];
    return 0;
}

/* A process's object names, made once (object_names.h); heap objects
 * without a recorded call site are named from their allocation stacks,
 * symbolised when the trace has the modules to do it. */
static int object_names(tracefold_trace *t, uint32_t process, tracefold_error *err)
{
    if (t->object_names[process].names)
        return 0;
    tf_symbolizer *sym = NULL;
    tf_error e;
    if (tf_symbolizer_for_process(&sym, t->trace, process, NULL, &e) < 0)
        sym = NULL;   /* no modules: such objects keep a neutral name */
    int rc = tf_object_names(t->trace, process, sym, &t->alloc_rules, &t->object_names[process],
                             &e);
    tf_symbolizer_free(sym);
    return rc < 0 ? tf_read_error(err, &e) : 0;
}

int tracefold_object_get(tracefold_trace *t, uint32_t process, size_t object,
                         tracefold_object *out, tracefold_error *err)
{
    int rc = tf_read_check_thread(t, process, UINT32_MAX, err);
    if (rc < 0)
        return rc;
    const tf_process *p = tf_trace_process(t->trace, process);
    if (object >= p->nobjects)
        return tf_read_fail(err, TF_ERR_USAGE, "%s: process %u has no object %zu (it has %zu)",
                            tf_trace_path(t->trace), process, object, p->nobjects);
    if ((rc = object_names(t, process, err)) < 0)
        return rc;
    const tf_object *o = &p->objects[object];
    *out = (tracefold_object){
        .id = o->id,
        .kind = o->kind,
        .start = o->start,
        .size = o->size,
        .alloc_time = o->alloc_time,
        .free_time = o->free_time,
        .name = t->object_names[process].names[object],
        .routine = t->object_names[process].routines[object],
        .recorded_name = tf_trace_string(t->trace, o->name),
        .callsite = tf_trace_string(t->trace, o->callsite),
        .system = tf_object_is_system(t->trace, process, object),
    };
    return 0;
}

int tracefold_trace_set_alloc_wrappers(tracefold_trace *t, const char *const *names, size_t n,
                                       tracefold_error *err)
{
    const char *path = tf_input_source(t->trace);
    for (uint32_t p = 0; p < tf_trace_nprocesses(t->trace); p++)
        if (t->object_names[p].names)
            return tf_read_fail(err, TF_ERR_USAGE, "%s: allocation wrappers set after its "
                                "objects were named", path);
    size_t old = t->alloc_rules.nwrappers;
    char **copies = realloc(t->wrapper_names, (old + n + 1) * sizeof *copies);
    if (copies)
        t->wrapper_names = copies;
    const char **views = realloc(t->alloc_rules.wrappers, (old + n + 1) * sizeof *views);
    if (views)
        t->alloc_rules.wrappers = views;
    if (!copies || !views)
        return tf_read_fail(err, TF_ERR_NOMEM, "%s: out of memory for the allocation wrappers",
                            path);
    for (size_t i = 0; i < n; i++) {
        if (!(t->wrapper_names[old + i] = strdup(names[i])))
            return tf_read_fail(err, TF_ERR_NOMEM, "%s: out of memory for the allocation "
                                "wrappers", path);
        t->alloc_rules.wrappers[old + i] = t->wrapper_names[old + i];
        t->alloc_rules.nwrappers++;
    }
    return 0;
}
