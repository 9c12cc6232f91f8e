/* SPDX-License-Identifier: BSD-3-Clause */
/* Object names: a label per object, then the rank of each among the
 * objects of its kind and label in allocation order, found by sorting
 * (kind, label, allocation order) rather than comparing every pair: a
 * process may hold many thousands of allocations. */
#include "object_names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A label is at most this long (a call site, a variable's name). */
#define LABEL_MAX 256

struct named {
    const tf_object *o;
    size_t index;           /* in the process's objects table */
    size_t order;           /* position in allocation order */
    char *label;
};

static void object_label(const tf_trace *tr, const tf_process *p, uint32_t proc,
                         const tf_object *o, tf_symbolizer *sym, char *buf, size_t size)
{
    const char *name = tf_trace_string(tr, o->name), *site = tf_trace_string(tr, o->callsite);
    if (o->kind == TF_OBJECT_HEAP && site[0]) {
        snprintf(buf, size, "%s", site);
        return;
    }
    if (name[0]) {
        snprintf(buf, size, "%s", name);
        return;
    }
    if (site[0]) {
        snprintf(buf, size, "%s", site);
        return;
    }
    const tf_sym_location *loc;
    if (sym && o->stack_len && o->stack < p->nframes &&
        tf_symbolize(sym, p->frames[o->stack], true, &loc, NULL) == 0 &&
        loc->source != TF_SYM_NONE) {
        tf_sym_location_label(loc, buf, size);
        return;
    }
    snprintf(buf, size, "%s@%u.%u", o->kind == TF_OBJECT_STACK ? "stack" : "object", proc, o->id);
}

static int by_alloc(const void *pa, const void *pb)
{
    const tf_object *p = ((const struct named *)pa)->o, *q = ((const struct named *)pb)->o;
    if (p->alloc_time != q->alloc_time)
        return (p->alloc_time > q->alloc_time) - (p->alloc_time < q->alloc_time);
    return (p->id > q->id) - (p->id < q->id);
}

static int by_label(const void *pa, const void *pb)
{
    const struct named *p = pa, *q = pb;
    if (p->o->kind != q->o->kind)
        return (p->o->kind > q->o->kind) - (p->o->kind < q->o->kind);
    int c = strcmp(p->label, q->label);
    if (c)
        return c;
    return (p->order > q->order) - (p->order < q->order);
}

void tf_object_names_free(char **names, size_t n)
{
    for (size_t i = 0; names && i < n; i++)
        free(names[i]);
    free(names);
}

int tf_object_names(const tf_trace *tr, uint32_t proc, tf_symbolizer *sym, char ***names,
                    size_t **order, tf_error *err)
{
    *names = NULL;
    if (order)
        *order = NULL;
    const tf_process *p = tf_trace_process(tr, proc);
    size_t n = p ? p->nobjects : 0;
    if (!n)
        return 0;
    struct named *v = calloc(n, sizeof *v);
    char **out = calloc(n, sizeof *out);
    size_t *by_time = order ? malloc(n * sizeof *by_time) : NULL;
    int rc = 0;
    if (!v || !out || (order && !by_time))
        goto nomem;
    for (size_t i = 0; i < n; i++)
        v[i] = (struct named){ .o = &p->objects[i], .index = i };
    qsort(v, n, sizeof *v, by_alloc);
    for (size_t i = 0; i < n; i++) {
        char label[LABEL_MAX];
        object_label(tr, p, proc, v[i].o, sym, label, sizeof label);
        v[i].order = i;
        if (by_time)
            by_time[i] = v[i].index;
        if (!(v[i].label = strdup(label)))
            goto nomem;
    }
    qsort(v, n, sizeof *v, by_label);
    size_t rank = 0;
    for (size_t i = 0; i < n; i++) {
        bool same = i > 0 && v[i].o->kind == v[i - 1].o->kind &&
                    !strcmp(v[i].label, v[i - 1].label);
        rank = same ? rank + 1 : 1;
        char *name;
        if (rank > 1) {
            if (asprintf(&name, "%s#%zu", v[i].label, rank) < 0)
                goto nomem;
        } else if (!(name = strdup(v[i].label))) {
            goto nomem;
        }
        out[v[i].index] = name;
    }
    *names = out;
    out = NULL;
    if (order) {
        *order = by_time;
        by_time = NULL;
    }
    goto done;
nomem:
    rc = tf_fail(err, TF_ERR_NOMEM, "out of memory naming the %zu data objects of process %u",
                 n, proc);
done:
    for (size_t i = 0; v && i < n; i++)
        free(v[i].label);
    free(v);
    free(by_time);
    tf_object_names_free(out, n);
    return rc;
}
