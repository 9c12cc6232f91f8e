/* SPDX-License-Identifier: BSD-3-Clause */
/* Symbol and object lookups in the folded trace.  Code addresses go
 * through the project's symboliser (extract/symbolize.h: the trace's symbol
 * table, then DWARF, then ELF symbols); each distinct address is resolved
 * once, the answer kept in a small hash table. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_symbolize.h"
#include "extract/symbolize.h"
#include "formats/trace.h"

/* A resolved code address; line 0 marks an address without a source line. */
typedef struct code_entry {
    uint64_t ip;
    uint32_t proc;
    uint32_t routine, line;
    bool     used;
} code_entry;

typedef struct obj_range {
    uint64_t start, size;
    uint32_t object;
} obj_range;

typedef struct proc_table {
    tf_symbolizer *symbolizer;   /* NULL when it could not be made */
    size_t     nobj;
    obj_range *obj;
} proc_table;

typedef struct merged_object {
    char    *name;
    uint8_t  kind;
    uint64_t start, size;
    uint32_t name_id;
} merged_object;

struct tf_report_symbolizer {
    tf_trace      *tr;
    uint32_t       nprocs;
    proc_table    *procs;
    size_t         nroutines, routines_cap;
    char         **routines;      /* function names */
    size_t         ncache, cache_cap;   /* cache_cap: a power of two */
    code_entry    *cache;
    size_t         nobjects;
    merged_object *objects;
    bool           relative;
};

static const char *const object_kinds[] = {"heap", "static", "user", "stack", "mmap", "small"};
#define NKINDS (sizeof object_kinds / sizeof object_kinds[0])

static int obj_cmp(const void *a, const void *b)
{
    const obj_range *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Index of a routine by name, added when new; UINT32_MAX out of memory. */
static uint32_t routine_of(tf_report_symbolizer *s, const char *function)
{
    for (size_t i = s->nroutines; i-- > 0;)
        if (!strcmp(s->routines[i], function))
            return (uint32_t)i;
    if (s->nroutines == s->routines_cap) {
        size_t cap = s->routines_cap ? 2 * s->routines_cap : 64;
        char **r = realloc(s->routines, cap * sizeof *r);
        if (!r)
            return UINT32_MAX;
        s->routines = r;
        s->routines_cap = cap;
    }
    if (!(s->routines[s->nroutines] = tf_report_strdup("%s", function)))
        return UINT32_MAX;
    return (uint32_t)s->nroutines++;
}

static uint32_t object_of(tf_report_symbolizer *s, const tf_object *o)
{
    /* Across processes, objects are the same when named alike. */
    if (s->relative && o->name)
        for (size_t i = 0; i < s->nobjects; i++)
            if (s->objects[i].name_id == o->name) {
                if (o->size > s->objects[i].size)
                    s->objects[i].size = o->size;
                return (uint32_t)i;
            }
    merged_object *m = &s->objects[s->nobjects];
    const char *name = tf_trace_string(s->tr, o->name);
    if (!*name)
        name = tf_trace_string(s->tr, o->callsite);
    m->name = *name ? tf_report_strdup("%s", name)
                    : tf_report_strdup("%s@0x%" PRIx64, o->kind < NKINDS ? object_kinds[o->kind] : "object",
                                       o->start);
    m->kind = o->kind;
    m->start = s->relative ? 0 : o->start;
    m->size = o->size;
    m->name_id = o->name;
    return (uint32_t)s->nobjects++;
}

static int build(tf_report_symbolizer *s)
{
    size_t nobj = 0;
    for (uint32_t p = 0; p < s->nprocs; p++)
        nobj += tf_trace_process(s->tr, p)->nobjects;
    s->objects = calloc(nobj ? nobj : 1, sizeof *s->objects);
    s->cache_cap = 1024;
    s->cache = calloc(s->cache_cap, sizeof *s->cache);
    if (!s->objects || !s->cache)
        return -1;
    for (uint32_t p = 0; p < s->nprocs; p++) {
        const tf_process *proc = tf_trace_process(s->tr, p);
        proc_table *t = &s->procs[p];
        tf_error err = {0};
        /* Without a symboliser (no modules, no symbols) the process's code
         * addresses stay unresolved; the code panel says so. */
        if (tf_symbolizer_for_process(&t->symbolizer, s->tr, p, NULL, &err) < 0)
            t->symbolizer = NULL;
        t->obj = malloc((proc->nobjects ? proc->nobjects : 1) * sizeof *t->obj);
        if (!t->obj)
            return -1;
        for (size_t i = 0; i < proc->nobjects; i++) {
            const tf_object *o = &proc->objects[i];
            if (o->size == 0)
                continue;
            t->obj[t->nobj++] = (obj_range){o->start, o->size, object_of(s, o)};
        }
        qsort(t->obj, t->nobj, sizeof *t->obj, obj_cmp);
    }
    return 0;
}

tf_report_symbolizer *tf_report_symbolizer_open(const char *trace, const char *fold_path,
                                                char *why, size_t len)
{
    tf_error err = {0};
    tf_trace *tr = NULL;
    if (!trace || !*trace) {
        snprintf(why, len, "the fold file names no trace");
        return NULL;
    }
    if (tf_trace_open(&tr, trace, &err) < 0) {
        /* The fold may have moved with its trace: try beside fold.h5. */
        const char *base = strrchr(trace, '/'), *dir = strrchr(fold_path, '/');
        char alt[4096];
        snprintf(alt, sizeof alt, "%.*s%s", dir ? (int)(dir - fold_path + 1) : 0, fold_path,
                 base ? base + 1 : trace);
        tf_error err2 = {0};
        if (strcmp(alt, trace) == 0 || tf_trace_open(&tr, alt, &err2) < 0) {
            snprintf(why, len, "no code lines or objects: %s", err.msg);
            return NULL;
        }
    }
    tf_report_symbolizer *s = calloc(1, sizeof *s);
    if (!s) {
        tf_trace_close(tr);
        snprintf(why, len, "out of memory");
        return NULL;
    }
    s->tr = tr;
    s->nprocs = tf_trace_nprocesses(tr);
    s->relative = s->nprocs > 1;
    s->procs = calloc(s->nprocs ? s->nprocs : 1, sizeof *s->procs);
    if (!s->procs || build(s) < 0) {
        tf_report_symbolizer_close(s);
        snprintf(why, len, "out of memory reading the symbols of %s", trace);
        return NULL;
    }
    return s;
}

void tf_report_symbolizer_close(tf_report_symbolizer *s)
{
    if (!s)
        return;
    for (uint32_t p = 0; s->procs && p < s->nprocs; p++) {
        if (s->procs[p].symbolizer)
            tf_symbolizer_free(s->procs[p].symbolizer);
        free(s->procs[p].obj);
    }
    for (size_t i = 0; i < s->nroutines; i++)
        free(s->routines[i]);
    free(s->routines);
    free(s->cache);
    for (size_t i = 0; i < s->nobjects; i++)
        free(s->objects[i].name);
    free(s->objects);
    free(s->procs);
    tf_trace_close(s->tr);
    free(s);
}

bool tf_report_symbolizer_relative(const tf_report_symbolizer *s)
{
    return s->relative;
}

static size_t slot_of(uint64_t ip, uint32_t proc, size_t cap)
{
    uint64_t h = (ip ^ ((uint64_t)proc << 47)) * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 20) & (cap - 1);
}

