/* SPDX-License-Identifier: BSD-3-Clause */
/* The page of `tracefold diff`: both synthetic iterations on one time
 * scale, the after (B) strip over the before (A) strip, each aligned pair
 * of phases linked, with its time ratio; below, both folds' MIPS curves on
 * the same scale when they have them. */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "axis_ticks.h"
#include "cairo_axes.h"
#include "cairo_output.h"
#include "cairo_page.h"
#include "report_diff.h"
#include "time_units.h"

#define MARGIN 40.0
#define STRIP_H 26.0

typedef struct diff_page {
    const tf_diff *d;
    const char    *title;
    tf_layout_log *log;      /* --layout-json, or NULL */
} diff_page;

/* Page x of a time in ns on the shared scale. */
static double at(tf_rect plot, double ns, double scale_ns)
{
    return plot.x + plot.w * ns / scale_ns;
}

static void time_axis(tf_text *text, cairo_t *cr, tf_rect plot, double scale_ns, double y)
{
    /* In the unit that reads best for the longer iteration (time_units.h). */
    tf_time_unit u = tf_time_unit_for(scale_ns);
    tf_ticks t;
    tf_ticks_compute(0, scale_ns / u.ns, 8, &t);
    cairo_set_source_rgb(cr, tf_ink.r, tf_ink.g, tf_ink.b);
    cairo_set_line_width(cr, 0.6);
    cairo_move_to(cr, plot.x, y);
    cairo_line_to(cr, plot.x + plot.w, y);
    cairo_stroke(cr);
    for (size_t k = 0; k < t.n; k++) {
        double x = at(plot, t.value[k] * u.ns, scale_ns);
        if (x > plot.x + plot.w + 0.5)
            continue;
        cairo_move_to(cr, x, y);
        cairo_line_to(cr, x, y + 3);
        cairo_stroke(cr);
        char s[32];
        snprintf(s, sizeof s, "%.*f", t.decimals, t.value[k]);
        tf_text_draw(text, TF_FONT_TICK, s, x, y + 4, 0.5, 0, 0, tf_ink);
    }
    char title[64];
    snprintf(title, sizeof title, "time in the iteration [%s]", u.name);
    tf_text_draw(text, TF_FONT_LABEL, title, plot.x + plot.w / 2, y + 16, 0.5, 0, 0, tf_ink);
}

/* One fold's phases as a strip of boxes, coloured by aligned row. */
static void strip(tf_text *text, cairo_t *cr, const tf_diff *d, bool after, tf_rect plot,
                  double scale_ns, double y, const char *name)
{
    const tf_report_page *p = after ? d->b : d->a;
    for (size_t k = 0; k + 1 < d->nrows; k++) {
        const tf_diff_side *s = after ? &d->rows[k].b : &d->rows[k].a;
        if (s->first == s->last)
            continue;
        double x0 = at(plot, s->x0 * p->duration_ns, scale_ns);
        double x1 = at(plot, s->x1 * p->duration_ns, scale_ns);
        tf_rgb c = tf_palette_series(k);
        cairo_set_source_rgb(cr, c.r, c.g, c.b);
        cairo_rectangle(cr, x0, y, fmax(x1 - x0, 0.5), STRIP_H);
        cairo_fill_preserve(cr);
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_set_line_width(cr, 0.8);
        cairo_stroke(cr);
        char s_label[160];
        snprintf(s_label, sizeof s_label, "%s %s", d->rows[k].phase, s->name);
        if (x1 - x0 > 14)
            tf_text_draw(text, TF_FONT_TICK, s_label, (x0 + x1) / 2, y + STRIP_H / 2, 0.5, 0.5,
                         x1 - x0 - 2, (tf_rgb){1, 1, 1});
    }
    char label[160], duration[32];
    tf_time_format(p->duration_ns, duration, sizeof duration);
    snprintf(label, sizeof label, "%s: %s", name, duration);
    tf_text_draw(text, TF_FONT_LABEL, label, plot.x, y - 2, 0, 1, plot.w, tf_ink);
}

/* A band from B's span down to A's span for every row with both, and the
 * ratio (or "noise") beside it. */
