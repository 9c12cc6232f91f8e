/* SPDX-License-Identifier: BSD-3-Clause */
/* The triple-timeline page: code line, address space and performance on one
 * time axis, as in the reference figure of the BSC memory study. */
#include "config.h"

#include <math.h>

#include "cairo_axes.h"
#include "cairo_legend.h"
#include "cairo_page.h"

/* Margins on the default page: the left one holds `name | size` labels,
 * the right one hexadecimal addresses and the MIPS axis.  Narrower pages
 * narrow them in proportion, down to what the axis labels need. */
#define LEFT 104.0
#define RIGHT 78.0
#define LEFT_MIN 72.0
#define RIGHT_MIN 58.0
#define HEAD_H 14.0
/* Under the performance plot, its time ticks and axis title, then the
 * bottom area: legend entries that did not fit their panel's head, and
 * the numbered key of shortened texts. */
#define BELOW_RATES 24.0
#define KEY_H 52.0
/* Where the key starts on a page of its own, under its title and the
 * region's name. */
#define KEY_PAGE_TOP 42.0
#define PAGE_MARGIN 8.0
/* The performance plot gives up at most this share of its height to a
 * bottom area that needs more room. */
#define MAX_SHRINK 0.5
/* Text strips between and around the plots, top to bottom (the default
 * page's figures): above the code plot, code time ticks to the memory
 * head, memory head, to the rates head, rates head. */
#define ABOVE_CODE 80.0
#define BELOW_CODE 12.0
#define MEMORY_HEAD 16.0
#define BELOW_MEMORY 5.0
#define RATES_HEAD 23.0
/* The three plots share the rest in the default page's proportions. */
static const double plot_share[TF_NPANELS] = {182.0, 186.0, 140.0};

void tf_timeline_layout_get(tf_timeline_layout *l, tf_page_size size)
{
    double narrow = size.w / TF_PAGE_WIDTH;
    double left = narrow < 1 ? fmax(LEFT_MIN, LEFT * narrow) : LEFT;
    double right = narrow < 1 ? fmax(RIGHT_MIN, RIGHT * narrow) : RIGHT;
    double w = size.w - left - right;
    /* Titles and legends may run on over the right margin. */
    double wide = size.w - left - 8;
    double room = size.h - ABOVE_CODE - BELOW_CODE - MEMORY_HEAD - BELOW_MEMORY - RATES_HEAD -
                  BELOW_RATES - KEY_H;
    double share = plot_share[0] + plot_share[1] + plot_share[2];
    double h[TF_NPANELS];
    for (int i = 0; i < TF_NPANELS; i++)
        h[i] = room * plot_share[i] / share;
    l->title = (tf_rect){left, 8, wide, 32};
    /* Routines often need two legend rows too. */
    l->head[TF_PANEL_CODE] = (tf_rect){left, 41, wide, 2 * HEAD_H - 9};
    l->labels = (tf_rect){left, 60, w, 20};
    l->plot[TF_PANEL_CODE] = (tf_rect){left, ABOVE_CODE, w, h[0]};
    double y = ABOVE_CODE + h[0] + BELOW_CODE;
    l->head[TF_PANEL_MEMORY] = (tf_rect){left, y, wide, HEAD_H};
    l->plot[TF_PANEL_MEMORY] = (tf_rect){left, y + MEMORY_HEAD, w, h[1]};
    y += MEMORY_HEAD + h[1] + BELOW_MEMORY;
    /* Counters often need two legend rows. */
    l->head[TF_PANEL_RATES] = (tf_rect){left, y, wide, 2 * HEAD_H - 6};
    l->plot[TF_PANEL_RATES] = (tf_rect){left, y + RATES_HEAD, w, h[2]};
}

int tf_page_text(tf_text *t, cairo_t *cr, const tf_page_ctx *ctx, tf_error *err)
{
    if (tf_text_init(t, cr, err) < 0)
        return -err->code;
    t->log = ctx ? ctx->log : NULL;
    t->page = ctx ? ctx->number : 0;
    if (ctx && ctx->size.w > 0) {
        t->page_w = ctx->size.w;
        t->page_h = ctx->size.h;
    }
    return 0;
}

void tf_page_panel(tf_text *t, const char *name, tf_rect box)
{
    if (t->log)
        tf_layout_log_panel(t->log, t->page, box.x, box.y, box.w, box.h, name);
    t->panel = name;
}

void tf_page_header(tf_text *text, tf_rect box, const char *title, const char *subtitle)
{
    tf_rect r = tf_text_draw(text, TF_FONT_TITLE, title, box.x, box.y, 0, 0, box.w, tf_ink);
    if (subtitle)
        tf_text_draw(text, TF_FONT_LABEL, subtitle, box.x, r.y + r.h + 2, 0, 0, box.w, tf_ink);
}

int tf_page_begin(cairo_t *cr, tf_text *text, const tf_page_ctx *ctx, tf_error *err)
{
    if (tf_page_text(text, cr, ctx, err) < 0)
        return -err->code;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    return 0;
}

/* The page with the performance plot `shrink` points shorter and the
 * bottom area (the legends' rest and the key) that much taller; *bottom
 * gets where the key ends. */
