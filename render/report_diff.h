/* SPDX-License-Identifier: BSD-3-Clause */
/* Two folds compared phase by phase (`tracefold diff`): the phases of two
 * report pages (before A, after B) aligned, and per aligned phase its time,
 * MIPS, bandwidth and memory-level shares in each fold, their ratio or
 * difference, and whether that difference lies outside the bands
 * (docs/algorithms.md, "Comparing two folds").  Inside the bands it is
 * noise. */
#ifndef TF_RENDER_REPORT_DIFF_H
#define TF_RENDER_REPORT_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "render.h"
#include "report_model.h"

/* How an aligned row was paired. */
enum tf_diff_match {
    TF_DIFF_ROUTINE,   /* same routine and line in both folds */
    TF_DIFF_ORDER,     /* the n-th unmatched phase of A with the n-th of B */
    TF_DIFF_SPAN,      /* the phases between two matched ones, as one span */
};

/* One side of an aligned row: phases [first, last) of its page. */
typedef struct tf_diff_side {
    size_t first, last;        /* first == last: no phase on this side */
    char   name[96];           /* "routine[line]" of its first phase, "+" when more */
    double x0, x1;             /* normalised span */
    double time_ns;
    double time_rel_se;        /* relative standard error of time_ns */
    double duration_rel_se;    /* its part from the mean duration of the instances */
    double duration_df;        /* and that part's degrees of freedom */
    double mips, mips_half;    /* mean MIPS over the span and its band's half width;
                                  NaN without instructions */
    double bandwidth;          /* MB/s, NaN when none */
    size_t loads;              /* load samples with a known memory level */
    size_t level_loads[TF_REPORT_LEVELS];
} tf_diff_side;

typedef struct tf_diff_row {
    char   phase[64];          /* "1" ... by position, or "total" */
    enum tf_diff_match match;
    tf_diff_side a, b;
    double ratio, ratio_lo, ratio_hi;   /* time_b / time_a and its band; NaN when a side is empty */
    double t;                  /* the time band's half width in standard errors */
    bool   significant;        /* the band excludes 1 */
    bool   mips_significant;
    bool   bandwidth_significant;
    /* per memory level: share of B minus share of A and whether it exceeds its band */
    double level_delta[TF_REPORT_LEVELS];
    bool   level_significant[TF_REPORT_LEVELS];
} tf_diff_row;

typedef struct tf_diff {
    const tf_report_page *a, *b;
    double confidence;         /* coverage of the bands */
    double z;                  /* normal band half width in standard errors (rates, levels) */
    size_t nrows;              /* aligned phases, then the row "total" */
    tf_diff_row *rows;
    bool   levels[TF_REPORT_LEVELS];   /* levels seen in either fold */
} tf_diff;

/* Aligns the phases of a and b and fills d (freed with tf_diff_free).
 * confidence in (0, 1) sets the bands (0.95: 1.96 standard errors). */
int  tf_diff_compute(const tf_report_page *a, const tf_report_page *b, double confidence,
                     tf_diff *d, tf_error *err);
void tf_diff_free(tf_diff *d);

/* Writes diff.csv and diff.md into dir (titles name the two folds). */
int  tf_diff_write_tables(const tf_diff *d, const char *a_name, const char *b_name,
                          const char *dir, tf_error *err);

/* The diff's page (one): both iterations on one time scale, B over A,
 * aligned phases linked; written like the report (render.h), with its
 * text boxes into layout_json when not NULL (render --layout-json's
 * format). */
int  tf_render_diff(const tf_diff *d, const char *title, const char *path,
                    enum tf_render_format format, double dpi, const char *layout_json,
                    tf_error *err);

#endif
