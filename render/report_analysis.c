/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading the analysis group of fold.h5: its tables through the reader of
 * formats/fold_h5.h, its per-point columns a slab at a time. */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/fold_h5.h"
#include "formats/h5util.h"
#include "report_analysis.h"

#define COLUMN(col, member) { col, TF_FOLD_H5_COLUMN, offsetof(tf_report_analysis, member), \
                             NULL, NULL, NULL, 0 }
#define TABLE(tbl, list) TF_FOLD_H5_BINDING(tbl, list, 0)

/* The columns the report uses, each table's read into the arrays of
 * tf_report_analysis. */
static const tf_fold_h5_field routine_columns[] = {
    COLUMN("function", routines), COLUMN("file", routine_files),
    COLUMN("waiting", routine_waiting),
};
static const tf_fold_h5_field object_columns[] = {
    COLUMN("name", object_names), COLUMN("kind", object_kinds), COLUMN("size_bytes", object_size),
};
static const tf_fold_h5_field phase_columns[] = {
    COLUMN("label", phase_label), COLUMN("parent", phase_parent),
    COLUMN("routine", phase_routine), COLUMN("line", phase_line),
    COLUMN("x_begin", phase_x0), COLUMN("x_end", phase_x1),
};
static const tf_fold_h5_field stream_columns[] = {
    COLUMN("phase", stream_phase), COLUMN("object", stream_object),
    COLUMN("direction", stream_direction), COLUMN("stride_bytes", stream_stride),
    COLUMN("streams", stream_count), COLUMN("samples", stream_samples),
    COLUMN("pattern", stream_pattern), COLUMN("bandwidth_MBps", stream_bandwidth),
};
static const tf_fold_h5_field advice_columns[] = {
    COLUMN("phase", advice_phase), COLUMN("object", advice_object),
    COLUMN("finding", advice_finding), COLUMN("suggestion", advice_suggestion),
    COLUMN("expected_gain", advice_gain),
};
static const tf_fold_h5_binding routines = TABLE(tf_fold_h5_routines, routine_columns);
static const tf_fold_h5_binding objects = TABLE(tf_fold_h5_objects, object_columns);
static const tf_fold_h5_binding phases = TABLE(tf_fold_h5_phases, phase_columns);
static const tf_fold_h5_binding streams = TABLE(tf_fold_h5_streams, stream_columns);
static const tf_fold_h5_binding advice = TABLE(tf_fold_h5_advice, advice_columns);

int tf_report_analysis_read(const char *fold_path, uint32_t r, uint32_t g,
                            tf_report_analysis *a, bool *present, tf_error *err)
{
    memset(a, 0, sizeof *a);
    a->file = a->points = -1;
    *present = false;
    a->nroutines = a->nobjects = a->npoints = a->nphases = a->nstreams = SIZE_MAX; /* any length */
    int64_t file = -1, grp = -1;
    char path[TF_FOLD_H5_PATH];
    tf_fold_h5_group_path(path, r, g, TF_FOLD_H5_ANALYSIS);
    int rc = tf_h5_file_open(fold_path, false, &file, err);
    if (rc < 0)
        return rc;
    if (!tf_h5_exists(file, path)) {
        tf_h5_close(file);
        memset(a, 0, sizeof *a);
        a->file = a->points = -1;
        return 0;
    }
    rc = tf_h5_group_open(file, path, &grp, err);
    size_t n;
    if (rc == 0)
        rc = tf_fold_h5_table_read(grp, &routines, a, &a->nroutines, NULL, err);
    if (rc == 0)
        rc = tf_fold_h5_table_read(grp, &objects, a, &a->nobjects, NULL, err);
    /* the points' columns: their lengths now, their rows when read */
    if (rc == 0)
        rc = tf_fold_h5_analysis_points_find(grp, &a->points, &a->npoints, err);
    if (rc == 0)
        rc = tf_fold_h5_table_read(grp, &phases, a, &a->nphases, NULL, err);
    if (rc == 0)
        rc = tf_fold_h5_table_read(grp, &streams, a, &a->nstreams, NULL, err);
    for (n = 0; rc == 0 && n < a->nstreams; n++)
        if (a->stream_phase[n] < 0 || a->stream_phase[n] >= (int64_t)a->nphases
            || a->stream_object[n] < 0 || a->stream_object[n] >= (int64_t)a->nobjects)
            rc = tf_h5_fail(err, TF_ERR_FORMAT, grp, "streams",
                            "row %zu: phase %lld or object %lld out of range", n,
                            (long long)a->stream_phase[n], (long long)a->stream_object[n]);
    /* the advice, where the fold wrote it */
    a->nadvice = SIZE_MAX;
    if (rc == 0)
        rc = tf_fold_h5_table_read(grp, &advice, a, &a->nadvice, NULL, err);
    for (n = 0; rc == 0 && n < a->nadvice; n++)
        if (a->advice_phase[n] < 0 || a->advice_phase[n] >= (int64_t)a->nphases
            || a->advice_object[n] < 0 || a->advice_object[n] >= (int64_t)a->nobjects)
            rc = tf_h5_fail(err, TF_ERR_FORMAT, grp, "advice",
                            "row %zu: phase %lld or object %lld out of range", n,
                            (long long)a->advice_phase[n], (long long)a->advice_object[n]);
    /* Every index must point into its table (the points' as they are read). */
    for (n = 0; rc == 0 && n < a->nphases; n++)
        if (a->phase_routine[n] >= (int64_t)a->nroutines)
            rc = tf_h5_fail(err, TF_ERR_FORMAT, grp, "phases/routine",
                            "row %zu: routine %lld out of range", n, (long long)a->phase_routine[n]);
    tf_h5_close(grp);
    a->file = file;
    if (rc < 0)
        tf_report_analysis_free(a);
    else
        *present = true;
    return rc;
}

