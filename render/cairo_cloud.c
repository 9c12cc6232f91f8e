/* SPDX-License-Identifier: BSD-3-Clause */
/* Density-aware point clouds. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cairo_cloud.h"

/* Grid cells per page unit, and the side of the square each point marks
 * (in cells): a point covers about 1 x 1 pt, like a small vector dot. */
#define CELLS_PER_UNIT 2.0
#define SPLAT 2

int tf_cloud_begin(tf_cloud *c, cairo_t *cr, tf_rect box, size_t npoints, tf_error *err)
{
    memset(c, 0, sizeof *c);
    c->cr = cr;
    c->box = box;
    c->radius = 0.9;
    /* Vector dots: opaque when few, down to 0.25 as they crowd. */
    c->alpha = npoints ? sqrt(1500.0 / (double)npoints) : 1.0;
    c->alpha = c->alpha > 0.9 ? 0.9 : c->alpha < 0.25 ? 0.25 : c->alpha;
    if (npoints <= TF_CLOUD_VECTOR_MAX)
        return 0;
    c->binned = true;
    c->w = (int)ceil(box.w * CELLS_PER_UNIT);
    c->h = (int)ceil(box.h * CELLS_PER_UNIT);
    if (c->w < 1 || c->h < 1)
        return tf_fail(err, TF_ERR_INTERNAL, "report: empty panel box for a point cloud");
    c->cells = calloc((size_t)c->w * (size_t)c->h * 4, sizeof *c->cells);
    if (!c->cells)
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for a %dx%d point grid", c->w, c->h);
    return 0;
}

void tf_cloud_add(tf_cloud *c, double fx, double fy, tf_rgb colour)
{
    if (!(fx >= 0 && fx <= 1 && fy >= 0 && fy <= 1))
        return;
    if (!c->binned) {
        double x = c->box.x + fx * c->box.w, y = c->box.y + (1 - fy) * c->box.h;
        cairo_set_source_rgba(c->cr, colour.r, colour.g, colour.b, c->alpha);
        cairo_new_sub_path(c->cr);
        cairo_arc(c->cr, x, y, c->radius, 0, 2 * G_PI);
        cairo_fill(c->cr);
        return;
    }
    int cx = (int)(fx * (c->w - SPLAT)), cy = (int)((1 - fy) * (c->h - SPLAT));
    for (int dy = 0; dy < SPLAT; dy++) {
        float *cell = c->cells + ((size_t)(cy + dy) * (size_t)c->w + (size_t)cx) * 4;
        for (int dx = 0; dx < SPLAT; dx++, cell += 4) {
            cell[0] += 1.0f;
            cell[1] += (float)colour.r;
            cell[2] += (float)colour.g;
            cell[3] += (float)colour.b;
        }
    }
}

int tf_cloud_end(tf_cloud *c, tf_error *err)
{
    if (!c->binned)
        return 0;
    size_t ncells = (size_t)c->w * (size_t)c->h;
    float maxc = 0;
    for (size_t i = 0; i < ncells; i++)
        maxc = c->cells[i * 4] > maxc ? c->cells[i * 4] : maxc;
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, c->w, c->h);
    if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(img);
        free(c->cells);
        c->cells = NULL;
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for a %dx%d cloud image", c->w, c->h);
    }
    cairo_surface_flush(img);
    unsigned char *data = cairo_image_surface_get_data(img);
    int stride = cairo_image_surface_get_stride(img);
    double lmax = log1p(maxc);
    for (int y = 0; y < c->h; y++) {
        uint32_t *row = (uint32_t *)(void *)(data + (size_t)y * (size_t)stride);
        for (int x = 0; x < c->w; x++) {
            const float *cell = c->cells + ((size_t)y * (size_t)c->w + (size_t)x) * 4;
            if (cell[0] <= 0) {
                row[x] = 0;
                continue;
            }
            /* A lone point is still clearly visible; the densest cell is opaque. */
            double a = 0.3 + 0.7 * log1p(cell[0]) / lmax;
            double k = a / cell[0];   /* mean colour, premultiplied */
            uint32_t A = (uint32_t)lround(a * 255), R = (uint32_t)lround(cell[1] * k * 255),
                     G = (uint32_t)lround(cell[2] * k * 255), B = (uint32_t)lround(cell[3] * k * 255);
            row[x] = A << 24 | R << 16 | G << 8 | B;
        }
    }
    cairo_surface_mark_dirty(img);
    cairo_save(c->cr);
    cairo_rectangle(c->cr, c->box.x, c->box.y, c->box.w, c->box.h);
    cairo_clip(c->cr);
    cairo_translate(c->cr, c->box.x, c->box.y);
    cairo_scale(c->cr, c->box.w / c->w, c->box.h / c->h);
    cairo_set_source_surface(c->cr, img, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(c->cr), CAIRO_FILTER_GOOD);
    cairo_paint(c->cr);
    cairo_restore(c->cr);
    cairo_surface_destroy(img);
    free(c->cells);
    c->cells = NULL;
    return 0;
}
