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
#include "cairo_waiting.h"
#include "line_axis.h"
#include "report_phases.h"

/* Height of the strip along the top of the plot that shows each phase's
 * routine colour. */
#define PHASE_STRIP 3.0
/* Room kept between the note of lines not drawn and the page's edge. */
#define NOTE_MARGIN 8.0

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
    tf_waiting_legend(&l, page);
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

/* How a phase label is shown: whole, shortened in the middle to the
 * width of its phase (at least SHORT_MIN) with the whole label in the
 * page's key, or as its key mark alone ("³"). */
enum label_form { LABEL_FULL, LABEL_SHORT, LABEL_MARK };
#define SHORT_MIN 100.0

/* Phase i's label on the first of the two rows (lowest first) where it
 * overlaps nothing, on the lower row only where it leaves the other
 * phases' centres free for their marks. */
static bool label_place(const tf_panel *p, tf_rect labels, const label_plan *plan, size_t i,
                        const char *text, enum label_form form)
{
    double row_h = labels.h / 2, cx = plan->cx[i];
    const tf_report_phase *ph = &p->page->phases[i];
    double max_w = form == LABEL_SHORT ? (ph->x1 - ph->x0) * p->plot.w : 0;
    max_w = form == LABEL_SHORT && max_w < SHORT_MIN ? SHORT_MIN : max_w;
    for (int row = 1; row >= 0; row--) {
        double y = labels.y + row_h * (row + 0.5);
        tf_rect r = form == LABEL_MARK
                      ? tf_text_mark_box(p->text, TF_FONT_LABEL, text, cx, y, 0.5, 0.5)
                      : tf_text_box(p->text, TF_FONT_LABEL, text, cx, y, 0.5, 0.5, max_w);
        double shift = label_shift(labels, r);
        r.x += shift;
        if ((form != LABEL_MARK && row == 1 && covers_other(plan, i, r))
            || !tf_claims_take(p->claims, r))
            continue;
        if (form == LABEL_MARK)
            tf_text_mark_draw(p->text, TF_FONT_LABEL, text, cx + shift, y, 0.5, 0.5, tf_ink);
        else
            tf_text_draw(p->text, TF_FONT_LABEL, text, cx + shift, y, 0.5, 0.5, max_w, tf_ink);
        return true;
    }
    return false;
}

/* Phase strip and labels, from left to right: each label goes on the
 * first of the two rows where it overlaps nothing; one that fits on
 * neither is shortened to its phase's width, else abbreviated to its key
 * mark, the full label in the page's key; a label is lost only where even
 * its mark finds no room. */
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
        char buf[600];
        tf_report_phase_label(page, &page->phases[i], buf, sizeof buf);
        if (!label_place(p, labels, &plan, i, buf, LABEL_FULL)
            && !label_place(p, labels, &plan, i, buf, LABEL_SHORT))
            label_place(p, labels, &plan, i, buf, LABEL_MARK);
    }
    free(keep);
    free(cx);
    return 0;
}

/* A break in the axis within a file between the heights top and bottom
 * (page y): a light strip across the plot with a break mark on the axis. */
