/* SPDX-License-Identifier: BSD-3-Clause */
/* Symbol and object lookups in the folded trace. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_symbolise.h"
#include "trace.h"

typedef struct sym_range {
    uint64_t start, end;
    uint32_t routine, line;
} sym_range;

typedef struct obj_range {
    uint64_t start, size;
    uint32_t object;
} obj_range;

typedef struct proc_table {
    size_t     nsym, nobj;
    sym_range *sym;
    obj_range *obj;
} proc_table;

typedef struct merged_object {
    char    *name;
    uint8_t  kind;
    uint64_t start, size;
    uint32_t name_id;
} merged_object;

struct tf_symbolise {
    tf_trace      *tr;
    uint32_t       nprocs;
    proc_table    *procs;
    size_t         nroutines;
    uint32_t      *routine_ids;   /* function string id of each routine */
    size_t         nobjects;
    merged_object *objects;
    bool           relative;
    size_t         nsymbols_total;
};

static const char *const object_kinds[] = {"heap", "static", "user", "stack", "mmap"};

static int sym_cmp(const void *a, const void *b)
{
    const sym_range *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int obj_cmp(const void *a, const void *b)
{
    const obj_range *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static uint32_t routine_of(tf_symbolise *s, uint32_t function)
{
    for (size_t i = s->nroutines; i-- > 0;)
        if (s->routine_ids[i] == function)
            return (uint32_t)i;
    s->routine_ids[s->nroutines] = function;
    return (uint32_t)s->nroutines++;
}

static uint32_t object_of(tf_symbolise *s, const tf_object *o)
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
                    : tf_report_strdup("%s@0x%" PRIx64, o->kind < 5 ? object_kinds[o->kind] : "object",
                                       o->start);
    m->kind = o->kind;
    m->start = s->relative ? 0 : o->start;
    m->size = o->size;
    m->name_id = o->name;
    return (uint32_t)s->nobjects++;
}

static int build(tf_symbolise *s)
{
    size_t nsym = 0, nobj = 0;
    for (uint32_t p = 0; p < s->nprocs; p++) {
        nsym += tf_trace_process(s->tr, p)->nsymbols;
        nobj += tf_trace_process(s->tr, p)->nobjects;
    }
    s->nsymbols_total = nsym;
    s->routine_ids = malloc((nsym ? nsym : 1) * sizeof *s->routine_ids);
    s->objects = calloc(nobj ? nobj : 1, sizeof *s->objects);
    if (!s->routine_ids || !s->objects)
        return -1;
    for (uint32_t p = 0; p < s->nprocs; p++) {
        const tf_process *proc = tf_trace_process(s->tr, p);
        proc_table *t = &s->procs[p];
        t->sym = malloc((proc->nsymbols ? proc->nsymbols : 1) * sizeof *t->sym);
        t->obj = malloc((proc->nobjects ? proc->nobjects : 1) * sizeof *t->obj);
        if (!t->sym || !t->obj)
            return -1;
        for (size_t i = 0; i < proc->nsymbols; i++) {
            const tf_symbol *y = &proc->symbols[i];
            t->sym[t->nsym++] = (sym_range){y->start, y->end, routine_of(s, y->function), y->line};
        }
        for (size_t i = 0; i < proc->nobjects; i++) {
            const tf_object *o = &proc->objects[i];
            if (o->size == 0)
                continue;
            t->obj[t->nobj++] = (obj_range){o->start, o->size, object_of(s, o)};
        }
        qsort(t->sym, t->nsym, sizeof *t->sym, sym_cmp);
        qsort(t->obj, t->nobj, sizeof *t->obj, obj_cmp);
    }
    return 0;
}

tf_symbolise *tf_symbolise_open(const char *trace, const char *fold_path, char *why, size_t len)
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
    tf_symbolise *s = calloc(1, sizeof *s);
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
        tf_symbolise_close(s);
        snprintf(why, len, "out of memory reading the symbols of %s", trace);
        return NULL;
    }
    return s;
}

void tf_symbolise_close(tf_symbolise *s)
{
    if (!s)
        return;
    for (uint32_t p = 0; s->procs && p < s->nprocs; p++) {
        free(s->procs[p].sym);
        free(s->procs[p].obj);
    }
    for (size_t i = 0; i < s->nobjects; i++)
        free(s->objects[i].name);
    free(s->objects);
    free(s->procs);
    free(s->routine_ids);
    tf_trace_close(s->tr);
    free(s);
}

bool tf_symbolise_has_symbols(const tf_symbolise *s)
{
    return s->nsymbols_total > 0;
}

bool tf_symbolise_has_objects(const tf_symbolise *s)
{
    return s->nobjects > 0;
}

bool tf_symbolise_relative(const tf_symbolise *s)
{
    return s->relative;
}

bool tf_symbolise_code(tf_symbolise *s, uint32_t proc, uint64_t ip, uint32_t *routine,
                       uint32_t *line)
{
    if (proc >= s->nprocs)
        return false;
    const proc_table *t = &s->procs[proc];
    size_t lo = 0, hi = t->nsym;
    while (lo < hi) {   /* last range starting at or before ip */
        size_t mid = (lo + hi) / 2;
        if (t->sym[mid].start <= ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || ip >= t->sym[lo - 1].end)
        return false;
    *routine = t->sym[lo - 1].routine;
    *line = t->sym[lo - 1].line;
    return true;
}

size_t tf_symbolise_nroutines(const tf_symbolise *s)
{
    return s->nroutines;
}

const char *tf_symbolise_routine(const tf_symbolise *s, size_t i)
{
    const char *name = tf_trace_string(s->tr, s->routine_ids[i]);
    return *name ? name : "?";
}

bool tf_symbolise_object(const tf_symbolise *s, uint32_t proc, uint64_t addr, uint32_t *object,
                         uint64_t *offset)
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

size_t tf_symbolise_nobjects(const tf_symbolise *s)
{
    return s->nobjects;
}

int tf_symbolise_describe(const tf_symbolise *s, size_t i, tf_report_object *o, tf_error *err)
{
    const merged_object *m = &s->objects[i];
    o->name = tf_report_strdup("%s", m->name ? m->name : "?");
    o->kind = tf_report_strdup("%s", m->kind < 5 ? object_kinds[m->kind] : "other");
    o->start = m->start;
    o->size = m->size;
    if (!o->name || !o->kind)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for object names");
    return 0;
}
