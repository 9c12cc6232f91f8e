/* SPDX-License-Identifier: BSD-3-Clause */
/* The gnuplot back end's files: a directory filled under a temporary name,
 * scripts and data files in it, and the pieces every script shares (the
 * terminal for a format, quoted strings, the page layout as screen
 * fractions taken from the cairo layout, so both back ends agree). */
#ifndef TF_RENDER_GNUPLOT_SCRIPT_H
#define TF_RENDER_GNUPLOT_SCRIPT_H

#include <stdio.h>

#include "cairo_page.h"
#include "render.h"

typedef struct tf_gp_dir {
    const char *final;          /* the directory asked for */
    char        tmp[4096];      /* where the files are written */
    enum tf_render_format format;
    double      dpi;
    tf_page_size size;          /* the page, points */
    bool        grayscale;
} tf_gp_dir;

/* Opens NAME in the directory for writing; NULL with err set on failure. */
FILE *tf_gp_open(const tf_gp_dir *d, const char *name, tf_error *err);
/* Closes f, turning any write error into err. */
int   tf_gp_close(FILE *f, const tf_gp_dir *d, const char *name, tf_error *err);

/* Writes s as a gnuplot double-quoted string, its control characters
 * escaped as \xNN (tf_escape.h). */
void tf_gp_quote(FILE *f, const char *s);
/* The file of fonts and colours that every script loads. */
#define TF_GP_STYLE "style.gp"
/* Dash types of the counter curves in style.gp: TF_GP_DASH_BASE + k for
 * series k (solid in colour, patterns with --grayscale). */
#define TF_GP_DASH_BASE 11
/* Writes style.gp: the fonts and colours of all scripts as variables,
 * each one line, from the cairo back end's palette. */
int tf_gp_style(const tf_gp_dir *d, tf_error *err);
/* Loads style.gp, then the `set terminal` (in its body font) and `set
 * output` lines for the directory's format; output is the base name
 * without extension. */
void tf_gp_terminal(FILE *f, const tf_gp_dir *d, const char *output);
/* Page coordinates (points, y down) as gnuplot screen fractions. */
static inline double tf_gp_sx(const tf_gp_dir *d, double x) { return x / d->size.w; }
static inline double tf_gp_sy(const tf_gp_dir *d, double y) { return 1.0 - y / d->size.h; }
/* Defines panel_y(y) in a panel script: page point y (from the top) as a
 * screen fraction, on the page or, run alone, in the panel's own box
 * [top, bottom] stretched over the terminal. */
void tf_gp_panel_box(FILE *f, const tf_gp_dir *d, double top, double bottom);
/* `set lmargin/rmargin/tmargin/bmargin at screen` for a plot box, its
 * heights through panel_y, its side margins scaled with the font
 * (margin_scale of style.gp). */
void tf_gp_margins(FILE *f, const tf_gp_dir *d, tf_rect plot);
/* Transparency byte of gnuplot's 0xAARRGGBB colours (0 opaque) for an
 * opacity in 0..1. */
unsigned tf_gp_transparency(double alpha);

/* Page-level scripts: each writes its script(s) and data for report page
 * `page` with file names starting with `prefix`. */
int tf_gp_timeline(const tf_gp_dir *d, const tf_report_page *page, const char *prefix,
                   tf_error *err);
int tf_gp_tables(const tf_gp_dir *d, const tf_report_page *page, const char *prefix,
                 tf_error *err);

#endif
