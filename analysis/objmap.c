/* SPDX-License-Identifier: BSD-3-Clause */
/* Object lookup by address and time in O(log² n), built in O(n): a tree
 * over the time axis, each object stored once, at the lowest node whose
 * span covers its lifetime (a centred interval tree, de Berg et al.,
 * Computational Geometry, 3rd ed., 10.1), each node's objects sorted by
 * start address with the running maximum of their ends.  The objects of a
 * node are all alive at the middle of its span, so the heap blocks among
 * them do not overlap: a lookup walks from the leaf of its time to the
 * root, binary-searches each node, and the walk back from the last start
 * at or below the address stops at once (it goes on only over objects
 * that overlap, as a user region wrapping allocations), keeping the
 * candidates alive at the time asked.  Per-iteration temporaries reusing
 * one address cost no more than any other.  Times and starts are radix
 * sorted, so the build is linear in the allocations.  Objects are
 * interned into the analysis by (kind, name) through a hash table.  The
 * small blocks of one family (object_names.h) are laid end to end in
 * allocation order: a block's offsets start where the previous block's
 * end, so that a sweep over the rows of a matrix stored a block per row
 * reads as one stream over one object (docs/algorithms.md, "Small
 * blocks"). */
#include "objmap.h"

#include <stdlib.h>
#include <string.h>

#include "common/tf_hash.h"
#include "common/tf_sort.h"
#include "extract/object_names.h"

struct live_object {
    uint64_t start, size, alloc, free;
    uint32_t object;      /* index in the analysis */
    uint8_t  kind;
    uint64_t base;        /* offset of start in its object (small blocks), else 0 */
    uint32_t l, r;        /* alive over leaves [l, r) of the time axis */
};

struct tf_analysis_objmap {
    struct live_object *v;
    size_t    n;
    uint64_t *times;      /* distinct alloc and free times, sorted: leaf i is
                             [times[i], times[i + 1]) */
    size_t    ntimes, leaves;   /* leaves: a power of two >= ntimes */
    uint32_t *first;      /* node k's objects: at[first[k] .. first[k + 1]) */
    uint32_t *at;         /* indexes into v, by start within a node */
    uint64_t *start;      /* per entry of at: its object's start (searched without
                             a second indirection) */
    uint64_t *reach;      /* per entry of at: the largest end up to it in its node */
    uint32_t  unknown;    /* "[unknown]" in the analysis, TF_ANALYSIS_NONE until used */
};

/* ---- interning by hash ---- */

struct intern_table {
    uint32_t *slot;       /* object index + 1, 0 empty */
    size_t    cap;
};

static uint64_t name_hash(uint8_t kind, const char *name)
{
    return tf_fnv_string(tf_fnv_step(TF_FNV_OFFSET, kind), name);
}

static size_t intern_find(const struct intern_table *t, const tf_analysis *a, uint8_t kind,
                          const char *name)
{
    size_t i = (size_t)name_hash(kind, name) & (t->cap - 1);
    while (t->slot[i]) {
        const tf_analysis_object *o = &a->objects[t->slot[i] - 1];
        if (o->kind == kind && !strcmp(o->name, name))
            break;
        i = (i + 1) & (t->cap - 1);
    }
    return i;
}

/* A table of a's objects with room for more new ones than a has now. */
static int intern_table_init(struct intern_table *t, const tf_analysis *a, size_t more)
{
    for (t->cap = 16; t->cap < 2 * (a->nobjects + more); t->cap *= 2)
        ;
    if (!(t->slot = calloc(t->cap, sizeof *t->slot)))
        return -1;
    for (size_t i = 0; i < a->nobjects; i++)
        t->slot[intern_find(t, a, a->objects[i].kind, a->objects[i].name)] = (uint32_t)i + 1;
    return 0;
}

/* Index of the analysis object with this kind and name, added when new,
 * counting one allocation more. */
