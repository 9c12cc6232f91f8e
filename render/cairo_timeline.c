/* SPDX-License-Identifier: BSD-3-Clause */
/* The triple-timeline page: code line, address space and performance on one
 * time axis, as in the reference figure of the BSC memory study. */
#include "config.h"

#include "cairo_axes.h"
#include "cairo_legend.h"
#include "cairo_page.h"

/* Margins: the left one holds `name | size` labels, the right one
 * hexadecimal addresses and the MIPS axis. */
#define LEFT 104.0
#define RIGHT 78.0
#define HEAD_H 14.0
/* Legend entries that did not fit their panel's head, then the numbered
 * key of shortened texts, along the bottom of the page. */
#define KEY_TOP 668.0
#define PAGE_MARGIN 8.0
/* The performance plot gives up at most this much of its 140 points of
 * height to a bottom area that needs more room. */
#define MAX_SHRINK 70.0

void tf_timeline_layout_get(tf_timeline_layout *l)
{
    double w = TF_PAGE_WIDTH - LEFT - RIGHT;
    /* Titles and legends may run on over the right margin. */
    double wide = TF_PAGE_WIDTH - LEFT - 8;
    l->title = (tf_rect){LEFT, 8, wide, 32};
    /* Routines often need two legend rows too. */
    l->head[TF_PANEL_CODE] = (tf_rect){LEFT, 41, wide, 2 * HEAD_H - 9};
    l->labels = (tf_rect){LEFT, 60, w, 20};
    l->plot[TF_PANEL_CODE] = (tf_rect){LEFT, 80, w, 182};
    l->head[TF_PANEL_MEMORY] = (tf_rect){LEFT, 274, wide, HEAD_H};
    l->plot[TF_PANEL_MEMORY] = (tf_rect){LEFT, 290, w, 186};
    /* Counters often need two legend rows. */
    l->head[TF_PANEL_RATES] = (tf_rect){LEFT, 481, wide, 2 * HEAD_H - 6};
    l->plot[TF_PANEL_RATES] = (tf_rect){LEFT, 504, w, 140};
}

int tf_page_text(tf_text *t, cairo_t *cr, const tf_page_ctx *ctx, tf_error *err)
{
    if (tf_text_init(t, cr, err) < 0)
        return -err->code;
    t->log = ctx ? ctx->log : NULL;
    t->page = ctx ? ctx->number : 0;
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
static int timeline_draw(cairo_t *cr, const tf_report_page *page, const tf_page_ctx *ctx,
                         double shrink, double *bottom, tf_error *err)
{
    tf_timeline_layout l;
    tf_timeline_layout_get(&l);
    l.plot[TF_PANEL_RATES].h -= shrink;
    double key_top = KEY_TOP - shrink;
    tf_text text;
    if (tf_page_begin(cr, &text, ctx, err) < 0)
        return -err->code;
    tf_claims claims = {0};
    tf_legend_rest rest = {0};
    /* Each panel owns the full width of the page, from just above its head
     * to just above the next one's. */
    static const char *const names[TF_NPANELS] = {"code", "memory", "rates"};
    tf_page_panel(&text, "title", (tf_rect){0, 0, TF_PAGE_WIDTH, l.head[0].y - 1});
    tf_page_header(&text, l.title, page->title ? page->title : "folded region",
                   page->subtitle);
    int rc = 0;
    for (int i = 0; i < TF_NPANELS && rc == 0; i++) {
        double top = l.head[i].y - 1;
        double end = i + 1 < TF_NPANELS ? l.head[i + 1].y - 1 : key_top - 1;
        tf_page_panel(&text, names[i], (tf_rect){0, top, TF_PAGE_WIDTH, end - top});
        tf_panel p = {cr, &text, page, l.head[i], l.plot[i], &claims, &rest};
        rc = i == TF_PANEL_CODE     ? tf_panel_code(&p, l.labels, ctx->max_phase_labels, err)
           : i == TF_PANEL_MEMORY ? tf_panel_memory(&p, err)
                                  : tf_panel_rates(&p, err);
    }
    tf_rect key = {PAGE_MARGIN, key_top, TF_PAGE_WIDTH - 2 * PAGE_MARGIN, TF_PAGE_HEIGHT - key_top};
    tf_page_panel(&text, "key", key);
    double used = tf_legend_rest_draw(&text, &rest, key);
    used += tf_text_keys_draw(&text, (tf_rect){key.x, key.y + used, key.w, key.h - used});
    *bottom = key.y + used;
    tf_legend_rest_free(&rest);
    tf_claims_free(&claims);
    tf_text_fini(&text);
    return rc;
}

int tf_page_timeline(cairo_t *cr, const tf_report_page *page, const tf_page_ctx *ctx,
                     tf_error *err)
{
    /* Drawn into a group first: when the legends' rest and the key run
     * past the page's bottom (long C++ names, many routines), the page is
     * drawn again with the performance plot that much shorter, rather than
     * with text off the page. */
    tf_layout_log *log = ctx ? ctx->log : NULL;
    size_t ntext = log ? log->ntext : 0, npanel = log ? log->npanel : 0;
    double bottom;
    cairo_push_group(cr);
    int rc = timeline_draw(cr, page, ctx, 0, &bottom, err);
    double over = bottom - (TF_PAGE_HEIGHT - PAGE_MARGIN / 2);
    if (rc == 0 && over > 0) {
        cairo_pattern_destroy(cairo_pop_group(cr));
        if (log)
            tf_layout_log_truncate(log, ntext, npanel);
        cairo_push_group(cr);
        rc = timeline_draw(cr, page, ctx, over < MAX_SHRINK ? over : MAX_SHRINK, &bottom, err);
    }
    cairo_pop_group_to_source(cr);
    cairo_paint(cr);
    return rc;
}
