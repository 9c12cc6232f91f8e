/* SPDX-License-Identifier: BSD-3-Clause */
/* The waiting lane of the code panel (cairo_waiting.h). */
#include "config.h"

#include "cairo_cloud.h"
#include "cairo_waiting.h"

/* The lane: tall enough for a visible band of dots, small beside the
 * code lines above it. */
#define LANE_HEIGHT 9.0

double tf_waiting_lane_height(const tf_report_page *page)
{
    return page->nwaiting ? LANE_HEIGHT : 0;
}

int tf_waiting_lane_draw(const tf_panel *p, tf_error *err)
{
    const tf_report_page *page = p->page;
    if (!page->nwaiting)
        return 0;
    tf_rect lane = {p->plot.x, p->plot.y + p->plot.h - LANE_HEIGHT, p->plot.w, LANE_HEIGHT};
    cairo_t *cr = p->cr;
    cairo_save(cr);
    cairo_set_source_rgb(cr, tf_palette_waiting_band.r, tf_palette_waiting_band.g,
                         tf_palette_waiting_band.b);
    cairo_rectangle(cr, lane.x, lane.y, lane.w, lane.h);
    cairo_fill(cr);
    cairo_restore(cr);
    tf_cloud cloud;
    if (tf_cloud_begin(&cloud, cr, lane, page->nwaiting, err) < 0)
        return -err->code;
    for (size_t i = 0; i < page->nwaiting; i++)
        tf_cloud_add(&cloud, page->waiting[i], tf_report_waiting_height(i),
                     tf_palette_waiting);
    return tf_cloud_end(&cloud, err) < 0 ? -err->code : 0;
}

void tf_waiting_legend(tf_legend *l, const tf_report_page *page)
{
    if (!page->nwaiting)
        return;
    char label[96];
    tf_report_waiting_label(page, label, sizeof label);
    tf_legend_add(l, TF_SWATCH_DOT, tf_palette_waiting, label);
}