static int intern_object(tf_analysis *a, struct intern_table *t, uint8_t kind, const char *name,
                         const char *routine, uint64_t size, uint32_t *index, tf_error *err)
{
    size_t i = intern_find(t, a, kind, name);
    if (t->slot[i]) {
        tf_analysis_object *o = &a->objects[t->slot[i] - 1];
        if (size > o->size)
            o->size = size;
        o->allocations++;
        *index = t->slot[i] - 1;
        return 0;
    }
    tf_analysis_object *v = realloc(a->objects, (a->nobjects + 1) * sizeof *v);
    if (!v)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for data objects");
    a->objects = v;
    char *copy = strdup(name), *r = routine && routine[0] ? strdup(routine) : NULL;
    if (!copy || (routine && routine[0] && !r)) {
        free(copy);
        free(r);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for data objects");
    }
    v[a->nobjects] = (tf_analysis_object){ .name = copy, .routine = r, .size = size, .allocations = 1,
                                           .kind = kind };
    *index = (uint32_t)a->nobjects++;
    t->slot[i] = (uint32_t)a->nobjects;
    return 0;
}

/* Places small block lo after the blocks of its family laid out so far in
 * this process (extent[object], grown as objects are added); the
 * object's size is the largest extent of any process. */
static int lay_out(tf_analysis *a, struct live_object *lo, uint64_t **extent, size_t *n,
                   tf_error *err)
{
    if (lo->object >= *n) {
        size_t cap = 2 * (size_t)lo->object + 16;
        uint64_t *v = realloc(*extent, cap * sizeof *v);
        if (!v)
            return tf_fail(err, TF_ERR_NOMEM, "out of memory laying out small blocks");
        memset(v + *n, 0, (cap - *n) * sizeof *v);
        *extent = v;
        *n = cap;
    }
    uint64_t *at = &(*extent)[lo->object];
    lo->base = *at;
    *at += lo->size;
    tf_analysis_object *o = &a->objects[lo->object];
    if (*at > o->size)
        o->size = *at;
    return 0;
}

/* ---- the interval index ---- */

