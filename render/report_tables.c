/* SPDX-License-Identifier: BSD-3-Clause */
/* Phase, memory-level and object tables. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_tables.h"
#include "analysis/advice.h"
#include "formats/trace.h"

#define MAX_RATE_COLUMNS 3

static int set_head(tf_report_table *t, const char *const *head)
{
    for (size_t c = 0; c < t->ncols; c++)
        if (!(t->head[c] = tf_report_strdup("%s", head[c])))
            return -1;
    return 0;
}

static int phases(tf_report_page *p, tf_error *err)
{
    tf_report_table *t = &p->tables[TF_REPORT_TABLE_PHASES];
    size_t nrates = p->nrates < MAX_RATE_COLUMNS ? p->nrates : MAX_RATE_COLUMNS;
    size_t ncols = 3 + (p->mips != NULL) + nrates;
    if (tf_report_table_init(t, "Phases", ncols, p->nphases, err) < 0)
        return -err->code;
    const char *head[3 + 1 + MAX_RATE_COLUMNS] = {"phase", "span [ms]", "routine[line]"};
    size_t c = 3;
    if (p->mips)
        head[c++] = "MIPS";
    for (size_t i = 0; i < nrates; i++)
        head[c++] = p->rates[i].name;
    if (set_head(t, head) < 0)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for the phase table");
    t->note = tf_report_strdup("means over each phase; %s%s",
                               p->rates_unit ? p->rates_unit : "rates",
                               p->nrates > nrates ? " (first counters only)" : "");
    double ms = p->duration_ns / 1e6;
    /* Enough decimals for a thousandth of the iteration. */
    int decimals = ms >= 1000 ? 0 : ms >= 100 ? 1 : ms >= 10 ? 2 : ms >= 1 ? 3 : 4;
    for (size_t k = 0; k < p->nphases; k++) {
        const tf_report_phase *ph = &p->phases[k];
        char **row = &t->cells[k * ncols];
        const char *routine = ph->routine < p->nroutines ? p->routines[ph->routine] : "?";
        row[0] = ph->label[0] ? tf_report_strdup("%s", ph->label) : tf_report_strdup("%zu", k + 1);
        row[1] = tf_report_strdup("%.*f-%.*f", decimals, ph->x0 * ms, decimals, ph->x1 * ms);
        row[2] = ph->line ? tf_report_strdup("%s[%u]", routine, ph->line)
                          : tf_report_strdup("%s", routine);
        c = 3;
        if (p->mips)
            row[c++] = tf_report_strdup("%.0f", tf_report_series_mean(p->mips, p->mips->y, ph->x0, ph->x1));
        for (size_t i = 0; i < nrates; i++)
            row[c++] = tf_report_strdup("%.3g", tf_report_series_mean(&p->rates[i], p->rates[i].y, ph->x0, ph->x1));
        for (size_t j = 0; j < ncols; j++)
            if (!row[j])
                return tf_fail(err, TF_ERR_NOMEM, "report: no memory for the phase table");
    }
    return 0;
}

static int levels(tf_report_page *p, tf_error *err)
{
    size_t count[256] = {0}, costed[256] = {0}, loads = 0, known = 0;
    double cost[256] = {0};
    for (size_t i = 0; i < p->nmem; i++) {
        const tf_report_mem_point *m = &p->mem[i];
        if (m->access != TF_REPORT_LOAD)
            continue;
        loads++;
        count[m->level]++;
        known += m->level != TF_LEVEL_UNKNOWN;
        if (m->cost) {
            costed[m->level]++;
            cost[m->level] += m->cost;
        }
    }
    size_t nrows = 0;
    for (int l = 0; l < 256; l++)
        nrows += count[l] > 0 && known > 0;
    tf_report_table *t = &p->tables[TF_REPORT_TABLE_LEVELS];
    if (tf_report_table_init(t, "Memory hierarchy (loads)", 4, nrows, err) < 0)
        return -err->code;
    static const char *const head[] = {"level", "loads", "share [%]", "mean cost [cycles]"};
    if (set_head(t, head) < 0)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for the level table");
    if (loads == 0)
        t->note = tf_report_strdup("no load samples in this trace");
    else if (known == 0)
        t->note = tf_report_strdup("the loads carry no memory level (addresses decoded in "
                                   "software, or no level reported by the hardware)");
    size_t r = 0;
    for (int l = 0; l < 256 && known > 0; l++) {
        if (!count[l])
            continue;
        char **row = &t->cells[r++ * 4];
        row[0] = tf_report_strdup("%s", tf_report_level_name((unsigned)l));
        row[1] = tf_report_strdup("%zu", count[l]);
        row[2] = tf_report_strdup("%.1f", 100.0 * (double)count[l] / (double)loads);
        row[3] = costed[l] ? tf_report_strdup("%.0f", cost[l] / (double)costed[l])
                           : tf_report_strdup("-");
        for (int j = 0; j < 4; j++)
            if (!row[j])
                return tf_fail(err, TF_ERR_NOMEM, "report: no memory for the level table");
    }
    return 0;
}

