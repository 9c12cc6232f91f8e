/* SPDX-License-Identifier: BSD-3-Clause */
/* The source-line axis of the code panel.  Routines of different files (or
 * far apart in one file) would squeeze each other into thin stripes on one
 * linear axis, so the axis is cut where the routines' line ranges are far
 * apart: each cluster of lines gets its own segment, top of the file at the
 * top.  Shared by the cairo and gnuplot back ends. */
#ifndef TF_RENDER_LINE_AXIS_H
#define TF_RENDER_LINE_AXIS_H

#include <stddef.h>
#include <stdint.h>

#include "report_model.h"

#define TF_LINE_SEGMENTS_MAX 6

typedef struct tf_line_segment {
    double lo, hi;         /* lines shown (padded), lo at the segment's top */
    double y0, y1;         /* extent in the panel, 0 = bottom, 1 = top; y1 > y0 */
} tf_line_segment;

typedef struct tf_line_axis {
    size_t          n;
    tf_line_segment seg[TF_LINE_SEGMENTS_MAX];
} tf_line_axis;

/* From the page's code points (n = 0 when there are none). */
int    tf_line_axis_build(const tf_report_page *p, tf_line_axis *a, tf_error *err);
/* Height 0..1 of a line (1 = top of the panel). */
double tf_line_axis_place(const tf_line_axis *a, uint32_t line);

#endif
