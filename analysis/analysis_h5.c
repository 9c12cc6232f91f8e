/* SPDX-License-Identifier: BSD-3-Clause */
/* The analysis' tables bound to its structs for the writer of fold.h5's
 * tables (formats/fold_h5.h, which names their columns); the per-point
 * columns, the phases' rates and the levels' cost modes beside them. */
#include "analysis_h5.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "advice.h"
#include "from_fold.h"
#include "formats/fold_h5.h"
#include "formats/h5util.h"

#define FIELD(col, mem, type, member) \
    { col, TF_FOLD_H5_##mem, offsetof(type, member), NULL, NULL, NULL, 0 }
#define NAMED(col, type, member, fn) \
    { col, TF_FOLD_H5_NAMED, offsetof(type, member), fn, NULL, NULL, 0 }

static const tf_fold_h5_field routine_fields[] = {
    FIELD("function", TEXT, tf_analysis_routine, function),
    FIELD("file", TEXT, tf_analysis_routine, file),
    FIELD("waiting", BOOL, tf_analysis_routine, waiting),
};
static const tf_fold_h5_field object_fields[] = {
    FIELD("name", TEXT, tf_analysis_object, name),
    NAMED("kind", tf_analysis_object, kind, tf_analysis_object_kind_name),
    FIELD("size_bytes", U64, tf_analysis_object, size),
    FIELD("share", F64, tf_analysis_object, share),
    FIELD("loads", SIZE, tf_analysis_object, loads),
    FIELD("stores", SIZE, tf_analysis_object, stores),
    FIELD("allocations", SIZE, tf_analysis_object, allocations),
    FIELD("routine", TEXT, tf_analysis_object, routine),
};
static const tf_fold_h5_field window_fields[] = {
    FIELD("x_begin", F64, tf_analysis_window, x0),
    FIELD("x_end", F64, tf_analysis_window, x1),
    FIELD("routine", INDEX, tf_analysis_window, routine),
    FIELD("line", U32, tf_analysis_window, line),
    FIELD("share", F64, tf_analysis_window, share),
};
static const tf_fold_h5_field phase_fields[] = {
    FIELD("label", TEXT_ARRAY, tf_analysis_phase, label),
    FIELD("parent", INDEX, tf_analysis_phase, parent),
    FIELD("x_begin", F64, tf_analysis_phase, x0),
    FIELD("x_end", F64, tf_analysis_phase, x1),
    FIELD("routine", INDEX, tf_analysis_phase, routine),
    FIELD("line", U32, tf_analysis_phase, line),
    FIELD("share", F64, tf_analysis_phase, share),
    FIELD("mips", F64, tf_analysis_phase, mips),
    FIELD("ipc", F64, tf_analysis_phase, ipc),
};
static const tf_fold_h5_field stream_fields[] = {
    FIELD("phase", U32, tf_analysis_stream, phase),
    FIELD("object", U32, tf_analysis_stream, object),
    FIELD("direction", INT, tf_analysis_stream, direction),
    FIELD("stride_bytes", U64, tf_analysis_stream, stride),
    NAMED("stride_from", tf_analysis_stream, stride_from, tf_analysis_stride_from_name),
    FIELD("streams", U32, tf_analysis_stream, streams),
    NAMED("pattern", tf_analysis_stream, pattern, tf_analysis_pattern_name),
    FIELD("ordered_r2", F64, tf_analysis_stream, ordered_r2),
    FIELD("bytes", F64, tf_analysis_stream, bytes),
    FIELD("bandwidth_MBps", F64, tf_analysis_stream, bandwidth),
    FIELD("samples", SIZE, tf_analysis_stream, samples),
};
static const tf_fold_h5_field level_fields[] = {
    FIELD("phase", INDEX, tf_analysis_level, phase),
    FIELD("level", U8, tf_analysis_level, level),
    NAMED("level_name", tf_analysis_level, level, tf_analysis_level_name),
    FIELD("loads", SIZE, tf_analysis_level, loads),
    FIELD("share", F64, tf_analysis_level, share),
    FIELD("mean_cost", F64, tf_analysis_level, mean_cost),
};
static const tf_fold_h5_field advice_fields[] = {
    FIELD("phase", U32, tf_analysis_advice, phase),
    FIELD("object", U32, tf_analysis_advice, object),
    FIELD("finding", TEXT, tf_analysis_advice, finding),
    FIELD("suggestion", TEXT_ARRAY, tf_analysis_advice, suggestion),
    FIELD("evidence", TEXT_ARRAY, tf_analysis_advice, evidence),
    FIELD("expected_gain", F64, tf_analysis_advice, expected_gain),
};

static const tf_fold_h5_binding routines = TF_FOLD_H5_BINDING(tf_fold_h5_routines, routine_fields,
                                                              sizeof(tf_analysis_routine));
static const tf_fold_h5_binding objects = TF_FOLD_H5_BINDING(tf_fold_h5_objects, object_fields,
                                                             sizeof(tf_analysis_object));
static const tf_fold_h5_binding windows = TF_FOLD_H5_BINDING(tf_fold_h5_windows, window_fields,
                                                             sizeof(tf_analysis_window));
static const tf_fold_h5_binding phases = TF_FOLD_H5_BINDING(tf_fold_h5_phases, phase_fields,
                                                            sizeof(tf_analysis_phase));
static const tf_fold_h5_binding streams = TF_FOLD_H5_BINDING(tf_fold_h5_streams, stream_fields,
                                                             sizeof(tf_analysis_stream));
static const tf_fold_h5_binding levels = TF_FOLD_H5_BINDING(tf_fold_h5_levels, level_fields,
                                                            sizeof(tf_analysis_level));
static const tf_fold_h5_binding advice = TF_FOLD_H5_BINDING(tf_fold_h5_advice, advice_fields,
                                                            sizeof(tf_analysis_advice));

static const tf_fold_h5_field analysis_fields[] = {
    FIELD("mean_duration_ns", F64, tf_analysis, duration_ns),
    FIELD("samples_folded", SIZE, tf_analysis, nfolded),
    FIELD("samples_analysed", SIZE, tf_analysis, nsamples),
};
static const tf_fold_h5_binding analysis_attrs =
    TF_FOLD_H5_BINDING(tf_fold_h5_analysis, analysis_fields, sizeof(tf_analysis));
static const tf_fold_h5_field phase_attr_fields[] = {
    FIELD("per_instruction", BOOL, tf_analysis, per_instruction),
};
static const tf_fold_h5_binding phase_attrs =
    TF_FOLD_H5_BINDING(tf_fold_h5_phases, phase_attr_fields, sizeof(tf_analysis));

/* The four columns, a slab at a time within each part of the points: a
 * column of millions of points is tens of MB, and the four together were
 * a tenth of the fold's peak memory. */
enum { POINT_SLAB = TF_H5_CHUNK_ELEMENTS, POINT_COLUMNS = TF_FOLD_H5_ANALYSIS_POINT_COLUMNS };

struct points_out {
    const tf_analysis *a;
    tf_analysis_point_columns c;
    tf_h5_slabs *col[POINT_COLUMNS];
    size_t written;
};

/* Points [0, n) of part (NULL: n points without a place). */
static int write_point_slabs(struct points_out *o, const tf_fold_points *part, size_t n,
                             tf_error *err)
{
    const void *data[POINT_COLUMNS] = { o->c.routine, o->c.line, o->c.object, o->c.offset };
    int rc = 0;
    for (size_t at = 0; rc == 0 && at < n; at += POINT_SLAB) {
        size_t len = n - at < POINT_SLAB ? n - at : POINT_SLAB;
        tf_analysis_point_columns_fill(o->a, part, at, len, &o->c);
        for (int k = 0; rc == 0 && k < POINT_COLUMNS; k++)
            rc = tf_h5_slabs_write(o->col[k], data[k], len, 0, err);
    }
    o->written += n;
    return rc;
}

static int write_point_part(void *arg, const tf_fold_points *part, size_t first, tf_error *err)
{
    (void)first;   /* the slabs follow one another */
    return write_point_slabs(arg, part, part->n, err);
}

static int write_points(const tf_analysis *a, int64_t g, size_t npoints, tf_error *err)
{
    int64_t sub = -1;
    struct points_out o = {
        .a = a,
        .c = { .routine = malloc(POINT_SLAB * sizeof *o.c.routine),
               .line = malloc(POINT_SLAB * sizeof *o.c.line),
               .object = malloc(POINT_SLAB * sizeof *o.c.object),
               .offset = malloc(POINT_SLAB * sizeof *o.c.offset) },
    };
    int rc = !o.c.routine || !o.c.line || !o.c.object || !o.c.offset
                 ? tf_fail(err, TF_ERR_NOMEM, "out of memory writing the analysis points")
                 : tf_fold_h5_analysis_points_open(g, npoints, o.col, &sub, err);
    if (rc == 0)
        rc = tf_analysis_each_point_part(a, write_point_part, &o, err);
    /* without a locator, the points without a place */
    if (rc == 0 && o.written < npoints)
        rc = write_point_slabs(&o, NULL, npoints - o.written, err);
    for (int k = 0; k < POINT_COLUMNS; k++) {
        int crc = tf_h5_slabs_close(o.col[k], rc == 0 ? err : NULL);
        rc = rc ? rc : crc;
    }
    tf_h5_close(sub);
    free(o.c.routine);
    free(o.c.line);
    free(o.c.object);
    free(o.c.offset);
    return rc;
}

/* The phases' rates per counter [phases][C] with the counters' names. */
static int write_phase_rates(const tf_analysis *a, int64_t sub, tf_error *err)
{
    size_t n = a->nphases;
    int rc = tf_fold_h5_attrs_write(sub, &phase_attrs, a, err);
    if (rc || !a->ncounters)
        return rc;
    double *pu = malloc((n * a->ncounters + 1) * sizeof *pu);
    if (!pu)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory writing phase rates");
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < a->ncounters; k++)
            pu[i * a->ncounters + k] = a->phases[i].per_unit ? a->phases[i].per_unit[k] : NAN;
    rc = tf_fold_h5_dataset_write(sub, &tf_fold_h5_phases, "per_unit", pu, n, a->ncounters, err);
    free(pu);
    if (!rc)
        rc = tf_fold_h5_dataset_write(sub, &tf_fold_h5_phases, "counter_names", a->counter_names,
                                      a->ncounters, 0, err);
    return rc;
}

