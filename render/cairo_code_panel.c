/* SPDX-License-Identifier: BSD-3-Clause */
/* Top panel: the executing source line over the synthetic iteration, one
 * dot per folded sample coloured by routine, top of the file at the top,
 * each phase labelled routine[most observed line]. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cairo_axes.h"
#include "cairo_cloud.h"
#include "cairo_legend.h"
#include "line_axis.h"
#include "report_phases.h"

/* Height of the strip along the top of the plot that shows each phase's
 * routine colour. */
#define PHASE_STRIP 3.0

static void legend(const tf_panel *p)
{
    const tf_report_page *page = p->page;
    tf_legend l;
    tf_legend_begin(&l, p, "Source code");
    size_t shown = page->nroutines < TF_PALETTE_ROUTINES ? page->nroutines : TF_PALETTE_ROUTINES;
    for (size_t i = 0; i < shown; i++) {
        char label[600];
        tf_report_routine_label(page, i, label, sizeof label);
        tf_legend_add(&l, TF_SWATCH_DOT, tf_palette_routine((uint32_t)i), label);
    }
    if (page->nroutines > shown)
        tf_legend_add(&l, TF_SWATCH_DOT, tf_palette_routine(TF_PALETTE_ROUTINES),
                      "other routines");
    tf_legend_end(&l);
}

/* Centre of a label on one of the label rows, kept inside them. */
static double label_shift(tf_rect labels, tf_rect r)
{
    return r.x < labels.x                       ? labels.x - r.x
         : r.x + r.w > labels.x + labels.w     ? labels.x + labels.w - r.x - r.w
                                                : 0;
}

/* Which phases get a label (keep), and the centre of each on the page. */
typedef struct label_plan {
    const bool *keep;
    double     *cx;
    size_t      n;
} label_plan;

/* Whether r covers the centre of a labelled phase other than i, whose
 * mark would then find no room on that row. */
static bool covers_other(const label_plan *plan, size_t i, tf_rect r)
{
    for (size_t j = 0; j < plan->n; j++)
        if (j != i && plan->keep[j] && plan->cx[j] > r.x && plan->cx[j] < r.x + r.w)
            return true;
    return false;
}

/* Phase i's label on the first of the two rows (lowest first) where it
 * overlaps nothing, on the lower row only where it leaves the other
 * phases' centres free for their marks; with mark, its key mark alone
 * ("³", the label in the page's key). */
static bool label_place(const tf_panel *p, tf_rect labels, const label_plan *plan, size_t i,
                        const char *text, bool mark)
{
    double row_h = labels.h / 2, cx = plan->cx[i];
    for (int row = 1; row >= 0; row--) {
        double y = labels.y + row_h * (row + 0.5);
        tf_rect r = mark ? tf_text_mark_box(p->text, TF_FONT_LABEL, text, cx, y, 0.5, 0.5)
                         : tf_text_box(p->text, TF_FONT_LABEL, text, cx, y, 0.5, 0.5, 0);
        double shift = label_shift(labels, r);
        r.x += shift;
        if ((!mark && row == 1 && covers_other(plan, i, r)) || !tf_claims_take(p->claims, r))
            continue;
        if (mark)
            tf_text_mark_draw(p->text, TF_FONT_LABEL, text, cx + shift, y, 0.5, 0.5, tf_ink);
        else
            tf_text_draw(p->text, TF_FONT_LABEL, text, cx + shift, y, 0.5, 0.5, 0, tf_ink);
        return true;
    }
    return false;
}

/* Phase strip and labels, from left to right: each label goes on the
 * first of the two rows where it overlaps nothing; one that fits on
 * neither is abbreviated to its key mark, the full label in the page's
 * key; a label is lost only where even its mark finds no room. */
