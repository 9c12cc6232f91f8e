/* SPDX-License-Identifier: BSD-3-Clause */
#include "prv_fields.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/tf_sort.h"
#include "common/tf_strpool.h"
#include "prv_index.h"
#include "prv_types.h"

int tf_prv_pairs_add(tf_prv_pairs *ps, uint32_t type, uint64_t value, tf_error *err)
{
    tf_prv_pair *np = tf_prv_grow(ps->p, &ps->cap, ps->n + 1, sizeof *np, 64);
    if (!np)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    ps->p = np;
    ps->p[ps->n++] = (tf_prv_pair){type, value};
    return 0;
}

void tf_prv_pairs_free(tf_prv_pairs *ps)
{
    free(ps->p);
    *ps = (tf_prv_pairs){0};
}

int tf_prv_pairs_memory(tf_prv_pairs *ps, const tf_sample *s, uint64_t object, tf_error *err)
{
    if (s->kind == TF_SAMPLE_TIMER)
        return 0;
    uint32_t type = s->kind == TF_SAMPLE_LOAD ? TF_PRV_MEM_LOAD_ADDR
                  : s->kind == TF_SAMPLE_STORE ? TF_PRV_MEM_STORE_ADDR : TF_PRV_MEM_RMW_ADDR;
    int rc = tf_prv_pairs_add(ps, type, s->addr, err);
    if (rc == 0 && s->level <= TF_LEVEL_REMOTE_DRAM_2)
        rc = tf_prv_pairs_add(ps, TF_PRV_MEM_LEVEL, s->level, err);
    if (rc == 0 && (s->flags & TF_SAMPLE_HIT))
        rc = tf_prv_pairs_add(ps, TF_PRV_MEM_HIT, 1, err);
    if (rc == 0 && (s->flags & TF_SAMPLE_TLB_MISS))
        rc = tf_prv_pairs_add(ps, TF_PRV_MEM_TLB_HIT, 0, err);
    if (rc == 0 && s->weight)
        rc = tf_prv_pairs_add(ps, TF_PRV_MEM_COST, s->weight, err);
    if (rc == 0)
        rc = tf_prv_pairs_add(ps, TF_PRV_MEM_OBJECT, object, err);
    return rc;
}

