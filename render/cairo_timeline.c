/* SPDX-License-Identifier: BSD-3-Clause */
/* The triple-timeline page: code line, address space and performance on one
 * time axis, as in the reference figure of the BSC memory study. */
#include "config.h"

#include "cairo_axes.h"
#include "cairo_page.h"

/* Margins: the left one holds `name | size` labels, the right one
 * hexadecimal addresses and the MIPS axis. */
#define LEFT 104.0
#define RIGHT 78.0
#define HEAD_H 14.0

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
    l->plot[TF_PANEL_MEMORY] = (tf_rect){LEFT, 290, w, 210};
    /* Counters often need two legend rows. */
    l->head[TF_PANEL_RATES] = (tf_rect){LEFT, 505, wide, 2 * HEAD_H - 6};
    l->plot[TF_PANEL_RATES] = (tf_rect){LEFT, 528, w, 140};
}

void tf_page_header(tf_text *text, tf_rect box, const char *title, const char *subtitle)
{
    tf_rect r = tf_text_draw(text, TF_FONT_TITLE, title, box.x, box.y, 0, 0, box.w, tf_ink);
    if (subtitle)
        tf_text_draw(text, TF_FONT_LABEL, subtitle, box.x, r.y + r.h + 2, 0, 0, box.w, tf_ink);
}

int tf_page_begin(cairo_t *cr, tf_text *text, tf_error *err)
{
    if (tf_text_init(text, cr, err) < 0)
        return -err->code;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    return 0;
}

int tf_page_timeline(cairo_t *cr, const tf_report_page *page, tf_error *err)
{
    tf_timeline_layout l;
    tf_timeline_layout_get(&l);
    tf_text text;
    if (tf_page_begin(cr, &text, err) < 0)
        return -err->code;
    tf_claims claims = {0};
    tf_page_header(&text, l.title, page->title ? page->title : "folded region",
                   page->subtitle);
    int rc = 0;
    for (int i = 0; i < TF_NPANELS && rc == 0; i++) {
        tf_panel p = {cr, &text, page, l.head[i], l.plot[i], &claims};
        rc = i == TF_PANEL_CODE     ? tf_panel_code(&p, l.labels, err)
           : i == TF_PANEL_MEMORY ? tf_panel_memory(&p, err)
                                  : tf_panel_rates(&p, err);
    }
    tf_claims_free(&claims);
    tf_text_fini(&text);
    return rc;
}
