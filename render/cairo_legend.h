/* SPDX-License-Identifier: BSD-3-Clause */
/* A panel's head strip: its title on the left, then legend entries in a
 * row (two rows when the strip is tall enough); entries that do not fit
 * go on at the bottom of the page, after the panel's title (the page's
 * tf_legend_rest), so the legend is always complete.  Long labels are
 * shortened in the middle with a key. */
#ifndef TF_RENDER_CAIRO_LEGEND_H
#define TF_RENDER_CAIRO_LEGEND_H

#include "cairo_page.h"

/* TF_SWATCH_NONE: text alone (a value, not a mark in the plot). */
enum tf_swatch { TF_SWATCH_DOT, TF_SWATCH_LINE, TF_SWATCH_BOX, TF_SWATCH_NONE };

/* Entries of the page's legends that did not fit their panel's head. */
typedef struct tf_legend_rest_entry {
    enum tf_swatch swatch;
    tf_rgb         colour;
    int            series;     /* counter series index (its dash), or -1 */
    char          *label;
    const char    *title;      /* the panel's legend title */
} tf_legend_rest_entry;

typedef struct tf_legend_rest {
    size_t n, cap;
    tf_legend_rest_entry *e;
} tf_legend_rest;

/* Draws the rest in rows from box's top, each panel's entries after its
 * title ("Source code, continued:"); returns the height used. */
double tf_legend_rest_draw(tf_text *text, const tf_legend_rest *rest, tf_rect box);
void tf_legend_rest_free(tf_legend_rest *rest);

typedef struct tf_legend {
    const char *title;
    const tf_panel *panel;
    double x;            /* where the next entry starts */
    double y;            /* text centre line of the current row */
    double x0;           /* where rows start, after the title */
    int    row, rows;
    size_t dropped;
    bool   spilled;      /* entries went on to the page's rest: all next do */
} tf_legend;

/* Draws the panel title and starts the legend after it. */
void tf_legend_begin(tf_legend *l, const tf_panel *p, const char *title);
/* Adds an entry; returns false (and counts it) when it does not fit. */
bool tf_legend_add(tf_legend *l, enum tf_swatch swatch, tf_rgb colour, const char *label);
/* Adds the line of counter series index: its colour and dash pattern. */
bool tf_legend_add_series(tf_legend *l, size_t index, const char *label);
/* Room for w more units of custom drawing at l->x: reserves it and returns
 * its left edge, or a negative value when it does not fit. */
double tf_legend_reserve(tf_legend *l, double w);
void tf_legend_end(tf_legend *l);

#endif