static int phases(const tf_panel *p, tf_rect labels, unsigned max_labels, tf_error *err)
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
    size_t n = page->nphases ? page->nphases : 1;
    bool *keep = calloc(n, sizeof *keep);
    double *cx = malloc(n * sizeof *cx);
    if (!keep || !cx) {
        free(keep);
        free(cx);
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for %zu phase labels", page->nphases);
    }
    tf_report_phase_labels_choose(page, max_labels, keep);
    for (size_t i = 0; i < page->nphases; i++)
        cx[i] = tf_axes_x(p, (page->phases[i].x0 + page->phases[i].x1) / 2);
    label_plan plan = {keep, cx, page->nphases};
    for (size_t i = 0; i < page->nphases; i++) {
        if (!keep[i])
            continue;
        char buf[160];
        tf_report_phase_label(page, &page->phases[i], buf, sizeof buf);
        if (!label_place(p, labels, &plan, i, buf, false))
            label_place(p, labels, &plan, i, buf, true);
    }
    free(keep);
    free(cx);
    return 0;
}

/* Line ticks per axis segment, and the cuts between segments shown as
 * light strips with a break mark on the axis. */
static void segments(const tf_panel *p, tf_rect box, const tf_line_axis *axis)
{
    cairo_t *cr = p->cr;
    double widest = 0;
    for (size_t i = 0; i < axis->n; i++) {
        const tf_line_segment *s = &axis->seg[i];
        tf_panel seg = *p;
        seg.plot = (tf_rect){box.x, box.y + (1 - s->y1) * box.h, box.w, (s->y1 - s->y0) * box.h};
        double w = tf_axes_value(&seg, TF_AXIS_LEFT, s->lo, s->hi, true, NULL);
        widest = w > widest ? w : widest;
        if (i + 1 == axis->n)
            continue;
        double top = seg.plot.y + seg.plot.h, bottom = box.y + (1 - axis->seg[i + 1].y1) * box.h;
        cairo_save(cr);
        cairo_set_source_rgb(cr, 0.93, 0.93, 0.93);
        cairo_rectangle(cr, box.x, top, box.w, bottom - top);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, tf_ink.r, tf_ink.g, tf_ink.b);
        cairo_set_line_width(cr, 0.6);
        for (int k = 0; k < 2; k++) {
            double y = (top + bottom) / 2 + (k ? 1.2 : -1.2);
            cairo_move_to(cr, box.x - 3, y + 1.5);
            cairo_line_to(cr, box.x + 3, y - 1.5);
        }
        cairo_stroke(cr);
        cairo_restore(cr);
    }
    char title[300];
    tf_report_line_axis_title(p->page, title, sizeof title);
    tf_axes_title(p, TF_AXIS_LEFT, title, widest + 5);
}

int tf_panel_code(const tf_panel *p, tf_rect labels, unsigned max_labels, tf_error *err)
{
    const tf_report_page *page = p->page;
    legend(p);
    tf_axes_phases(p);
    if (page->ncode == 0) {
        tf_axes_missing(p, page->code_missing ? page->code_missing
                                              : "no code-line samples in this fold");
    } else {
        tf_line_axis axis;
        if (tf_line_axis_build(page, &axis, err) < 0)
            return -err->code;
        tf_cloud cloud;
        /* Keep the dots clear of the phase strip. */
        tf_rect box = p->plot;
        box.y += PHASE_STRIP + 1;
        box.h -= PHASE_STRIP + 1;
        if (tf_cloud_begin(&cloud, p->cr, box, page->ncode, err) < 0)
            return -err->code;
        for (size_t i = 0; i < page->ncode; i++)
            tf_cloud_add(&cloud, page->code[i].x, tf_line_axis_place(&axis, page->code[i].line),
                         tf_palette_routine(page->code[i].routine));
        if (tf_cloud_end(&cloud, err) < 0)
            return -err->code;
        segments(p, box, &axis);
    }
    if (phases(p, labels, max_labels, err) < 0)
        return -err->code;
    tf_axes_time(p, false);
    tf_axes_frame(p->cr, p->plot);
    return 0;
}
