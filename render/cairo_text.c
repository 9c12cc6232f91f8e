/* SPDX-License-Identifier: BSD-3-Clause */
/* pango text in page units, and label claims. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cairo_text.h"
#include "tf_escape.h"

/* Sizes chosen for a figure printed about 18 cm wide (a journal's full
 * width): 7 pt ticks are the smallest size most journals accept. */
static const char *const font_names[TF_NFONTS] = {
    [TF_FONT_TICK] = "DejaVu Sans 6.5",
    [TF_FONT_LABEL] = "DejaVu Sans 7.5",
    [TF_FONT_NOTE] = "DejaVu Sans Oblique 8",
    [TF_FONT_HEAD] = "DejaVu Sans Bold 8",
    [TF_FONT_TITLE] = "DejaVu Sans Bold 11",
    [TF_FONT_MONO] = "DejaVu Sans Mono 6.5",
};

/* Space kept free around a claimed label. */
#define CLAIM_MARGIN 1.5

int tf_text_init(tf_text *t, cairo_t *cr, tf_error *err)
{
    memset(t, 0, sizeof *t);
    t->cr = cr;
    t->layout = pango_cairo_create_layout(cr);
    if (!t->layout)
        return tf_fail(err, TF_ERR_NOMEM, "report: cannot create a text layout");
    PangoContext *ctx = pango_layout_get_context(t->layout);
    /* One point per page unit, and no hinting, so text measures the same
     * on every surface (PDF, SVG, PNG at any dpi). */
    pango_cairo_context_set_resolution(ctx, 72.0);
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    pango_cairo_context_set_font_options(ctx, fo);
    cairo_font_options_destroy(fo);
    pango_layout_context_changed(t->layout);
    for (int i = 0; i < TF_NFONTS; i++)
        t->font[i] = pango_font_description_from_string(font_names[i]);
    return 0;
}

void tf_text_fini(tf_text *t)
{
    for (int i = 0; i < TF_NFONTS; i++)
        if (t->font[i])
            pango_font_description_free(t->font[i]);
    if (t->layout)
        g_object_unref(t->layout);
    memset(t, 0, sizeof *t);
}

static void set_text(tf_text *t, int font, const char *s, double max_w)
{
    pango_layout_set_font_description(t->layout, t->font[font]);
    if (max_w > 0) {
        pango_layout_set_width(t->layout, (int)(max_w * PANGO_SCALE));
        pango_layout_set_ellipsize(t->layout, PANGO_ELLIPSIZE_END);
    } else {
        pango_layout_set_width(t->layout, -1);
        pango_layout_set_ellipsize(t->layout, PANGO_ELLIPSIZE_NONE);
    }
    /* Names from the trace may hold control characters or bytes that are
     * not UTF-8, which pango refuses (the whole page would fail). */
    char *shown = tf_escape_dup(s);
    pango_layout_set_text(t->layout, shown ? shown : "", -1);
    free(shown);
}

static tf_rect place(tf_text *t, double x, double y, double ax, double ay)
{
    PangoRectangle ink, logical;
    pango_layout_get_extents(t->layout, &ink, &logical);
    double w = (double)logical.width / PANGO_SCALE, h = (double)logical.height / PANGO_SCALE;
    return (tf_rect){x - ax * w, y - ay * h, w, h};
}

tf_rect tf_text_box(tf_text *t, int font, const char *s, double x, double y, double ax, double ay,
                    double max_w)
{
    set_text(t, font, s, max_w);
    return place(t, x, y, ax, ay);
}

tf_rect tf_text_draw(tf_text *t, int font, const char *s, double x, double y, double ax, double ay,
                     double max_w, tf_rgb colour)
{
    set_text(t, font, s, max_w);
    tf_rect r = place(t, x, y, ax, ay);
    cairo_save(t->cr);
    cairo_set_source_rgb(t->cr, colour.r, colour.g, colour.b);
    cairo_move_to(t->cr, r.x, r.y);
    pango_cairo_update_layout(t->cr, t->layout);
    pango_cairo_show_layout(t->cr, t->layout);
    /* The move_to above must not stay as the start of the next path (the
     * path is not part of the saved state). */
    cairo_new_path(t->cr);
    cairo_restore(t->cr);
    return r;
}

void tf_text_draw_vertical(tf_text *t, int font, const char *s, double x, double y, tf_rgb colour)
{
    set_text(t, font, s, 0);
    tf_rect r = place(t, 0, 0, 0.5, 0.5);
    cairo_save(t->cr);
    cairo_translate(t->cr, x, y);
    cairo_rotate(t->cr, -G_PI / 2);
    cairo_set_source_rgb(t->cr, colour.r, colour.g, colour.b);
    cairo_move_to(t->cr, r.x, r.y);
    pango_cairo_update_layout(t->cr, t->layout);
    pango_cairo_show_layout(t->cr, t->layout);
    /* The move_to above must not stay as the start of the next path (the
     * path is not part of the saved state). */
    cairo_new_path(t->cr);
    cairo_restore(t->cr);
}

static bool overlap(tf_rect a, tf_rect b)
{
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

bool tf_claims_take(tf_claims *c, tf_rect r)
{
    /* Text boxes include the line spacing above and below the glyphs:
     * little extra room is needed vertically. */
    tf_rect g = {r.x - CLAIM_MARGIN, r.y - CLAIM_MARGIN / 6, r.w + 2 * CLAIM_MARGIN,
                 r.h + CLAIM_MARGIN / 3};
    for (size_t i = 0; i < c->n; i++)
        if (overlap(g, c->r[i]))
            return false;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 32;
        tf_rect *nr = realloc(c->r, cap * sizeof *nr);
        if (!nr)
            return false;
        c->r = nr;
        c->cap = cap;
    }
    c->r[c->n++] = g;
    return true;
}

void tf_claims_free(tf_claims *c)
{
    free(c->r);
    memset(c, 0, sizeof *c);
}