/* The cost modes of each level [levels][TF_ANALYSIS_MAX_MODES], NaN past
 * its modes. */
static int write_cost_modes(const tf_analysis *a, int64_t sub, tf_error *err)
{
    size_t n = a->nlevels;
    double *modes = malloc((n * TF_ANALYSIS_MAX_MODES + 1) * sizeof *modes);
    if (!modes)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory writing cost modes");
    for (size_t i = 0; i < n; i++)
        for (unsigned m = 0; m < TF_ANALYSIS_MAX_MODES; m++)
            modes[i * TF_ANALYSIS_MAX_MODES + m] =
                m < a->levels[i].nmodes ? a->levels[i].modes[m] : NAN;
    int rc = tf_fold_h5_dataset_write(sub, &tf_fold_h5_levels, "cost_modes", modes, n,
                                      TF_ANALYSIS_MAX_MODES, err);
    free(modes);
    return rc;
}

int tf_analysis_write_h5(const tf_analysis *a, int64_t loc, size_t npoints, tf_error *err)
{
    int64_t g = -1, sub = -1;
    int rc = tf_h5_group_create(loc, TF_FOLD_H5_ANALYSIS, &g, err);
    if (!rc)
        rc = tf_fold_h5_attrs_write(g, &analysis_attrs, a, err);
    if (!rc)
        rc = tf_fold_h5_table_write(g, &routines, a->routines, a->nroutines, NULL, err);
    if (!rc)
        rc = tf_fold_h5_table_write(g, &objects, a->objects, a->nobjects, NULL, err);
    if (!rc)
        rc = write_points(a, g, npoints, err);
    if (!rc)
        rc = tf_fold_h5_table_write(g, &windows, a->windows, a->nwindows, NULL, err);
    if (!rc && !(rc = tf_fold_h5_table_write(g, &phases, a->phases, a->nphases, &sub, err)))
        rc = write_phase_rates(a, sub, err);
    tf_h5_close(sub);
    sub = -1;
    if (!rc)
        rc = tf_fold_h5_table_write(g, &streams, a->streams, a->nstreams, NULL, err);
    if (!rc && !(rc = tf_fold_h5_table_write(g, &levels, a->levels, a->nlevels, &sub, err)))
        rc = write_cost_modes(a, sub, err);
    tf_h5_close(sub);
    if (!rc)
        rc = tf_fold_h5_table_write(g, &advice, a->advice, a->nadvice, NULL, err);
    tf_h5_close(g);
    return rc;
}
