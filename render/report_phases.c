/* SPDX-License-Identifier: BSD-3-Clause */
/* Phase spans and their routine[line] labels. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_phases.h"

/* Sort key of a code sample: span, routine, line. */
static uint64_t key(size_t span, uint32_t routine, uint32_t line)
{
    return (uint64_t)span << 48 | (uint64_t)(routine & 0xffffff) << 24 | (line & 0xffffff);
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static size_t span_of(const double *edge, size_t nspans, double x)
{
    size_t lo = 0, hi = nspans;   /* first span whose right edge is above x */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (edge[mid + 1] <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nspans ? lo : nspans - 1;
}

int tf_report_phases_derive(tf_report_page *p, const double *bounds, size_t nbounds,
                            tf_error *err)
{
    size_t nspans = 1;
    double *edge = malloc((nbounds + 2) * sizeof *edge);
    uint64_t *keys = malloc((p->ncode ? p->ncode : 1) * sizeof *keys);
    tf_report_phase *ph = malloc((nbounds + 1) * sizeof *ph);
    if (!edge || !keys || !ph) {
        free(edge);
        free(keys);
        free(ph);
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for %zu phases", nbounds + 1);
    }
    edge[0] = 0;
    for (size_t i = 0; i < nbounds; i++)
        if (bounds[i] > edge[nspans - 1] && bounds[i] < 1)
            edge[nspans++] = bounds[i];
    edge[nspans] = 1;
    for (size_t i = 0; i < p->ncode; i++)
        keys[i] = key(span_of(edge, nspans, p->code[i].x), p->code[i].routine, p->code[i].line);
    qsort(keys, p->ncode, sizeof *keys, u64_cmp);

    /* Per span: the routine with most samples, then its most frequent line. */
    size_t i = 0, nph = 0;
    for (size_t s = 0; s < nspans; s++) {
        uint32_t best_routine = TF_REPORT_NONE, best_line = 0;
        size_t best_routine_n = 0;
        while (i < p->ncode && keys[i] >> 48 == s) {
            uint32_t routine = (uint32_t)(keys[i] >> 24 & 0xffffff);
            size_t routine_n = 0, line_n = 0;
            uint32_t line = 0;
            while (i < p->ncode && keys[i] >> 24 == key(s, routine, 0) >> 24) {
                size_t j = i;
                while (j < p->ncode && keys[j] == keys[i])
                    j++;
                if (j - i > line_n) {
                    line_n = j - i;
                    line = (uint32_t)(keys[i] & 0xffffff);
                }
                routine_n += j - i;
                i = j;
            }
            if (routine_n > best_routine_n) {
                best_routine_n = routine_n;
                best_routine = routine;
                best_line = line;
            }
        }
        if (nph > 0 && best_routine != TF_REPORT_NONE && ph[nph - 1].routine == best_routine && ph[nph - 1].line == best_line) {
            ph[nph - 1].x1 = edge[s + 1];
            continue;
        }
        ph[nph++] = (tf_report_phase){.x0 = edge[s], .x1 = edge[s + 1], .routine = best_routine,
                                      .line = best_line, .bandwidth = NAN};
    }
    free(edge);
    free(keys);
    free(p->phases);
    p->phases = ph;
    p->nphases = nph;
    return 0;
}

void tf_report_phase_label(const tf_report_page *page, const tf_report_phase *ph, char *buf,
                           size_t len)
{
    const char *name = page->routines[ph->routine];
    if (ph->line)
        snprintf(buf, len, "%s[%u]", name, ph->line);
    else
        snprintf(buf, len, "%s", name);
}

/* Whether phase i gets a label: it has a routine and is not labelled like
 * the one before it (split there by a rate change: it keeps its boundary
 * line but not a second label). */
static bool labelled(const tf_report_page *page, size_t i)
{
    const tf_report_phase *ph = &page->phases[i];
    return ph->routine < page->nroutines
        && !(i > 0 && page->phases[i - 1].routine == ph->routine
             && page->phases[i - 1].line == ph->line);
}

void tf_report_phase_labels_choose(const tf_report_page *page, unsigned max, bool *keep)
{
    size_t n = 0;
    for (size_t i = 0; i < page->nphases; i++)
        n += keep[i] = labelled(page, i);
    if (max == 0 || n <= max)
        return;
    for (size_t i = 1; i < page->nphases && n > max; i++)
        if (keep[i] && tf_report_phase_siblings(&page->phases[i - 1], &page->phases[i])) {
            keep[i] = false;
            n--;
        }
    while (n > max) {
        size_t narrowest = SIZE_MAX;
        for (size_t i = 0; i < page->nphases; i++)
            if (keep[i] && (narrowest == SIZE_MAX
                            || page->phases[i].x1 - page->phases[i].x0
                                   < page->phases[narrowest].x1 - page->phases[narrowest].x0))
                narrowest = i;
        keep[narrowest] = false;
        n--;
    }
}
