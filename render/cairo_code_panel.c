/* SPDX-License-Identifier: BSD-3-Clause */
/* Top panel: the executing source line over the synthetic iteration, one
 * dot per folded sample coloured by routine, top of the file at the top,
 * each phase labelled routine[most observed line]. */
#include "config.h"

#include <stdio.h>

#include "axis_ticks.h"
#include "cairo_axes.h"
#include "cairo_cloud.h"
#include "cairo_legend.h"

/* Height of the strip along the top of the plot that shows each phase's
 * routine colour. */
#define PHASE_STRIP 3.0

static void legend(const tf_panel *p)
{
    const tf_report_page *page = p->page;
    tf_legend l;
    tf_legend_begin(&l, p, "Source code");
    size_t shown = page->nroutines < TF_PALETTE_ROUTINES ? page->nroutines : TF_PALETTE_ROUTINES;
    for (size_t i = 0; i < shown; i++)
        tf_legend_add(&l, TF_SWATCH_DOT, tf_palette_routine((uint32_t)i), page->routines[i]);
    if (page->nroutines > shown)
        tf_legend_add(&l, TF_SWATCH_DOT, tf_palette_routine(TF_PALETTE_ROUTINES),
                      "other routines");
    tf_legend_end(&l);
}

static void phase_label(const tf_report_page *page, const tf_report_phase *ph, char *buf,
                        size_t len)
{
    const char *name = page->routines[ph->routine];
    if (ph->line)
        snprintf(buf, len, "%s[%u]", name, ph->line);
    else
        snprintf(buf, len, "%s", name);
}

/* Phase strip and labels; a label goes on the first of the two rows where
 * it overlaps nothing, else it is dropped (the strip still shows the phase). */
static void phases(const tf_panel *p, tf_rect labels)
{
    const tf_report_page *page = p->page;
    cairo_t *cr = p->cr;
    for (size_t i = 0; i < page->nphases; i++) {
        const tf_report_phase *ph = &page->phases[i];
        if (ph->routine >= page->nroutines)
            continue;
        tf_rgb c = tf_palette_routine(ph->routine);
        cairo_set_source_rgb(cr, c.r, c.g, c.b);
        cairo_rectangle(cr, tf_axes_x(p, ph->x0), p->plot.y, (ph->x1 - ph->x0) * p->plot.w,
                        PHASE_STRIP);
        cairo_fill(cr);
    }
    double row_h = labels.h / 2;
    for (size_t i = 0; i < page->nphases; i++) {
        const tf_report_phase *ph = &page->phases[i];
        if (ph->routine >= page->nroutines)
            continue;
        char buf[160];
        phase_label(page, ph, buf, sizeof buf);
        double cx = tf_axes_x(p, (ph->x0 + ph->x1) / 2);
        for (int row = 1; row >= 0; row--) {
            double y = labels.y + row_h * (row + 0.5);
            tf_rect r = tf_text_box(p->text, TF_FONT_LABEL, buf, cx, y, 0.5, 0.5, 0);
            double shift = r.x < labels.x ? labels.x - r.x
                         : r.x + r.w > labels.x + labels.w ? labels.x + labels.w - r.x - r.w : 0;
            r.x += shift;
            if (!tf_claims_take(p->claims, r))
                continue;
            tf_text_draw(p->text, TF_FONT_LABEL, buf, cx + shift, y, 0.5, 0.5, 0, tf_ink);
            break;
        }
    }
}

int tf_panel_code(const tf_panel *p, tf_rect labels, tf_error *err)
{
    const tf_report_page *page = p->page;
    legend(p);
    tf_axes_phases(p);
    if (page->ncode == 0) {
        tf_axes_missing(p, page->code_missing ? page->code_missing
                                              : "no code-line samples in this fold");
    } else {
        uint32_t lo = UINT32_MAX, hi = 0;
        for (size_t i = 0; i < page->ncode; i++) {
            lo = page->code[i].line < lo ? page->code[i].line : lo;
            hi = page->code[i].line > hi ? page->code[i].line : hi;
        }
        double ylo = lo, yhi = hi;
        tf_range_pad(&ylo, &yhi, 0.04);
        tf_cloud cloud;
        /* Keep the dots clear of the phase strip. */
        tf_rect box = p->plot;
        box.y += PHASE_STRIP + 1;
        box.h -= PHASE_STRIP + 1;
        if (tf_cloud_begin(&cloud, p->cr, box, page->ncode, err) < 0)
            return -err->code;
        for (size_t i = 0; i < page->ncode; i++) {
            const tf_report_code_point *c = &page->code[i];
            tf_cloud_add(&cloud, c->x, 1 - (c->line - ylo) / (yhi - ylo),
                         tf_palette_routine(c->routine));
        }
        if (tf_cloud_end(&cloud, err) < 0)
            return -err->code;
        tf_panel axis = *p;
        axis.plot = box;
        tf_axes_value(&axis, TF_AXIS_LEFT, ylo, yhi, true, "source line");
    }
    phases(p, labels);
    tf_axes_time(p, false);
    tf_axes_frame(p->cr, p->plot);
    return 0;
}
