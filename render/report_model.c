/* SPDX-License-Identifier: BSD-3-Clause */
/* Building and freeing the report model. */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_model.h"
#include "formats/trace.h"

int tf_report_add_page(tf_report *r, tf_report_page **page, tf_error *err)
{
    tf_report_page *pages = realloc(r->pages, (r->npages + 1) * sizeof *pages);
    if (!pages)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for page %zu", r->npages + 1);
    r->pages = pages;
    *page = &pages[r->npages++];
    memset(*page, 0, sizeof **page);
    return 0;
}

int tf_report_table_init(tf_report_table *t, const char *title, size_t ncols, size_t nrows,
                         tf_error *err)
{
    t->title = tf_report_strdup("%s", title);
    t->ncols = ncols;
    t->nrows = nrows;
    t->head = calloc(ncols ? ncols : 1, sizeof *t->head);
    size_t ncells = nrows * ncols;
    t->cells = calloc(ncells ? ncells : 1, sizeof *t->cells);
    if (!t->title || !t->head || !t->cells)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for table '%s'", title);
    return 0;
}

int tf_report_series_init(tf_report_series *s, const char *name, size_t n, bool band,
                          tf_error *err)
{
    size_t m = n ? n : 1;
    s->name = tf_report_strdup("%s", name);
    s->n = n;
    s->x = malloc(m * sizeof *s->x);
    s->y = malloc(m * sizeof *s->y);
    s->lo = band ? malloc(m * sizeof *s->lo) : NULL;
    s->hi = band ? malloc(m * sizeof *s->hi) : NULL;
    if (!s->name || !s->x || !s->y || (band && (!s->lo || !s->hi)))
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for series '%s' (%zu points)",
                       name, n);
    return 0;
}

char *tf_report_strdup(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (len < 0)
        return NULL;
    char *s = malloc((size_t)len + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)len + 1, fmt, ap);
    va_end(ap);
    return s;
}

static void series_free(tf_report_series *s)
{
    free(s->name);
    free(s->x);
    free(s->y);
    free(s->lo);
    free(s->hi);
}

static void table_free(tf_report_table *t)
{
    for (size_t i = 0; t->head && i < t->ncols; i++)
        free(t->head[i]);
    for (size_t i = 0; t->cells && i < t->ncols * t->nrows; i++)
        free(t->cells[i]);
    free(t->head);
    free(t->cells);
    free(t->title);
    free(t->note);
}

static void page_free(tf_report_page *p)
{
    free(p->title);
    free(p->subtitle);
    for (size_t i = 0; i < p->nroutines; i++) {
        free(p->routines[i]);
        if (p->routine_files)
            free(p->routine_files[i]);
    }
    free(p->routines);
    free(p->routine_files);
    free(p->phases);
    free(p->code);
    free(p->code_missing);
    free(p->waiting);
    for (size_t i = 0; i < p->nobjects; i++) {
        free(p->objects[i].name);
        free(p->objects[i].kind);
    }
    free(p->objects);
    free(p->mem);
    free(p->mem_missing);
    for (size_t i = 0; i < p->nrates; i++)
        series_free(&p->rates[i]);
    free(p->rates);
    free(p->rates_unit);
    if (p->mips) {
        series_free(p->mips);
        free(p->mips);
    }
    free(p->rates_missing);
    for (size_t i = 0; i < p->ntotals; i++)
        free(p->totals[i].name);
    free(p->totals);
    for (int i = 0; i < TF_REPORT_NTABLES; i++)
        table_free(&p->tables[i]);
    free(p->instance_ns);
    free(p->instance_used);
}

void tf_report_free(tf_report *r)
{
    for (size_t i = 0; i < r->npages; i++)
        page_free(&r->pages[i]);
    free(r->pages);
    free(r->source);
    memset(r, 0, sizeof *r);
}

void tf_report_format_size(uint64_t bytes, char *buf, size_t len)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)bytes;
    size_t u = 0;
    while (v >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024.0;
        u++;
    }
    if (u == 0 || v >= 100.0)
        snprintf(buf, len, "%.0f %s", v, units[u]);
    else
        snprintf(buf, len, "%.3g %s", v, units[u]);
}

