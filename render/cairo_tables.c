/* SPDX-License-Identifier: BSD-3-Clause */
/* The second page: the phase table, the memory-hierarchy table, the top
 * data objects, the access streams, and the histogram of instance
 * durations (used instances and those the outlier filter excluded). */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "axis_ticks.h"
#include "cairo_axes.h"
#include "cairo_legend.h"
#include "time_units.h"

/* The side margin of the default page; narrower pages narrow it in
 * proportion, down to MARGIN_MIN. */
#define MARGIN_DEFAULT 40.0
#define MARGIN_MIN 12.0
#define ROW_H 10.5
#define COL_GAP 10.0
#define COL_MAX 170.0
#define TABLE_GAP 14.0
/* The lowest the histogram starts: the tables may use the page down to
 * it, leaving the bottom for the key. */
#define KEY_ROOM 30.0
#define HIST_H 100.0
/* The histogram with its head and axis title; the numbered key of
 * shortened texts follows. */
#define HIST_BLOCK (18 + HIST_H + 24)


/* The tables page's histogram starts at most this low; shrink more room
 * left for the key below it. */
static double hist_top(const tf_text *text, double shrink)
{
    return text->page_h - KEY_ROOM - HIST_BLOCK - shrink;
}

static double margin(const tf_text *text)
{
    return fmax(MARGIN_MIN, fmin(MARGIN_DEFAULT, MARGIN_DEFAULT * text->page_w / TF_PAGE_WIDTH));
}

static void rule(cairo_t *cr, double x0, double x1, double y, double width)
{
    cairo_set_source_rgb(cr, tf_ink.r, tf_ink.g, tf_ink.b);
    cairo_set_line_width(cr, width);
    cairo_move_to(cr, x0, y);
    cairo_line_to(cr, x1, y);
    cairo_stroke(cr);
}

static bool numeric(const char *s)
{
    return s && (isdigit((unsigned char)s[0]) || ((s[0] == '-' || s[0] == '+') &&
                                                  isdigit((unsigned char)s[1])));
}

/* The fold's CSV file that holds every row of each table (fold.md). */
static const char *const table_csv[TF_REPORT_NTABLES] = {
    [TF_REPORT_TABLE_PHASES] = "phases.csv", [TF_REPORT_TABLE_LEVELS] = "levels.csv",
    [TF_REPORT_TABLE_OBJECTS] = "objects.csv", [TF_REPORT_TABLE_STREAMS] = "streams.csv",
    [TF_REPORT_TABLE_ADVICE] = "advice.csv",
};

