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

#define MARGIN 40.0
#define ROW_H 10.5
#define COL_GAP 10.0
#define COL_MAX 170.0
#define TABLE_GAP 14.0
/* The lowest the histogram starts: the tables may use the page down to
 * it, leaving the bottom for the key. */
#define KEY_ROOM 30.0
#define HIST_TOP (TF_PAGE_HEIGHT - KEY_ROOM - HIST_BLOCK)
#define HIST_H 100.0
/* The histogram with its head and axis title; the numbered key of
 * shortened texts follows. */
#define HIST_BLOCK (18 + HIST_H + 24)

static const tf_rgb used_colour = {0.0, 0.447, 0.698};       /* Okabe–Ito blue */
static const tf_rgb excluded_colour = {0.835, 0.369, 0.0};   /* vermillion */

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
    double width = TF_PAGE_WIDTH - 2 * MARGIN, bottom = y + height;
    tf_rect r = tf_text_draw(text, TF_FONT_HEAD, t->title ? t->title : "", MARGIN, y, 0, 0, width,
                             tf_ink);
    y += r.h + 2;
    if (t->note) {
        r = tf_text_draw(text, TF_FONT_NOTE, t->note, MARGIN, y, 0, 0, width,
                         (tf_rgb){0.35, 0.35, 0.35});
        y += r.h + 2;
    }
    if (t->ncols == 0 || t->nrows == 0) {
        if (!t->note) {
            r = tf_text_draw(text, TF_FONT_NOTE, "no data", MARGIN, y, 0, 0, 0,
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
    double right = MARGIN + total;
    /* Rows after the heading row; the last one left for "... N more rows"
     * when they do not all fit. */
    size_t fit = (size_t)fmax(0, floor((bottom - y - 4 - (ROW_H + 1)) / (ROW_H + 1)));
    size_t shown = t->nrows <= fit ? t->nrows : (fit > 0 ? fit - 1 : 0);
    rule(cr, MARGIN, right, y, 0.8);
    for (size_t row = 0; row <= shown; row++) {
        double x = MARGIN, cy = y + 1 + ROW_H / 2;
        for (size_t c = 0; c < t->ncols; c++) {
            const char *s = row == 0 ? t->head[c] : t->cells[(row - 1) * t->ncols + c];
            bool num = numeric(t->nrows ? t->cells[c] : NULL);
            tf_text_draw(text, row ? TF_FONT_LABEL : TF_FONT_HEAD, s ? s : "", num ? x + colw[c] : x,
                         cy, num ? 1 : 0, 0.5, colw[c], tf_ink);
            x += colw[c] + COL_GAP;
        }
        y += ROW_H + 1;
        if (row == 0)
            rule(cr, MARGIN, right, y, 0.4);
    }
    rule(cr, MARGIN, right, y + 1, 0.8);
    y += 3;
    if (shown < t->nrows) {
        char buf[96];
        snprintf(buf, sizeof buf, "%zu more rows: all in %s beside fold.h5", t->nrows - shown,
                 table_csv[k]);
        r = tf_text_draw(text, TF_FONT_NOTE, buf, MARGIN, y, 0, 0, 0, tf_ink);
        y += r.h;
    }
    free(colw);
    return y;
}

/* The height t takes with all its rows. */
static double table_height(tf_text *text, const tf_report_table *t)
{
    double width = TF_PAGE_WIDTH - 2 * MARGIN;
    double h = tf_text_box(text, TF_FONT_HEAD, t->title ? t->title : "", 0, 0, 0, 0, width).h + 2;
    if (t->note)
        h += tf_text_box(text, TF_FONT_NOTE, t->note, 0, 0, 0, 0, width).h + 2;
    if (t->ncols == 0 || t->nrows == 0)
        return h + (t->note ? 0 : tf_text_box(text, TF_FONT_NOTE, "no data", 0, 0, 0, 0, 0).h + 2);
    return h + (double)(t->nrows + 1) * (ROW_H + 1) + 4;
}

static void histogram(tf_text *text, const tf_report_page *page, double top, tf_claims *claims)
{
    tf_rect plot = {MARGIN + 40, top + 18, TF_PAGE_WIDTH - 2 * MARGIN - 50, HIST_H};
    tf_panel p = {text->cr, text, page, {plot.x, top, plot.w, 14}, plot, claims, NULL};
    size_t nused = 0;
    for (size_t i = 0; i < page->ninstances; i++)
        nused += page->instance_used[i];
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

int tf_page_tables(cairo_t *cr, const tf_report_page *page, const tf_page_ctx *ctx,
                   tf_error *err)
{
    tf_text text;
    if (tf_page_begin(cr, &text, ctx, err) < 0)
        return -err->code;
    char title[256];
    snprintf(title, sizeof title, "%s: phases, memory, objects, streams", page->title ? page->title : "folded region");
    tf_page_panel(&text, "title", (tf_rect){0, 0, TF_PAGE_WIDTH, 46});
    tf_page_header(&text, (tf_rect){MARGIN, 8, TF_PAGE_WIDTH - 2 * MARGIN, 32}, title,
                   page->subtitle);
    double y = 48;
    tf_page_panel(&text, "tables", (tf_rect){0, 47, TF_PAGE_WIDTH, HIST_TOP - 47});
    /* Each table as tall as it needs when all fit, else its share of the
     * room in proportion to its need (rows that do not fit are counted). */
    double need[TF_REPORT_NTABLES], total = 0;
    for (int i = 0; i < TF_REPORT_NTABLES; i++)
        total += need[i] = table_height(&text, &page->tables[i]);
    double room = HIST_TOP - y - TABLE_GAP * TF_REPORT_NTABLES;
    double scale = total > room ? room / total : 1;
    for (int i = 0; i < TF_REPORT_NTABLES; i++)
        y = table(&text, &page->tables[i], i, y, need[i] * scale) + TABLE_GAP;
    tf_claims claims = {0};
    /* Right under the tables, or at its reserved place when they fill their share. */
    double top = y < HIST_TOP ? y : HIST_TOP;
    tf_page_panel(&text, "histogram", (tf_rect){0, top, TF_PAGE_WIDTH, HIST_BLOCK});
    histogram(&text, page, top, &claims);
    double key_top = top + HIST_BLOCK + 2;
    tf_rect key = {MARGIN, key_top, TF_PAGE_WIDTH - 2 * MARGIN, TF_PAGE_HEIGHT - key_top};
    tf_page_panel(&text, "key", key);
    tf_text_keys_draw(&text, key);
    tf_claims_free(&claims);
    tf_text_fini(&text);
    return 0;
}