/* Doubles the cache; false when out of memory (the cache then stays). */
static bool cache_grow(tf_report_symbolizer *s)
{
    size_t cap = s->cache_cap * 2;
    code_entry *c = calloc(cap, sizeof *c);
    if (!c)
        return false;
    for (size_t i = 0; i < s->cache_cap; i++) {
        if (!s->cache[i].used)
            continue;
        size_t k = slot_of(s->cache[i].ip, s->cache[i].proc, cap);
        while (c[k].used)
            k = (k + 1) & (cap - 1);
        c[k] = s->cache[i];
    }
    free(s->cache);
    s->cache = c;
    s->cache_cap = cap;
    return true;
}

bool tf_report_symbolizer_code(tf_report_symbolizer *s, uint32_t proc, uint64_t ip,
                               uint32_t *routine, uint32_t *line)
{
    if (proc >= s->nprocs || !s->procs[proc].symbolizer)
        return false;
    size_t k = slot_of(ip, proc, s->cache_cap);
    while (s->cache[k].used && (s->cache[k].ip != ip || s->cache[k].proc != proc))
        k = (k + 1) & (s->cache_cap - 1);
    if (!s->cache[k].used) {
        code_entry e = {ip, proc, UINT32_MAX, 0, true};
        const tf_sym_location *loc;
        tf_error err = {0};
        if (tf_symbolize(s->procs[proc].symbolizer, ip, false, &loc, &err) == 0 && loc->nframes
            && loc->frames[0].line > 0 && loc->frames[0].function[0]) {
            /* The innermost frame: the line that ran, in the function
             * (inlined or not) it belongs to. */
            e.routine = routine_of(s, loc->frames[0].function);
            e.line = e.routine == UINT32_MAX ? 0 : loc->frames[0].line;
        }
        if (2 * (s->ncache + 1) > s->cache_cap) {
            if (!cache_grow(s))
                return false;
            k = slot_of(ip, proc, s->cache_cap);
            while (s->cache[k].used)
                k = (k + 1) & (s->cache_cap - 1);
        }
        s->cache[k] = e;
        s->ncache++;
    }
    if (s->cache[k].line == 0)
        return false;
    *routine = s->cache[k].routine;
    *line = s->cache[k].line;
    return true;
}

size_t tf_report_symbolizer_nroutines(const tf_report_symbolizer *s)
{
    return s->nroutines;
}

const char *tf_report_symbolizer_routine(const tf_report_symbolizer *s, size_t i)
{
    return s->routines[i];
}

bool tf_report_symbolizer_object(const tf_report_symbolizer *s, uint32_t proc, uint64_t addr,
                                 uint32_t *object, uint64_t *offset)
{
    if (proc >= s->nprocs)
        return false;
    const proc_table *t = &s->procs[proc];
    size_t lo = 0, hi = t->nobj;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (t->obj[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || addr - t->obj[lo - 1].start >= t->obj[lo - 1].size)
        return false;
    *object = t->obj[lo - 1].object;
    *offset = addr - t->obj[lo - 1].start;
    return true;
}

size_t tf_report_symbolizer_nobjects(const tf_report_symbolizer *s)
{
    return s->nobjects;
}

int tf_report_symbolizer_describe(const tf_report_symbolizer *s, size_t i, tf_report_object *o,
                                  tf_error *err)
{
    const merged_object *m = &s->objects[i];
    o->name = tf_report_strdup("%s", m->name ? m->name : "?");
    o->kind = tf_report_strdup("%s", m->kind < NKINDS ? object_kinds[m->kind] : "other");
    o->start = m->start;
    o->size = m->size;
    if (!o->name || !o->kind)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for object names");
    return 0;
}