/* Draws table k from y within height; returns the y below it. */
static double table(tf_text *text, const tf_report_table *t, int k, double y, double height)
{
    cairo_t *cr = text->cr;
    double m = margin(text), width = text->page_w - 2 * m, bottom = y + height;
    tf_rect r = tf_text_draw(text, TF_FONT_HEAD, t->title ? t->title : "", m, y, 0, 0, width,
                             tf_ink);
    y += r.h + 2;
    if (t->note) {
        r = tf_text_draw(text, TF_FONT_NOTE, t->note, m, y, 0, 0, width,
                         (tf_rgb){0.35, 0.35, 0.35});
        y += r.h + 2;
    }
    if (t->ncols == 0 || t->nrows == 0) {
        if (!t->note) {
            r = tf_text_draw(text, TF_FONT_NOTE, "no data", m, y, 0, 0, 0,
                             (tf_rgb){0.35, 0.35, 0.35});
            y += r.h + 2;
        }
        return y;
    }
    double *colw = calloc(t->ncols, sizeof *colw);
    if (!colw)
        return y;
    for (size_t c = 0; c < t->ncols; c++) {
        for (size_t row = 0; row <= t->nrows; row++) {
            const char *s = row == 0 ? t->head[c] : t->cells[(row - 1) * t->ncols + c];
            r = tf_text_box(text, row ? TF_FONT_LABEL : TF_FONT_HEAD, s ? s : "", 0, 0, 0, 0, 0);
            colw[c] = r.w > colw[c] ? r.w : colw[c];
        }
    }
    /* Too wide: only the widest columns give way (a cap found by
     * bisection), so that short headings and numbers stay whole and the
     * long names are shortened in the middle with their key. */
    double gaps = COL_GAP * (double)(t->ncols - 1), lo = 0, hi = COL_MAX;
    for (int i = 0; i < 30; i++) {
        double cap = (lo + hi) / 2, sum = gaps;
        for (size_t c = 0; c < t->ncols; c++)
            sum += colw[c] < cap ? colw[c] : cap;
        *(sum <= width ? &lo : &hi) = cap;
    }
    double total = gaps;
    for (size_t c = 0; c < t->ncols; c++) {
        colw[c] = colw[c] < lo ? colw[c] : lo;
        total += colw[c];
    }
    double right = m + total;
    /* Rows after the heading row; the last one left for "... N more rows"
     * when they do not all fit. */
    size_t fit = (size_t)fmax(0, floor((bottom - y - 4 - (ROW_H + 1)) / (ROW_H + 1)));
    size_t shown = t->nrows <= fit ? t->nrows : (fit > 0 ? fit - 1 : 0);
    rule(cr, m, right, y, 0.8);
    for (size_t row = 0; row <= shown; row++) {
        double x = m, cy = y + 1 + ROW_H / 2;
        for (size_t c = 0; c < t->ncols; c++) {
            const char *s = row == 0 ? t->head[c] : t->cells[(row - 1) * t->ncols + c];
            bool num = numeric(t->nrows ? t->cells[c] : NULL);
            tf_text_draw(text, row ? TF_FONT_LABEL : TF_FONT_HEAD, s ? s : "", num ? x + colw[c] : x,
                         cy, num ? 1 : 0, 0.5, colw[c], tf_ink);
            x += colw[c] + COL_GAP;
        }
        y += ROW_H + 1;
        if (row == 0)
            rule(cr, m, right, y, 0.4);
    }
    rule(cr, m, right, y + 1, 0.8);
    y += 3;
    if (shown < t->nrows) {
        char buf[96];
        snprintf(buf, sizeof buf, "%zu more rows: all in %s beside fold.h5", t->nrows - shown,
                 table_csv[k]);
        r = tf_text_draw(text, TF_FONT_NOTE, buf, m, y, 0, 0, 0, tf_ink);
        y += r.h;
    }
    free(colw);
    return y;
}

/* The height t takes with at most `rows` of its rows (and the line
 * counting the others). */
static double table_height(tf_text *text, const tf_report_table *t, size_t rows)
{
    double m = margin(text), width = text->page_w - 2 * m;
    double h = tf_text_box(text, TF_FONT_HEAD, t->title ? t->title : "", 0, 0, 0, 0, width).h + 2;
    if (t->note)
        h += tf_text_box(text, TF_FONT_NOTE, t->note, 0, 0, 0, 0, width).h + 2;
    if (t->ncols == 0 || t->nrows == 0)
        return h + (t->note ? 0 : tf_text_box(text, TF_FONT_NOTE, "no data", 0, 0, 0, 0, 0).h + 2);
    size_t n = t->nrows < rows ? t->nrows : rows;
    return h + (double)(n + 1 + (n < t->nrows)) * (ROW_H + 1) + 4;
}

