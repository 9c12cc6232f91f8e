/* SPDX-License-Identifier: BSD-3-Clause */
/* The page size of a report (tracefold render --size): named sizes taken
 * from journal and slide formats, or WxH in millimetres or inches.  Fonts
 * keep their size in points at every page size; the layout gives the
 * plots what room is left (docs/commands/render.md, "Page sizes"). */
#ifndef TF_RENDER_PAGE_SIZE_H
#define TF_RENDER_PAGE_SIZE_H

#include <stdbool.h>

typedef struct tf_page_size {
    double w, h;           /* points (1/72 in) */
} tf_page_size;

/* The default page: 180 mm x 254 mm, a journal's full text width. */
#define TF_PAGE_WIDTH  510.0
#define TF_PAGE_HEIGHT 720.0

/* The smallest and largest side a WxH size may have, in millimetres: below
 * the smallest, the fixed-size text leaves no room for the plots. */
#define TF_PAGE_MIN_W_MM 80.0
#define TF_PAGE_MIN_H_MM 120.0
#define TF_PAGE_MAX_MM   600.0

/* "single-column", "double-column", "slide", or "WxH" in mm, or "WxHin"
 * in inches (3.5x2.5in); false for anything else or a side out of range. */
bool tf_page_size_parse(const char *s, tf_page_size *size);

#endif
