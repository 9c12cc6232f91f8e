/* SPDX-License-Identifier: BSD-3-Clause */
/* Bands and segments of the source-line axis. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "line_axis.h"
#include "common/tf_array.h"
#include "common/tf_hash.h"

/* Share of the panel between two segments of one file, and above each
 * file's band when there are several (wider: the strip that holds the
 * file's name and marks a break between files, not within one). */
#define SEGMENT_GAP 0.04
#define BAND_GAP 0.07
/* A gap between line clusters of one file is cut when it is longer than
 * this many lines and than twice the larger of the two clusters. */
#define MIN_CUT 40
/* A routine's sampled lines further apart than this make two ranges
 * (a line inlined from far away in its file). */
#define SPLIT 160
/* Clusters under 1 % of the samples are not drawn, as long as those not
 * drawn hold at most 5 % together (1/100 and 1/20). */
#define DROP_SHARE 100
#define DROP_TOTAL 20
/* A file name longer than this would not fit along the axis. */
#define AXIS_TITLE_FILE_MAX 40

/* Lines of one file: a routine's range, then a cluster of them. */
typedef struct range {
    size_t   file;
    uint32_t lo, hi;
    size_t   samples;
    bool     drawn;
} range;

/* Samples of one (routine << 32 | line); n = 0: an empty slot. */
typedef struct line_count {
    uint64_t key;
    size_t   n;
} line_count;

static int line_count_cmp(const void *a, const void *b)
{
    uint64_t x = ((const line_count *)a)->key, y = ((const line_count *)b)->key;
    return x < y ? -1 : x > y;
}

static int range_cmp(const void *a, const void *b)
{
    const range *x = a, *y = b;
    if (x->file != y->file)
        return x->file < y->file ? -1 : 1;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The workspace of one build. */
typedef struct build {
    const tf_report_page *page;
    size_t       nr;              /* routines, plus one for an unknown routine */
    size_t      *file_of;         /* per routine: index in files */
    const char **files;           /* full names as the fold gives them */
    size_t       nfiles;
    range       *r;
    size_t       n, cap;
} build;

static const char *routine_path(const tf_report_page *p, size_t i)
{
    return i < p->nroutines && p->routine_files && p->routine_files[i] ? p->routine_files[i] : "";
}

/* Files numbered in order of first routine. */
static void number_files(build *b)
{
    for (size_t i = 0; i < b->nr; i++) {
        const char *f = routine_path(b->page, i);
        size_t k = 0;
        while (k < b->nfiles && strcmp(b->files[k], f))
            k++;
        if (k == b->nfiles)
            b->files[b->nfiles++] = f;
        b->file_of[i] = k;
    }
}

static int add_range(build *b, size_t routine, uint32_t line, size_t count, tf_error *err)
{
    range *nr = tf_array_room(b->r, b->n, &b->cap, sizeof *nr, 64);
    if (!nr)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for %zu line ranges", b->n + 1);
    b->r = nr;
    b->r[b->n++] = (range){b->file_of[routine], line, line, count, true};
    return 0;
}

/* Into slot table t (cap a power of two): key's slot, by linear probing. */
static line_count *slot(line_count *t, size_t cap, uint64_t key)
{
    size_t h = (size_t)tf_mix64(key) & (cap - 1);
    while (t[h].n && t[h].key != key)
        h = (h + 1) & (cap - 1);
    return &t[h];
}

/* The samples of each (routine, line) of the page, sorted by routine then
 * line, into *out (*nout of them).  Counted in a hash table, kept at most
 * half full, rather than by sorting every point: a page has a million
 * points but a few thousand lines. */
static int count_lines(const tf_report_page *p, line_count **out, size_t *nout, tf_error *err)
{
    size_t cap = 1024, used = 0;
    line_count *t = calloc(cap, sizeof *t);
    for (size_t i = 0; t && i < p->ncode; i++) {
        uint64_t r = p->code[i].routine < p->nroutines ? p->code[i].routine : p->nroutines;
        uint64_t key = r << 32 | p->code[i].line;
        line_count *c = slot(t, cap, key);
        if (c->n == 0) {
            c->key = key;
            used++;
        }
        c->n++;
        if (2 * used <= cap)
            continue;
        line_count *bigger = calloc(2 * cap, sizeof *bigger);
        for (size_t k = 0; bigger && k < cap; k++)
            if (t[k].n)
                *slot(bigger, 2 * cap, t[k].key) = t[k];
        free(t);
        t = bigger;
        cap *= 2;
    }
    if (!t)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for the lines of %zu code points",
                       p->ncode);
    size_t n = 0;
    for (size_t k = 0; k < cap; k++)
        if (t[k].n)
            t[n++] = t[k];
    qsort(t, n, sizeof *t, line_count_cmp);
    *out = t;
    *nout = n;
    return 0;
}

