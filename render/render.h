/* SPDX-License-Identifier: BSD-3-Clause */
/* Rendering a report: the entry points the CLI and the benchmarks use. */
#ifndef TF_RENDER_H
#define TF_RENDER_H

#include <stdbool.h>
#include <stddef.h>

#include "page_size.h"
#include "report_model.h"
#include "common/tf_error.h"

enum tf_render_format { TF_FORMAT_PDF, TF_FORMAT_SVG, TF_FORMAT_PNG };

/* "pdf", "svg", "png" -> format; false for anything else. */
bool tf_render_format_parse(const char *name, enum tf_render_format *format);
const char *tf_render_format_name(enum tf_render_format format);

/* Each report page gives two output pages: the triple timeline, then the
 * tables (three when the timeline's key has a page of its own).  PDF holds them all in one file; SVG and PNG write one file per
 * page: `path` for the first, `base-N.ext` for page N (report.png,
 * report-2.png, ...).  Files are written under temporary names and renamed
 * only when every page is complete.  dpi applies to PNG only. */
int tf_render_cairo(const tf_report *r, const char *path, enum tf_render_format format,
                    double dpi, tf_error *err);

/* Choices of `tracefold render` beyond the format. */
typedef struct tf_render_options {
    double      dpi;            /* PNG only */
    /* When not NULL, every text box and panel box drawn is written there as
     * JSON (docs/commands/render.md, "Layout record"). */
    const char *layout_json;
    /* At most this many phase labels above the code panel (0: as many as
     * fit); beyond it sub-phases go unlabelled, then the narrowest phases. */
    unsigned    max_phase_labels;
    /* The page size; {0, 0}: the default page (TF_PAGE_WIDTH x TF_PAGE_HEIGHT). */
    tf_page_size size;
    /* Grey levels and line styles instead of colours (palette.h). */
    bool        grayscale;
    /* When not NULL, gets the number of pages whose key ran past the
     * page's bottom (a page too small for the report's texts). */
    unsigned   *overflowed;
} tf_render_options;

int tf_render_cairo_with(const tf_report *r, const char *path, enum tf_render_format format,
                         const tf_render_options *o, tf_error *err);
/* Number of output pages tf_render_cairo_with draws with o, into *npages
 * (a timeline page whose key does not fit below its plots has its key on
 * a page of its own: found by drawing the timeline pages out of sight);
 * PDF writes them into one file, SVG and PNG one file each.  And the name
 * of file k (0-based) into buf. */
int tf_render_cairo_pages(const tf_report *r, const tf_render_options *o, size_t *npages,
                          tf_error *err);
int tf_render_page_path(const char *path, size_t k, char *buf, size_t len, tf_error *err);

/* The report `tracefold fold` writes by default, drawn as PDF into
 * pdf_path from what the fold has in memory: its result res, the analyses
 * of its groups (analysis/analysis_run.h, with their locators) and the
 * machine profile (NULL: none).  fold_path (the fold.h5 written beside)
 * is only named in the report; nothing is read back. */
struct tf_fold_result;
struct tf_analysis_set;
struct tf_cal_profile;
int tf_render_fold_report(const char *fold_path, const struct tf_fold_result *res,
                          const struct tf_analysis_set *analyses,
                          const struct tf_cal_profile *machine, const char *pdf_path,
                          tf_error *err);

/* The gnuplot back end: into directory dir, per report page a commented
 * script per panel, one per output page, and their data files; a Makefile-
 * free `gnuplot timeline.gp` reproduces the figure with the cairo terminals
 * in `format`.  With run, gnuplot (TF_GNUPLOT) is executed on them.  The
 * directory is filled under a temporary name and renamed when complete. */
int tf_render_gnuplot(const tf_report *r, const char *dir, enum tf_render_format format,
                      double dpi, bool run, tf_error *err);
/* The same with the page size and palette of o (its dpi for PNG; the
 * cairo-only fields ignored). */
int tf_render_gnuplot_with(const tf_report *r, const char *dir, enum tf_render_format format,
                           const tf_render_options *o, bool run, tf_error *err);

/* The Saavedra–Smith figure of a machine profile (tracefold calibrate): the
 * capacity curve with the cache levels found, and one curve per stride of
 * time per access against array size.  One page; written like the report
 * (temporary name, renamed when complete).  title may be NULL. */
struct tf_cal_profile;
int tf_render_calibrate(const struct tf_cal_profile *p, const char *title, const char *path,
                        enum tf_render_format format, double dpi, tf_error *err);

#endif
