/* SPDX-License-Identifier: BSD-3-Clause */
#include "prv_fields.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

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

static int cmp_start(const void *a, const void *b, void *objects)
{
    const tf_object *o = objects;
    uint64_t x = o[*(const uint32_t *)a].start, y = o[*(const uint32_t *)b].start;
    return x < y ? -1 : x > y;
}

static int label_object(tf_pcf *pcf, const tf_trace *tr, const tf_object *o, const char *given,
                        uint64_t value, tf_error *err)
{
    const char *name = tf_trace_string(tr, o->name), *site = tf_trace_string(tr, o->callsite);
    char label[700];
    if (given)
        snprintf(label, sizeof label, "%s", given);
    else if (*name)
        snprintf(label, sizeof label, "%s", name);
    else
        snprintf(label, sizeof label, "object %" PRIu32 " (%" PRIu64 " bytes%s%s)", o->id, o->size,
                 *site ? " at " : "", site);
    return tf_pcf_add_value(pcf, TF_PRV_MEM_OBJECT, value, label, err);
}

int tf_prv_objects_init_named(tf_prv_objects *o, tf_pcf *pcf, const tf_trace *tr,
                              char **const *names, tf_error *err)
{
    uint32_t np = tf_trace_nprocesses(tr);
    *o = (tf_prv_objects){.tr = tr};
    o->order = calloc(np + 1, sizeof *o->order);
    o->first = calloc(np + 1, sizeof *o->first);
    if (!o->order || !o->first)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    uint64_t next = 1;
    for (uint32_t p = 0; p < np; p++) {
        const tf_process *pr = tf_trace_process(tr, p);
        o->first[p] = next;
        if (!(o->order[p] = malloc((pr->nobjects + 1) * sizeof *o->order[p])))
            return tf_fail(err, TF_ERR_NOMEM, "out of memory");
        for (uint32_t i = 0; i < pr->nobjects; i++) {
            o->order[p][i] = i;
            const char *given = names && names[p] ? names[p][i] : NULL;
            int rc = label_object(pcf, tr, &pr->objects[i], given, next++, err);
            if (rc < 0)
                return rc;
        }
        qsort_r(o->order[p], pr->nobjects, sizeof *o->order[p], cmp_start, pr->objects);
    }
    return 0;
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
            return o->first[proc] + ord[i];
    }
    return 0;
}

void tf_prv_objects_free(tf_prv_objects *o)
{
    for (uint32_t p = 0; o->order && p < tf_trace_nprocesses(o->tr); p++)
        free(o->order[p]);
    free(o->order);
    free(o->first);
    *o = (tf_prv_objects){0};
}
