/* SPDX-License-Identifier: BSD-3-Clause */
/* The analysis of a folded group as `tracefold fold` stores it in fold.h5
 * (/region/<r>/group/<g>/analysis, docs/fold-format.md): what the report
 * takes from it — routines, data objects, each folded point's routine,
 * line, object and offset, the phases, the access streams and the
 * advice. */
#ifndef TF_RENDER_REPORT_ANALYSIS_H
#define TF_RENDER_REPORT_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/tf_error.h"

typedef struct tf_report_analysis {
    size_t    nroutines;
    char    **routines;        /* function names (one block: free(routines)) */
    char    **routine_files;   /* their source files, "" unknown (one block; NULL in
                                * folds written before the column) */
    int64_t  *routine_waiting; /* 1: threads wait for others there (barriers, MPI
                                * progress); NULL in folds written before the column */
    size_t    nobjects;
    char    **object_names;    /* one block */
    char    **object_kinds;    /* one block */
    uint64_t *object_size;
    size_t    npoints;         /* the group's folded points, in their order */
    /* their routine, line, object and offset columns, millions of rows,
     * read a slab at a time (tf_report_analysis_points): fold.h5 and the
     * group of the columns, open until tf_report_analysis_free */
    int64_t   file, points;
    size_t    nphases;
    char    **phase_label;     /* one block */
    int64_t  *phase_parent, *phase_routine, *phase_line;
    double   *phase_x0, *phase_x1;
    size_t    nstreams;        /* per phase x object */
    int64_t  *stream_phase, *stream_object, *stream_direction, *stream_stride;
    int64_t  *stream_count, *stream_samples;
    char    **stream_pattern;  /* one block */
    double   *stream_bandwidth;   /* MB/s, NaN when not linear */
    size_t    nadvice;         /* 0 in a fold.h5 written before the advice was */
    int64_t  *advice_phase, *advice_object;
    char    **advice_finding, **advice_suggestion;   /* one block each */
    double   *advice_gain;     /* expected_gain: share of the iteration */
} tf_report_analysis;

/* Reads the analysis of group g of region r from fold_path.  *present is
 * false (and a is empty) when the file has none (a fold without the
 * analysis step); a malformed analysis is an error naming the dataset. */
int  tf_report_analysis_read(const char *fold_path, uint32_t r, uint32_t g,
                             tf_report_analysis *a, bool *present, tf_error *err);
/* Rows [at, at + n) of the points' columns (room for n in each; NULL ones
 * are not read), each index checked against its table. */
int  tf_report_analysis_points(const tf_report_analysis *a, size_t at, size_t n,
                               int32_t *routine, int32_t *line, int32_t *object,
                               uint64_t *offset, tf_error *err);
void tf_report_analysis_free(tf_report_analysis *a);

#endif
