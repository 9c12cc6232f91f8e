/* SPDX-License-Identifier: BSD-3-Clause */
/* The address-space axis: data objects lie far apart (heap, statics,
 * stack), so each referenced object gets its own band, stacked by address
 * (lowest at the bottom) with the gaps between them cut out.  Shared by the
 * cairo and gnuplot back ends so both draw the same axis. */
#ifndef TF_RENDER_ADDRESS_BANDS_H
#define TF_RENDER_ADDRESS_BANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report_model.h"

/* Objects beyond this many (by references) are drawn in the "other" band. */
#define TF_BANDS_MAX 16

typedef struct tf_band {
    uint32_t object;       /* index in the page's objects, TF_REPORT_NONE: other */
    double   y0, y1;       /* vertical extent, 0 = bottom of the panel, 1 = top */
    uint64_t lo, hi;       /* addresses (or offsets) at y0 and y1 */
    bool     relative;     /* lo/hi are offsets inside the object */
    size_t   refs;         /* memory points drawn in it */
} tf_band;

typedef struct tf_bands {
    size_t    n;
    tf_band   band[TF_BANDS_MAX + 1];
    uint32_t *band_of_object;  /* per object: band index or TF_REPORT_NONE */
} tf_bands;

int  tf_bands_build(const tf_report_page *p, tf_bands *b, tf_error *err);
/* Height 0..1 of a memory point; false when it falls in no band. */
bool tf_bands_place(const tf_bands *b, const tf_report_page *p, const tf_report_mem_point *m,
                    double *y);
/* Left-axis label of a band: "name | size" (or "other | N refs"). */
void tf_bands_label(const tf_bands *b, const tf_report_page *p, size_t band, char *buf,
                    size_t len);
/* Right-axis address text: "0x7f3a12c00000", or "+0x1000" when relative. */
void tf_bands_address(uint64_t addr, bool relative, char *buf, size_t len);
void tf_bands_free(tf_bands *b);

#endif
