/* SPDX-License-Identifier: BSD-3-Clause */
/* The cairo back end's pages: the triple-timeline layout, shared by the
 * panels and by tests that look inside each panel's box, and the drawing
 * entry points of the panels and pages. */
#ifndef TF_RENDER_CAIRO_PAGE_H
#define TF_RENDER_CAIRO_PAGE_H

#include "cairo_text.h"
#include "page_size.h"
#include "report_model.h"

/* Page sizes are in points (page_size.h); PNG pixels = points * dpi / 72. */

enum tf_panel_id { TF_PANEL_CODE, TF_PANEL_MEMORY, TF_PANEL_RATES, TF_NPANELS };

typedef struct tf_timeline_layout {
    tf_rect title;               /* page title and subtitle */
    tf_rect head[TF_NPANELS];    /* panel title and legend, above each plot */
    tf_rect labels;              /* phase labels, between the code head and plot */
    tf_rect plot[TF_NPANELS];    /* the plotting areas, inside the axes */
} tf_timeline_layout;

/* The layout of a page of the given size: text strips keep their height
 * (fonts have a fixed size in points), the plots share what is left. */
void tf_timeline_layout_get(tf_timeline_layout *l, tf_page_size size);

/* What every panel draws with. */
typedef struct tf_panel {
    cairo_t              *cr;
    tf_text              *text;
    const tf_report_page *page;
    tf_rect               head, plot;
    tf_claims            *claims;   /* labels drawn so far on this page */
    /* Legend entries that did not fit the head (cairo_legend.h); NULL:
     * they are counted in a "+N more". */
    struct tf_legend_rest *rest;
} tf_panel;

int tf_panel_code(const tf_panel *p, tf_rect labels, unsigned max_labels, tf_error *err);
int tf_panel_memory(const tf_panel *p, tf_error *err);
int tf_panel_rates(const tf_panel *p, tf_error *err);

/* Where a timeline page's bottom area (the legend entries that did not
 * fit their panel's head, the numbered key) goes: on the page, or, when
 * it does not fit there, on a page of its own after it. */
enum tf_key_place {
    TF_KEY_HERE,
    TF_KEY_NEXT_PAGE,    /* the timeline page, saying where its key is */
    TF_KEY_ONLY,         /* the page after it: the legends' rest and the key */
};

/* What a page is drawn for: its number among the output pages (1-based)
 * and where its layout is recorded (NULL: nowhere). */
typedef struct tf_page_ctx {
    unsigned       number;
    tf_layout_log *log;
    unsigned       max_phase_labels;   /* tf_render_options */
    tf_page_size   size;
    /* Counts the pages whose key still runs past the bottom after the
     * plots gave what they could (NULL: not counted). */
    unsigned      *overflowed;
    enum tf_key_place key_place;       /* timeline pages */
} tf_page_ctx;

/* Starts text on a page: t set up on cr and recording into ctx's log, with
 * ctx's page size (ctx NULL: the default page). */
int tf_page_text(tf_text *t, cairo_t *cr, const tf_page_ctx *ctx, tf_error *err);
/* Records a panel's box (its text must stay inside) and makes it the panel
 * of the texts drawn next. */
void tf_page_panel(tf_text *t, const char *name, tf_rect box);

/* A blank white page with its text ready, recording into ctx's log (ctx NULL:
 * nowhere); tf_text_fini when done. */
int tf_page_begin(cairo_t *cr, tf_text *text, const tf_page_ctx *ctx, tf_error *err);

/* Page title and subtitle at the top of box. */
void tf_page_header(tf_text *text, tf_rect box, const char *title, const char *subtitle);

/* Draws a page whose bottom area (its key) may run past the page's
 * bottom: draw gets how much shorter to make its stretchable part and
 * returns in *bottom where its text ends. */
typedef int (*tf_page_draw_fn)(cairo_t *cr, const void *arg, const tf_page_ctx *ctx, double shrink,
                               double *bottom, tf_error *err);
/* Draws into a group first; when the text runs past the page, discards
 * it (and its layout record) and draws again that much shorter (a few
 * times while it still does), by at most max_shrink in all. */
int tf_page_fitted(cairo_t *cr, const tf_page_ctx *ctx, tf_page_draw_fn draw, const void *arg,
                   double max_shrink, tf_error *err);

/* Whole pages, drawn on cr in page units. */
int tf_page_timeline(cairo_t *cr, const tf_report_page *page, const tf_page_ctx *ctx,
                     tf_error *err);
int tf_page_tables(cairo_t *cr, const tf_report_page *page, const tf_page_ctx *ctx,
                   tf_error *err);

#endif