/* Each routine's sampled lines as ranges, cut where they lie more than
 * SPLIT lines apart. */
static int routine_ranges(build *b, tf_error *err)
{
    line_count *lc = NULL;
    size_t n = 0;
    if (count_lines(b->page, &lc, &n, err) < 0)
        return -err->code;
    int rc = 0;
    size_t last_routine = SIZE_MAX;
    for (size_t i = 0; i < n && rc == 0; i++) {
        size_t routine = (size_t)(lc[i].key >> 32);
        uint32_t line = (uint32_t)lc[i].key;
        range *cur = b->n ? &b->r[b->n - 1] : NULL;
        if (routine == last_routine && line - cur->hi <= SPLIT) {
            cur->hi = line;
            cur->samples += lc[i].n;
        } else {
            rc = add_range(b, routine, line, lc[i].n, err);
        }
        last_routine = routine;
    }
    free(lc);
    return rc;
}

/* Ranges of one file that overlap or lie close joined into clusters, in
 * place. */
static void cluster(build *b)
{
    qsort(b->r, b->n, sizeof *b->r, range_cmp);
    size_t n = 0;
    for (size_t i = 0; i < b->n; i++) {
        if (n > 0 && b->r[n - 1].file == b->r[i].file) {
            range *last = &b->r[n - 1];
            uint32_t gap = b->r[i].lo > last->hi ? b->r[i].lo - last->hi : 0;
            uint32_t big = last->hi - last->lo > b->r[i].hi - b->r[i].lo ? last->hi - last->lo
                                                                         : b->r[i].hi - b->r[i].lo;
            if (gap <= MIN_CUT || gap <= 2 * big) {
                last->hi = b->r[i].hi > last->hi ? b->r[i].hi : last->hi;
                last->samples += b->r[i].samples;
                continue;
            }
        }
        b->r[n++] = b->r[i];
    }
    b->n = n;
}

typedef struct sized {
    size_t samples, index;
} sized;

static int sized_cmp(const void *a, const void *b)
{
    const sized *x = a, *y = b;
    return x->samples < y->samples ? -1 : x->samples > y->samples;
}

/* Clusters under 1 % of the samples not drawn, smallest first, while
 * those not drawn hold at most 5 %; the busiest is always drawn. */
static int drop_small(build *b, size_t total, tf_error *err)
{
    sized *order = malloc(b->n * sizeof *order);
    if (!order)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for %zu line clusters", b->n);
    for (size_t i = 0; i < b->n; i++)
        order[i] = (sized){b->r[i].samples, i};
    qsort(order, b->n, sizeof *order, sized_cmp);
    size_t dropped = 0;
    for (size_t k = 0; k + 1 < b->n; k++) {
        range *c = &b->r[order[k].index];
        if (c->samples * DROP_SHARE >= total || (dropped + c->samples) * DROP_TOTAL > total)
            break;
        c->drawn = false;
        dropped += c->samples;
    }
    free(order);
    return 0;
}

/* The files with drawn lines, busiest first, get the bands; file_n is
 * room for a count per file. */
static void choose_bands(build *b, tf_line_axis *a, size_t *band_of_file, size_t *file_n)
{
    for (size_t f = 0; f < b->nfiles; f++) {
        band_of_file[f] = SIZE_MAX;
        file_n[f] = 0;
    }
    for (size_t i = 0; i < b->n; i++)
        file_n[b->r[i].file] += b->r[i].drawn ? b->r[i].samples : 0;
    for (size_t k = 0; k < TF_LINE_BANDS_MAX; k++) {
        size_t best = SIZE_MAX;
        for (size_t f = 0; f < b->nfiles; f++)
            if (band_of_file[f] == SIZE_MAX && file_n[f] > 0
                && (best == SIZE_MAX || file_n[f] > file_n[best]))
                best = f;
        if (best == SIZE_MAX)
            break;
        band_of_file[best] = k;
        a->band[k] = (tf_line_band){base_name(b->files[best]), 0, 0, 0, 0, 0, file_n[best]};
        a->nbands = k + 1;
    }
    for (size_t i = 0; i < b->n; i++)
        if (band_of_file[b->r[i].file] == SIZE_MAX)
            b->r[i].drawn = false;
    /* Two files of one name in different directories: titled with their
     * paths, or the two bands would read as one file. */
    for (size_t f = 0; f < b->nfiles; f++) {
        size_t k = band_of_file[f];
        for (size_t g = 0; k != SIZE_MAX && g < b->nfiles; g++)
            if (g != f && band_of_file[g] != SIZE_MAX
                && !strcmp(base_name(b->files[g]), base_name(b->files[f])))
                a->band[k].file = b->files[f];
    }
}

