/* SPDX-License-Identifier: BSD-3-Clause */
/* Column by column with formats/h5util.h: each table is a group of 1-D
 * datasets of one length (cost modes: [L][4]). */
#include "analysis_h5.h"

#include <math.h>
#include <stdlib.h>

#include "advice.h"
#include "from_fold.h"
#include "formats/h5util.h"

/* Scratch columns sized for the largest table. */
struct columns {
    double      *d;
    int64_t     *i;
    uint64_t    *u;
    const char **s;
};

static int put_d(int64_t g, const char *name, const double *v, size_t n, tf_error *err)
{
    return tf_h5_write_array(g, name, TF_H5_DOUBLE, v, n, err);
}

static int put_i(int64_t g, const char *name, const int64_t *v, size_t n, tf_error *err)
{
    return tf_h5_write_array(g, name, TF_H5_INT64, v, n, err);
}

static int64_t index_or_minus_one(uint32_t v)
{
    return v == TF_ANALYSIS_NONE ? -1 : (int64_t)v;
}

static int write_routines_objects(const tf_analysis *a, int64_t g, struct columns *c,
                                  tf_error *err)
{
    int rc;
    int64_t sub;
    if ((rc = tf_h5_group_create(g, "routines", &sub, err)))
        return rc;
    for (size_t i = 0; i < a->nroutines; i++)
        c->s[i] = a->routines[i].function;
    rc = tf_h5_write_strings(sub, "function", c->s, a->nroutines, err);
    for (size_t i = 0; i < a->nroutines; i++)
        c->s[i] = a->routines[i].file;
    if (!rc)
        rc = tf_h5_write_strings(sub, "file", c->s, a->nroutines, err);
    for (size_t i = 0; i < a->nroutines; i++)
        c->i[i] = a->routines[i].waiting;
    if (!rc)
        rc = put_i(sub, "waiting", c->i, a->nroutines, err);
    tf_h5_close(sub);
    if (rc || (rc = tf_h5_group_create(g, "objects", &sub, err)))
        return rc;
    size_t n = a->nobjects;
    for (size_t i = 0; i < n; i++)
        c->s[i] = a->objects[i].name;
    rc = tf_h5_write_strings(sub, "name", c->s, n, err);
    for (size_t i = 0; i < n; i++)
        c->s[i] = tf_analysis_object_kind_name(a->objects[i].kind);
    if (!rc)
        rc = tf_h5_write_strings(sub, "kind", c->s, n, err);
    for (size_t i = 0; i < n; i++)
        c->u[i] = a->objects[i].size;
    if (!rc)
        rc = tf_h5_write_array(sub, "size_bytes", TF_H5_UINT64, c->u, n, err);
    for (size_t i = 0; i < n; i++)
        c->d[i] = a->objects[i].share;
    if (!rc)
        rc = put_d(sub, "share", c->d, n, err);
    for (size_t i = 0; i < n; i++)
        c->i[i] = (int64_t)a->objects[i].loads;
    if (!rc)
        rc = put_i(sub, "loads", c->i, n, err);
    for (size_t i = 0; i < n; i++)
        c->i[i] = (int64_t)a->objects[i].stores;
    if (!rc)
        rc = put_i(sub, "stores", c->i, n, err);
    for (size_t i = 0; i < n; i++)
        c->i[i] = (int64_t)a->objects[i].allocations;
    if (!rc)
        rc = put_i(sub, "allocations", c->i, n, err);
    for (size_t i = 0; i < n; i++)
        c->s[i] = a->objects[i].routine ? a->objects[i].routine : "";
    if (!rc)
        rc = tf_h5_write_strings(sub, "routine", c->s, n, err);
    tf_h5_close(sub);
    return rc;
}

/* The four columns, a slab at a time within each part of the points: a
 * column of millions of points is tens of MB, and the four together were
 * a tenth of the fold's peak memory. */
enum { POINT_SLAB = TF_H5_CHUNK_ELEMENTS, POINT_COLUMNS = 4 };

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
    /* the first three as int32: millions of rows, whose deflating cost the
     * fold more than their values need */
    static const char *const names[POINT_COLUMNS] = { "routine", "line", "object", "offset" };
    struct points_out o = {
        .a = a,
        .c = { .routine = malloc(POINT_SLAB * sizeof *o.c.routine),
               .line = malloc(POINT_SLAB * sizeof *o.c.line),
               .object = malloc(POINT_SLAB * sizeof *o.c.object),
               .offset = malloc(POINT_SLAB * sizeof *o.c.offset) },
    };
    int64_t sub = -1;
    int rc = !o.c.routine || !o.c.line || !o.c.object || !o.c.offset
                 ? tf_fail(err, TF_ERR_NOMEM, "out of memory writing the analysis points")
                 : tf_h5_group_create(g, "points", &sub, err);
    for (int k = 0; rc == 0 && k < POINT_COLUMNS; k++)
        rc = tf_h5_slabs_open_array(sub, names[k], k == 3 ? TF_H5_UINT64 : TF_H5_INT32,
                                    npoints, &o.col[k], err);
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

