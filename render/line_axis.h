/* SPDX-License-Identifier: BSD-3-Clause */
/* The source-line axis of the code panel.  Line numbers of different files
 * mean nothing on one scale, so the axis is broken into one band per
 * source file (the file with the most samples at the top), each titled
 * with the file's name.  Inside a band, lines far apart are cut again into
 * segments with their own line ticks, top of the file at the top.  Lines
 * that hold a negligible share of the samples (one sample of a library
 * line) are not drawn rather than stretching the axis; they are listed
 * (tf_line_axis_dropped_note).  Shared by the cairo and gnuplot back ends.
 *
 * The rule, also in docs/commands/render.md: a routine's sampled lines
 * more than 160 lines apart make separate ranges; ranges of one file that
 * overlap or lie close are joined into clusters.  A cluster
 * holding under 1 % of the panel's samples is not drawn, smallest first,
 * as long as those not drawn hold at most 5 % of the samples together.
 * At most TF_LINE_BANDS_MAX files get a band (the busiest); the others
 * are not drawn either. */
#ifndef TF_RENDER_LINE_AXIS_H
#define TF_RENDER_LINE_AXIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report_model.h"

#define TF_LINE_SEGMENTS_MAX 6
#define TF_LINE_BANDS_MAX 4
/* Files listed by name in the note of lines not drawn. */
#define TF_LINE_DROPPED_MAX 4

typedef struct tf_line_segment {
    double   lo, hi;       /* lines shown (padded), lo at the segment's top */
    double   y0, y1;       /* extent in the panel, 0 = bottom, 1 = top; y1 > y0 */
    uint32_t first, last;  /* the sampled lines it holds */
    size_t   band;
} tf_line_segment;

typedef struct tf_line_band {
    const char *file;      /* the file's name without its directory (with it when
                            * another band's file has that name), "" unknown */
    size_t      seg0, nseg;
    double      y0, y1;    /* as the segments'; with several bands, each has a
                            * strip for its title from y1 up to title_y1 */
    double      title_y1;
    size_t      samples;
} tf_line_band;

/* Lines of one file not drawn. */
typedef struct tf_line_dropped {
    const char *file;      /* as a band's */
    uint32_t    first, last;
    size_t      samples;
} tf_line_dropped;

typedef struct tf_line_axis {
    size_t          n;
    tf_line_segment seg[TF_LINE_SEGMENTS_MAX];
    size_t          nbands;
    tf_line_band    band[TF_LINE_BANDS_MAX];
    /* Busiest first; ndropped counts them all, the first
     * TF_LINE_DROPPED_MAX are kept. */
    size_t          ndropped, dropped_samples;
    tf_line_dropped dropped[TF_LINE_DROPPED_MAX];
    size_t          total;           /* the page's code samples */
    /* Band of each routine (index = routine id), SIZE_MAX none. */
    size_t         *routine_band;
    size_t          nroutines;
} tf_line_axis;

/* From the page's code points (n = 0 when there are none); release with
 * tf_line_axis_free. */
int    tf_line_axis_build(const tf_report_page *p, tf_line_axis *a, tf_error *err);
void   tf_line_axis_free(tf_line_axis *a);
/* Height 0..1 of a code point (1 = top of the panel), or a negative value
 * when its line is not drawn. */
double tf_line_axis_place(const tf_line_axis *a, const tf_report_code_point *pt);
/* "source line", "source line in stream.c" when one file of known name
 * is drawn (and its name is short enough to run along the axis). */
void   tf_line_axis_title(const tf_line_axis *a, char *buf, size_t len);
/* "not drawn (samples): libm.so:4410 (3); stream.c:4990-5000 (2); 3 other
 * files (9)" into buf; false (buf empty) when every line is drawn. */
bool   tf_line_axis_dropped_note(const tf_line_axis *a, char *buf, size_t len);

#endif