int tf_report_analysis_points(const tf_report_analysis *a, size_t at, size_t n,
                              int32_t *routine, int32_t *line, int32_t *object,
                              uint64_t *offset, tf_error *err)
{
    int rc = 0;
    if (routine)
        rc = tf_fold_h5_analysis_points_read(a->points, TF_FOLD_H5_POINT_ROUTINE, at, n, routine,
                                             err);
    if (rc == 0 && line)
        rc = tf_fold_h5_analysis_points_read(a->points, TF_FOLD_H5_POINT_LINE, at, n, line, err);
    if (rc == 0 && object)
        rc = tf_fold_h5_analysis_points_read(a->points, TF_FOLD_H5_POINT_OBJECT, at, n, object,
                                             err);
    if (rc == 0 && offset)
        rc = tf_fold_h5_analysis_points_read(a->points, TF_FOLD_H5_POINT_OFFSET, at, n, offset,
                                             err);
    for (size_t i = 0; rc == 0 && i < n; i++)
        if ((routine && routine[i] >= (int64_t)a->nroutines) ||
            (object && object[i] >= (int64_t)a->nobjects))
            rc = tf_h5_fail(err, TF_ERR_FORMAT, a->points, NULL,
                            "row %zu: routine %lld or object %lld out of range", at + i,
                            routine ? (long long)routine[i] : -1LL,
                            object ? (long long)object[i] : -1LL);
    return rc;
}

void tf_report_analysis_free(tf_report_analysis *a)
{
    free(a->routines);
    free(a->routine_files);
    free(a->routine_waiting);
    free(a->object_names);
    free(a->object_kinds);
    free(a->object_size);
    /* 0: a zeroed struct, nothing opened */
    if (a->points > 0)
        tf_h5_close(a->points);
    if (a->file > 0)
        tf_h5_close(a->file);
    free(a->phase_label);
    free(a->phase_parent);
    free(a->phase_routine);
    free(a->phase_line);
    free(a->phase_x0);
    free(a->phase_x1);
    free(a->stream_phase);
    free(a->stream_object);
    free(a->stream_direction);
    free(a->stream_stride);
    free(a->stream_count);
    free(a->stream_samples);
    free(a->stream_pattern);
    free(a->stream_bandwidth);
    free(a->advice_phase);
    free(a->advice_object);
    free(a->advice_finding);
    free(a->advice_suggestion);
    free(a->advice_gain);
    memset(a, 0, sizeof *a);
    a->file = a->points = -1;
}
