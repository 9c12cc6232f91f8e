/* SPDX-License-Identifier: BSD-3-Clause */
/* The waiting lane of the code panel (cairo_waiting.h). */
#include "config.h"

#include <stdio.h>

#include "cairo_cloud.h"
#include "cairo_waiting.h"

/* The lane: tall enough for a visible band of dots, small beside the
 * code lines above it. */
#define LANE_HEIGHT 9.0

/* Dots darker than "other routines" (palette.c's 7F7F7F) on a light band,
 * so the lane reads apart from any routine's colour. */
static const tf_rgb waiting_dots = {0.25, 0.25, 0.25};
static const tf_rgb lane_band = {0.92, 0.92, 0.92};

double tf_waiting_lane_height(const tf_report_page *page)
{
    return page->nwaiting ? LANE_HEIGHT : 0;
}

/* A fixed spread of the dots across the lane's height (golden-ratio
 * steps), so that dense spans read as a dark band and isolated samples
 * stay visible, the same on every run. */
static double spread(size_t i)
{
    double f = (double)i * 0.6180339887498949;
    return 0.15 + 0.7 * (f - (double)(size_t)f);
}

int tf_waiting_lane_draw(const tf_panel *p, tf_error *err)
{
    const tf_report_page *page = p->page;
    if (!page->nwaiting)
        return 0;
    tf_rect lane = {p->plot.x, p->plot.y + p->plot.h - LANE_HEIGHT, p->plot.w, LANE_HEIGHT};
    cairo_t *cr = p->cr;
    cairo_save(cr);
    cairo_set_source_rgb(cr, lane_band.r, lane_band.g, lane_band.b);
    cairo_rectangle(cr, lane.x, lane.y, lane.w, lane.h);
    cairo_fill(cr);
    cairo_restore(cr);
    tf_cloud cloud;
    if (tf_cloud_begin(&cloud, cr, lane, page->nwaiting, err) < 0)
        return -err->code;
    for (size_t i = 0; i < page->nwaiting; i++)
        tf_cloud_add(&cloud, page->waiting[i], spread(i), waiting_dots);
    return tf_cloud_end(&cloud, err) < 0 ? -err->code : 0;
}

void tf_waiting_legend(tf_legend *l, const tf_report_page *page)
{
    if (!page->nwaiting)
        return;
    char label[96];
    snprintf(label, sizeof label, "waiting (barriers, MPI): %.0f %% of the samples",
             100 * page->waiting_share);
    tf_legend_add(l, TF_SWATCH_DOT, waiting_dots, label);
}