static int timeline_draw(cairo_t *cr, const void *arg, const tf_page_ctx *ctx, double shrink,
                         double *bottom, tf_error *err)
{
    const tf_report_page *page = arg;
    enum tf_key_place place = ctx ? ctx->key_place : TF_KEY_HERE;
    tf_text text;
    if (tf_page_begin(cr, &text, ctx, err) < 0)
        return -err->code;
    const double page_w = text.page_w, page_h = text.page_h;
    /* The key's own page: the panels drawn out of sight, unrecorded, so
     * that the legends' rest and the key are what the page before has,
     * with the same numbers. */
    tf_layout_log *log = text.log;
    if (place == TF_KEY_ONLY) {
        cairo_push_group(cr);
        text.log = NULL;
    }
    tf_timeline_layout l;
    tf_timeline_layout_get(&l, (tf_page_size){page_w, page_h});
    l.plot[TF_PANEL_RATES].h -= shrink;
    double key_top = page_h - KEY_H - shrink;
    tf_claims claims = {.bounds = {0, 0, page_w, page_h}};
    tf_legend_rest rest = {0};
    /* Each panel owns the full width of the page, from just above its head
     * to just above the next one's. */
    static const char *const names[TF_NPANELS] = {"code", "memory", "rates"};
    tf_page_panel(&text, "title", (tf_rect){0, 0, page_w, l.head[0].y - 1});
    tf_page_header(&text, l.title, page->title ? page->title : "folded region",
                   page->subtitle);
    int rc = 0;
    for (int i = 0; i < TF_NPANELS && rc == 0; i++) {
        double top = l.head[i].y - 1;
        double end = i + 1 < TF_NPANELS ? l.head[i + 1].y - 1 : key_top - 1;
        tf_page_panel(&text, names[i], (tf_rect){0, top, page_w, end - top});
        tf_panel p = {cr, &text, page, l.head[i], l.plot[i], &claims, &rest};
        rc = i == TF_PANEL_CODE     ? tf_panel_code(&p, l.labels, ctx->max_phase_labels, err)
           : i == TF_PANEL_MEMORY ? tf_panel_memory(&p, err)
                                  : tf_panel_rates(&p, err);
    }
    if (place == TF_KEY_ONLY) {
        cairo_pattern_destroy(cairo_pop_group(cr));
        text.log = log;
        tf_page_panel(&text, "title", (tf_rect){0, 0, page_w, KEY_PAGE_TOP - 1});
        tf_page_header(&text, (tf_rect){PAGE_MARGIN, 8, page_w - 2 * PAGE_MARGIN, 32},
                       "Legends and key", page->title ? page->title : "folded region");
        key_top = KEY_PAGE_TOP;
    }
    tf_rect key = {PAGE_MARGIN, key_top, page_w - 2 * PAGE_MARGIN, page_h - key_top};
    tf_page_panel(&text, "key", key);
    double used;
    if (place == TF_KEY_NEXT_PAGE) {
        used = tf_text_draw(&text, TF_FONT_NOTE, "Legends, continued, and key: next page", key.x,
                            key.y, 0, 0, key.w, tf_ink).h;
    } else {
        used = tf_legend_rest_draw(&text, &rest, key);
        used += tf_text_keys_draw(&text, (tf_rect){key.x, key.y + used, key.w, key.h - used});
    }
    *bottom = key.y + used;
    tf_legend_rest_free(&rest);
    tf_claims_free(&claims);
    tf_text_fini(&text);
    return rc;
}

int tf_page_fitted(cairo_t *cr, const tf_page_ctx *ctx, tf_page_draw_fn draw, const void *arg,
                   double max_shrink, tf_error *err)
{
    tf_layout_log *log = ctx ? ctx->log : NULL;
    size_t ntext = log ? log->ntext : 0, npanel = log ? log->npanel : 0;
    double page_h = ctx && ctx->size.h > 0 ? ctx->size.h : TF_PAGE_HEIGHT;
    double bottom, shrink = 0;
    cairo_push_group(cr);
    int rc = draw(cr, arg, ctx, shrink, &bottom, err);
    /* A few tries: shorter plots or tables change what is shortened, and
     * so the key. */
    for (int try = 0; try < 4 && rc == 0 && shrink < max_shrink; try++) {
        double over = bottom - (page_h - PAGE_MARGIN / 2);
        if (over <= 0)
            break;
        cairo_pattern_destroy(cairo_pop_group(cr));
        if (log)
            tf_layout_log_truncate(log, ntext, npanel);
        cairo_push_group(cr);
        shrink = fmin(max_shrink, shrink + over);
        rc = draw(cr, arg, ctx, shrink, &bottom, err);
    }
    if (rc == 0 && bottom > page_h && ctx && ctx->overflowed)
        (*ctx->overflowed)++;
    cairo_pop_group_to_source(cr);
    cairo_paint(cr);
    return rc;
}

int tf_page_timeline(cairo_t *cr, const tf_report_page *page, const tf_page_ctx *ctx,
                     tf_error *err)
{
    /* When the legends' rest and the key run past the page's bottom (long
     * C++ names, many routines), the page is drawn again with the
     * performance plot that much shorter, rather than with text off the
     * page. */
    tf_timeline_layout l;
    tf_timeline_layout_get(&l, (tf_page_size){ctx && ctx->size.w > 0 ? ctx->size.w : TF_PAGE_WIDTH,
                                              ctx && ctx->size.h > 0 ? ctx->size.h : TF_PAGE_HEIGHT});
    return tf_page_fitted(cr, ctx, timeline_draw, page, MAX_SHRINK * l.plot[TF_PANEL_RATES].h, err);
}