static void links(tf_text *text, cairo_t *cr, const tf_diff *d, tf_rect plot, double scale_ns,
                  double yb, double ya, tf_claims *claims)
{
    for (size_t k = 0; k + 1 < d->nrows; k++) {
        const tf_diff_row *r = &d->rows[k];
        if (r->a.first == r->a.last || r->b.first == r->b.last)
            continue;
        double bx0 = at(plot, r->b.x0 * d->b->duration_ns, scale_ns);
        double bx1 = at(plot, r->b.x1 * d->b->duration_ns, scale_ns);
        double ax0 = at(plot, r->a.x0 * d->a->duration_ns, scale_ns);
        double ax1 = at(plot, r->a.x1 * d->a->duration_ns, scale_ns);
        tf_rgb c = tf_palette_series(k);
        cairo_set_source_rgba(cr, c.r, c.g, c.b, 0.25);
        cairo_move_to(cr, bx0, yb);
        cairo_line_to(cr, bx1, yb);
        cairo_line_to(cr, ax1, ya);
        cairo_line_to(cr, ax0, ya);
        cairo_close_path(cr);
        cairo_fill(cr);
        char s[96];
        if (r->significant)
            snprintf(s, sizeof s, "%s: x%.3g", r->phase, r->ratio);
        else
            snprintf(s, sizeof s, "%s: noise", r->phase);
        double xm = (bx0 + bx1 + ax0 + ax1) / 4, ym = (yb + ya) / 2;
        tf_rect box = tf_text_box(text, TF_FONT_TICK, s, xm, ym, 0.5, 0.5, 0);
        if (tf_claims_take(claims, box))
            tf_text_draw(text, TF_FONT_TICK, s, xm, ym, 0.5, 0.5, 0, tf_ink);
    }
}

static void curve(cairo_t *cr, const tf_report_page *p, tf_rect plot, double scale_ns, double lo,
                  double hi, tf_rgb c, double width)
{
    const tf_report_series *s = p->mips;
    bool pen = false;
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
    cairo_set_line_width(cr, width);
    for (size_t i = 0; i < s->n; i++) {
        if (!isfinite(s->y[i])) {
            pen = false;
            continue;
        }
        double x = at(plot, s->x[i] * p->duration_ns, scale_ns);
        double y = plot.y + plot.h * (1 - (s->y[i] - lo) / (hi - lo));
        if (pen)
            cairo_line_to(cr, x, y);
        else
            cairo_move_to(cr, x, y);
        pen = true;
    }
    cairo_stroke(cr);
}

/* Both folds' MIPS on the shared time scale, B over A. */
static void mips_panel(tf_text *text, cairo_t *cr, const tf_diff *d, tf_rect plot, double scale_ns)
{
    tf_axes_frame(cr, plot);
    if (!d->a->mips || !d->b->mips) {
        tf_text_draw(text, TF_FONT_NOTE, "no MIPS to compare: a fold lacks an instructions counter",
                     plot.x + plot.w / 2, plot.y + plot.h / 2, 0.5, 0.5, plot.w, tf_ink);
        return;
    }
    double lo = INFINITY, hi = -INFINITY;
    for (int f = 0; f < 2; f++) {
        const tf_report_series *s = f ? d->b->mips : d->a->mips;
        for (size_t i = 0; i < s->n; i++)
            if (isfinite(s->y[i])) {
                lo = fmin(lo, s->y[i]);
                hi = fmax(hi, s->y[i]);
            }
    }
    if (!isfinite(lo))
        return;
    lo = fmin(lo, 0);
    tf_range_pad(&lo, &hi, 0.05);
    curve(cr, d->a, plot, scale_ns, lo, hi, tf_palette_nocost, 1.0);
    curve(cr, d->b, plot, scale_ns, lo, hi, tf_palette_series(0), 1.4);
    tf_ticks t;
    tf_ticks_compute(lo, hi, 5, &t);
    for (size_t k = 0; k < t.n; k++) {
        double y = plot.y + plot.h * (1 - (t.value[k] - lo) / (hi - lo));
        char s[32];
        snprintf(s, sizeof s, "%.*f", t.decimals, t.value[k]);
        tf_text_draw(text, TF_FONT_TICK, s, plot.x - 3, y, 1, 0.5, 0, tf_ink);
    }
    tf_text_draw(text, TF_FONT_LABEL, "MIPS: B (after) in colour over A (before) in grey",
                 plot.x, plot.y - 2, 0, 1, plot.w, tf_ink);
}

