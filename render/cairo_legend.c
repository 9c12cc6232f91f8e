/* SPDX-License-Identifier: BSD-3-Clause */
/* Panel heads with their legends. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cairo_axes.h"
#include "cairo_legend.h"
#include "common/tf_array.h"

#define SWATCH_W 10.0
#define ENTRY_GAP 8.0
/* Room kept at the right end for "+N more". */
#define MORE_W 34.0

/* Height of one legend row. */
#define ROW_H 9.0
/* Longer labels are shortened in the middle, with a key. */
#define LABEL_MAX 170.0

void tf_legend_begin(tf_legend *l, const tf_panel *p, const char *title)
{
    l->panel = p;
    l->title = title;
    l->rows = p->head.h >= 2 * ROW_H ? 2 : 1;
    l->row = 0;
    l->y = p->head.y + p->head.h / (2.0 * l->rows);
    l->dropped = 0;
    l->spilled = false;
    tf_rect r = tf_text_draw(p->text, TF_FONT_HEAD, title, p->head.x, l->y, 0, 0.5, 0, tf_ink);
    l->x0 = l->x = r.x + r.w + 2 * ENTRY_GAP;
}

double tf_legend_reserve(tf_legend *l, double w)
{
    const tf_panel *p = l->panel;
    double end = p->head.x + p->head.w - (p->rest ? 0 : MORE_W);
    if (!l->dropped && l->x + w > end && l->row + 1 < l->rows && l->x > l->x0) {
        l->row++;
        l->x = l->x0;
        l->y += p->head.h / l->rows;
    }
    if (l->dropped || l->spilled || l->x + w > end)
        return -1;
    double x = l->x;
    l->x += w + ENTRY_GAP;
    return x;
}

static void swatch_draw(cairo_t *cr, enum tf_swatch swatch, tf_rgb colour, int series, double x,
                        double y)
{
    cairo_save(cr);
    if (series >= 0) {
        double dash[4];
        int n;
        tf_palette_series_dash((size_t)series, dash, &n);
        cairo_set_dash(cr, dash, n, 0);
    }
    cairo_set_source_rgb(cr, colour.r, colour.g, colour.b);
    switch (swatch) {
    case TF_SWATCH_DOT:
        cairo_arc(cr, x + SWATCH_W / 2, y, 2.2, 0, 2 * G_PI);
        cairo_fill(cr);
        break;
    case TF_SWATCH_LINE:
        cairo_set_line_width(cr, 1.4);
        cairo_move_to(cr, x, y);
        cairo_line_to(cr, x + SWATCH_W, y);
        cairo_stroke(cr);
        break;
    case TF_SWATCH_BOX:
        cairo_rectangle(cr, x + 1, y - 3, SWATCH_W - 2, 6);
        cairo_fill(cr);
        break;
    case TF_SWATCH_NONE:
        break;
    }
    cairo_restore(cr);
}

static bool rest_add(tf_legend_rest *rest, enum tf_swatch swatch, tf_rgb colour, int series,
                     const char *label, const char *title)
{
    tf_legend_rest_entry *e = tf_array_room(rest->e, rest->n, &rest->cap, sizeof *e, 8);
    char *d = strdup(label);
    if (!e || !d) {
        free(d);
        return false;
    }
    rest->e = e;
    rest->e[rest->n++] = (tf_legend_rest_entry){swatch, colour, series, d, title};
    return true;
}

static bool legend_add(tf_legend *l, enum tf_swatch swatch, tf_rgb colour, int series,
                       const char *label)
{
    const tf_panel *p = l->panel;
    tf_rect r = tf_text_box(p->text, TF_FONT_LABEL, label, 0, 0, 0, 0, LABEL_MAX);
    double sw = swatch == TF_SWATCH_NONE ? 0 : SWATCH_W + 2;
    double x = tf_legend_reserve(l, sw + r.w);
    if (x < 0) {
        /* Out of memory: counted, as without a page to go on to. */
        if (p->rest && rest_add(p->rest, swatch, colour, series, label, l->title))
            l->spilled = true;
        else
            l->dropped++;
        return false;
    }
    swatch_draw(p->cr, swatch, colour, series, x, l->y);
    tf_text_draw(p->text, TF_FONT_LABEL, label, x + sw, l->y, 0, 0.5, LABEL_MAX, tf_ink);
    return true;
}

bool tf_legend_add(tf_legend *l, enum tf_swatch swatch, tf_rgb colour, const char *label)
{
    return legend_add(l, swatch, colour, -1, label);
}

bool tf_legend_add_series(tf_legend *l, size_t index, const char *label)
{
    return legend_add(l, TF_SWATCH_LINE, tf_palette_series(index), (int)index, label);
}

double tf_legend_rest_draw(tf_text *text, const tf_legend_rest *rest, tf_rect box)
{
    double x = box.x, y = box.y + ROW_H / 2, right = box.x + box.w;
    const char *title = NULL;
    for (size_t i = 0; i < rest->n; i++) {
        const tf_legend_rest_entry *e = &rest->e[i];
        if (e->title != title) {
            /* Each panel's entries start a row of their own. */
            if (title)
                y += ROW_H;
            title = e->title;
            char head[160];
            snprintf(head, sizeof head, "%s, continued:", title);
            tf_rect r = tf_text_draw(text, TF_FONT_LABEL, head, box.x, y, 0, 0.5, 0, tf_ink);
            x = box.x + r.w + ENTRY_GAP;
        }
        /* The page's width is room enough for the whole label: shortened
         * here, it would take a row of the key as well. */
        double sw = e->swatch == TF_SWATCH_NONE ? 0 : SWATCH_W + 2;
        double max_w = box.w - SWATCH_W - sw;
        double w = sw + tf_text_box(text, TF_FONT_LABEL, e->label, 0, 0, 0, 0, max_w).w;
        if (x + w > right && x > box.x + SWATCH_W) {
            x = box.x + SWATCH_W;
            y += ROW_H;
        }
        swatch_draw(text->cr, e->swatch, e->colour, e->series, x, y);
        tf_text_draw(text, TF_FONT_LABEL, e->label, x + sw, y, 0, 0.5, max_w, tf_ink);
        x += w + ENTRY_GAP;
    }
    return rest->n ? y + ROW_H / 2 - box.y + 2 : 0;
}

void tf_legend_rest_free(tf_legend_rest *rest)
{
    for (size_t i = 0; i < rest->n; i++)
        free(rest->e[i].label);
    free(rest->e);
    memset(rest, 0, sizeof *rest);
}

void tf_legend_end(tf_legend *l)
{
    if (!l->dropped)
        return;
    char buf[32];
    snprintf(buf, sizeof buf, "+%zu more", l->dropped);
    const tf_panel *p = l->panel;
    tf_text_draw(p->text, TF_FONT_LABEL, buf, p->head.x + p->head.w, l->y, 1, 0.5, 0, tf_ink);
}
