/* SPDX-License-Identifier: BSD-3-Clause */
/* Bottom panel: the per-instruction ratios of the counters (left axis) and
 * MIPS (right axis, black), each with its confidence band shaded; without
 * an instructions counter, the rates of the counters there are. */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "axis_ticks.h"
#include "cairo_axes.h"
#include "cairo_legend.h"

#define BAND_ALPHA 0.18

static const tf_rgb black = {0, 0, 0};

static double series_max(const tf_report_series *s)
{
    double m = 0;
    for (size_t i = 0; i < s->n; i++) {
        double v = s->hi ? s->hi[i] : s->y[i];
        if (isfinite(v) && v > m)
            m = v;
    }
    return m;
}

static double yof(const tf_panel *p, double v, double hi)
{
    double f = v / hi;
    f = f < 0 ? 0 : f > 1 ? 1 : f;
    return p->plot.y + (1 - f) * p->plot.h;
}

/* Series `index` (its colour and dash pattern), or MIPS (index -1). */
static void draw_series(const tf_panel *p, const tf_report_series *s, double hi, int index)
{
    tf_rgb c = index < 0 ? black : tf_palette_series((size_t)index);
    cairo_t *cr = p->cr;
    if (s->n == 0)
        return;
    cairo_save(cr);
    cairo_rectangle(cr, p->plot.x, p->plot.y, p->plot.w, p->plot.h);
    cairo_clip(cr);
    if (s->lo && s->hi) {
        for (size_t i = 0; i < s->n; i++)
            cairo_line_to(cr, tf_axes_x(p, s->x[i]), yof(p, s->hi[i], hi));
        for (size_t i = s->n; i-- > 0;)
            cairo_line_to(cr, tf_axes_x(p, s->x[i]), yof(p, s->lo[i], hi));
        cairo_close_path(cr);
        cairo_set_source_rgba(cr, c.r, c.g, c.b, BAND_ALPHA);
        cairo_fill(cr);
    }
    /* A value that is not finite (nothing measured there) leaves a gap. */
    cairo_new_path(cr);
    bool drawing = false;
    for (size_t i = 0; i < s->n; i++) {
        if (!isfinite(s->y[i])) {
            drawing = false;
            continue;
        }
        if (drawing)
            cairo_line_to(cr, tf_axes_x(p, s->x[i]), yof(p, s->y[i], hi));
        else
            cairo_move_to(cr, tf_axes_x(p, s->x[i]), yof(p, s->y[i], hi));
        drawing = true;
    }
    if (index >= 0) {
        double dash[4];
        int n;
        tf_palette_series_dash((size_t)index, dash, &n);
        cairo_set_dash(cr, dash, n, 0);
    }
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
    cairo_set_line_width(cr, 1.1);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_stroke(cr);
    cairo_restore(cr);
}

int tf_panel_rates(const tf_panel *p, tf_error *err)
{
    const tf_report_page *page = p->page;
    tf_legend l;
    tf_legend_begin(&l, p, "Performance");
    if (page->mips)
        tf_legend_add(&l, TF_SWATCH_LINE, black, "MIPS (right axis)");
    for (size_t i = 0; i < page->nrates; i++)
        tf_legend_add_series(&l, i, page->rates[i].name);
    /* Counters added once per iteration have no curve: their totals. */
    for (size_t i = 0; i < page->ntotals; i++) {
        char label[160];
        tf_report_total_label(&page->totals[i], label, sizeof label);
        tf_legend_add(&l, TF_SWATCH_NONE, black, label);
    }
    tf_legend_end(&l);
    tf_axes_phases(p);
    if (page->nrates == 0 && !page->mips) {
        tf_axes_missing(p, page->rates_missing ? page->rates_missing
                                               : "no counter rates in this fold");
    }
    if (page->nrates > 0) {
        double hi = 0;
        for (size_t i = 0; i < page->nrates; i++) {
            double m = series_max(&page->rates[i]);
            hi = m > hi ? m : hi;
        }
        hi = hi > 0 ? hi * 1.05 : 1;
        for (size_t i = 0; i < page->nrates; i++)
            draw_series(p, &page->rates[i], hi, (int)i);
        const char *unit = page->rates_unit ? page->rates_unit
                         : page->mips      ? "events per instruction"
                                           : "rate [M events/s]";
        tf_axes_value(p, TF_AXIS_LEFT, 0, hi, false, unit);
    }
    if (page->mips) {
        double hi = series_max(page->mips);
        hi = hi > 0 ? hi * 1.05 : 1;
        draw_series(p, page->mips, hi, -1);
        tf_axes_value(p, TF_AXIS_RIGHT, 0, hi, false, "MIPS");
    }
    tf_axes_time(p, true);
    tf_axes_frame(p->cr, p->plot);
    return 0;
}