static int write_windows(const tf_analysis *a, int64_t g, struct columns *c, tf_error *err)
{
    int64_t sub;
    int rc = tf_h5_group_create(g, "windows", &sub, err);
    size_t n = a->nwindows;
    for (size_t i = 0; !rc && i < n; i++)
        c->d[i] = a->windows[i].x0;
    if (!rc)
        rc = put_d(sub, "x_begin", c->d, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->d[i] = a->windows[i].x1;
    if (!rc)
        rc = put_d(sub, "x_end", c->d, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->i[i] = index_or_minus_one(a->windows[i].routine);
    if (!rc)
        rc = put_i(sub, "routine", c->i, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->i[i] = a->windows[i].line;
    if (!rc)
        rc = put_i(sub, "line", c->i, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->d[i] = a->windows[i].share;
    if (!rc)
        rc = put_d(sub, "share", c->d, n, err);
    tf_h5_close(sub);
    return rc;
}

static int write_phases(const tf_analysis *a, int64_t g, struct columns *c, tf_error *err)
{
    int64_t sub;
    int rc = tf_h5_group_create(g, "phases", &sub, err);
    size_t n = a->nphases;
    if (!rc)
        rc = tf_h5_attr_write_int64(sub, "per_instruction", a->per_instruction, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->s[i] = a->phases[i].label;
    if (!rc)
        rc = tf_h5_write_strings(sub, "label", c->s, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->i[i] = index_or_minus_one(a->phases[i].parent);
    if (!rc)
        rc = put_i(sub, "parent", c->i, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->d[i] = a->phases[i].x0;
    if (!rc)
        rc = put_d(sub, "x_begin", c->d, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->d[i] = a->phases[i].x1;
    if (!rc)
        rc = put_d(sub, "x_end", c->d, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->i[i] = index_or_minus_one(a->phases[i].routine);
    if (!rc)
        rc = put_i(sub, "routine", c->i, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->i[i] = a->phases[i].line;
    if (!rc)
        rc = put_i(sub, "line", c->i, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->d[i] = a->phases[i].share;
    if (!rc)
        rc = put_d(sub, "share", c->d, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->d[i] = a->phases[i].mips;
    if (!rc)
        rc = put_d(sub, "mips", c->d, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->d[i] = a->phases[i].ipc;
    if (!rc)
        rc = put_d(sub, "ipc", c->d, n, err);
    if (!rc && a->ncounters) {
        double *pu = malloc((n * a->ncounters + 1) * sizeof *pu);
        if (!pu)
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory writing phase rates");
        for (size_t i = 0; !rc && i < n; i++)
            for (size_t k = 0; k < a->ncounters; k++)
                pu[i * a->ncounters + k] = a->phases[i].per_unit ? a->phases[i].per_unit[k] : NAN;
        if (!rc)
            rc = tf_h5_write_matrix(sub, "per_unit", TF_H5_DOUBLE, pu, n, a->ncounters, err);
        free(pu);
        if (!rc)
            rc = tf_h5_write_strings(sub, "counter_names", (const char *const *)a->counter_names,
                                     a->ncounters, err);
    }
    tf_h5_close(sub);
    return rc;
}

static int write_streams(const tf_analysis *a, int64_t g, struct columns *c, tf_error *err)
{
    int64_t sub;
    int rc = tf_h5_group_create(g, "streams", &sub, err);
    size_t n = a->nstreams;
    for (size_t i = 0; !rc && i < n; i++)
        c->i[i] = a->streams[i].phase;
    if (!rc)
        rc = put_i(sub, "phase", c->i, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->i[i] = a->streams[i].object;
    if (!rc)
        rc = put_i(sub, "object", c->i, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->i[i] = a->streams[i].direction;
    if (!rc)
        rc = put_i(sub, "direction", c->i, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->i[i] = (int64_t)a->streams[i].stride;
    if (!rc)
        rc = put_i(sub, "stride_bytes", c->i, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->s[i] = tf_analysis_stride_from_name(a->streams[i].stride_from);
    if (!rc)
        rc = tf_h5_write_strings(sub, "stride_from", c->s, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->i[i] = a->streams[i].streams;
    if (!rc)
        rc = put_i(sub, "streams", c->i, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->s[i] = tf_analysis_pattern_name(a->streams[i].pattern);
    if (!rc)
        rc = tf_h5_write_strings(sub, "pattern", c->s, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->d[i] = a->streams[i].ordered_r2;
    if (!rc)
        rc = put_d(sub, "ordered_r2", c->d, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->d[i] = a->streams[i].bytes;
    if (!rc)
        rc = put_d(sub, "bytes", c->d, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->d[i] = a->streams[i].bandwidth;
    if (!rc)
        rc = put_d(sub, "bandwidth_MBps", c->d, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->i[i] = (int64_t)a->streams[i].samples;
    if (!rc)
        rc = put_i(sub, "samples", c->i, n, err);
    tf_h5_close(sub);
    return rc;
}

static int write_levels(const tf_analysis *a, int64_t g, struct columns *c, tf_error *err)
{
    int64_t sub;
    int rc = tf_h5_group_create(g, "levels", &sub, err);
    size_t n = a->nlevels;
    for (size_t i = 0; !rc && i < n; i++)
        c->i[i] = index_or_minus_one(a->levels[i].phase);
    if (!rc)
        rc = put_i(sub, "phase", c->i, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->i[i] = a->levels[i].level;
    if (!rc)
        rc = put_i(sub, "level", c->i, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->s[i] = tf_analysis_level_name(a->levels[i].level);
    if (!rc)
        rc = tf_h5_write_strings(sub, "level_name", c->s, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->i[i] = (int64_t)a->levels[i].loads;
    if (!rc)
        rc = put_i(sub, "loads", c->i, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->d[i] = a->levels[i].share;
    if (!rc)
        rc = put_d(sub, "share", c->d, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->d[i] = a->levels[i].mean_cost;
    if (!rc)
        rc = put_d(sub, "mean_cost", c->d, n, err);
    double *modes = malloc((n * TF_ANALYSIS_MAX_MODES + 1) * sizeof *modes);
    if (!rc && !modes)
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory writing cost modes");
    for (size_t i = 0; !rc && i < n; i++)
        for (unsigned m = 0; m < TF_ANALYSIS_MAX_MODES; m++)
            modes[i * TF_ANALYSIS_MAX_MODES + m] = m < a->levels[i].nmodes ? a->levels[i].modes[m] : NAN;
    if (!rc)
        rc = tf_h5_write_matrix(sub, "cost_modes", TF_H5_DOUBLE, modes, n, TF_ANALYSIS_MAX_MODES, err);
    free(modes);
    tf_h5_close(sub);
    return rc;
}

static int write_advice(const tf_analysis *a, int64_t g, struct columns *c, tf_error *err)
{
    int64_t sub;
    int rc = tf_h5_group_create(g, "advice", &sub, err);
    size_t n = a->nadvice;
    for (size_t i = 0; !rc && i < n; i++)
        c->i[i] = a->advice[i].phase;
    if (!rc)
        rc = put_i(sub, "phase", c->i, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->i[i] = a->advice[i].object;
    if (!rc)
        rc = put_i(sub, "object", c->i, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->s[i] = a->advice[i].finding;
    if (!rc)
        rc = tf_h5_write_strings(sub, "finding", c->s, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->s[i] = a->advice[i].suggestion;
    if (!rc)
        rc = tf_h5_write_strings(sub, "suggestion", c->s, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->s[i] = a->advice[i].evidence;
    if (!rc)
        rc = tf_h5_write_strings(sub, "evidence", c->s, n, err);
    for (size_t i = 0; !rc && i < n; i++)
        c->d[i] = a->advice[i].expected_gain;
    if (!rc)
        rc = put_d(sub, "expected_gain", c->d, n, err);
    tf_h5_close(sub);
    return rc;
}

int tf_analysis_write_h5(const tf_analysis *a, int64_t loc, size_t npoints, tf_error *err)
{
    size_t max = a->nroutines;
    const size_t sizes[] = { a->nobjects, a->nwindows, a->nphases, a->nstreams, a->nlevels,
                             a->nadvice };
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        max = sizes[i] > max ? sizes[i] : max;
    struct columns c = { malloc((max + 1) * sizeof *c.d), malloc((max + 1) * sizeof *c.i),
                         malloc((max + 1) * sizeof *c.u), malloc((max + 1) * sizeof *c.s) };
    int64_t g = -1;
    int rc = 0;
    if (!c.d || !c.i || !c.u || !c.s)
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory writing the analysis");
    if (!rc)
        rc = tf_h5_group_create(loc, "analysis", &g, err);
    if (!rc)
        rc = tf_h5_attr_write_double(g, "mean_duration_ns", a->duration_ns, err);
    if (!rc)
        rc = tf_h5_attr_write_int64(g, "samples_folded", (int64_t)a->nfolded, err);
    if (!rc)
        rc = tf_h5_attr_write_int64(g, "samples_analysed", (int64_t)a->nsamples, err);
    if (!rc)
        rc = write_routines_objects(a, g, &c, err);
    if (!rc)
        rc = write_points(a, g, npoints, err);
    if (!rc)
        rc = write_windows(a, g, &c, err);
    if (!rc)
        rc = write_phases(a, g, &c, err);
    if (!rc)
        rc = write_streams(a, g, &c, err);
    if (!rc)
        rc = write_levels(a, g, &c, err);
    if (!rc)
        rc = write_advice(a, g, &c, err);
    tf_h5_close(g);
    free(c.d);
    free(c.i);
    free(c.u);
    free(c.s);
    return rc;
}