typedef struct object_refs {
    uint32_t object;
    size_t   loads, stores;
} object_refs;

static int by_refs(const void *a, const void *b)
{
    const object_refs *x = a, *y = b;
    size_t rx = x->loads + x->stores, ry = y->loads + y->stores;
    return rx < ry ? 1 : rx > ry ? -1 : 0;
}

static int objects(tf_report_page *p, tf_error *err)
{
    object_refs *refs = calloc(p->nobjects ? p->nobjects : 1, sizeof *refs);
    if (!refs)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for the object table");
    size_t total = p->nmem;
    for (size_t i = 0; i < p->nobjects; i++)
        refs[i].object = (uint32_t)i;
    for (size_t i = 0; i < p->nmem; i++) {
        const tf_report_mem_point *m = &p->mem[i];
        if (m->object < p->nobjects)
            *(m->access == TF_REPORT_LOAD ? &refs[m->object].loads : &refs[m->object].stores) += 1;
    }
    qsort(refs, p->nobjects, sizeof *refs, by_refs);
    size_t nrows = 0;
    while (nrows < p->nobjects && nrows < TF_REPORT_TOP_OBJECTS
           && refs[nrows].loads + refs[nrows].stores > 0)
        nrows++;
    tf_report_table *t = &p->tables[TF_REPORT_TABLE_OBJECTS];
    int rc = tf_report_table_init(t, "Top data objects", 6, nrows, err);
    static const char *const head[] = {"object", "kind", "size", "refs [%]", "loads", "stores"};
    if (rc == 0 && set_head(t, head) < 0)
        rc = tf_fail(err, TF_ERR_NOMEM, "report: no memory for the object table");
    if (rc == 0 && nrows == 0)
        t->note = tf_report_strdup(p->nmem ? "no memory sample falls in a known data object"
                                           : "no memory samples in this trace");
    for (size_t r = 0; r < nrows && rc == 0; r++) {
        const tf_report_object *o = &p->objects[refs[r].object];
        char size[32];
        tf_report_format_size(o->size, size, sizeof size);
        char **row = &t->cells[r * 6];
        row[0] = tf_report_strdup("%s", o->name);
        row[1] = tf_report_strdup("%s", o->kind ? o->kind : "");
        row[2] = tf_report_strdup("%s", size);
        row[3] = tf_report_strdup("%.1f", 100.0 * (double)(refs[r].loads + refs[r].stores)
                                              / (double)total);
        row[4] = tf_report_strdup("%zu", refs[r].loads);
        row[5] = tf_report_strdup("%zu", refs[r].stores);
        for (int j = 0; j < 6; j++)
            if (!row[j])
                rc = tf_fail(err, TF_ERR_NOMEM, "report: no memory for the object table");
    }
    free(refs);
    return rc;
}

static const char *direction_name(int64_t d)
{
    return d > 0 ? "up" : d < 0 ? "down" : "-";
}

