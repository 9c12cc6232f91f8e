/* SPDX-License-Identifier: BSD-3-Clause */
/* The calibrate figure: a machine profile drawn the way Saavedra and Smith
 * drew theirs.  Top, the capacity curve (one dependent load per line) with
 * the cache levels found as vertical lines; below, time per access against
 * array size, one curve per stride.  Both x axes are log 2 in bytes. */
#include "config.h"

#include <math.h>
#include <stdio.h>

#include "cairo_axes.h"
#include "cairo_legend.h"
#include "cairo_output.h"
#include "calibrate/hierarchy.h"

#define FIG_WIDTH  TF_PAGE_WIDTH
#define FIG_HEIGHT 640.0
#define MARGIN_L   52.0
#define MARGIN_R   16.0
#define HEAD_H     16.0
#define TICK_LEN   3.0

static const tf_rgb level_colour = {0.35, 0.35, 0.35};

/* "48 KiB", "1.25 MiB": sizes as the levels and ticks print them. */
static void format_bytes(double b, char *buf, size_t len)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB"};
    int u = 0;
    while (b >= 1024 && u < 3)
        b /= 1024, u++;
    snprintf(buf, len, b == floor(b) ? "%.0f %s" : "%.3g %s", b, unit[u]);
}

/* A log axis maps [lo, hi] to the plot by log(v). */
typedef struct log_axis {
    double lo, hi;
} log_axis;

static double log_pos(const log_axis *a, double v)
{
    return (log(v) - log(a->lo)) / (log(a->hi) - log(a->lo));
}

static double page_x(const tf_panel *p, const log_axis *a, double bytes)
{
    return p->plot.x + log_pos(a, bytes) * p->plot.w;
}

static double page_y_log(const tf_panel *p, const log_axis *a, double ns)
{
    return p->plot.y + (1 - log_pos(a, ns)) * p->plot.h;
}

/* Powers of two on the bottom edge, labelled in bytes; every k-th power so
 * that about eight labels fit. */
static void bytes_axis(const tf_panel *p, const log_axis *a, bool labelled)
{
    int e0 = (int)ceil(log2(a->lo) - 1e-9), e1 = (int)floor(log2(a->hi) + 1e-9);
    int step = (e1 - e0) / 8 + 1;
    double bottom = p->plot.y + p->plot.h;
    cairo_t *cr = p->cr;
    cairo_save(cr);
    cairo_set_source_rgb(cr, tf_ink.r, tf_ink.g, tf_ink.b);
    cairo_set_line_width(cr, 0.6);
    for (int e = e0; e <= e1; e++) {
        double x = page_x(p, a, ldexp(1, e));
        double len = (e - e0) % step == 0 ? TICK_LEN : TICK_LEN / 2;
        cairo_move_to(cr, x, bottom);
        cairo_line_to(cr, x, bottom - len);
    }
    cairo_stroke(cr);
    cairo_restore(cr);
    double h = 0;
    for (int e = e0; e <= e1 && labelled; e += step) {
        char buf[32];
        format_bytes(ldexp(1, e), buf, sizeof buf);
        double x = page_x(p, a, ldexp(1, e));
        tf_rect r = tf_text_draw(p->text, TF_FONT_TICK, buf, x, bottom + 2, 0.5, 0, 0, tf_ink);
        h = r.h;
    }
    if (labelled)
        tf_text_draw(p->text, TF_FONT_LABEL, "array size [bytes, log scale]",
                     p->plot.x + p->plot.w / 2, bottom + 4 + h, 0.5, 0, 0, tf_ink);
}

/* 1, 2, 5 times powers of ten on the left edge. */
static void ns_log_axis(const tf_panel *p, const log_axis *a, const char *title)
{
    static const double mant[] = {1, 2, 5};
    double widest = 0;
    cairo_t *cr = p->cr;
    cairo_save(cr);
    cairo_set_source_rgb(cr, tf_ink.r, tf_ink.g, tf_ink.b);
    cairo_set_line_width(cr, 0.6);
    for (double dec = pow(10, floor(log10(a->lo))); dec <= a->hi; dec *= 10)
        for (size_t i = 0; i < sizeof mant / sizeof mant[0]; i++) {
            double v = mant[i] * dec;
            if (v < a->lo || v > a->hi)
                continue;
            double y = page_y_log(p, a, v);
            cairo_move_to(cr, p->plot.x, y);
            cairo_line_to(cr, p->plot.x + TICK_LEN, y);
            cairo_stroke(cr);
            char buf[32];
            snprintf(buf, sizeof buf, "%g", v);
            tf_rect r = tf_text_draw(p->text, TF_FONT_TICK, buf, p->plot.x - 2, y, 1, 0.5, 0, tf_ink);
            widest = r.w > widest ? r.w : widest;
        }
    cairo_restore(cr);
    tf_axes_title(p, TF_AXIS_LEFT, title, 2 + widest + 3);
}

