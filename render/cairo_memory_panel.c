/* SPDX-License-Identifier: BSD-3-Clause */
/* Middle panel: the address space over the synthetic iteration.  Objects are
 * bands (address_bands.h) labelled `name | size` on the left, with their
 * first and last addresses on the right; loads are coloured by cost on the
 * green-to-blue ramp, stores black, references without a cost (decoded in
 * software) neutral grey; with a machine profile, the cache sizes as dashed
 * lines in the bands. */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "address_bands.h"
#include "axis_ticks.h"
#include "cairo_axes.h"
#include "cairo_cloud.h"
#include "cairo_legend.h"

#define RAMP_W 48.0
#define LABEL_GAP 4.0
#define LEFT_LABEL_MAX 84.0
/* Room kept beside the labels for the axis titles. */
#define AXIS_TITLE_ROOM 16.0

static bool has_cost(const tf_report_mem_point *m)
{
    return m->access == TF_REPORT_LOAD && m->cost > 0 && !(m->flags & TF_REPORT_MEM_SOFTWARE);
}

static tf_rgb point_colour(const tf_report_mem_point *m, const tf_cost_scale *scale)
{
    if (m->access == TF_REPORT_STORE)
        return tf_palette_store;
    if (!has_cost(m))
        return tf_palette_nocost;
    return tf_cost_ramp(tf_cost_position(scale, m->cost));
}

/* "load cost [cycles] 12 (ramp) 840". */
static void cost_legend(tf_legend *l, const tf_cost_scale *s)
{
    const tf_panel *p = l->panel;
    char lo[24], hi[24];
    snprintf(lo, sizeof lo, "%.0f", s->lo);
    snprintf(hi, sizeof hi, "%.0f", s->hi);
    const char *title = "load cost [cycles]";
    tf_rect rt = tf_text_box(p->text, TF_FONT_LABEL, title, 0, 0, 0, 0, 0);
    tf_rect rl = tf_text_box(p->text, TF_FONT_TICK, lo, 0, 0, 0, 0, 0);
    tf_rect rh = tf_text_box(p->text, TF_FONT_TICK, hi, 0, 0, 0, 0, 0);
    double x = tf_legend_reserve(l, rt.w + rl.w + rh.w + RAMP_W + 9);
    if (x < 0) {
        /* No room for the ramp (a narrow page): its range in words, with
         * the legend's other entries that did not fit. */
        char words[96];
        snprintf(words, sizeof words, "%s from %s (light) to %s (dark)", title, lo, hi);
        tf_legend_add(l, TF_SWATCH_NONE, tf_ink, words);
        return;
    }
    tf_text_draw(p->text, TF_FONT_LABEL, title, x, l->y, 0, 0.5, 0, tf_ink);
    x += rt.w + 3;
    tf_text_draw(p->text, TF_FONT_TICK, lo, x, l->y, 0, 0.5, 0, tf_ink);
    x += rl.w + 2;
    cairo_pattern_t *g = cairo_pattern_create_linear(x, 0, x + RAMP_W, 0);
    for (int i = 0; i <= 8; i++) {
        tf_rgb c = tf_cost_ramp(i / 8.0);
        cairo_pattern_add_color_stop_rgb(g, i / 8.0, c.r, c.g, c.b);
    }
    cairo_save(p->cr);
    cairo_set_source(p->cr, g);
    cairo_rectangle(p->cr, x, l->y - 3, RAMP_W, 6);
    cairo_fill(p->cr);
    cairo_restore(p->cr);
    cairo_pattern_destroy(g);
    tf_text_draw(p->text, TF_FONT_TICK, hi, x + RAMP_W + 2, l->y, 0, 0.5, 0, tf_ink);
}

static void legend(const tf_panel *p, const tf_cost_scale *scale)
{
    const tf_report_page *page = p->page;
    bool stores = false, nocost = false;
    for (size_t i = 0; i < page->nmem; i++) {
        stores |= page->mem[i].access == TF_REPORT_STORE;
        nocost |= page->mem[i].access == TF_REPORT_LOAD && !has_cost(&page->mem[i]);
    }
    tf_legend l;
    tf_legend_begin(&l, p, "Address space");
    if (scale->hi > 0)
        cost_legend(&l, scale);
    if (stores)
        tf_legend_add(&l, TF_SWATCH_DOT, tf_palette_store, "stores");
    if (nocost)
        tf_legend_add(&l, TF_SWATCH_DOT, tf_palette_nocost, "loads, no cost (decoded)");
    tf_legend_end(&l);
}

/* Band backgrounds and the labels on both sides; *left_w and *right_w get
 * the widths of the widest labels drawn, to place the axis titles. */
