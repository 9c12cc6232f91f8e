/* SPDX-License-Identifier: BSD-3-Clause */
/* Object lookup: the process's objects sorted by start address; a lookup
 * binary-searches the last start at or below the address and walks back
 * while an object could still reach it (no object is longer than the
 * largest one), checking size and lifetime. */
#include "objmap.h"

#include <stdlib.h>
#include <string.h>

#include "object_names.h"

struct live_object {
    uint64_t start, size, alloc, free;
    uint32_t object;      /* index in the analysis */
    uint8_t  kind;
};

struct tf_an_objmap {
    struct live_object *v;
    size_t   n;
    uint64_t max_size;
    uint32_t unknown;     /* "[unknown]" in the analysis, TF_AN_NONE until used */
};

static int by_start(const void *pa, const void *pb)
{
    const struct live_object *p = pa, *q = pb;
    return (p->start > q->start) - (p->start < q->start);
}

/* Index of the analysis object with this kind and name, added when new. */
static int intern_object(tf_analysis *a, uint8_t kind, const char *name, uint64_t size,
                         uint32_t *index, tf_error *err)
{
    for (size_t i = 0; i < a->nobjects; i++)
        if (a->objects[i].kind == kind && !strcmp(a->objects[i].name, name)) {
            if (size > a->objects[i].size)
                a->objects[i].size = size;
            *index = (uint32_t)i;
            return 0;
        }
    tf_an_object *v = realloc(a->objects, (a->nobjects + 1) * sizeof *v);
    if (!v)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for data objects");
    a->objects = v;
    char *copy = strdup(name);
    if (!copy)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for data objects");
    v[a->nobjects] = (tf_an_object){ .name = copy, .size = size, .kind = kind };
    *index = (uint32_t)a->nobjects++;
    return 0;
}

int tf_an_objmap_create(tf_an_objmap **out, tf_analysis *a, const tf_trace *tr, uint32_t proc,
                        tf_symbolizer *sym, tf_error *err)
{
    *out = NULL;
    const tf_process *p = tf_trace_process(tr, proc);
    tf_an_objmap *m = calloc(1, sizeof *m);
    size_t nstack = 0;
    for (size_t i = 0; p && i < p->nmodules; i++)
        nstack += !strcmp(tf_trace_string(tr, p->modules[i].path), "[stack]");
    size_t no = p ? p->nobjects : 0, cap = no + nstack + 1;
    if (!m || !(m->v = malloc(cap * sizeof *m->v))) {
        tf_an_objmap_free(m);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the object map");
    }
    m->unknown = TF_AN_NONE;
    char **names;
    size_t *order;
    int rc = tf_object_names(tr, proc, sym, &names, &order, err);
    /* interned in allocation order: the analysis's objects keep it */
    for (size_t k = 0; rc == 0 && k < no; k++) {
        const tf_object *o = &p->objects[order[k]];
        struct live_object *lo = &m->v[m->n];
        *lo = (struct live_object){ o->start, o->size, o->alloc_time, o->free_time, 0, o->kind };
        rc = intern_object(a, o->kind, names[order[k]], o->size, &lo->object, err);
        m->n += rc == 0;
    }
    tf_object_names_free(names, no);
    free(order);
    for (size_t i = 0; rc == 0 && p && i < p->nmodules; i++) {
        const tf_module *md = &p->modules[i];
        if (strcmp(tf_trace_string(tr, md->path), "[stack]"))
            continue;
        struct live_object *lo = &m->v[m->n];
        *lo = (struct live_object){ md->start, md->end - md->start, 0, TF_NOTIME, 0,
                                    TF_OBJECT_STACK };
        /* the main thread's stack: one object of every process */
        rc = intern_object(a, TF_OBJECT_STACK, "[stack]", lo->size, &lo->object, err);
        m->n += rc == 0;
    }
    if (rc) {
        tf_an_objmap_free(m);
        return rc;
    }
    qsort(m->v, m->n, sizeof *m->v, by_start);
    for (size_t i = 0; i < m->n; i++)
        m->max_size = m->v[i].size > m->max_size ? m->v[i].size : m->max_size;
    *out = m;
    return 0;
}

bool tf_an_objmap_find(const tf_an_objmap *m, uint64_t addr, uint64_t t, uint32_t *object,
                       uint64_t *offset)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->v[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct live_object *best = NULL;
    for (size_t i = lo; i-- > 0;) {
        const struct live_object *o = &m->v[i];
        if (addr - o->start >= m->max_size)
            break;
        if (addr - o->start >= o->size || t < o->alloc || (o->free != TF_NOTIME && t >= o->free))
            continue;
        bool better = !best || (o->kind == TF_OBJECT_USER && best->kind != TF_OBJECT_USER) ||
                      ((o->kind == TF_OBJECT_USER) == (best->kind == TF_OBJECT_USER) &&
                       o->size < best->size);
        if (better)
            best = o;
    }
    if (best) {
        *object = best->object;
        *offset = addr - best->start;
        return true;
    }
    *object = m->unknown;
    *offset = addr;
    return false;
}

int tf_an_objmap_lookup(tf_an_objmap *m, tf_analysis *a, uint64_t addr, uint64_t t,
                        uint32_t *object, uint64_t *offset, tf_error *err)
{
    if (tf_an_objmap_find(m, addr, t, object, offset) || m->unknown != TF_AN_NONE)
        return 0;
    int rc = intern_object(a, TF_AN_OBJECT_UNKNOWN, "[unknown]", 0, &m->unknown, err);
    *object = m->unknown;
    return rc;
}

void tf_an_objmap_free(tf_an_objmap *m)
{
    if (!m)
        return;
    free(m->v);
    free(m);
}