void tf_report_total_label(const tf_report_total *t, char *buf, size_t len)
{
    double v = t->per_iteration;
    if (!isfinite(v))
        snprintf(buf, len, "%s: no total", t->name);
    else if (fabs(v) < 1e9 && fabs(v - round(v)) < 0.05)
        snprintf(buf, len, "%s: %.0f per iteration", t->name, v);
    else
        snprintf(buf, len, "%s: %.4g per iteration", t->name, v);
}

double tf_report_series_mean(const tf_report_series *s, const double *values, double x0, double x1)
{
    double sum = 0;
    size_t n = 0, nearest = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (s->x[i] >= x0 && s->x[i] <= x1 && isfinite(values[i])) {
            sum += values[i];
            n++;
        }
        if (fabs(s->x[i] - (x0 + x1) / 2) < fabs(s->x[nearest] - (x0 + x1) / 2))
            nearest = i;
    }
    return n ? sum / (double)n : s->n ? values[nearest] : NAN;
}

const char *tf_report_level_name(unsigned level)
{
    switch (level) {
    case TF_LEVEL_UNCACHED: return "uncached";
    case TF_LEVEL_L1: return "L1";
    case TF_LEVEL_LFB: return "LFB";
    case TF_LEVEL_L2: return "L2";
    case TF_LEVEL_L3: return "L3";
    case TF_LEVEL_REMOTE_CACHE_1: return "remote cache (1 hop)";
    case TF_LEVEL_REMOTE_CACHE_2: return "remote cache (2 hops)";
    case TF_LEVEL_DRAM: return "DRAM";
    case TF_LEVEL_REMOTE_DRAM_1: return "remote DRAM (1 hop)";
    case TF_LEVEL_REMOTE_DRAM_2: return "remote DRAM (2 hops)";
    default: return "unknown";
    }
}

bool tf_report_phase_is_sub(const tf_report_phase *ph)
{
    return strchr(ph->label, '.') != NULL;
}

bool tf_report_phase_siblings(const tf_report_phase *a, const tf_report_phase *b)
{
    const char *da = strchr(a->label, '.'), *db = strchr(b->label, '.');
    return da && db && da - a->label == db - b->label && !strncmp(a->label, b->label, (size_t)(da - a->label));
}

static const char *routine_file(const tf_report_page *p, size_t i)
{
    const char *f = p->routine_files && p->routine_files[i] ? p->routine_files[i] : "";
    const char *slash = strrchr(f, '/');
    return slash ? slash + 1 : f;
}

void tf_report_routine_label(const tf_report_page *p, size_t i, char *buf, size_t len)
{
    const char *name = p->routines[i], *file = routine_file(p, i);
    /* Of the routines named alike: those before i, those of i's file
     * before i, and those of i's file in all. */
    unsigned alike = 0, before = 0, same_file = 0, same_file_before = 0;
    for (size_t j = 0; j < p->nroutines; j++) {
        if (j == i || strcmp(p->routines[j], name))
            continue;
        alike++;
        before += j < i;
        if (!strcmp(routine_file(p, j), file)) {
            same_file++;
            same_file_before += j < i;
        }
    }
    if (alike == 0)
        snprintf(buf, len, "%s", name);
    else if (!*file)
        snprintf(buf, len, "%s (%u)", name, before + 1);
    else if (same_file == 0)
        snprintf(buf, len, "%s (%s)", name, file);
    else
        snprintf(buf, len, "%s (%s, %u)", name, file, same_file_before + 1);
}

void tf_report_waiting_label(const tf_report_page *p, char *buf, size_t len)
{
    snprintf(buf, len, "waiting (barriers, MPI): %.0f %% of the samples", 100 * p->waiting_share);
}

double tf_report_waiting_height(size_t i)
{
    double f = (double)i * 0.6180339887498949;
    return 0.15 + 0.7 * (f - (double)(size_t)f);
}
