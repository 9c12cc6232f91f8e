/* SPDX-License-Identifier: BSD-3-Clause */
/* Frames, axes, phase lines and empty-panel notes. */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "axis_ticks.h"
#include "cairo_axes.h"
#include "time_units.h"

const tf_rgb tf_ink = {0.1, 0.1, 0.1};

#define TICK_LEN 3.0
#define TICK_GAP 2.0
/* How far a vertical axis title may run past its plot, above and below
 * together (the memory plot has 5 points below it, 1 of them a gap). */
#define TITLE_OVERHANG 8.0

void tf_axes_frame(cairo_t *cr, tf_rect plot)
{
    cairo_save(cr);
    cairo_set_source_rgb(cr, tf_ink.r, tf_ink.g, tf_ink.b);
    cairo_set_line_width(cr, 0.6);
    cairo_rectangle(cr, plot.x, plot.y, plot.w, plot.h);
    cairo_stroke(cr);
    cairo_restore(cr);
}

static void format_tick(double v, int decimals, char *buf, size_t len)
{
    snprintf(buf, len, "%.*f", decimals, v);
}

void tf_axes_time(const tf_panel *p, bool labelled)
{
    tf_time_unit u = tf_time_unit_for(p->page->duration_ns);
    double span = p->page->duration_ns / u.ns;
    tf_ticks t;
    tf_ticks_compute(0, span > 0 ? span : 1, 8, &t);
    cairo_t *cr = p->cr;
    cairo_save(cr);
    cairo_set_source_rgb(cr, tf_ink.r, tf_ink.g, tf_ink.b);
    cairo_set_line_width(cr, 0.6);
    double bottom = p->plot.y + p->plot.h;
    for (size_t i = 0; i < t.n; i++) {
        double x = tf_axes_x(p, span > 0 ? t.value[i] / span : t.value[i]);
        cairo_move_to(cr, x, bottom);
        cairo_line_to(cr, x, bottom - TICK_LEN);
        cairo_move_to(cr, x, p->plot.y);
        cairo_line_to(cr, x, p->plot.y + TICK_LEN);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
    if (!labelled)
        return;
    double h = 0;
    for (size_t i = 0; i < t.n; i++) {
        char buf[32];
        format_tick(t.value[i], t.decimals, buf, sizeof buf);
        double x = tf_axes_x(p, span > 0 ? t.value[i] / span : t.value[i]);
        tf_rect r = tf_text_box(p->text, TF_FONT_TICK, buf, x, bottom + TICK_GAP, 0.5, 0, 0);
        if (tf_claims_take(p->claims, r))
            tf_text_draw(p->text, TF_FONT_TICK, buf, x, bottom + TICK_GAP, 0.5, 0, 0, tf_ink);
        h = r.h;
    }
    char title[64];
    snprintf(title, sizeof title, "time in the synthetic iteration [%s]", span > 0 ? u.name : "fraction");
    tf_text_draw(p->text, TF_FONT_LABEL, title,
                 p->plot.x + p->plot.w / 2, bottom + TICK_GAP + h + 2, 0.5, 0, 0, tf_ink);
}

double tf_axes_value(const tf_panel *p, enum tf_axis_side side, double lo, double hi,
                     bool reversed, const char *title)
{
    tf_ticks t;
    /* About one labelled tick per 28 points of height. */
    int target = (int)(p->plot.h / 28);
    target = target < 2 ? 2 : target > 7 ? 7 : target;
    tf_ticks_compute(lo, hi, target, &t);
    cairo_t *cr = p->cr;
    double edge = side == TF_AXIS_LEFT ? p->plot.x : p->plot.x + p->plot.w;
    double dir = side == TF_AXIS_LEFT ? -1 : 1;
    double widest = 0;
    cairo_save(cr);
    cairo_set_source_rgb(cr, tf_ink.r, tf_ink.g, tf_ink.b);
    cairo_set_line_width(cr, 0.6);
    for (size_t i = 0; i < t.n; i++) {
        double f = (t.value[i] - lo) / (hi - lo);
        double y = reversed ? p->plot.y + f * p->plot.h : p->plot.y + (1 - f) * p->plot.h;
        cairo_move_to(cr, edge, y);
        cairo_line_to(cr, edge - dir * TICK_LEN, y);
        cairo_stroke(cr);
        char buf[32];
        double a = fabs(t.value[i]);
        if (a != 0 && (a < 1e-3 || a >= 1e6))
            snprintf(buf, sizeof buf, "%.1e", t.value[i]);
        else
            format_tick(t.value[i], t.decimals, buf, sizeof buf);
        double tx = edge + dir * TICK_GAP;
        tf_rect r = tf_text_box(p->text, TF_FONT_TICK, buf, tx, y, side == TF_AXIS_LEFT, 0.5, 0);
        if (tf_claims_take(p->claims, r))
            tf_text_draw(p->text, TF_FONT_TICK, buf, tx, y, side == TF_AXIS_LEFT, 0.5, 0, tf_ink);
        widest = r.w > widest ? r.w : widest;
    }
    cairo_restore(cr);
    if (title)
        tf_axes_title(p, side, title, TICK_GAP + widest + 3);
    return widest;
}

void tf_axes_title(const tf_panel *p, enum tf_axis_side side, const char *title, double offset)
{
    tf_rect r = tf_text_box(p->text, TF_FONT_LABEL, title, 0, 0, 0, 0, 0);
    double x = side == TF_AXIS_LEFT ? p->plot.x - offset - r.h / 2
                                    : p->plot.x + p->plot.w + offset + r.h / 2;
    /* No longer than the plot and the strips above and below it (on a
     * small page the plots are short, the title's font is not). */
    tf_text_draw_vertical(p->text, TF_FONT_LABEL, title, x, p->plot.y + p->plot.h / 2,
                          p->plot.h + TITLE_OVERHANG, tf_ink);
}

void tf_axes_phases(const tf_panel *p)
{
    cairo_t *cr = p->cr;
    cairo_save(cr);
    cairo_set_source_rgb(cr, tf_palette_phase.r, tf_palette_phase.g, tf_palette_phase.b);
    cairo_set_line_width(cr, 0.5);
    const double dash[] = {2.0, 1.5};
    cairo_set_dash(cr, dash, 2, 0);
    for (size_t i = 0; i < p->page->nphases; i++) {
        double x0 = p->page->phases[i].x0;
        if (x0 <= 0.001 || x0 >= 0.999)
            continue;
        double x = tf_axes_x(p, x0);
        /* A boundary between two sub-phases of one phase (4.1 | 4.2) is
         * lighter: with many phases the top-level ones stay readable. */
        double shade = i > 0 && tf_report_phase_siblings(&p->page->phases[i - 1],
                                                         &p->page->phases[i]) ? 0.45 : 1;
        cairo_set_source_rgba(cr, tf_palette_phase.r, tf_palette_phase.g, tf_palette_phase.b,
                              shade);
        /* One stroke per line: some SVG viewers join dashed subpaths. */
        cairo_move_to(cr, x, p->plot.y);
        cairo_line_to(cr, x, p->plot.y + p->plot.h);
        cairo_stroke(cr);
    }
    cairo_restore(cr);
}

void tf_axes_missing(const tf_panel *p, const char *note)
{
    tf_rgb grey = {0.35, 0.35, 0.35};
    double cx = p->plot.x + p->plot.w / 2, cy = p->plot.y + p->plot.h / 2;
    /* On a white ground, so phase lines do not cross the text. */
    tf_rect r = tf_text_box(p->text, TF_FONT_NOTE, note, cx, cy, 0.5, 0.5, p->plot.w - 10);
    cairo_save(p->cr);
    cairo_set_source_rgb(p->cr, 1, 1, 1);
    cairo_rectangle(p->cr, r.x - 3, r.y - 1, r.w + 6, r.h + 2);
    cairo_fill(p->cr);
    cairo_restore(p->cr);
    tf_text_draw(p->text, TF_FONT_NOTE, note, cx, cy, 0.5, 0.5, p->plot.w - 10, grey);
}
