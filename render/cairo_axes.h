/* SPDX-License-Identifier: BSD-3-Clause */
/* Panel furniture for the cairo pages: frames, the shared time axis, value
 * axes on either side, phase boundaries, the note of an empty panel. */
#ifndef TF_RENDER_CAIRO_AXES_H
#define TF_RENDER_CAIRO_AXES_H

#include <stdbool.h>

#include "cairo_page.h"

extern const tf_rgb tf_ink;      /* text and axes */

enum tf_axis_side { TF_AXIS_LEFT, TF_AXIS_RIGHT };

void tf_axes_frame(cairo_t *cr, tf_rect plot);
/* Time axis in ms (0 .. duration): tick marks on the plot's bottom edge,
 * tick labels and the axis title only when labelled. */
void tf_axes_time(const tf_panel *p, bool labelled);
/* A linear value axis; reversed puts lo at the top.  Returns the width of
 * its widest tick label. */
double tf_axes_value(const tf_panel *p, enum tf_axis_side side, double lo, double hi, bool reversed,
                   const char *title);
/* Axis title centred along the plot's side, outside its tick labels. */
void tf_axes_title(const tf_panel *p, enum tf_axis_side side, const char *title, double offset);
/* Thin vertical lines at the phase boundaries. */
void tf_axes_phases(const tf_panel *p);
/* The panel's reason for having nothing to show, centred in the plot. */
void tf_axes_missing(const tf_panel *p, const char *note);
/* Page x of a normalised time. */
static inline double tf_axes_x(const tf_panel *p, double x)
{
    return p->plot.x + x * p->plot.w;
}

#endif