static void bands(const tf_panel *p, const tf_bands *b, double *left_w, double *right_w)
{
    *left_w = *right_w = 0;
    cairo_t *cr = p->cr;
    double right = p->plot.x + p->plot.w;
    /* A narrow page has a narrower margin for them. */
    double label_max = fmin(LEFT_LABEL_MAX, p->plot.x - LABEL_GAP - AXIS_TITLE_ROOM);
    for (size_t i = 0; i < b->n; i++) {
        const tf_band *d = &b->band[i];
        double top = p->plot.y + (1 - d->y1) * p->plot.h, bottom = p->plot.y + (1 - d->y0) * p->plot.h;
        cairo_set_source_rgb(cr, 0.95, 0.95, 0.95);
        cairo_rectangle(cr, p->plot.x, top, p->plot.w, bottom - top);
        cairo_fill(cr);

        char buf[200];
        tf_bands_label(b, p->page, i, buf, sizeof buf);
        double cy = (top + bottom) / 2;
        tf_rect r = tf_text_box(p->text, TF_FONT_LABEL, buf, p->plot.x - LABEL_GAP, cy, 1, 0.5,
                                label_max);
        if (tf_claims_take(p->claims, r)) {
            tf_text_draw(p->text, TF_FONT_LABEL, buf, p->plot.x - LABEL_GAP, cy, 1, 0.5,
                         label_max, tf_ink);
            *left_w = r.w > *left_w ? r.w : *left_w;
        }

        /* Addresses at the band's edges, the upper one first (it is the
         * one nearer the band above, and the lower one of the band above
         * is tried after it). */
        const struct { uint64_t addr; double y, ay; } edge[2] = {
            {d->hi, top, 0}, {d->lo, bottom, 1},
        };
        for (int e = 0; e < 2; e++) {
            tf_bands_address(edge[e].addr, d->relative, buf, sizeof buf);
            r = tf_text_box(p->text, TF_FONT_MONO, buf, right + LABEL_GAP, edge[e].y, 0,
                            edge[e].ay, 0);
            /* Room left on the page for the axis title after them. */
            if (r.x + r.w <= p->text->page_w - AXIS_TITLE_ROOM && tf_claims_take(p->claims, r)) {
                tf_text_draw(p->text, TF_FONT_MONO, buf, right + LABEL_GAP, edge[e].y, 0,
                             edge[e].ay, 0, tf_ink);
                *right_w = r.w > *right_w ? r.w : *right_w;
            }
        }
    }
}

/* The machine's cache sizes (tracefold fold --machine) as dashed lines in
 * each band large enough: below the line for L2, the object's first bytes
 * fit in L2. */
static void cache_lines(const tf_panel *p, const tf_bands *b)
{
    cairo_t *cr = p->cr;
    for (size_t i = 0; i < b->n; i++) {
        const tf_band *d = &b->band[i];
        double span = (double)(d->hi - d->lo);
        for (size_t k = 0; k < p->page->ncaches && p->page->cache_bytes[k] < span; k++) {
            double f = d->y0 + (d->y1 - d->y0) * p->page->cache_bytes[k] / span;
            double y = p->plot.y + (1 - f) * p->plot.h;
            cairo_save(cr);
            cairo_set_source_rgb(cr, tf_palette_phase.r, tf_palette_phase.g, tf_palette_phase.b);
            cairo_set_line_width(cr, 0.5);
            cairo_set_dash(cr, (const double[]){2, 2}, 2, 0);
            cairo_move_to(cr, p->plot.x, y);
            cairo_line_to(cr, p->plot.x + p->plot.w, y);
            cairo_stroke(cr);
            cairo_restore(cr);
            char label[24];
            snprintf(label, sizeof label, "L%zu", k + 1);
            tf_rect r = tf_text_box(p->text, TF_FONT_TICK, label, p->plot.x + 2, y, 0, 1, 0);
            if (tf_claims_take(p->claims, r))
                tf_text_draw(p->text, TF_FONT_TICK, label, p->plot.x + 2, y, 0, 1, 0,
                             tf_palette_phase);
        }
    }
}

static int cloud(const tf_panel *p, const tf_bands *b, const tf_cost_scale *scale, bool stores,
                 tf_error *err)
{
    const tf_report_page *page = p->page;
    size_t n = 0;
    for (size_t i = 0; i < page->nmem; i++)
        n += (page->mem[i].access == TF_REPORT_STORE) == stores;
    if (n == 0)
        return 0;
    tf_cloud c;
    if (tf_cloud_begin(&c, p->cr, p->plot, n, err) < 0)
        return -err->code;
    for (size_t i = 0; i < page->nmem; i++) {
        const tf_report_mem_point *m = &page->mem[i];
        double y;
        if ((m->access == TF_REPORT_STORE) == stores && tf_bands_place(b, page, m, &y))
            tf_cloud_add(&c, m->x, y, point_colour(m, scale));
    }
    return tf_cloud_end(&c, err);
}

int tf_panel_memory(const tf_panel *p, tf_error *err)
{
    const tf_report_page *page = p->page;
    tf_cost_scale scale = {0, 0};
    for (size_t i = 0; i < page->nmem; i++) {
        const tf_report_mem_point *m = &page->mem[i];
        if (!has_cost(m))
            continue;
        if (scale.hi == 0 || m->cost < scale.lo)
            scale.lo = m->cost;
        if (m->cost > scale.hi)
            scale.hi = m->cost;
    }
    legend(p, &scale);
    if (page->nmem == 0) {
        tf_axes_phases(p);
        tf_axes_missing(p, page->mem_missing ? page->mem_missing
                                             : "no memory samples in this trace");
        tf_axes_time(p, false);
        tf_axes_frame(p->cr, p->plot);
        return 0;
    }
    tf_bands b;
    if (tf_bands_build(page, &b, err) < 0)
        return -err->code;
    double left_w, right_w;
    bands(p, &b, &left_w, &right_w);
    cache_lines(p, &b);
    tf_axes_phases(p);
    /* Loads first, stores over them: stores are rarer and black. */
    int rc = cloud(p, &b, &scale, false, err);
    if (rc == 0)
        rc = cloud(p, &b, &scale, true, err);
    tf_bands_free(&b);
    if (rc < 0)
        return rc;
    tf_axes_title(p, TF_AXIS_LEFT, "data object | size", LABEL_GAP + left_w + 5);
    tf_axes_title(p, TF_AXIS_RIGHT, "address", LABEL_GAP + right_w + 5);
    tf_axes_time(p, false);
    tf_axes_frame(p->cr, p->plot);
    return 0;
}