static void axis_break(cairo_t *cr, tf_rect box, double top, double bottom)
{
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

/* With several files, each band's strip above it: darker than a break
 * within a file, a line across at its top where another band ends, and
 * the file's name on it (so it hides no dot). */
static void band_strips(const tf_panel *p, tf_rect box, const tf_line_axis *axis)
{
    if (axis->nbands < 2)
        return;
    cairo_t *cr = p->cr;
    p->text->role = "band title";
    for (size_t i = 0; i < axis->nbands; i++) {
        const tf_line_band *b = &axis->band[i];
        double top = box.y + (1 - b->title_y1) * box.h, bottom = box.y + (1 - b->y1) * box.h;
        cairo_save(cr);
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_rectangle(cr, box.x, top, box.w, bottom - top);
        cairo_fill(cr);
        if (i > 0) {
            cairo_set_source_rgb(cr, tf_ink.r, tf_ink.g, tf_ink.b);
            cairo_set_line_width(cr, 0.6);
            cairo_move_to(cr, box.x - 3, top);
            cairo_line_to(cr, box.x + box.w, top);
            cairo_stroke(cr);
        }
        cairo_restore(cr);
        const char *name = *b->file ? b->file : "unknown file";
        double x = box.x + 2, y = (top + bottom) / 2;
        tf_rect r = tf_text_box(p->text, TF_FONT_TICK, name, x, y, 0, 0.5, box.w - 4);
        if (tf_claims_take(p->claims, r))
            tf_text_draw(p->text, TF_FONT_TICK, name, x, y, 0, 0.5, box.w - 4, tf_ink);
        else
            tf_text_mark_draw(p->text, TF_FONT_TICK, name, x, y, 0, 0.5, tf_ink);
    }
    p->text->role = NULL;
}

/* Line ticks per axis segment, the breaks between segments, the bands'
 * strips and titles. */
static void segments(const tf_panel *p, tf_rect box, const tf_line_axis *axis)
{
    double widest = 0;
    for (size_t i = 0; i < axis->n; i++) {
        const tf_line_segment *s = &axis->seg[i];
        tf_panel seg = *p;
        seg.plot = (tf_rect){box.x, box.y + (1 - s->y1) * box.h, box.w, (s->y1 - s->y0) * box.h};
        double w = tf_axes_value(&seg, TF_AXIS_LEFT, s->lo, s->hi, true, NULL);
        widest = w > widest ? w : widest;
        if (i + 1 < axis->n && axis->seg[i + 1].band == s->band)
            axis_break(p->cr, box, seg.plot.y + seg.plot.h,
                       box.y + (1 - axis->seg[i + 1].y1) * box.h);
    }
    band_strips(p, box, axis);
    char title[300];
    tf_line_axis_title(axis, title, sizeof title);
    tf_axes_title(p, TF_AXIS_LEFT, title, widest + 5);
}

/* The lines not drawn, listed under the plot from its left edge (the
 * time axis is labelled under the last panel only), on into the right
 * margin, which holds nothing at this height; shortened with a key when
 * even that is too short. */
static void dropped_note(const tf_panel *p, const tf_line_axis *axis)
{
    char note[1024];
    if (!tf_line_axis_dropped_note(axis, note, sizeof note))
        return;
    p->text->role = "not drawn";
    double x = p->plot.x, y = p->plot.y + p->plot.h + 1, max_w = p->text->page_w - NOTE_MARGIN - x;
    tf_rect r = tf_text_box(p->text, TF_FONT_TICK, note, x, y, 0, 0, max_w);
    if (tf_claims_take(p->claims, r))
        tf_text_draw(p->text, TF_FONT_TICK, note, x, y, 0, 0, max_w, tf_ink);
    else
        tf_text_mark_draw(p->text, TF_FONT_TICK, note, x, y, 0, 0, tf_ink);
    p->text->role = NULL;
}

static int code_cloud(const tf_panel *p, tf_error *err)
{
    const tf_report_page *page = p->page;
    tf_line_axis axis;
    if (tf_line_axis_build(page, &axis, err) < 0)
        return -err->code;
    tf_cloud cloud;
    /* Keep the dots clear of the phase strip. */
    tf_rect box = p->plot;
    box.y += PHASE_STRIP + 1;
    box.h -= PHASE_STRIP + 1 + tf_waiting_lane_height(page);
    int rc = tf_cloud_begin(&cloud, p->cr, box, page->ncode, err);
    for (size_t i = 0; i < page->ncode && rc == 0; i++) {
        double y = tf_line_axis_place(&axis, &page->code[i]);
        if (y >= 0)
            tf_cloud_add(&cloud, page->code[i].x, y, tf_palette_routine(page->code[i].routine));
    }
    if (rc == 0)
        rc = tf_cloud_end(&cloud, err);
    if (rc == 0) {
        segments(p, box, &axis);
        dropped_note(p, &axis);
    }
    tf_line_axis_free(&axis);
    return rc < 0 ? -err->code : 0;
}

int tf_panel_code(const tf_panel *p, tf_rect labels, unsigned max_labels, tf_error *err)
{
    const tf_report_page *page = p->page;
    legend(p);
    tf_axes_phases(p);
    if (page->ncode == 0) {
        tf_axes_missing(p, page->code_missing ? page->code_missing
                                              : "no code-line samples in this fold");
    } else if (code_cloud(p, err) < 0) {
        return -err->code;
    }
    if (tf_waiting_lane_draw(p, err) < 0)
        return -err->code;
    if (phases(p, labels, max_labels, err) < 0)
        return -err->code;
    tf_axes_time(p, false);
    tf_axes_frame(p->cr, p->plot);
    return 0;
}
