/* SPDX-License-Identifier: BSD-3-Clause */
/* Writing cairo pages to PDF (all pages in one file), SVG and PNG (one file
 * per page), under temporary names renamed only when every page is
 * complete: shared by the report and the calibrate figure. */
#ifndef TF_RENDER_CAIRO_OUTPUT_H
#define TF_RENDER_CAIRO_OUTPUT_H

#include <stddef.h>

#include <cairo.h>

#include "render.h"

typedef struct tf_cairo_doc {
    double      width, height;   /* page size in points */
    const char *title;           /* PDF metadata; may be NULL */
    size_t      npages;
    /* Draws page k (0-based) on cr, in page units. */
    int (*draw)(cairo_t *cr, const void *ctx, size_t k, tf_error *err);
    const void *ctx;
} tf_cairo_doc;

/* File names as tf_render_page_path gives them; dpi applies to PNG only. */
int tf_cairo_write(const tf_cairo_doc *d, const char *path, enum tf_render_format format,
                   double dpi, tf_error *err);

#endif