static int u32_desc(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x > y ? -1 : x < y;
}

/* Segments, band after band: the drawn clusters of a band, joined across
 * all but its widest gaps when they are more than the axis has room for.
 * Clusters not drawn that a joined segment spans are drawn after all. */
static int make_segments(build *b, tf_line_axis *a, const size_t *band_of_file, tf_error *err)
{
    /* Gaps between consecutive drawn clusters of one band. */
    uint32_t *gaps = malloc((b->n ? b->n : 1) * sizeof *gaps);
    if (!gaps)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for %zu line gaps", b->n);
    size_t ngaps = 0;
    for (size_t bi = 0; bi < a->nbands; bi++) {
        const range *prev = NULL;
        for (size_t i = 0; i < b->n; i++) {
            const range *c = &b->r[i];
            if (!c->drawn || band_of_file[c->file] != bi)
                continue;
            if (prev)
                gaps[ngaps++] = c->lo - prev->hi;
            prev = c;
        }
    }
    qsort(gaps, ngaps, sizeof *gaps, u32_desc);
    /* Cut at the widest gaps (at most `cuts` of them, ties in order). */
    size_t cuts = TF_LINE_SEGMENTS_MAX - a->nbands, made = 0;
    uint32_t cut_at = cuts == 0 || ngaps <= cuts ? 0 : gaps[cuts - 1];
    a->n = 0;
    for (size_t bi = 0; bi < a->nbands; bi++) {
        a->band[bi].seg0 = a->n;
        tf_line_segment *s = NULL;
        for (size_t i = 0; i < b->n; i++) {
            const range *c = &b->r[i];
            if (!c->drawn || band_of_file[c->file] != bi)
                continue;
            if (s && (made >= cuts || c->lo - s->last < cut_at)) {
                s->last = c->hi;
                continue;
            }
            if (s)
                made++;
            s = &a->seg[a->n++];
            *s = (tf_line_segment){0, 0, 0, 0, c->lo, c->hi, bi};
        }
        a->band[bi].nseg = a->n - a->band[bi].seg0;
    }
    free(gaps);
    /* Clusters inside a joined segment are drawn with it. */
    for (size_t i = 0; i < b->n; i++) {
        range *c = &b->r[i];
        size_t bi = band_of_file[c->file];
        if (c->drawn || bi == SIZE_MAX)
            continue;
        for (size_t k = a->band[bi].seg0; k < a->band[bi].seg0 + a->band[bi].nseg; k++)
            if (c->lo >= a->seg[k].first && c->hi <= a->seg[k].last)
                c->drawn = true;
    }
    return 0;
}

/* Heights: half equal shares, half by line span; a narrow gap between
 * segments of one file, a wider one between files. */
static void heights(tf_line_axis *a)
{
    double span[TF_LINE_SEGMENTS_MAX], total = 0;
    for (size_t i = 0; i < a->n; i++) {
        tf_line_segment *s = &a->seg[i];
        double pad = 0.06 * (s->last - s->first) + 1.5;
        s->lo = s->first - pad;
        s->hi = s->last + pad;
        span[i] = s->hi - s->lo;
        total += span[i];
    }
    double strips = a->nbands > 1 ? (double)a->nbands : 0;
    double avail = 1.0 - SEGMENT_GAP * (double)(a->n - a->nbands) - BAND_GAP * strips;
    double top = 1.0;
    for (size_t i = 0; i < a->n; i++) {
        tf_line_segment *s = &a->seg[i];
        if (i == 0 || s->band != a->seg[i - 1].band)
            top -= strips > 0 ? BAND_GAP : 0;
        else
            top -= SEGMENT_GAP;
        double h = avail * (0.5 / (double)a->n + 0.5 * span[i] / total);
        s->y1 = top;
        s->y0 = top - h;
        top -= h;
    }
    for (size_t bi = 0; bi < a->nbands; bi++) {
        tf_line_band *band = &a->band[bi];
        band->y1 = a->seg[band->seg0].y1;
        band->title_y1 = band->y1 + (strips > 0 ? BAND_GAP : 0);
        band->y0 = a->seg[band->seg0 + band->nseg - 1].y0;
    }
}

static void dropped_add(tf_line_axis *a, const tf_line_dropped *d)
{
    a->dropped_samples += d->samples;
    size_t k = a->ndropped < TF_LINE_DROPPED_MAX ? a->ndropped : TF_LINE_DROPPED_MAX;
    while (k > 0 && a->dropped[k - 1].samples < d->samples) {
        if (k < TF_LINE_DROPPED_MAX)
            a->dropped[k] = a->dropped[k - 1];
        k--;
    }
    if (k < TF_LINE_DROPPED_MAX)
        a->dropped[k] = *d;
    a->ndropped++;
}