/* The leaf of time t: the last time at or below it; SIZE_MAX before the first. */
static size_t leaf_of(const tf_analysis_objmap *m, uint64_t t)
{
    size_t lo = 0, hi = m->ntimes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m->times[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : SIZE_MAX;
}

/* The distinct times, sorted, and each object's leaves [l, r): one radix
 * sort of the alloc and free times with their owners, then one pass. */
static int place_in_time(tf_analysis_objmap *m)
{
    size_t n = 0;
    uint32_t *owner = malloc((2 * m->n + 1) * sizeof *owner);
    if (!owner || !(m->times = malloc((2 * m->n + 1) * sizeof *m->times))) {
        free(owner);
        return -1;
    }
    for (size_t i = 0; i < m->n; i++) {
        m->times[n] = m->v[i].alloc;
        owner[n++] = (uint32_t)i << 1;
        m->v[i].r = UINT32_MAX;   /* never freed: until the last leaf */
        if (m->v[i].free != TF_NOTIME) {
            m->times[n] = m->v[i].free;
            owner[n++] = (uint32_t)i << 1 | 1;
        }
    }
    if (!tf_sort_u64(m->times, owner, n)) {
        free(owner);
        return -1;
    }
    size_t k = 0;
    for (size_t j = 0; j < n; j++) {
        if (!k || m->times[j] != m->times[k - 1])
            m->times[k++] = m->times[j];
        struct live_object *o = &m->v[owner[j] >> 1];
        if (owner[j] & 1)
            o->r = (uint32_t)(k - 1);
        else
            o->l = (uint32_t)(k - 1);
    }
    free(owner);
    m->ntimes = k;
    for (size_t i = 0; i < m->n; i++) {
        struct live_object *o = &m->v[i];
        if (o->r == UINT32_MAX)
            o->r = (uint32_t)k;
        else if (o->r < o->l)
            o->r = o->l;   /* freed before allocated: never alive */
    }
    return 0;
}

/* The node holding an object alive over leaves [l, r), r > l: the lowest
 * whose span covers them (bottom-up tree, leaves at m->leaves + i), whose
 * middle the lifetime therefore straddles, unless it is a leaf. */
static size_t home_node(const tf_analysis_objmap *m, uint32_t l, uint32_t r)
{
    size_t a = l + m->leaves, b = r - 1 + m->leaves;
    return a == b ? a : a >> (64 - __builtin_clzll((unsigned long long)(a ^ b)));
}

static int build_index(tf_analysis_objmap *m)
{
    if (place_in_time(m) < 0)
        return -1;
    for (m->leaves = 1; m->leaves < m->ntimes; m->leaves *= 2)
        ;
    if (!(m->first = calloc(2 * m->leaves + 1, sizeof *m->first)))
        return -1;
    size_t total = 0;
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].r > m->v[i].l) {
            m->first[home_node(m, m->v[i].l, m->v[i].r) + 1]++;
            total++;
        }
    for (size_t node = 0; node < 2 * m->leaves; node++)
        m->first[node + 1] += m->first[node];
    m->at = malloc((total ? total : 1) * sizeof *m->at);
    m->start = malloc((total ? total : 1) * sizeof *m->start);
    m->reach = malloc((total ? total : 1) * sizeof *m->reach);
    uint32_t *fill = malloc(2 * m->leaves * sizeof *fill);
    uint64_t *start = malloc((m->n ? m->n : 1) * sizeof *start);
    uint32_t *order = malloc((m->n ? m->n : 1) * sizeof *order);
    int rc = m->at && m->start && m->reach && fill && start && order ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < m->n; i++) {
        start[i] = m->v[i].start;
        order[i] = (uint32_t)i;
    }
    /* Filled in order of start address (ties by index: the sort is
     * stable), each node's entries come out sorted. */
    if (rc == 0 && !tf_sort_u64(start, order, m->n))
        rc = -1;
    if (rc == 0) {
        memcpy(fill, m->first, 2 * m->leaves * sizeof *fill);
        for (size_t j = 0; j < m->n; j++) {
            const struct live_object *o = &m->v[order[j]];
            if (o->r > o->l)
                m->at[fill[home_node(m, o->l, o->r)]++] = order[j];
        }
        for (size_t node = 1; node < 2 * m->leaves; node++) {
            uint64_t reach = 0;
            for (size_t j = m->first[node]; j < m->first[node + 1]; j++) {
                const struct live_object *o = &m->v[m->at[j]];
                m->start[j] = o->start;
                uint64_t end = o->start + o->size < o->start ? UINT64_MAX : o->start + o->size;
                m->reach[j] = reach = end > reach ? end : reach;
            }
        }
    }
    free(order);
    free(start);
    free(fill);
    return rc;
}

