/* SPDX-License-Identifier: BSD-3-Clause */
/* Writes a fold result to fold.h5 (layout: docs/fold-format.md).  Tables go
 * through formats/h5util.h; the folded points, which dominate the file, are
 * written with compact element types (float32, uint32, uint8).  Their
 * integer columns (instance, kind, addresses, level, weight: mostly runs
 * and zeros) are shuffled and deflated at level 1, which is cheap on such
 * data, and chunks of zeros are left out; the float columns x and y are noise to
 * deflate, which spent more time on them than the whole read of the trace
 * (bench/RESULTS.md), so they stay uncompressed. */
#include "fold_result.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <hdf5.h>

#include "formats/h5util.h"

/* The columns of the points, in the order they are written. */
enum { NCOLUMNS = 8 };

/* Column k of part p, and the stride of its rows (y). */
static const void *column_of(const tf_fold_points *p, int k)
{
    const void *data[NCOLUMNS] = { p->instance, p->x, p->kind, p->ip,
                                   p->addr, p->level, p->weight, p->y };
    return data[k];
}

static int write_part(void *arg, const tf_fold_points *part, size_t first, tf_error *err)
{
    (void)first;   /* the slabs follow one another */
    tf_h5_slabs *const *cols = arg;
    int rc = 0;
    for (int k = 0; k < NCOLUMNS && rc == 0; k++)
        rc = tf_h5_slabs_write(cols[k], column_of(part, k), part->n, part->n, err);
    return rc;
}

/* The points a part at a time (tf_fold_group_each_part): they need not
 * be in memory at once. */
static int save_points(int64_t group, const tf_fold_group *g, uint32_t nc, tf_error *err)
{
    int64_t pts;
    int rc = tf_h5_group_create(group, "points", &pts, err);
    if (rc < 0)
        return rc;
    size_t n = tf_fold_group_npoints(g);
    static const struct {
        const char *name;
        int rank;
        bool compress;
    } cols[NCOLUMNS] = {
        { "instance", 1, true }, { "x", 1, false }, { "kind", 1, true }, { "ip", 1, true },
        { "addr", 1, true }, { "level", 1, true }, { "weight", 1, true },
        { "y", 2, false },   /* [C][N] */
    };
    const hid_t file_type[NCOLUMNS] = {
        H5T_STD_U32LE, H5T_IEEE_F32LE, H5T_STD_U8LE, H5T_STD_U64LE, H5T_STD_U64LE,
        H5T_STD_U8LE, H5T_STD_U32LE, H5T_IEEE_F32LE,
    };
    const hid_t mem_type[NCOLUMNS] = {
        H5T_NATIVE_UINT32, H5T_NATIVE_FLOAT, H5T_NATIVE_UINT8, H5T_NATIVE_UINT64,
        H5T_NATIVE_UINT64, H5T_NATIVE_UINT8, H5T_NATIVE_UINT32, H5T_NATIVE_FLOAT,
    };
    tf_h5_slabs *slabs[NCOLUMNS] = { NULL };
    for (int k = 0; k < NCOLUMNS && rc == 0; k++)
        rc = tf_h5_slabs_open(pts, cols[k].name, file_type[k], mem_type[k], cols[k].rank, nc, n,
                              cols[k].compress, &slabs[k], err);
    if (rc == 0)
        /* not the name frames: the analysis is done with the trace, and
         * saved beside the points */
        rc = tf_fold_group_each_part(g, TF_FOLD_COL_ALL & ~TF_FOLD_COL_NAME_FRAME, write_part,
                                     slabs, err);
    for (int k = 0; k < NCOLUMNS; k++) {
        int crc = tf_h5_slabs_close(slabs[k], rc == 0 ? err : NULL);
        rc = rc ? rc : crc;
    }
    tf_h5_close(pts);
    return rc;
}

