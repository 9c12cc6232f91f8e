/* SPDX-License-Identifier: BSD-3-Clause */
/* A panel's head strip: its title on the left, then legend entries in a
 * row (two rows when the strip is tall enough); entries that do not fit
 * are counted in a final "+N more". */
#ifndef TF_RENDER_CAIRO_LEGEND_H
#define TF_RENDER_CAIRO_LEGEND_H

#include "cairo_page.h"

/* TF_SWATCH_NONE: text alone (a value, not a mark in the plot). */
enum tf_swatch { TF_SWATCH_DOT, TF_SWATCH_LINE, TF_SWATCH_BOX, TF_SWATCH_NONE };

typedef struct tf_legend {
    const tf_panel *panel;
    double x;            /* where the next entry starts */
    double y;            /* text centre line of the current row */
    double x0;           /* where rows start, after the title */
    int    row, rows;
    size_t dropped;
} tf_legend;

/* Draws the panel title and starts the legend after it. */
void tf_legend_begin(tf_legend *l, const tf_panel *p, const char *title);
/* Adds an entry; returns false (and counts it) when it does not fit. */
bool tf_legend_add(tf_legend *l, enum tf_swatch swatch, tf_rgb colour, const char *label);
/* Room for w more units of custom drawing at l->x: reserves it and returns
 * its left edge, or a negative value when it does not fit. */
double tf_legend_reserve(tf_legend *l, double w);
void tf_legend_end(tf_legend *l);

#endif
