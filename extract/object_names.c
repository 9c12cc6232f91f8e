/* SPDX-License-Identifier: BSD-3-Clause */
/* Object names: a label per object, then its family among the objects of
 * its kind and label, found by grouping (kind, label) in allocation order
 * rather than comparing every pair, and by giving families out in
 * allocation order like registers in linear-scan allocation (Poletto and
 * Sarkar, TOPLAS 21(5), 1999): two heaps, the busy families by the time
 * their last object is freed and the idle ones by number.  Every string
 * is interned (a process with a million allocations has a few hundred
 * distinct labels, routines and names) and the sorts are radix sorts, so
 * naming costs O(n log f) for n objects, f families of one label alive
 * together: linear in the allocations (bench/fold_allocs.sh). */
#include "object_names.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/tf_sort.h"
#include "common/tf_strpool.h"
#include "common/tf_u64map.h"

/* A label is at most this long (a call site, a variable's name). */
#define LABEL_MAX 256

struct named {
    const tf_object *o;
    size_t index;           /* in the process's objects table */
    uint32_t label;         /* in the pool, as its name and routine */
    uint32_t name, routine;
};

/* A binary min-heap of (key, family). */
struct heap_item {
    uint64_t key;
    size_t   family;
};

struct heap {
    struct heap_item *v;
    size_t n;
};

static bool item_less(const struct heap_item *a, const struct heap_item *b)
{
    return a->key < b->key || (a->key == b->key && a->family < b->family);
}

