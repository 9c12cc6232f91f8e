/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading the analysis group of fold.h5. */
#include "config.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/h5util.h"
#include "report_analysis.h"

/* A 1-D numeric column of the expected length (any length when n is
 * SIZE_MAX, which then receives it). */
static int column(int64_t loc, const char *name, enum tf_h5_type type, void **data, size_t *n,
                  tf_error *err)
{
    size_t rows, cols;
    if (tf_h5_read_array(loc, name, type, data, &rows, &cols, err) < 0)
        return -err->code;
    if (cols != 0 || (*n != SIZE_MAX && rows != *n))
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "expected %zu rows, found %zu x %zu",
                          *n == SIZE_MAX ? rows : *n, rows, cols);
    *n = rows;
    return 0;
}

static int strings(int64_t loc, const char *name, char ***s, size_t *n, tf_error *err)
{
    size_t got;
    if (tf_h5_read_strings(loc, name, s, &got, err) < 0)
        return -err->code;
    if (*n != SIZE_MAX && got != *n)
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "expected %zu rows, found %zu", *n, got);
    *n = got;
    return 0;
}

int tf_report_analysis_read(const char *fold_path, uint32_t r, uint32_t g,
                            tf_report_analysis *a, bool *present, tf_error *err)
{
    memset(a, 0, sizeof *a);
    a->file = a->points = -1;
    *present = false;
    a->nroutines = a->nobjects = a->npoints = a->nphases = a->nstreams = SIZE_MAX; /* any length */
    int64_t file = -1, grp = -1;
    char path[128];
    snprintf(path, sizeof path, "region/%u/group/%u/analysis", r, g);
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
        rc = strings(grp, "routines/function", &a->routines, &a->nroutines, err);
    if (rc == 0 && tf_h5_exists(grp, "routines/file"))
        rc = strings(grp, "routines/file", &a->routine_files, &a->nroutines, err);
    if (rc == 0 && tf_h5_exists(grp, "routines/waiting"))
        rc = column(grp, "routines/waiting", TF_H5_INT64, (void **)&a->routine_waiting,
                    &a->nroutines, err);
    if (rc == 0)
        rc = strings(grp, "objects/name", &a->object_names, &a->nobjects, err);
    if (rc == 0)
        rc = strings(grp, "objects/kind", &a->object_kinds, &a->nobjects, err);
    if (rc == 0)
        rc = column(grp, "objects/size_bytes", TF_H5_UINT64, (void **)&a->object_size, &a->nobjects, err);
    /* the points' columns: their lengths now, their rows when read */
    static const char *const point_columns[] = { "routine", "line", "object", "offset" };
    if (rc == 0)
        rc = tf_h5_group_open(grp, "points", &a->points, err);
    for (size_t c = 0; rc == 0 && c < 4; c++) {
        size_t len;
        rc = tf_h5_array_length(a->points, point_columns[c], &len, err);
        if (rc == 0 && c > 0 && len != a->npoints)
            rc = tf_h5_fail(err, TF_ERR_FORMAT, a->points, point_columns[c],
                            "expected %zu rows, found %zu", a->npoints, len);
        a->npoints = len;
    }
    if (rc == 0)
        rc = strings(grp, "phases/label", &a->phase_label, &a->nphases, err);
    if (rc == 0)
        rc = column(grp, "phases/parent", TF_H5_INT64, (void **)&a->phase_parent, &a->nphases, err);
    if (rc == 0)
        rc = column(grp, "phases/routine", TF_H5_INT64, (void **)&a->phase_routine, &a->nphases, err);
    if (rc == 0)
        rc = column(grp, "phases/line", TF_H5_INT64, (void **)&a->phase_line, &a->nphases, err);
    if (rc == 0)
        rc = column(grp, "phases/x_begin", TF_H5_DOUBLE, (void **)&a->phase_x0, &a->nphases, err);
    if (rc == 0)
        rc = column(grp, "phases/x_end", TF_H5_DOUBLE, (void **)&a->phase_x1, &a->nphases, err);
    static const struct { const char *name; size_t field; } stream_columns[] = {
        {"streams/phase", offsetof(tf_report_analysis, stream_phase)},
        {"streams/object", offsetof(tf_report_analysis, stream_object)},
        {"streams/direction", offsetof(tf_report_analysis, stream_direction)},
        {"streams/stride_bytes", offsetof(tf_report_analysis, stream_stride)},
        {"streams/streams", offsetof(tf_report_analysis, stream_count)},
        {"streams/samples", offsetof(tf_report_analysis, stream_samples)},
    };
    for (size_t c = 0; rc == 0 && c < sizeof stream_columns / sizeof stream_columns[0]; c++)
        rc = column(grp, stream_columns[c].name, TF_H5_INT64,
                    (void **)((char *)a + stream_columns[c].field), &a->nstreams, err);
    if (rc == 0)
        rc = strings(grp, "streams/pattern", &a->stream_pattern, &a->nstreams, err);
    if (rc == 0)
        rc = column(grp, "streams/bandwidth_MBps", TF_H5_DOUBLE, (void **)&a->stream_bandwidth,
                    &a->nstreams, err);
    for (n = 0; rc == 0 && n < a->nstreams; n++)
        if (a->stream_phase[n] < 0 || a->stream_phase[n] >= (int64_t)a->nphases
            || a->stream_object[n] < 0 || a->stream_object[n] >= (int64_t)a->nobjects)
            rc = tf_h5_fail(err, TF_ERR_FORMAT, grp, "streams",
                            "row %zu: phase %lld or object %lld out of range", n,
                            (long long)a->stream_phase[n], (long long)a->stream_object[n]);
    /* the advice, where the fold wrote it */
    a->nadvice = rc == 0 && tf_h5_exists(grp, "advice") ? SIZE_MAX : 0;
    if (rc == 0 && a->nadvice)
        rc = column(grp, "advice/phase", TF_H5_INT64, (void **)&a->advice_phase, &a->nadvice, err);
    if (rc == 0 && a->nadvice)
        rc = column(grp, "advice/object", TF_H5_INT64, (void **)&a->advice_object, &a->nadvice, err);
    if (rc == 0 && a->nadvice)
        rc = strings(grp, "advice/finding", &a->advice_finding, &a->nadvice, err);
    if (rc == 0 && a->nadvice)
        rc = strings(grp, "advice/suggestion", &a->advice_suggestion, &a->nadvice, err);
    if (rc == 0 && a->nadvice)
        rc = column(grp, "advice/expected_gain", TF_H5_DOUBLE, (void **)&a->advice_gain,
                    &a->nadvice, err);
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
        rc = tf_h5_read_slab(a->points, "routine", TF_H5_INT32, at, n, routine, err);
    if (rc == 0 && line)
        rc = tf_h5_read_slab(a->points, "line", TF_H5_INT32, at, n, line, err);
    if (rc == 0 && object)
        rc = tf_h5_read_slab(a->points, "object", TF_H5_INT32, at, n, object, err);
    if (rc == 0 && offset)
        rc = tf_h5_read_slab(a->points, "offset", TF_H5_UINT64, at, n, offset, err);
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