static int streams(tf_report_page *p, const tf_analysis *an, tf_error *err)
{
    /* Streams of fewer than a handful of samples say nothing: left out. */
    size_t nrows = 0;
    for (size_t i = 0; an && i < an->nstreams; i++)
        nrows += an->streams[i].pattern != TF_ANALYSIS_PATTERN_SPARSE;
    tf_report_table *t = &p->tables[TF_REPORT_TABLE_STREAMS];
    if (tf_report_table_init(t, "Access streams (per phase and object, per thread)", 8, nrows,
                             err) < 0)
        return -err->code;
    static const char *const head[] = {"phase", "object", "pattern", "direction",
                                       "stride [B]", "streams", "bandwidth [MB/s]", "samples"};
    if (set_head(t, head) < 0)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for the stream table");
    if (!an)
        t->note = tf_report_strdup("streams come from the analysis step of tracefold fold; "
                                   "this fold.h5 has none");
    else if (nrows == 0)
        t->note = tf_report_strdup("no phase has enough memory samples on one object");
    size_t r = 0;
    for (size_t i = 0; an && i < an->nstreams; i++) {
        const tf_analysis_stream *s = &an->streams[i];
        if (s->pattern == TF_ANALYSIS_PATTERN_SPARSE)
            continue;
        char **row = &t->cells[r++ * 8];
        row[0] = tf_report_strdup("%s", an->phases[s->phase].label);
        row[1] = tf_report_strdup("%s", an->objects[s->object].name);
        row[2] = tf_report_strdup("%s", tf_analysis_pattern_name(s->pattern));
        row[3] = tf_report_strdup("%s", direction_name(s->direction));
        row[4] = s->stride ? tf_report_strdup("%lld", (long long)s->stride)
                           : tf_report_strdup("-");
        row[5] = tf_report_strdup("%u", s->streams);
        row[6] = isfinite(s->bandwidth) ? tf_report_strdup("%.0f", s->bandwidth)
                                        : tf_report_strdup("-");
        row[7] = tf_report_strdup("%zu", s->samples);
        for (int j = 0; j < 8; j++)
            if (!row[j])
                return tf_fail(err, TF_ERR_NOMEM, "report: no memory for the stream table");
    }
    return 0;
}

/* The advice of the analysis (docs/algorithms.md, "Advice"), strongest
 * first; its evidence is in advice.csv and summary.md. */
static int advice(tf_report_page *p, const tf_analysis *an, tf_error *err)
{
    size_t nrows = an ? an->nadvice : 0;
    tf_report_table *t = &p->tables[TF_REPORT_TABLE_ADVICE];
    if (tf_report_table_init(t, "Advice (evidence in advice.csv and summary.md)", 5, nrows,
                             err) < 0)
        return -err->code;
    static const char *const head[] = {"phase", "object", "finding", "suggestion",
                                       "saves at most [%]"};
    if (set_head(t, head) < 0)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for the advice table");
    if (!an)
        t->note = tf_report_strdup("advice comes from the analysis step of tracefold fold; "
                                   "this fold.h5 has none");
    else if (nrows == 0)
        t->note = tf_report_strdup("none: no rule's evidence is strong enough (thresholds in "
                                   "docs/algorithms.md)");
    for (size_t i = 0; i < nrows; i++) {
        char **row = &t->cells[i * 5];
        const tf_analysis_advice *v = &an->advice[i];
        row[0] = tf_report_strdup("%s", an->phases[v->phase].label);
        row[1] = tf_report_strdup("%s", an->objects[v->object].name);
        row[2] = tf_report_strdup("%s", v->finding);
        row[3] = tf_report_strdup("%s", v->suggestion);
        row[4] = tf_report_strdup("%.1f", 100 * v->expected_gain);
        for (int j = 0; j < 5; j++)
            if (!row[j])
                return tf_fail(err, TF_ERR_NOMEM, "report: no memory for the advice table");
    }
    return 0;
}

int tf_report_tables_fill(tf_report_page *p, const tf_analysis *an, tf_error *err)
{
    int rc = phases(p, err);
    if (rc == 0)
        rc = levels(p, err);
    if (rc == 0)
        rc = objects(p, err);
    if (rc == 0)
        rc = streams(p, an, err);
    if (rc == 0)
        rc = advice(p, an, err);
    return rc;
}