int tf_analysis_objmap_create(tf_analysis_objmap **out, tf_analysis *a, const tf_trace *tr,
                              uint32_t proc, const tf_object_naming *naming, tf_error *err)
{
    *out = NULL;
    const tf_process *p = tf_trace_process(tr, proc);
    tf_analysis_objmap *m = calloc(1, sizeof *m);
    size_t nstack = 0;
    for (size_t i = 0; p && i < p->nmodules; i++)
        nstack += !strcmp(tf_trace_string(tr, p->modules[i].path), "[stack]");
    size_t no = p ? p->nobjects : 0, cap = no + nstack + 1;
    struct intern_table table = { 0 };
    if (!m || !(m->v = malloc(cap * sizeof *m->v)) || intern_table_init(&table, a, cap) < 0) {
        tf_analysis_objmap_free(m);
        free(table.slot);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the object map");
    }
    m->unknown = TF_ANALYSIS_NONE;
    int rc = 0;
    /* this process's extent of each family of small blocks, by analysis index */
    uint64_t *extent = NULL;
    size_t nextent = 0;
    /* interned in allocation order: the analysis's objects keep it */
    for (size_t k = 0; rc == 0 && k < no; k++) {
        size_t i = naming->order[k];
        const tf_object *o = &p->objects[i];
        struct live_object *lo = &m->v[m->n];
        *lo = (struct live_object){ .start = o->start, .size = o->size, .alloc = o->alloc_time,
                                    .free = o->free_time, .kind = o->kind };
        rc = intern_object(a, &table, o->kind, naming->names[i], naming->routines[i], o->size,
                           &lo->object, err);
        if (rc == 0 && o->kind == TF_OBJECT_SMALL)
            rc = lay_out(a, lo, &extent, &nextent, err);
        m->n += rc == 0;
    }
    free(extent);
    for (size_t i = 0; rc == 0 && p && i < p->nmodules; i++) {
        const tf_module *md = &p->modules[i];
        if (strcmp(tf_trace_string(tr, md->path), "[stack]"))
            continue;
        struct live_object *lo = &m->v[m->n];
        *lo = (struct live_object){ .start = md->start, .size = md->end - md->start,
                                    .free = TF_NOTIME, .kind = TF_OBJECT_STACK };
        /* the main thread's stack: one object of every process */
        rc = intern_object(a, &table, TF_OBJECT_STACK, "[stack]", NULL, lo->size, &lo->object,
                           err);
        m->n += rc == 0;
    }
    free(table.slot);
    if (rc == 0 && build_index(m) < 0)
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for the object map of process %u", proc);
    if (rc) {
        tf_analysis_objmap_free(m);
        return rc;
    }
    *out = m;
    return 0;
}

bool tf_analysis_objmap_find(const tf_analysis_objmap *m, uint64_t addr, uint64_t t, uint32_t *object,
                             uint64_t *offset)
{
    const struct live_object *best = NULL;
    size_t leaf = leaf_of(m, t);
    for (size_t node = leaf == SIZE_MAX ? 0 : leaf + m->leaves; node >= 1; node /= 2) {
        size_t lo = m->first[node], hi = m->first[node + 1];
        while (lo < hi) {   /* the first entry starting above addr */
            size_t mid = lo + (hi - lo) / 2;
            if (m->start[mid] <= addr)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t j = lo; j-- > m->first[node] && m->reach[j] > addr;) {
            const struct live_object *o = &m->v[m->at[j]];
            if (addr - o->start >= o->size || leaf < o->l || leaf >= o->r)
                continue;
            bool better = !best || (o->kind == TF_OBJECT_USER && best->kind != TF_OBJECT_USER) ||
                          ((o->kind == TF_OBJECT_USER) == (best->kind == TF_OBJECT_USER) &&
                           o->size < best->size);
            if (better)
                best = o;
        }
    }
    if (best) {
        *object = best->object;
        *offset = best->base + (addr - best->start);
        return true;
    }
    *object = m->unknown;
    *offset = addr;
    return false;
}

int tf_analysis_objmap_lookup(tf_analysis_objmap *m, tf_analysis *a, uint64_t addr, uint64_t t,
                              uint32_t *object, uint64_t *offset, tf_error *err)
{
    if (tf_analysis_objmap_find(m, addr, t, object, offset) || m->unknown != TF_ANALYSIS_NONE)
        return 0;
    struct intern_table table;
    if (intern_table_init(&table, a, 1) < 0)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for data objects");
    int rc = intern_object(a, &table, TF_ANALYSIS_OBJECT_UNKNOWN, "[unknown]", NULL, 0, &m->unknown,
                           err);
    free(table.slot);
    *object = m->unknown;
    return rc;
}

void tf_analysis_objmap_free(tf_analysis_objmap *m)
{
    if (!m)
        return;
    free(m->v);
    free(m->times);
    free(m->first);
    free(m->at);
    free(m->start);
    free(m->reach);
    free(m);
}
