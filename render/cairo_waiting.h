/* SPDX-License-Identifier: BSD-3-Clause */
/* The code panel's waiting lane: the samples of threads waiting for others
 * (OpenMP barriers and idle loops, MPI waits and progress; the analysis's
 * routines/waiting) have no code line of the iteration to show, so they
 * are drawn apart, as grey dots in a strip along the bottom of the panel
 * at their time, and named in the panel's legend with their share. */
#ifndef TF_RENDER_CAIRO_WAITING_H
#define TF_RENDER_CAIRO_WAITING_H

#include "cairo_legend.h"

/* Height the lane takes from the bottom of the plot: 0 when the page has
 * no waiting sample. */
double tf_waiting_lane_height(const tf_report_page *page);
/* Draws the lane at the bottom of p's plot (nothing without waiting
 * samples). */
int  tf_waiting_lane_draw(const tf_panel *p, tf_error *err);
/* The lane's legend entry, "waiting (barriers, MPI): N %" (none without
 * waiting samples). */
void tf_waiting_legend(tf_legend *l, const tf_report_page *page);

#endif
