/* SPDX-License-Identifier: BSD-3-Clause */
/* Point clouds drawn with their density in mind.  A few thousand points are
 * vector dots whose transparency falls as their number grows; beyond that
 * the points are binned on a fine grid (half a point per cell) and drawn as
 * one image whose opacity follows the log of the count per cell and whose
 * colour is the mean colour of the cell, so a million points stay readable
 * (dense stripes dark, isolated points faint) and fast in every format. */
#ifndef TF_RENDER_CAIRO_CLOUD_H
#define TF_RENDER_CAIRO_CLOUD_H

#include <stdbool.h>
#include <stddef.h>

#include "cairo_text.h"

/* Above this many points a cloud is binned. */
#define TF_CLOUD_VECTOR_MAX 20000

typedef struct tf_cloud {
    cairo_t *cr;
    tf_rect  box;
    bool     binned;
    double   alpha, radius;    /* vector dots */
    int      w, h;             /* grid cells */
    float   *cells;            /* per cell: count, r, g, b sums */
} tf_cloud;

/* Starts a cloud of about npoints points inside box. */
int  tf_cloud_begin(tf_cloud *c, cairo_t *cr, tf_rect box, size_t npoints, tf_error *err);
/* fx, fy in 0..1 across the box; fy = 0 is the bottom. */
void tf_cloud_add(tf_cloud *c, double fx, double fy, tf_rgb colour);
/* Paints a binned cloud and releases the grid. */
int  tf_cloud_end(tf_cloud *c, tf_error *err);

#endif