static int save_changes(int64_t group, const tf_fold_group *g, tf_error *err)
{
    int64_t ch;
    int rc = tf_h5_group_create(group, "changes", &ch, err);
    if (rc < 0)
        return rc;
    size_t n = g->nchanges;
    int64_t *counter = malloc((n + 1) * sizeof *counter);
    double *cols = malloc((3 * n + 1) * sizeof *cols);
    if (!counter || !cols) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory writing change points");
    } else {
        for (size_t k = 0; k < n; k++) {
            counter[k] = g->changes[k].counter;
            cols[k] = g->changes[k].x;
            cols[n + k] = g->changes[k].rate_before;
            cols[2 * n + k] = g->changes[k].rate_after;
        }
        if ((rc = tf_h5_write_array(ch, "counter", TF_H5_INT64, counter, n, err)) == 0 &&
            (rc = tf_h5_write_array(ch, "x", TF_H5_DOUBLE, cols, n, err)) == 0 &&
            (rc = tf_h5_write_array(ch, "rate_before", TF_H5_DOUBLE, cols + n, n, err)) == 0 &&
            (rc = tf_h5_write_array(ch, "rate_after", TF_H5_DOUBLE, cols + 2 * n, n, err)) == 0)
            rc = tf_h5_write_array(ch, "boundaries", TF_H5_DOUBLE, g->boundaries,
                                   g->nboundaries, err);
    }
    free(counter);
    free(cols);
    tf_h5_close(ch);
    return rc;
}

static int save_group(int64_t region, const tf_fold_region *r, const tf_fold_group *g,
                      tf_error *err)
{
    char path[64];
    snprintf(path, sizeof path, "group/%u", g->index);
    int64_t grp;
    int rc = tf_h5_group_create(region, path, &grp, err);
    if (rc < 0)
        return rc;
    uint32_t nc = r->ncounters;
    int64_t *ci = malloc((2 * (size_t)nc + 1) * sizeof *ci), *dropped = ci + nc;
    if (!ci) {
        tf_h5_close(grp);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory writing the fold");
    }
    for (uint32_t c = 0; c < nc; c++) {
        ci[c] = g->counter_instances[c];
        dropped[c] = g->rate_dropped ? g->rate_dropped[c] : 0;
    }
    struct { const char *name; const double *v; } rows[] = {
        { "curve", g->curve }, { "curve_lo", g->curve_lo }, { "curve_hi", g->curve_hi },
        { "rate", g->rate }, { "rate_lo", g->rate_lo }, { "rate_hi", g->rate_hi },
        { "ratio", g->ratio },
    };
    if ((rc = tf_h5_attr_write_int64(grp, "index", g->index, err)) == 0 &&
        (rc = tf_h5_attr_write_int64(grp, "instances", g->instances, err)) == 0 &&
        (rc = tf_h5_attr_write_double(grp, "mean_duration_ns", g->mean_duration_ns, err)) == 0 &&
        (rc = tf_h5_attr_write_double(grp, "duration_lo_ns", g->duration_lo_ns, err)) == 0 &&
        (rc = tf_h5_attr_write_double(grp, "duration_hi_ns", g->duration_hi_ns, err)) == 0 &&
        (rc = tf_h5_attr_write_int64(grp, "points", (int64_t)tf_fold_group_npoints(g), err)) ==
            0 &&
        (rc = tf_h5_attr_write_int64(grp, "instructions", g->instructions, err)) == 0 &&
        (rc = tf_h5_write_array(grp, "counter_instances", TF_H5_INT64, ci, nc, err)) == 0 &&
        (rc = tf_h5_write_array(grp, "mean_total", TF_H5_DOUBLE, g->mean_total, nc, err)) == 0 &&
        (rc = tf_h5_write_array(grp, "rate_dropped", TF_H5_INT64, dropped, nc, err)) == 0 &&
        (rc = tf_h5_write_array(grp, "x", TF_H5_DOUBLE, g->x, g->grid, err)) == 0) {
        for (size_t k = 0; k < sizeof rows / sizeof rows[0] && rc == 0; k++)
            if (rows[k].v)
                rc = tf_h5_write_matrix(grp, rows[k].name, TF_H5_DOUBLE, rows[k].v, nc, g->grid,
                                        err);
    }
    if (rc == 0)
        rc = save_changes(grp, g, err);
    if (rc == 0)
        rc = save_points(grp, g, nc, err);
    free(ci);
    tf_h5_close(grp);
    return rc;
}