static int draw(cairo_t *cr, const void *ctx, size_t k, tf_error *err)
{
    const diff_page *dp = ctx;
    const tf_diff *d = dp->d;
    tf_text text;
    tf_page_ctx pc = {.number = (unsigned)k + 1, .log = dp->log};
    if (tf_page_begin(cr, &text, &pc, err) < 0)
        return -err->code;
    tf_claims claims = {0};
    tf_rect head = {MARGIN, 24, TF_PAGE_WIDTH - 2 * MARGIN, 40};
    tf_page_panel(&text, "title", head);
    const tf_diff_row *t = &d->rows[d->nrows - 1];
    char sub[256];
    snprintf(sub, sizeof sub, "iteration B/A = %.3g, band %.3g - %.3g (%s)", t->ratio, t->ratio_lo,
             t->ratio_hi, t->significant ? "significant" : "noise");
    tf_page_header(&text, head, dp->title, sub);
    /* The rest is one figure: its texts must keep to the page's margins
     * less the tick labels' room on the left. */
    tf_page_panel(&text, "diff", (tf_rect){MARGIN / 2, head.y + head.h, TF_PAGE_WIDTH - MARGIN,
                                           TF_PAGE_HEIGHT - MARGIN / 2 - head.y - head.h});
    double scale_ns = fmax(d->a->duration_ns, d->b->duration_ns);
    tf_rect plot = {MARGIN + 10, 110, TF_PAGE_WIDTH - 2 * MARGIN - 10, 0};
    double yb = plot.y, ya = plot.y + STRIP_H + 70;
    strip(&text, cr, d, true, plot, scale_ns, yb, "B (after)");
    strip(&text, cr, d, false, plot, scale_ns, ya, "A (before)");
    links(&text, cr, d, plot, scale_ns, yb + STRIP_H, ya - 14, &claims);
    time_axis(&text, cr, plot, scale_ns, ya + STRIP_H + 4);
    tf_rect mips = {plot.x, ya + STRIP_H + 70, plot.w, 220};
    mips_panel(&text, cr, d, mips, scale_ns);
    time_axis(&text, cr, mips, scale_ns, mips.y + mips.h);
    tf_rect note = tf_text_draw(&text, TF_FONT_NOTE,
                                "One colour: aligned phases; xR: B's time over A's; noise: the band holds 1",
                                MARGIN, mips.y + mips.h + 30, 0, 0, TF_PAGE_WIDTH - 2 * MARGIN,
                                tf_ink);
    /* The full names of the phase labels shortened in the strips. */
    tf_text_keys_draw(&text, (tf_rect){MARGIN, note.y + note.h + 6, TF_PAGE_WIDTH - 2 * MARGIN,
                                       TF_PAGE_HEIGHT - MARGIN / 2 - note.y - note.h - 6});
    tf_claims_free(&claims);
    tf_text_fini(&text);
    return 0;
}

int tf_render_diff(const tf_diff *d, const char *title, const char *path,
                   enum tf_render_format format, double dpi, const char *layout_json,
                   tf_error *err)
{
    tf_layout_log log = {.page_w = TF_PAGE_WIDTH, .page_h = TF_PAGE_HEIGHT};
    diff_page dp = {d, title, layout_json ? &log : NULL};
    tf_cairo_doc doc = {TF_PAGE_WIDTH, TF_PAGE_HEIGHT, title, 1, draw, &dp};
    int rc = tf_cairo_write(&doc, path, format, dpi, err);
    if (rc == 0 && layout_json)
        rc = tf_layout_log_write(&log, layout_json, err);
    tf_layout_log_free(&log);
    return rc;
}