static void histogram(tf_text *text, const tf_report_page *page, double top, tf_claims *claims)
{
    double m = margin(text);
    tf_rect plot = {m + 40, top + 18, text->page_w - 2 * m - 50, HIST_H};
    /* On a narrow page the legend takes the page's width and two rows (it
     * has no page to go on to). */
    bool narrow = text->page_w < TF_PAGE_WIDTH;
    tf_rect head = narrow ? (tf_rect){m, top, text->page_w - 2 * m, 18} : (tf_rect){plot.x, top, plot.w, 14};
    tf_panel p = {text->cr, text, page, head, plot, claims, NULL};
    size_t nused = 0;
    for (size_t i = 0; i < page->ninstances; i++)
        nused += page->instance_used[i];
    /* As gnuplot's colour_used and colour_excluded: Okabe–Ito blue and
     * vermillion, or two greys. */
    const tf_rgb used_colour = tf_palette_routine(0), excluded_colour = tf_palette_routine(5);
    tf_legend l;
    tf_legend_begin(&l, &p, "Instance durations");
    char buf[64];
    snprintf(buf, sizeof buf, "used (%zu)", nused);
    tf_legend_add(&l, TF_SWATCH_BOX, used_colour, buf);
    snprintf(buf, sizeof buf, "excluded (%zu)", page->ninstances - nused);
    tf_legend_add(&l, TF_SWATCH_BOX, excluded_colour, buf);
    tf_legend_end(&l);
    if (page->ninstances == 0) {
        tf_axes_missing(&p, "no instance durations in this fold");
        tf_axes_frame(text->cr, plot);
        return;
    }
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < page->ninstances; i++)
        hi = fmax(hi, page->instance_ns[i]);
    tf_time_unit u = tf_time_unit_for(hi);
    for (size_t i = 0; i < page->ninstances; i++)
        lo = fmin(lo, page->instance_ns[i] / u.ns);
    hi /= u.ns;
    tf_range_pad(&lo, &hi, 0.02);
    enum { MAXBINS = 60 };
    size_t nbins = (size_t)ceil(sqrt((double)page->ninstances) * 2);
    nbins = nbins < 8 ? 8 : nbins > MAXBINS ? MAXBINS : nbins;
    size_t used[MAXBINS] = {0}, excluded[MAXBINS] = {0}, highest = 1;
    for (size_t i = 0; i < page->ninstances; i++) {
        size_t b = (size_t)((page->instance_ns[i] / u.ns - lo) / (hi - lo) * (double)nbins);
        b = b >= nbins ? nbins - 1 : b;
        (page->instance_used[i] ? used : excluded)[b]++;
    }
    for (size_t b = 0; b < nbins; b++)
        highest = used[b] + excluded[b] > highest ? used[b] + excluded[b] : highest;
    double bw = plot.w / (double)nbins, ymax = (double)highest * 1.08;
    cairo_t *cr = text->cr;
    for (size_t b = 0; b < nbins; b++) {
        /* A bin with any instance stays visible next to the tallest. */
        double h_used = used[b] ? fmax(1.5, plot.h * (double)used[b] / ymax) : 0;
        double h_ex = excluded[b] ? fmax(1.5, plot.h * (double)excluded[b] / ymax) : 0;
        double x = plot.x + (double)b * bw, base = plot.y + plot.h;
        cairo_set_source_rgb(cr, used_colour.r, used_colour.g, used_colour.b);
        cairo_rectangle(cr, x + 0.4, base - h_used, bw - 0.8, h_used);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, excluded_colour.r, excluded_colour.g, excluded_colour.b);
        cairo_rectangle(cr, x + 0.4, base - h_used - h_ex, bw - 0.8, h_ex);
        cairo_fill(cr);
    }
    tf_axes_value(&p, TF_AXIS_LEFT, 0, ymax, false, "instances");
    /* The duration axis is not the shared time axis: its own ticks. */
    tf_ticks t;
    tf_ticks_compute(lo, hi, 8, &t);
    for (size_t i = 0; i < t.n; i++) {
        double x = plot.x + (t.value[i] - lo) / (hi - lo) * plot.w;
        snprintf(buf, sizeof buf, "%.*f", t.decimals, t.value[i]);
        cairo_move_to(cr, x, plot.y + plot.h);
        cairo_line_to(cr, x, plot.y + plot.h - 3);
        cairo_set_line_width(cr, 0.6);
        cairo_stroke(cr);
        /* Not over the value axis's 0 at the corner. */
        tf_rect r = tf_text_box(text, TF_FONT_TICK, buf, x, plot.y + plot.h + 2, 0.5, 0, 0);
        if (tf_claims_take(claims, r))
            tf_text_draw(text, TF_FONT_TICK, buf, x, plot.y + plot.h + 2, 0.5, 0, 0, tf_ink);
    }
    snprintf(buf, sizeof buf, "instance duration [%s]", u.name);
    tf_text_draw(text, TF_FONT_LABEL, buf, plot.x + plot.w / 2,
                 plot.y + plot.h + 13, 0.5, 0, 0, tf_ink);
    tf_axes_frame(cr, plot);
}