/* A curve's y scale: log when ylog is set, else linear over [lo, hi]. */
typedef struct y_scale {
    const log_axis *ylog;
    double          lo, hi;
} y_scale;

static double page_y(const tf_panel *p, const y_scale *y, double ns)
{
    return y->ylog ? page_y_log(p, y->ylog, ns)
                   : p->plot.y + (1 - (ns - y->lo) / (y->hi - y->lo)) * p->plot.h;
}

static void polyline(const tf_panel *p, const log_axis *x, const y_scale *y,
                     const tf_cal_curve *c, tf_rgb colour)
{
    cairo_t *cr = p->cr;
    cairo_save(cr);
    cairo_rectangle(cr, p->plot.x, p->plot.y, p->plot.w, p->plot.h);
    cairo_clip(cr);
    cairo_set_source_rgb(cr, colour.r, colour.g, colour.b);
    cairo_set_line_width(cr, 1.0);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    for (size_t i = 0; i < c->n; i++)
        (i ? cairo_line_to : cairo_move_to)(cr, page_x(p, x, c->bytes[i]), page_y(p, y, c->ns[i]));
    cairo_stroke(cr);
    for (size_t i = 0; i < c->n; i++) {
        cairo_arc(cr, page_x(p, x, c->bytes[i]), page_y(p, y, c->ns[i]), 1.3, 0, 2 * G_PI);
        cairo_fill(cr);
    }
    cairo_restore(cr);
}

static void widen(log_axis *a, const tf_cal_curve *c, bool ns)
{
    for (size_t i = 0; i < c->n; i++) {
        double v = ns ? c->ns[i] : c->bytes[i];
        a->lo = v < a->lo ? v : a->lo;
        a->hi = v > a->hi ? v : a->hi;
    }
}

/* The x range shared by both panels: every point measured. */
static log_axis size_range(const tf_cal_profile *pr)
{
    log_axis a = {INFINITY, 0};
    widen(&a, &pr->capacity, false);
    for (int k = 0; k < pr->nstrides; k++)
        widen(&a, &pr->stride[k], false);
    a.lo /= 1.3;
    a.hi *= 1.3;
    return a;
}

static void capacity_panel(const tf_panel *p, const tf_cal_profile *pr, const log_axis *x)
{
    tf_legend l;
    tf_legend_begin(&l, p, "Capacity: dependent loads, one per line, random order");
    tf_legend_add(&l, TF_SWATCH_LINE, tf_palette_series(5), "latency");
    tf_legend_add(&l, TF_SWATCH_LINE, level_colour, "cache size found");
    tf_legend_end(&l);
    tf_axes_frame(p->cr, p->plot);
    log_axis y = {INFINITY, 0};
    widen(&y, &pr->capacity, true);
    if (pr->capacity.n == 0) {
        tf_axes_missing(p, "no capacity curve in this profile");
        bytes_axis(p, x, true);
        return;
    }
    y.lo /= 1.4;
    y.hi *= 1.4;
    ns_log_axis(p, &y, "ns per load (log scale)");
    bytes_axis(p, x, true);
    cairo_t *cr = p->cr;
    for (int k = 0; k < pr->nlevels; k++) {
        const tf_cal_level *lv = &pr->levels[k];
        double px = page_x(p, x, lv->size_bytes);
        cairo_save(cr);
        cairo_set_source_rgb(cr, level_colour.r, level_colour.g, level_colour.b);
        cairo_set_line_width(cr, 0.7);
        cairo_set_dash(cr, (const double[]){3, 2}, 2, 0);
        cairo_move_to(cr, px, p->plot.y);
        cairo_line_to(cr, px, p->plot.y + p->plot.h);
        cairo_stroke(cr);
        cairo_restore(cr);
        char size[32], label[96];
        format_bytes(lv->size_bytes, size, sizeof size);
        snprintf(label, sizeof label, "L%d %s, %.1f ns", k + 1, size, lv->hit_ns);
        /* Left of its line, in the first row where it overlaps no other. */
        for (int row = 0; row < TF_CAL_MAX_LEVELS; row++) {
            double ly = p->plot.y + 3 + 9 * row;
            if (tf_claims_take(p->claims, tf_text_box(p->text, TF_FONT_TICK, label, px - 2, ly,
                                                      1, 0, 0))) {
                tf_text_draw(p->text, TF_FONT_TICK, label, px - 2, ly, 1, 0, 0, tf_ink);
                break;
            }
        }
    }
    if (pr->memory_ns > 0) {
        char label[64];
        snprintf(label, sizeof label, "memory %.0f ns", pr->memory_ns);
        tf_text_draw(p->text, TF_FONT_TICK, label, p->plot.x + p->plot.w - 3,
                     page_y_log(p, &y, pr->memory_ns) + 3, 1, 0, 0, tf_ink);
    }
    polyline(p, x, &(y_scale){&y, 0, 0}, &pr->capacity, tf_palette_series(5));
}

