/* SPDX-License-Identifier: BSD-3-Clause */
/* Code-line progression: the synthetic iteration cut into equal windows;
 * in each, the routine with most code samples (the mode) and that
 * routine's most observed line.  The window count follows the sample count
 * so that each window holds about 25 samples: enough for a stable mode,
 * fine enough to place a phase boundary before refinement. */
#include "analysis_steps.h"

#include <stdlib.h>

#include "formats/trace.h"

static int by_value(const void *pa, const void *pb)
{
    uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
    return (x > y) - (x < y);
}

/* Counts in an open-addressing table (count 0: free), O(n): windows and
 * phases take the modes of millions of samples, and sorting them was a
 * tenth of the fold.  Values are routines and lines: few distinct ones. */
struct value_count {
    uint32_t value, n;
};

static size_t count_slot(const struct value_count *t, size_t cap, uint32_t v)
{
    size_t i = (size_t)((v * 0x9e3779b9u) & (cap - 1));
    while (t[i].n && t[i].value != v)
        i = (i + 1) & (cap - 1);
    return i;
}

/* The table of v's counts, its capacity in *cap; NULL when out of memory. */
static struct value_count *count_values(const uint32_t *v, size_t n, size_t *cap)
{
    size_t c = 256, used = 0;
    struct value_count *t = calloc(c, sizeof *t);
    for (size_t i = 0; t && i < n; i++) {
        size_t k = count_slot(t, c, v[i]);
        if (t[k].n++)
            continue;
        t[k].value = v[i];
        if (2 * ++used <= c)
            continue;
        struct value_count *bigger = calloc(2 * c, sizeof *t);
        for (size_t j = 0; bigger && j < c; j++)
            if (t[j].n)
                bigger[count_slot(bigger, 2 * c, t[j].value)] = t[j];
        free(t);
        t = bigger;
        c *= 2;
    }
    *cap = c;
    return t;
}

uint32_t tf_analysis_mode_u32(uint32_t *v, size_t n, size_t *count)
{
    uint32_t best = 0;
    size_t best_n = 0, cap;
    struct value_count *t = count_values(v, n, &cap);
    if (t) {
        for (size_t k = 0; k < cap; k++)
            if (t[k].n > best_n || (t[k].n && t[k].n == best_n && t[k].value < best)) {
                best_n = t[k].n;
                best = t[k].value;
            }
        free(t);
    } else {
        /* Out of memory for the table: the same mode by sorting. */
        qsort(v, n, sizeof *v, by_value);
        for (size_t i = 0, j; i < n; i = j) {
            for (j = i; j < n && v[j] == v[i]; j++)
                ;
            if (j - i > best_n) {
                best_n = j - i;
                best = v[i];
            }
        }
    }
    if (count)
        *count = best_n;
    return best;
}

int tf_analysis_progression(tf_analysis *a, const tf_analysis_params *p, bool timer_only, tf_error *err)
{
    size_t ncode = 0;
    for (size_t i = 0; i < a->nsamples; i++)
        ncode += tf_analysis_is_code_sample(&a->samples[i], timer_only);
    size_t w = p->windows;
    if (!w) {
        w = ncode / 25;
        w = w < 10 ? 10 : w > 500 ? 500 : w;
    }
    tf_analysis_window *win = calloc(w, sizeof *win);
    uint32_t *routines = malloc((ncode ? ncode : 1) * sizeof *routines);
    uint32_t *lines = malloc((ncode ? ncode : 1) * sizeof *lines);
    if (!win || !routines || !lines) {
        free(win);
        free(routines);
        free(lines);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for %zu code-line windows", w);
    }
    size_t i = 0;
    for (size_t k = 0; k < w; k++) {
        win[k].x0 = (double)k / (double)w;
        win[k].x1 = (double)(k + 1) / (double)w;
        win[k].routine = TF_ANALYSIS_NONE;
        size_t first = i, n = 0;
        while (i < a->nsamples && (a->samples[i].x < win[k].x1 || k + 1 == w)) {
            if (tf_analysis_is_code_sample(&a->samples[i], timer_only))
                routines[n++] = a->samples[i].routine;
            i++;
        }
        if (!n)
            continue;
        size_t top;
        uint32_t r = tf_analysis_mode_u32(routines, n, &top);
        size_t nl = 0;
        for (size_t j = first; j < i; j++) {
            const tf_analysis_sample *s = &a->samples[j];
            if (tf_analysis_is_code_sample(s, timer_only) && s->routine == r && s->line)
                lines[nl++] = s->line;
        }
        win[k].routine = r;
        win[k].line = tf_analysis_mode_u32(lines, nl, NULL);
        win[k].samples = n;
        win[k].share = (double)top / (double)n;
    }
    free(routines);
    free(lines);
    free(a->windows);
    a->windows = win;
    a->nwindows = w;
    return 0;
}
