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

#include "layout_log.h"
#include "palette.h"
#include "common/tf_error.h"

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
    /* Where each text drawn is recorded (NULL: nowhere), on which page,
     * for which panel; role, when set, says what the next texts are
     * (else their font does: "tick", "label", ...). */
    tf_layout_log *log;
    unsigned     page;
    const char  *panel;
    const char  *role;
    double       page_w, page_h;   /* the page drawn on, points */
    /* The full texts of those shortened on this page: key k is keys[k-1]. */
    char       **keys;
    size_t       nkeys, keys_cap;
} tf_text;

int  tf_text_init(tf_text *t, cairo_t *cr, tf_error *err);
void tf_text_fini(tf_text *t);

/* The box s would occupy with its anchor point at (x, y); ax, ay in 0..1 pick
 * the anchor (0,0 top left, 0.5,0.5 centre).  max_w > 0 shortens longer
 * text to that width in the middle ("Compute…_fullelect¹"), the full text
 * going into the page's numbered key (tf_text_keys_draw); never cut in
 * silence. */
tf_rect tf_text_box(tf_text *t, int font, const char *s, double x, double y, double ax, double ay,
                    double max_w);
/* Draws s as tf_text_box places it and returns that box. */
tf_rect tf_text_draw(tf_text *t, int font, const char *s, double x, double y, double ax, double ay,
                     double max_w, tf_rgb colour);
/* Vertical text reading upwards, centred on (x, y); max_len > 0 shortens
 * a longer one in the middle with its key, as tf_text_box does. */
void tf_text_draw_vertical(tf_text *t, int font, const char *s, double x, double y,
                           double max_len, tf_rgb colour);
/* s shortened in the middle to at most max_w wide with its key mark, into
 * buf (malloc'ed, or s itself when it fits); *key gets the key's number
 * (0 when s fits).  NULL when out of memory. */
char *tf_text_shorten(tf_text *t, int font, const char *s, double max_w, unsigned *key);
/* A text replaced by its key mark alone ("³"), the full text in the key:
 * for a label that has no room at all (a phase label among many).  _box
 * measures, _draw draws and records the full text with its key. */
tf_rect tf_text_mark_box(tf_text *t, int font, const char *full, double x, double y, double ax,
                         double ay);
tf_rect tf_text_mark_draw(tf_text *t, int font, const char *full, double x, double y, double ax,
                          double ay, tf_rgb colour);
/* The page's key, "¹ full text" per entry, in rows from box's top;
 * returns the height it took. */
double tf_text_keys_draw(tf_text *t, tf_rect box);

/* Rectangles claimed by labels already drawn, inside bounds (bounds.w 0:
 * anywhere). */
typedef struct tf_claims {
    size_t  n, cap;
    tf_rect *r;
    tf_rect bounds;
} tf_claims;

/* Claims r (grown by a small margin) and returns true, or returns false
 * when it overlaps an earlier claim or leaves the bounds (a small page).  Out of memory counts as overlap, so a
 * label is dropped rather than drawn over another. */
bool tf_claims_take(tf_claims *c, tf_rect r);
void tf_claims_free(tf_claims *c);

#endif