/* More curves than this do not read (nor fit the legend's two rows): every
 * other stride is drawn then. */
#define STRIDES_SHOWN 9

static int stride_step(const tf_cal_profile *pr)
{
    return pr->nstrides > STRIDES_SHOWN ? 2 : 1;
}

/* Strides in order on the light-to-dark ramp. */
static tf_rgb stride_colour(const tf_cal_profile *pr, int k)
{
    return tf_cost_ramp(pr->nstrides > 1 ? (double)k / (pr->nstrides - 1) : 0);
}

static void stride_panel(const tf_panel *p, const tf_cal_profile *pr, const log_axis *x)
{
    tf_legend l;
    int step = stride_step(pr);
    tf_legend_begin(&l, p, step > 1 ? "Read-modify-write, every other stride s"
                                    : "Read-modify-write, stride s");
    for (int k = 0; k < pr->nstrides; k += step) {
        char size[32];
        format_bytes(pr->stride_bytes[k], size, sizeof size);
        tf_legend_add(&l, TF_SWATCH_LINE, stride_colour(pr, k), size);
    }
    tf_legend_end(&l);
    tf_axes_frame(p->cr, p->plot);
    log_axis range = {INFINITY, 0};
    for (int k = 0; k < pr->nstrides; k += stride_step(pr))
        widen(&range, &pr->stride[k], true);
    double lo = 0, hi = range.hi;
    if (!(hi > 0)) {
        tf_axes_missing(p, "no stride sweep in this profile");
        bytes_axis(p, x, true);
        return;
    }
    hi *= 1.05;
    tf_axes_value(p, TF_AXIS_LEFT, lo, hi, false, "ns per access");
    bytes_axis(p, x, true);
    for (int k = 0; k < pr->nstrides; k += step)
        polyline(p, x, &(y_scale){NULL, lo, hi}, &pr->stride[k], stride_colour(pr, k));
}

typedef struct figure {
    const tf_cal_profile *profile;
    const char           *title;
} figure;

static int draw_figure(cairo_t *cr, const void *ctx, size_t k, tf_error *err)
{
    (void)k;
    const figure *f = ctx;
    const tf_cal_profile *pr = f->profile;
    tf_text text;
    if (tf_page_begin(cr, &text, NULL, err) < 0)
        return -err->code;
    tf_claims claims = {0};
    char sub[256], line[32], page[32], reach[32];
    format_bytes(pr->line_bytes, line, sizeof line);
    format_bytes(pr->page_bytes, page, sizeof page);
    format_bytes(pr->tlb_reach_bytes, reach, sizeof reach);
    snprintf(sub, sizeof sub, "line size %s   page size %s   TLB reach %s",
             pr->line_bytes ? line : "not found", pr->page_bytes ? page : "not found",
             pr->tlb_reach_bytes > 0 ? reach : "not found");
    tf_page_header(&text, (tf_rect){MARGIN_L, 14, FIG_WIDTH - MARGIN_L - MARGIN_R, 30},
                   f->title ? f->title : "Memory hierarchy (Saavedra-Smith)", sub);
    log_axis x = size_range(pr);
    if (!(x.hi > x.lo))
        x = (log_axis){4096, 1 << 30};
    double w = FIG_WIDTH - MARGIN_L - MARGIN_R, top = 54, plot_h = 230, gap = 42;
    tf_panel cap = {cr, &text, NULL, {MARGIN_L, top, w, HEAD_H},
                    {MARGIN_L, top + HEAD_H + 2, w, plot_h}, &claims, NULL};
    double top2 = top + HEAD_H + 2 + plot_h + gap;
    tf_panel str = {cr, &text, NULL, {MARGIN_L, top2, w, 2 * HEAD_H},
                    {MARGIN_L, top2 + 2 * HEAD_H + 2, w, plot_h}, &claims, NULL};
    capacity_panel(&cap, pr, &x);
    stride_panel(&str, pr, &x);
    tf_claims_free(&claims);
    tf_text_fini(&text);
    return 0;
}

int tf_render_calibrate(const struct tf_cal_profile *p, const char *title, const char *path,
                        enum tf_render_format format, double dpi, tf_error *err)
{
    figure f = {p, title};
    tf_cairo_doc d = {FIG_WIDTH, FIG_HEIGHT, title ? title : "tracefold calibrate", 1,
                      draw_figure, &f};
    return tf_cairo_write(&d, path, format, dpi, err);
}