/* Lines not drawn, per file (the clusters are in file order), busiest
 * first. */
static void list_dropped(const build *b, tf_line_axis *a)
{
    tf_line_dropped d = {0};
    size_t file = SIZE_MAX;
    for (size_t i = 0; i < b->n; i++) {
        const range *c = &b->r[i];
        if (c->drawn)
            continue;
        if (c->file != file) {
            if (d.samples)
                dropped_add(a, &d);
            file = c->file;
            d = (tf_line_dropped){base_name(b->files[file]), c->lo, c->hi, 0};
        }
        d.last = c->hi;
        d.samples += c->samples;
    }
    if (d.samples)
        dropped_add(a, &d);
}

int tf_line_axis_build(const tf_report_page *p, tf_line_axis *a, tf_error *err)
{
    memset(a, 0, sizeof *a);
    a->total = p->ncode;
    if (p->ncode == 0)
        return 0;
    build b = {.page = p, .nr = p->nroutines + 1};
    b.file_of = malloc(b.nr * sizeof *b.file_of);
    b.files = malloc(b.nr * sizeof *b.files);
    a->routine_band = malloc(b.nr * sizeof *a->routine_band);
    size_t *band_of_file = malloc(b.nr * sizeof *band_of_file);
    size_t *file_n = malloc(b.nr * sizeof *file_n);
    int rc = 0;
    if (!b.file_of || !b.files || !a->routine_band || !band_of_file || !file_n) {
        rc = tf_fail(err, TF_ERR_NOMEM, "report: no memory for the files of %zu routines", b.nr);
        goto done;
    }
    a->nroutines = b.nr;
    number_files(&b);
    if ((rc = routine_ranges(&b, err)) < 0)
        goto done;
    cluster(&b);
    if ((rc = drop_small(&b, p->ncode, err)) < 0)
        goto done;
    choose_bands(&b, a, band_of_file, file_n);
    if ((rc = make_segments(&b, a, band_of_file, err)) < 0)
        goto done;
    heights(a);
    list_dropped(&b, a);
    for (size_t i = 0; i < b.nr; i++)
        a->routine_band[i] = band_of_file[b.file_of[i]];
done:
    free(file_n);
    free(band_of_file);
    free(b.file_of);
    free(b.files);
    free(b.r);
    if (rc < 0)
        tf_line_axis_free(a);
    return rc;
}

void tf_line_axis_free(tf_line_axis *a)
{
    free(a->routine_band);
    a->routine_band = NULL;
    a->nroutines = 0;
}

double tf_line_axis_place(const tf_line_axis *a, const tf_report_code_point *pt)
{
    if (a->nroutines == 0)
        return -1;
    size_t r = pt->routine < a->nroutines - 1 ? pt->routine : a->nroutines - 1;
    size_t bi = a->routine_band[r];
    if (bi == SIZE_MAX)
        return -1;
    const tf_line_band *band = &a->band[bi];
    for (size_t i = band->seg0; i < band->seg0 + band->nseg; i++) {
        const tf_line_segment *s = &a->seg[i];
        if (pt->line >= s->first && pt->line <= s->last)
            return s->y1 - (pt->line - s->lo) / (s->hi - s->lo) * (s->y1 - s->y0);
    }
    return -1;
}

void tf_line_axis_title(const tf_line_axis *a, char *buf, size_t len)
{
    const char *file = a->nbands == 1 ? a->band[0].file : "";
    if (*file && strlen(file) <= AXIS_TITLE_FILE_MAX)
        snprintf(buf, len, "source line in %s", file);
    else
        snprintf(buf, len, "source line");
}

bool tf_line_axis_dropped_note(const tf_line_axis *a, char *buf, size_t len)
{
    *buf = '\0';
    if (a->ndropped == 0)
        return false;
    size_t used = (size_t)snprintf(buf, len, "not drawn (samples):");
    size_t shown = a->ndropped < TF_LINE_DROPPED_MAX ? a->ndropped : TF_LINE_DROPPED_MAX;
    size_t rest = a->dropped_samples;
    for (size_t i = 0; i < shown && used < len; i++) {
        const tf_line_dropped *d = &a->dropped[i];
        const char *name = *d->file ? d->file : "unknown file";
        if (d->first == d->last)
            used += (size_t)snprintf(buf + used, len - used, "%s %s:%u (%zu)", i ? ";" : "",
                                     name, d->first, d->samples);
        else
            used += (size_t)snprintf(buf + used, len - used, "%s %s:%u-%u (%zu)", i ? ";" : "",
                                     name, d->first, d->last, d->samples);
        rest -= d->samples;
    }
    if (a->ndropped > shown && used < len)
        snprintf(buf + used, len - used, "; %zu other files (%zu)", a->ndropped - shown, rest);
    return true;
}