static void heap_push(struct heap *h, uint64_t key, size_t family)
{
    size_t i = h->n++;
    h->v[i] = (struct heap_item){ key, family };
    while (i && item_less(&h->v[i], &h->v[(i - 1) / 2])) {
        struct heap_item t = h->v[i];
        h->v[i] = h->v[(i - 1) / 2];
        h->v[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static struct heap_item heap_pop(struct heap *h)
{
    struct heap_item top = h->v[0];
    h->v[0] = h->v[--h->n];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->n && item_less(&h->v[l], &h->v[m]))
            m = l;
        if (r < h->n && item_less(&h->v[r], &h->v[m]))
            m = r;
        if (m == i)
            break;
        struct heap_item t = h->v[i];
        h->v[i] = h->v[m];
        h->v[m] = t;
        i = m;
    }
    return top;
}

static int object_label(const tf_trace *tr, const tf_process *p, uint32_t proc,
                        const tf_object *o, tf_symbolizer *sym, const tf_alloc_rules *rules,
                        char *buf, size_t size, char *routine, size_t routine_size,
                        tf_error *err)
{
    const char *name = tf_trace_string(tr, o->name), *site = tf_trace_string(tr, o->callsite);
    routine[0] = '\0';
    if (o->kind == TF_OBJECT_HEAP && site[0]) {
        snprintf(buf, size, "%s", site);
        return 0;
    }
    if (name[0]) {
        snprintf(buf, size, "%s", name);
        return 0;
    }
    if (site[0]) {
        snprintf(buf, size, "%s", site);
        return 0;
    }
    bool found = false;
    if (sym && o->stack_len && o->stack < p->nframes && o->stack_len <= p->nframes - o->stack &&
        tf_alloc_site(sym, &p->frames[o->stack], o->stack_len, rules, buf, size, routine,
                      routine_size, &found, err) < 0)
        return -1;
    if (!found && o->kind == TF_OBJECT_SMALL && o->stack_len && o->stack < p->nframes)
        snprintf(buf, size, "small@%u.%#" PRIx64, proc, p->frames[o->stack]);   /* one site */
    else if (!found)
        snprintf(buf, size, "%s@%u.%u", o->kind == TF_OBJECT_STACK ? "stack" : "object", proc,
                 o->id);
    return 0;
}

void tf_object_naming_free(tf_object_naming *naming)
{
    for (size_t i = 0; i < naming->nstrings; i++)
        free(naming->strings[i]);
    free(naming->strings);
    free(naming->names);
    free(naming->routines);
    free(naming->order);
    *naming = (tf_object_naming){ 0 };
}

/* Families for the objects at[first..last) of v, of one kind and label,
 * in allocation order: each one's name into its name. */
static int name_families(struct named *v, const uint32_t *at, size_t first, size_t last,
                         struct heap *busy, struct heap *idle, tf_strpool *pl)
{
    busy->n = idle->n = 0;
    size_t families = 0;
    for (size_t k = first; k < last; k++) {
        struct named *x = &v[at[k]];
        const tf_object *o = x->o;
        const char *label = pl->s[x->label];
        size_t family = 0;
        if (o->kind != TF_OBJECT_SMALL) {   /* small blocks: one family, laid out in order */
            while (busy->n && busy->v[0].key <= o->alloc_time) {
                struct heap_item done = heap_pop(busy);
                heap_push(idle, done.family, done.family);
            }
            family = idle->n ? heap_pop(idle).family : families++;
            if (o->free_time != TF_NOTIME)
                heap_push(busy, o->free_time, family);
        }
        char name[LABEL_MAX + 24];
        int64_t id;
        if (family > 0) {
            snprintf(name, sizeof name, "%s#%zu", label, family + 1);
            id = tf_strpool_add(pl, name, NULL);
        } else {
            id = x->label;
        }
        if (id < 0)
            return -1;
        x->name = (uint32_t)id;
    }
    return 0;
}

/* The key under which a small block's labels are kept once its site is
 * named (tf_object_names' `sites`: the label's and the routine's pool
 * ids), else 0: the blocks of one site share their one frame (the
 * writer's small-block log), so the frame's index stands for the site,
 * and a site is symbolised once however its blocks interleave with
 * others (a C++ loop's temporaries from three sites in turn: a million
 * blocks named in 4.3 s of CPU, 0.6 s once each site was named once). */
static uint64_t site_key(const tf_object *o)
{
    return o->kind == TF_OBJECT_SMALL && o->stack_len == 1 && !o->name && !o->callsite
               ? o->stack + 1 : 0;
}

int tf_object_names(const tf_trace *tr, uint32_t proc, tf_symbolizer *sym,
                    const tf_alloc_rules *rules, tf_object_naming *naming, tf_error *err)
{
    *naming = (tf_object_naming){ 0 };
    /* The wrappers named when recording count with those given now. */
    tf_alloc_rules all = rules ? *rules : (tf_alloc_rules){ 0 };
    all.recorded = tf_trace_alloc_wrappers(tr);
    rules = &all;
    const tf_process *p = tf_trace_process(tr, proc);
    size_t n = p ? p->nobjects : 0;
    if (!n)
        return 0;
    struct named *v = calloc(n, sizeof *v);
    uint64_t *key = malloc(n * sizeof *key);
    uint32_t *at = malloc(n * sizeof *at);
    tf_object_naming out = { .n = n, .names = calloc(n, sizeof *out.names),
                             .routines = calloc(n, sizeof *out.routines),
                             .order = malloc(n * sizeof *out.order) };
    struct heap busy = { malloc(n * sizeof *busy.v), 0 }, idle = { malloc(n * sizeof *idle.v), 0 };
    tf_strpool pl = { 0 };
    tf_u64map sites;
    bool sites_made = tf_u64map_init(&sites, 64);
    int rc = 0;
    if (!v || !key || !at || !out.names || !out.routines || !out.order || !busy.v || !idle.v ||
        !sites_made || tf_strpool_add(&pl, "", NULL) < 0)
        goto nomem;
    /* Allocation order: by time, then id (two stable radix sorts). */
    for (size_t i = 0; i < n; i++) {
        key[i] = p->objects[i].id;
        at[i] = (uint32_t)i;
    }
    if (!tf_sort_u64(key, at, n))
        goto nomem;
    for (size_t i = 0; i < n; i++)
        key[i] = p->objects[at[i]].alloc_time;
    if (!tf_sort_u64(key, at, n))
        goto nomem;
    for (size_t i = 0; i < n; i++)
        v[i] = (struct named){ .o = &p->objects[at[i]], .index = at[i] };
    char label[LABEL_MAX], routine[LABEL_MAX];
    int64_t label_id = 0, routine_id = 0;
    for (size_t i = 0; i < n; i++) {
        const tf_object *o = v[i].o;
        uint64_t site = site_key(o);
        bool added = true;
        uint64_t *ids = site ? tf_u64map_at(&sites, site, &added) : NULL;
        if (site && !ids)
            goto nomem;
        if (!added) {
            label_id = (int64_t)(*ids >> 32);
            routine_id = (int64_t)(*ids & UINT32_MAX);
        } else {
            if ((rc = object_label(tr, p, proc, o, sym, rules, label, sizeof label, routine,
                                   sizeof routine, err)) < 0)
                goto done;
            if ((label_id = tf_strpool_add(&pl, label, NULL)) < 0 ||
                (routine_id = tf_strpool_add(&pl, routine, NULL)) < 0)
                goto nomem;
            if (ids)
                *ids = (uint64_t)label_id << 32 | (uint64_t)routine_id;
        }
        out.order[i] = v[i].index;
        v[i].label = (uint32_t)label_id;
        v[i].routine = (uint32_t)routine_id;
    }
    /* Grouped by (kind, label), in allocation order within a group. */
    for (size_t i = 0; i < n; i++) {
        key[i] = (uint64_t)v[i].o->kind << 32 | v[i].label;
        at[i] = (uint32_t)i;
    }
    if (!tf_sort_u64(key, at, n))
        goto nomem;
    for (size_t first = 0, last; first < n; first = last) {
        for (last = first + 1; last < n && key[last] == key[first]; last++)
            ;
        if (name_families(v, at, first, last, &busy, &idle, &pl) < 0)
            goto nomem;
    }
    /* The pool has stopped growing: its strings stay where they are. */
    for (size_t i = 0; i < n; i++) {
        out.names[v[i].index] = pl.s[v[i].name];
        out.routines[v[i].index] = pl.s[v[i].routine];
    }
    out.strings = pl.s;   /* the strings move to out */
    out.nstrings = pl.n;
    pl.s = NULL;
    pl.n = 0;
    *naming = out;
    out = (tf_object_naming){ 0 };
    goto done;
nomem:
    rc = tf_fail(err, TF_ERR_NOMEM, "out of memory naming the %zu data objects of process %u",
                 n, proc);
done:
    tf_strpool_free(&pl);
    tf_u64map_free(&sites);
    free(v);
    free(key);
    free(at);
    free(busy.v);
    free(idle.v);
    tf_object_naming_free(&out);
    return rc;
}

/* The file an address of the process belongs to: the file-backed mapping
 * that starts last at or below it (the part of a .bss beyond the file's
 * end is an anonymous mapping right after the file's own); "" in none. */
static const char *mapped_file(const tf_trace *tr, const tf_process *p, uint64_t addr)
{
    const tf_module *best = NULL;
    for (size_t i = 0; i < p->nmodules; i++) {
        const tf_module *m = &p->modules[i];
        if (m->start <= addr && tf_trace_string(tr, m->path)[0] == '/' &&
            (!best || m->start > best->start))
            best = m;
    }
    return best ? tf_trace_string(tr, best->path) : "";
}

bool tf_object_is_system(const tf_trace *tr, uint32_t proc, size_t i)
{
    const tf_process *p = tf_trace_process(tr, proc);
    const tf_object *o = &p->objects[i];
    if (o->kind == TF_OBJECT_STATIC)
        return tf_system_library(mapped_file(tr, p, o->start));
    /* a small block's one frame: where it was allocated */
    return o->kind == TF_OBJECT_SMALL && o->stack_len && o->stack < p->nframes &&
           tf_system_library(mapped_file(tr, p, p->frames[o->stack]));
}