/* The instance table as columns. */
static int save_instances(int64_t region, const tf_fold_region *r, tf_error *err)
{
    int64_t grp;
    int rc = tf_h5_group_create(region, "instances", &grp, err);
    if (rc < 0)
        return rc;
    size_t n = r->ninstances;
    int64_t *icol = malloc((n + 1) * sizeof *icol);
    uint64_t *ucol = malloc((n + 1) * sizeof *ucol);
    double *dcol = malloc((n + 1) * sizeof *dcol);
    if (!icol || !ucol || !dcol) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory writing the instances");
        goto done;
    }
#define INT_COLUMN(name, expr)                                                       \
    do {                                                                             \
        for (size_t i = 0; i < n; i++)                                               \
            icol[i] = (int64_t)(r->instances[i].expr);                               \
        if (rc == 0)                                                                 \
            rc = tf_h5_write_array(grp, name, TF_H5_INT64, icol, n, err);            \
    } while (0)
#define UINT_COLUMN(name, expr)                                                      \
    do {                                                                             \
        for (size_t i = 0; i < n; i++)                                               \
            ucol[i] = r->instances[i].expr;                                          \
        if (rc == 0)                                                                 \
            rc = tf_h5_write_array(grp, name, TF_H5_UINT64, ucol, n, err);           \
    } while (0)
    INT_COLUMN("process", proc);
    INT_COLUMN("thread", thread);
    UINT_COLUMN("tid", tid);
    UINT_COLUMN("begin_ns", begin);
    UINT_COLUMN("end_ns", end);
    UINT_COLUMN("duration_ns", duration);
    INT_COLUMN("status", status);
    INT_COLUMN("reason", reason);
    INT_COLUMN("group", group);
    UINT_COLUMN("samples", samples);
    INT_COLUMN("threads", threads);
    /* what the threads say, spelt out for readers of the file */
    INT_COLUMN("scope", threads > 1 ? TF_REGION_SCOPE_PROCESS : TF_REGION_SCOPE_THREAD);
#undef INT_COLUMN
#undef UINT_COLUMN
    for (size_t i = 0; i < n; i++)
        dcol[i] = r->instances[i].score;
    if (rc == 0)
        rc = tf_h5_write_array(grp, "score", TF_H5_DOUBLE, dcol, n, err);
    if (rc == 0)
        rc = tf_h5_write_matrix(grp, "counter_delta", TF_H5_UINT64, r->counter_delta, n,
                                r->ncounters, err);
done:
    free(icol);
    free(ucol);
    free(dcol);
    tf_h5_close(grp);
    return rc;
}