static int tables_draw(cairo_t *cr, const void *arg, const tf_page_ctx *ctx, double shrink,
                       double *bottom, tf_error *err)
{
    const tf_report_page *page = arg;
    tf_text text;
    if (tf_page_begin(cr, &text, ctx, err) < 0)
        return -err->code;
    double m = margin(&text);
    char title[256];
    snprintf(title, sizeof title, "%s: phases, memory, objects, streams", page->title ? page->title : "folded region");
    tf_page_panel(&text, "title", (tf_rect){0, 0, text.page_w, 46});
    tf_page_header(&text, (tf_rect){m, 8, text.page_w - 2 * m, 32}, title,
                   page->subtitle);
    double y = 48;
    tf_page_panel(&text, "tables", (tf_rect){0, 47, text.page_w, hist_top(&text, shrink) - 47});
    /* Each table as tall as it needs when all fit, else its share of the
     * room in proportion to its need (rows that do not fit are counted).
     * On a small page, the tables that do not fit with a row or two are
     * named in a note instead: all their rows are in their CSV files. */
    double need[TF_REPORT_NTABLES] = {0}, least[TF_REPORT_NTABLES], floor = 0;
    double note_h = 2 * tf_text_box(&text, TF_FONT_NOTE, "x", 0, 0, 0, 0, 0).h + TABLE_GAP;
    double room = hist_top(&text, shrink) - y - note_h;
    bool shown[TF_REPORT_NTABLES];
    char missing[160] = "";
    size_t mlen = 0;
    for (int i = 0; i < TF_REPORT_NTABLES; i++) {
        least[i] = table_height(&text, &page->tables[i], 2);
        shown[i] = floor + least[i] + TABLE_GAP <= room;
        if (shown[i]) {
            floor += least[i] + TABLE_GAP;
            need[i] = table_height(&text, &page->tables[i], page->tables[i].nrows);
        } else {
            mlen += (size_t)snprintf(missing + mlen, sizeof missing - mlen, "%s%s",
                                     mlen ? ", " : "", table_csv[i]);
        }
    }
    if (!mlen)
        room += note_h;
    /* Each shown table gets its least height and a share of the rest in
     * proportion to what more it needs. */
    double spare = room - floor, extra = 0;
    for (int i = 0; i < TF_REPORT_NTABLES; i++)
        if (shown[i])
            extra += fmax(0, need[i] - least[i]);
    double f = extra > spare ? spare / extra : 1;
    for (int i = 0; i < TF_REPORT_NTABLES; i++)
        if (shown[i])
            y = table(&text, &page->tables[i], i, y, least[i] + fmax(0, need[i] - least[i]) * f) +
                TABLE_GAP;
    if (mlen) {
        /* Two lines: a narrow page holds neither whole in one. */
        y += tf_text_draw(&text, TF_FONT_NOTE, "Not shown for lack of room, beside fold.h5:", m, y, 0,
                          0, text.page_w - 2 * m, tf_ink).h;
        y += tf_text_draw(&text, TF_FONT_NOTE, missing, m, y, 0, 0, text.page_w - 2 * m, tf_ink).h +
             TABLE_GAP;
    }
    tf_claims claims = {.bounds = {0, 0, text.page_w, text.page_h}};
    /* Right under the tables, or at its reserved place when they fill their share. */
    double top = y < hist_top(&text, shrink) ? y : hist_top(&text, shrink);
    tf_page_panel(&text, "histogram", (tf_rect){0, top, text.page_w, HIST_BLOCK});
    histogram(&text, page, top, &claims);
    double key_top = top + HIST_BLOCK + 2;
    tf_rect key = {m, key_top, text.page_w - 2 * m, text.page_h - key_top};
    tf_page_panel(&text, "key", key);
    *bottom = key.y + tf_text_keys_draw(&text, key);
    tf_claims_free(&claims);
    tf_text_fini(&text);
    return 0;
}

int tf_page_tables(cairo_t *cr, const tf_report_page *page, const tf_page_ctx *ctx,
                   tf_error *err)
{
    /* A key that runs past the bottom (a narrow page shortens many cells)
     * takes room from the tables, whose rows that no longer fit are
     * counted. */
    double page_h = ctx && ctx->size.h > 0 ? ctx->size.h : TF_PAGE_HEIGHT;
    return tf_page_fitted(cr, ctx, tables_draw, page, page_h / 2, err);
}
