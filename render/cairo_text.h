/* SPDX-License-Identifier: BSD-3-Clause */
/* Text for the cairo pages, through pango: the report's fonts, measured and
 * drawn in page units (points), plus the bookkeeping that keeps labels from
 * overlapping (each label claims a rectangle; a label that would overlap a
 * claimed one is moved or dropped by the caller). */
#ifndef TF_RENDER_CAIRO_TEXT_H
#define TF_RENDER_CAIRO_TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include <cairo.h>
#include <pango/pangocairo.h>

#include "palette.h"
#include "tf_error.h"

typedef struct tf_rect {
    double x, y, w, h;     /* page units, y downwards */
} tf_rect;

enum tf_font {
    TF_FONT_TICK,          /* tick labels */
    TF_FONT_LABEL,         /* axis titles, legends, table cells */
    TF_FONT_NOTE,          /* "no memory samples in this trace" */
    TF_FONT_HEAD,          /* panel titles, table headings */
    TF_FONT_TITLE,         /* page title */
    TF_FONT_MONO,          /* addresses */
    TF_NFONTS
};

typedef struct tf_text {
    cairo_t     *cr;
    PangoLayout *layout;
    PangoFontDescription *font[TF_NFONTS];
} tf_text;

int  tf_text_init(tf_text *t, cairo_t *cr, tf_error *err);
void tf_text_fini(tf_text *t);

/* The box s would occupy with its anchor point at (x, y); ax, ay in 0..1 pick
 * the anchor (0,0 top left, 0.5,0.5 centre).  max_w > 0 ellipsizes longer
 * text to that width. */
tf_rect tf_text_box(tf_text *t, int font, const char *s, double x, double y, double ax, double ay,
                    double max_w);
/* Draws s as tf_text_box places it and returns that box. */
tf_rect tf_text_draw(tf_text *t, int font, const char *s, double x, double y, double ax, double ay,
                     double max_w, tf_rgb colour);
/* Vertical text reading upwards, centred on (x, y). */
void tf_text_draw_vertical(tf_text *t, int font, const char *s, double x, double y, tf_rgb colour);

/* Rectangles claimed by labels already drawn. */
typedef struct tf_claims {
    size_t  n, cap;
    tf_rect *r;
} tf_claims;

/* Claims r (grown by a small margin) and returns true, or returns false
 * when it overlaps an earlier claim.  Out of memory counts as overlap, so a
 * label is dropped rather than drawn over another. */
bool tf_claims_take(tf_claims *c, tf_rect r);
void tf_claims_free(tf_claims *c);

#endif
