/* SPDX-License-Identifier: BSD-3-Clause */
/* Panel heads with their legends. */
#include "config.h"

#include <stdio.h>

#include "cairo_axes.h"
#include "cairo_legend.h"

#define SWATCH_W 10.0
#define ENTRY_GAP 8.0
/* Room kept at the right end for "+N more". */
#define MORE_W 34.0

/* Height of one legend row. */
#define ROW_H 9.0

void tf_legend_begin(tf_legend *l, const tf_panel *p, const char *title)
{
    l->panel = p;
    l->rows = p->head.h >= 2 * ROW_H ? 2 : 1;
    l->row = 0;
    l->y = p->head.y + p->head.h / (2.0 * l->rows);
    l->dropped = 0;
    tf_rect r = tf_text_draw(p->text, TF_FONT_HEAD, title, p->head.x, l->y, 0, 0.5, 0, tf_ink);
    l->x0 = l->x = r.x + r.w + 2 * ENTRY_GAP;
}

double tf_legend_reserve(tf_legend *l, double w)
{
    const tf_panel *p = l->panel;
    double end = p->head.x + p->head.w - MORE_W;
    if (!l->dropped && l->x + w > end && l->row + 1 < l->rows && l->x > l->x0) {
        l->row++;
        l->x = l->x0;
        l->y += p->head.h / l->rows;
    }
    if (l->dropped || l->x + w > end)
        return -1;
    double x = l->x;
    l->x += w + ENTRY_GAP;
    return x;
}

bool tf_legend_add(tf_legend *l, enum tf_swatch swatch, tf_rgb colour, const char *label)
{
    const tf_panel *p = l->panel;
    tf_rect r = tf_text_box(p->text, TF_FONT_LABEL, label, 0, 0, 0, 0, 0);
    double sw = swatch == TF_SWATCH_NONE ? 0 : SWATCH_W + 2;
    double x = tf_legend_reserve(l, sw + r.w);
    if (x < 0) {
        l->dropped++;
        return false;
    }
    cairo_t *cr = p->cr;
    cairo_save(cr);
    cairo_set_source_rgb(cr, colour.r, colour.g, colour.b);
    switch (swatch) {
    case TF_SWATCH_DOT:
        cairo_arc(cr, x + SWATCH_W / 2, l->y, 2.2, 0, 2 * G_PI);
        cairo_fill(cr);
        break;
    case TF_SWATCH_LINE:
        cairo_set_line_width(cr, 1.4);
        cairo_move_to(cr, x, l->y);
        cairo_line_to(cr, x + SWATCH_W, l->y);
        cairo_stroke(cr);
        break;
    case TF_SWATCH_BOX:
        cairo_rectangle(cr, x + 1, l->y - 3, SWATCH_W - 2, 6);
        cairo_fill(cr);
        break;
    case TF_SWATCH_NONE:
        break;
    }
    cairo_restore(cr);
    tf_text_draw(p->text, TF_FONT_LABEL, label, x + sw, l->y, 0, 0.5, 0, tf_ink);
    return true;
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
