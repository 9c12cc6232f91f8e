/* SPDX-License-Identifier: BSD-3-Clause */
/* The analysis' tables bound to its structs for the output of fold.h5's
 * tables (formats/fold_h5.h, which names their columns); the per-point
 * columns, the phases' rates and the levels' cost modes beside them. */
#include "analysis_h5.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "advice.h"
#include "formats/fold_h5.h"
#include "formats/h5util.h"

#define FIELD(col, mem, type, member) \
    { col, TF_FOLD_H5_##mem, offsetof(type, member), NULL, NULL, NULL, \
      sizeof(((type *)0)->member) }
#define NAMED(col, type, member, fn, parse) \
    { col, TF_FOLD_H5_NAMED, offsetof(type, member), fn, NULL, parse, 0 }


static const tf_fold_h5_field routine_fields[] = {
    FIELD("function", TEXT, tf_analysis_routine, function),
    FIELD("file", TEXT, tf_analysis_routine, file),
    FIELD("waiting", BOOL, tf_analysis_routine, waiting),
};
static const tf_fold_h5_field object_fields[] = {
    FIELD("name", TEXT, tf_analysis_object, name),
    NAMED("kind", tf_analysis_object, kind, tf_analysis_object_kind_name,
          tf_analysis_object_kind_parse),
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
    NAMED("stride_from", tf_analysis_stream, stride_from, tf_analysis_stride_from_name,
          tf_analysis_stride_from_parse),
    FIELD("streams", U32, tf_analysis_stream, streams),
    NAMED("pattern", tf_analysis_stream, pattern, tf_analysis_pattern_name,
          tf_analysis_pattern_parse),
    FIELD("ordered_r2", F64, tf_analysis_stream, ordered_r2),
    FIELD("bytes", F64, tf_analysis_stream, bytes),
    FIELD("bandwidth_MBps", F64, tf_analysis_stream, bandwidth),
    FIELD("samples", SIZE, tf_analysis_stream, samples),
};
static const tf_fold_h5_field level_fields[] = {
    FIELD("phase", INDEX, tf_analysis_level, phase),
    FIELD("level", U8, tf_analysis_level, level),
    NAMED("level_name", tf_analysis_level, level, tf_analysis_level_name, NULL),
    FIELD("loads", SIZE, tf_analysis_level, loads),
    FIELD("share", F64, tf_analysis_level, share),
    FIELD("mean_cost", F64, tf_analysis_level, mean_cost),
};
static const tf_fold_h5_field advice_fields[] = {
    FIELD("phase", U32, tf_analysis_advice, phase),
    FIELD("object", U32, tf_analysis_advice, object),
    FIELD("finding", TEXT_ARRAY, tf_analysis_advice, finding),
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

static int64_t samples_analysed(const void *row)
{
    return (int64_t)((const tf_analysis *)row)->nsamples;
}

static const tf_fold_h5_field analysis_fields[] = {
    FIELD("mean_duration_ns", F64, tf_analysis, duration_ns),
    FIELD("samples_folded", SIZE, tf_analysis, nfolded),
    /* the samples are not stored: not read back */
    { "samples_analysed", TF_FOLD_H5_COMPUTED, 0, NULL, samples_analysed, NULL, 0 },
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
};

/* Points [0, n) of part, whose first is point `first` of the group
 * (NULL: n points without a place). */
static int write_point_slabs(struct points_out *o, const tf_fold_points *part, size_t first,
                             size_t n, tf_error *err)
{
    const void *data[POINT_COLUMNS] = { o->c.routine, o->c.line, o->c.object, o->c.offset };
    int rc = 0;
    for (size_t at = 0; rc == 0 && at < n; at += POINT_SLAB) {
        size_t len = n - at < POINT_SLAB ? n - at : POINT_SLAB;
        rc = tf_analysis_point_places(o->a, part, first, at, len, &o->c, err);
        for (int k = 0; rc == 0 && k < POINT_COLUMNS; k++)
            rc = tf_h5_slabs_write(o->col[k], data[k], len, 0, err);
    }
    return rc;
}

static int write_point_part(void *arg, const tf_fold_points *part, size_t first, tf_error *err)
{
    return write_point_slabs(arg, part, first, part->n, err);
}

static int write_points(const tf_analysis *a, const tf_fold_group *g, int64_t loc,
                        tf_error *err)
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
                 : tf_fold_h5_analysis_points_open(loc, tf_fold_group_npoints(g), o.col, &sub,
                                                   err);
    /* without places, the points without a place */
    if (rc == 0)
        rc = a->places ? tf_fold_group_each_part(g, a->places->needs, write_point_part, &o, err)
                       : write_point_slabs(&o, NULL, 0, tf_fold_group_npoints(g), err);
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

int tf_analysis_write_h5(const tf_analysis *a, const tf_fold_group *fg, int64_t loc,
                         tf_error *err)
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
        rc = write_points(a, fg, g, err);
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

/* The places of an analysis read back: the per-point columns that fold.h5
 * stores, read a slab at a time from the file kept open. */
struct stored_places {
    tf_analysis_places base;
    int64_t file, points;
    size_t nroutines, nobjects;
};

static int stored_columns(const tf_analysis_places *pl, const tf_fold_points *part, size_t first,
                          size_t at, size_t n, const tf_analysis_point_columns *c, tf_error *err)
{
    (void)part;
    const struct stored_places *s = (const struct stored_places *)pl;
    void *data[POINT_COLUMNS] = { c->routine, c->line, c->object, c->offset };
    int rc = 0;
    for (int k = 0; rc == 0 && k < POINT_COLUMNS; k++)
        rc = tf_fold_h5_analysis_points_read(s->points, (enum tf_fold_h5_analysis_point)k,
                                             first + at, n, data[k], err);
    for (size_t i = 0; rc == 0 && i < n; i++)
        if (c->routine[i] >= (int64_t)s->nroutines || c->object[i] >= (int64_t)s->nobjects)
            rc = tf_h5_fail(err, TF_ERR_FORMAT, s->points, NULL,
                            "row %zu: routine %lld or object %lld out of range", first + at + i,
                            (long long)c->routine[i], (long long)c->object[i]);
    return rc;
}

static void stored_free(tf_analysis_places *pl)
{
    struct stored_places *s = (struct stored_places *)pl;
    tf_h5_close(s->points);
    tf_h5_close(s->file);
    free(s);
}

/* The phases' rates per counter and the levels' cost modes, where stored. */
static int read_rates_and_modes(int64_t g, tf_analysis *a, tf_error *err)
{
    int64_t sub = -1;
    double *pu = NULL, *modes = NULL;
    size_t nc = SIZE_MAX, np = a->nphases, nl = a->nlevels;
    int rc = tf_h5_group_open(g, tf_fold_h5_phases.group, &sub, err);
    if (rc == 0)
        rc = tf_fold_h5_attrs_read(sub, &phase_attrs, a, NULL, err);
    if (rc == 0)
        rc = tf_fold_h5_dataset_read(sub, &tf_fold_h5_phases, "counter_names", &nc, 0,
                                     (void **)&a->counter_names, err);
    a->ncounters = a->counter_names ? nc : 0;
    if (rc == 0 && a->ncounters)
        rc = tf_fold_h5_dataset_read(sub, &tf_fold_h5_phases, "per_unit", &np, a->ncounters,
                                     (void **)&pu, err);
    /* one block of names: the analysis frees each, so each is copied */
    char **block = a->counter_names;
    a->counter_names = a->ncounters ? calloc(a->ncounters, sizeof *a->counter_names) : NULL;
    for (size_t c = 0; rc == 0 && c < a->ncounters; c++)
        if (!a->counter_names || !(a->counter_names[c] = strdup(block[c])))
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
    free(block);
    for (size_t i = 0; rc == 0 && pu && i < a->nphases; i++) {
        if (!(a->phases[i].per_unit = malloc(a->ncounters * sizeof *pu)))
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
        else
            memcpy(a->phases[i].per_unit, pu + i * a->ncounters, a->ncounters * sizeof *pu);
    }
    tf_h5_close(sub);
    sub = -1;
    if (rc == 0 && (rc = tf_h5_group_open(g, tf_fold_h5_levels.group, &sub, err)) == 0)
        rc = tf_fold_h5_dataset_read(sub, &tf_fold_h5_levels, "cost_modes", &nl,
                                     TF_ANALYSIS_MAX_MODES, (void **)&modes, err);
    for (size_t i = 0; rc == 0 && i < a->nlevels; i++)
        for (unsigned m = 0; m < TF_ANALYSIS_MAX_MODES; m++)
            if (!isnan(modes[i * TF_ANALYSIS_MAX_MODES + m])) {
                a->levels[i].modes[m] = modes[i * TF_ANALYSIS_MAX_MODES + m];
                a->levels[i].nmodes = m + 1;
            }
    tf_h5_close(sub);
    free(pu);
    free(modes);
    return rc;
}

/* Every index of the tables points into its table (the points' as they
 * are read). */
static int check_indexes(int64_t g, const tf_analysis *a, tf_error *err)
{
    for (size_t n = 0; n < a->nstreams; n++)
        if (a->streams[n].phase >= a->nphases || a->streams[n].object >= a->nobjects)
            return tf_h5_fail(err, TF_ERR_FORMAT, g, "streams",
                              "row %zu: phase %u or object %u out of range", n,
                              a->streams[n].phase, a->streams[n].object);
    for (size_t n = 0; n < a->nadvice; n++)
        if (a->advice[n].phase >= a->nphases || a->advice[n].object >= a->nobjects)
            return tf_h5_fail(err, TF_ERR_FORMAT, g, "advice",
                              "row %zu: phase %u or object %u out of range", n,
                              a->advice[n].phase, a->advice[n].object);
    for (size_t n = 0; n < a->nphases; n++)
        if ((a->phases[n].routine != TF_ANALYSIS_NONE && a->phases[n].routine >= a->nroutines) ||
            (a->phases[n].parent != TF_ANALYSIS_NONE && a->phases[n].parent >= a->nphases))
            return tf_h5_fail(err, TF_ERR_FORMAT, g, "phases",
                              "row %zu: routine %u or parent %u out of range", n,
                              a->phases[n].routine, a->phases[n].parent);
    for (size_t n = 0; n < a->nwindows; n++)
        if (a->windows[n].routine != TF_ANALYSIS_NONE && a->windows[n].routine >= a->nroutines)
            return tf_h5_fail(err, TF_ERR_FORMAT, g, "windows",
                              "row %zu: routine %u out of range", n, a->windows[n].routine);
    return 0;
}

/* A table's rows into *rows, their count into *n. */
static int read_table(int64_t grp, const tf_fold_h5_binding *b, void *rows, size_t *n,
                      tf_error *err)
{
    size_t got = SIZE_MAX;
    int rc = tf_fold_h5_table_read(grp, b, rows, &got, NULL, err);
    if (rc == 0)
        *n = got;
    return rc;
}

int tf_analysis_read_h5(const char *path, uint32_t r, uint32_t g, tf_analysis *a,
                        bool *present, tf_error *err)
{
    memset(a, 0, sizeof *a);
    a->group = g;
    *present = false;
    char name[TF_FOLD_H5_PATH];
    tf_fold_h5_group_path(name, r, g, TF_FOLD_H5_ANALYSIS);
    int64_t file = -1, grp = -1;
    int rc = tf_h5_file_open(path, false, &file, err);
    if (rc < 0 || !tf_h5_exists(file, name)) {
        tf_h5_close(file);
        return rc;
    }
    struct stored_places *s = calloc(1, sizeof *s);
    if (!s) {
        tf_h5_close(file);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory reading the analysis");
    }
    *s = (struct stored_places){ { 0, 0, stored_columns, stored_free },
                                 file, -1, 0, 0 };
    a->places = &s->base;
    if ((rc = tf_h5_group_open(file, name, &grp, err)) == 0)
        rc = tf_fold_h5_attrs_read(grp, &analysis_attrs, a, NULL, err);
    if (rc == 0)
        rc = read_table(grp, &routines, &a->routines, &a->nroutines, err);
    if (rc == 0)
        rc = read_table(grp, &objects, &a->objects, &a->nobjects, err);
    for (size_t i = 0; rc == 0 && i < a->nobjects; i++)
        if (a->objects[i].routine && !*a->objects[i].routine) {   /* written "" for none */
            free(a->objects[i].routine);
            a->objects[i].routine = NULL;
        }
    if (rc == 0)
        rc = tf_fold_h5_analysis_points_find(grp, &s->points, &s->base.npoints, err);
    if (rc == 0)
        rc = read_table(grp, &windows, &a->windows, &a->nwindows, err);
    if (rc == 0)
        rc = read_table(grp, &phases, &a->phases, &a->nphases, err);
    if (rc == 0)
        rc = read_table(grp, &streams, &a->streams, &a->nstreams, err);
    if (rc == 0)
        rc = read_table(grp, &levels, &a->levels, &a->nlevels, err);
    /* the advice, where the fold wrote it */
    if (rc == 0)
        rc = read_table(grp, &advice, &a->advice, &a->nadvice, err);
    if (rc == 0)
        rc = read_rates_and_modes(grp, a, err);
    if (rc == 0)
        rc = check_indexes(grp, a, err);
    s->nroutines = a->nroutines;
    s->nobjects = a->nobjects;
    tf_h5_close(grp);
    if (rc < 0)
        tf_analysis_clear(a);
    else
        *present = true;
    return rc;
}