int tf_prv_counter_types(tf_pcf *pcf, const char *const *names, const char *const *units,
                         uint32_t n, uint32_t *types, tf_error *err)
{
    for (uint32_t c = 0; c < n; c++) {
        uint32_t type = tf_prv_counter_type(names[c], c);
        for (uint32_t k = 0; k < c; k++)
            if (types[k] == type)
                type = TF_PRV_OTHER_COUNTER + c;
        types[c] = type;
        const char *unit = units && units[c] ? units[c] : "";
        char label[300];
        snprintf(label, sizeof label, "(%s) %s%s%s%s", names[c], names[c], *unit ? " [" : "",
                 unit, *unit ? "]" : "");
        int rc = tf_pcf_add_type(pcf, type, 7, label, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static const struct { uint32_t type; const char *label; } sample_types[] = {
    {TF_PRV_SAMPLE_IP, "Sampled instruction address"},
    {TF_PRV_MEM_LOAD_ADDR, "Sampled load address"},
    {TF_PRV_MEM_STORE_ADDR, "Sampled store address"},
    {TF_PRV_MEM_RMW_ADDR, "Sampled read-modify-write address"},
    {TF_PRV_MEM_LEVEL, "Memory level of the sampled reference"},
    {TF_PRV_MEM_HIT, "Sampled store hit"},
    {TF_PRV_MEM_TLB_HIT, "Sampled reference TLB hit"},
    {TF_PRV_MEM_COST, "Sampled reference cost (cycles)"},
    {TF_PRV_MEM_OBJECT, "Memory object referenced"},
};

/* Memory levels as enum tf_mem_level numbers them (Extrae's 32000002). */
static const char *const level_labels[] = {
    "Uncached or I/O", "L1", "Line-fill buffer", "L2", "L3", "Remote cache (1 hop)",
    "Remote cache (2 hops)", "Local DRAM", "Remote DRAM (1 hop)", "Remote DRAM (2 hops)",
};

static const struct { uint32_t type; uint64_t value; const char *label; } sample_values[] = {
    {TF_PRV_MEM_HIT, 0, "Miss"}, {TF_PRV_MEM_HIT, 1, "Hit"},
    {TF_PRV_MEM_TLB_HIT, 0, "Miss"}, {TF_PRV_MEM_TLB_HIT, 1, "Hit"},
    {TF_PRV_MEM_OBJECT, 0, "No known object"},
};

int tf_prv_label_samples(tf_pcf *pcf, tf_error *err)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof sample_types / sizeof sample_types[0]; i++)
        rc = tf_pcf_add_type(pcf, sample_types[i].type, 9, sample_types[i].label, err);
    for (uint64_t l = 0; rc == 0 && l < sizeof level_labels / sizeof level_labels[0]; l++)
        rc = tf_pcf_add_value(pcf, TF_PRV_MEM_LEVEL, l, level_labels[l], err);
    for (size_t i = 0; rc == 0 && i < sizeof sample_values / sizeof sample_values[0]; i++)
        rc = tf_pcf_add_value(pcf, sample_values[i].type, sample_values[i].value,
                              sample_values[i].label, err);
    if (rc == 0)
        rc = tf_pcf_add_state(pcf, 0, "Idle", err);
    if (rc == 0)
        rc = tf_pcf_add_state(pcf, 1, "Running", err);
    return rc;
}

int tf_prv_label_sites(tf_pcf *pcf, uint32_t fn_type, const char *fn_label, uint32_t line_type,
                       const char *line_label, const char *const *functions, size_t nfn,
                       const char *const *lines, size_t nline, tf_error *err)
{
    static const char *const first[TF_PRV_FIRST_SITE] = {"End", "Unresolved"};
    int rc = tf_pcf_add_type(pcf, fn_type, 0, fn_label, err);
    if (rc == 0)
        rc = tf_pcf_add_type(pcf, line_type, 0, line_label, err);
    for (uint64_t v = 0; rc == 0 && v < TF_PRV_FIRST_SITE; v++)
        if ((rc = tf_pcf_add_value(pcf, fn_type, v, first[v], err)) == 0)
            rc = tf_pcf_add_value(pcf, line_type, v, first[v], err);
    for (size_t i = 0; rc == 0 && i < nfn; i++)
        rc = tf_pcf_add_value(pcf, fn_type, i + TF_PRV_FIRST_SITE, functions[i], err);
    for (size_t i = 0; rc == 0 && i < nline; i++)
        rc = tf_pcf_add_value(pcf, line_type, i + TF_PRV_FIRST_SITE, lines[i], err);
    return rc;
}

/* The object's label: its given name, its own name, else its id, size
 * and recorded site. */
static void object_label(const tf_trace *tr, const tf_object *o, const char *given, char *label,
                         size_t size)
{
    const char *name = tf_trace_string(tr, o->name), *site = tf_trace_string(tr, o->callsite);
    if (given)
        snprintf(label, size, "%s", given);
    else if (*name)
        snprintf(label, size, "%s", name);
    else
        snprintf(label, size, "object %" PRIu32 " (%" PRIu64 " bytes%s%s)", o->id, o->size,
                 *site ? " at " : "", site);
}

/* The value of label: its number in t from 1, labelled in pcf when new;
 * 0 on failure. */
static uint64_t label_value(tf_strpool *t, tf_pcf *pcf, const char *label, tf_error *err)
{
    bool added;
    int64_t i = tf_strpool_add(t, label, &added);
    if (i < 0) {
        tf_fail(err, TF_ERR_NOMEM, "out of memory labelling data objects");
        return 0;
    }
    if (added && tf_pcf_add_value(pcf, TF_PRV_MEM_OBJECT, (uint64_t)i + 1, label, err) < 0)
        return 0;
    return (uint64_t)i + 1;
}

int tf_prv_objects_init_named(tf_prv_objects *o, tf_pcf *pcf, const tf_trace *tr,
                              char **const *names, tf_error *err)
{
    uint32_t np = tf_trace_nprocesses(tr);
    *o = (tf_prv_objects){.tr = tr};
    o->order = calloc(np + 1, sizeof *o->order);
    o->value = calloc(np + 1, sizeof *o->value);
    if (!o->order || !o->value)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    tf_strpool t = {0};
    uint64_t *start = NULL;
    int rc = 0;
    for (uint32_t p = 0; rc == 0 && p < np; p++) {
        const tf_process *pr = tf_trace_process(tr, p);
        uint64_t *s = realloc(start, (pr->nobjects + 1) * sizeof *s);
        if (s)
            start = s;
        if (!s || !(o->order[p] = malloc((pr->nobjects + 1) * sizeof *o->order[p])) ||
            !(o->value[p] = malloc((pr->nobjects + 1) * sizeof *o->value[p]))) {
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
            break;
        }
        for (uint32_t i = 0; rc == 0 && i < pr->nobjects; i++) {
            o->order[p][i] = i;
            start[i] = pr->objects[i].start;
            char label[700];
            object_label(tr, &pr->objects[i], names && names[p] ? names[p][i] : NULL, label,
                         sizeof label);
            if (!(o->value[p][i] = (uint32_t)label_value(&t, pcf, label, err)))
                rc = -TF_ERR_NOMEM;
        }
        /* stable: objects at one address in allocation order */
        if (rc == 0 && !tf_sort_u64(start, o->order[p], pr->nobjects))
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
    }
    tf_strpool_free(&t);
    free(start);
    return rc;
}

uint64_t tf_prv_objects_find(const tf_prv_objects *o, uint32_t proc, uint64_t addr, uint64_t t)
{
    if (proc >= tf_trace_nprocesses(o->tr))
        return 0;
    const tf_process *p = tf_trace_process(o->tr, proc);
    const uint32_t *ord = o->order[proc];
    size_t lo = 0, hi = p->nobjects;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->objects[ord[mid]].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* Earlier objects may be larger and still hold addr; address reuse after
     * a free is told apart by time.  Objects nest rarely: a short look back. */
    for (size_t i = lo; i-- > 0 && lo - i <= 64;) {
        const tf_object *ob = &p->objects[ord[i]];
        if (addr - ob->start < ob->size &&
            (t == TF_NOTIME || (t >= ob->alloc_time && t < ob->free_time)))
            return o->value[proc][ord[i]];
    }
    return 0;
}

void tf_prv_objects_free(tf_prv_objects *o)
{
    for (uint32_t p = 0; o->order && p < tf_trace_nprocesses(o->tr); p++) {
        free(o->order[p]);
        if (o->value)
            free(o->value[p]);
    }
    free(o->order);
    free(o->value);
    *o = (tf_prv_objects){0};
}