static int save_region(int64_t file, uint32_t index, const tf_fold_region *r, tf_error *err)
{
    char path[64];
    snprintf(path, sizeof path, "region/%u", index);
    int64_t grp;
    int rc = tf_h5_group_create(file, path, &grp, err);
    if (rc < 0)
        return rc;
    if ((rc = tf_h5_attr_write_string(grp, "name", r->name, err)) == 0 &&
        (rc = tf_h5_attr_write_int64(grp, "instances", (int64_t)r->ninstances, err)) == 0 &&
        (rc = tf_h5_attr_write_int64(grp, "used", (int64_t)r->used, err)) == 0 &&
        (rc = tf_h5_attr_write_int64(grp, "excluded", (int64_t)r->excluded, err)) == 0 &&
        (rc = tf_h5_attr_write_int64(grp, "incomplete", (int64_t)r->incomplete, err)) == 0 &&
        (rc = tf_h5_attr_write_int64(grp, "groups", r->ngroups, err)) == 0 &&
        (rc = tf_h5_attr_write_double(grp, "observer_ns", r->observer_ns, err)) == 0 &&
        (rc = tf_h5_attr_write_double(grp, "observer_spread_ns", r->observer_spread_ns, err)) ==
            0 &&
        /* without a measure (a result loaded from an earlier file): zeros */
        (rc = tf_h5_write_array(grp, "observer_events", TF_H5_DOUBLE, r->observer_events,
                                r->ncounters, err)) == 0 &&
        (rc = tf_h5_write_strings(grp, "counter_names", (const char *const *)r->counter_names,
                                  r->ncounters, err)) == 0 &&
        (rc = tf_h5_write_strings(grp, "counter_units", (const char *const *)r->counter_units,
                                  r->ncounters, err)) == 0)
        rc = save_instances(grp, r, err);
    for (uint32_t g = 0; g < r->ngroups && rc == 0; g++)
        rc = save_group(grp, r, &r->groups[g], err);
    tf_h5_close(grp);
    return rc;
}

static int save_params(int64_t file, const tf_fold_params *p, tf_error *err)
{
    int64_t grp;
    int rc = tf_h5_group_create(file, "parameters", &grp, err);
    if (rc < 0)
        return rc;
    char groups[16];
    if (p->group_by == TF_GROUP_BY_RANK || p->group_by == TF_GROUP_BY_HOST)
        snprintf(groups, sizeof groups, "%s", p->group_by == TF_GROUP_BY_RANK ? "rank" : "host");
    else if (p->groups == 0)
        snprintf(groups, sizeof groups, "auto");
    else
        snprintf(groups, sizeof groups, "%u", p->groups);
    const char *filter = tf_fold_filter_name(p->filter);
    if ((rc = tf_h5_attr_write_string(grp, "filter", filter ? filter : "?", err)) == 0 &&
        (rc = tf_h5_attr_write_double(grp, "filter_k", p->filter_k, err)) == 0 &&
        (rc = tf_h5_attr_write_double(grp, "shape_k", p->shape_k, err)) == 0 &&
        (rc = tf_h5_attr_write_string(grp, "groups", groups, err)) == 0 &&
        (rc = tf_h5_attr_write_int64(grp, "grid", p->grid, err)) == 0 &&
        (rc = tf_h5_attr_write_int64(grp, "bootstrap", p->bootstrap, err)) == 0 &&
        (rc = tf_h5_attr_write_double(grp, "confidence", p->confidence, err)) == 0 &&
        (rc = tf_h5_attr_write_uint64(grp, "seed", p->seed, err)) == 0 &&
        (rc = tf_h5_attr_write_string(grp, "region_scope", tf_region_scope_name(p->region_scope),
                                      err)) == 0)
        rc = tf_h5_attr_write_double(grp, "min_change", p->min_change, err);
    tf_h5_close(grp);
    return rc;
}

int tf_fold_result_save(const tf_fold_result *r, const char *path, tf_error *err)
{
    int64_t file;
    int rc = tf_h5_file_create(path, &file, err);
    if (rc < 0)
        return rc;
    if ((rc = tf_h5_attr_write_string(file, "format", TF_FOLD_FORMAT, err)) == 0 &&
        (rc = tf_h5_attr_write_int64(file, "version", TF_FOLD_VERSION, err)) == 0 &&
        (rc = tf_h5_attr_write_string(file, "producer", r->producer, err)) == 0 &&
        (rc = tf_h5_attr_write_string(file, "trace", r->trace, err)) == 0 &&
        (rc = tf_h5_attr_write_int64(file, "regions", r->nregions, err)) == 0)
        rc = save_params(file, &r->params, err);
    for (uint32_t i = 0; i < r->nregions && rc == 0; i++)
        rc = save_region(file, i, &r->regions[i], err);
    tf_h5_close(file);
    return rc;
}
