/* SPDX-License-Identifier: BSD-3-Clause */
/* Reads fold.h5 back into a tf_fold_result, checking the format name, the
 * version and the shape of every dataset against the counts the file
 * declares, so that a damaged or foreign file fails with the dataset named
 * instead of being read out of bounds later.  The paths, the instance and
 * change-point tables and the points go through formats/fold_h5.h, the
 * attributes and curves through formats/h5util.h. */
#include "fold_result.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold_group_by.h"
#include "formats/fold_h5.h"
#include "formats/h5util.h"
#include "result_h5.h"

/* Reads loc/name as `type`, requiring rows × cols (cols 0: 1-D, or a
 * matrix of no columns). */
static int read_shaped(int64_t loc, const char *name, enum tf_h5_type type, size_t rows,
                       size_t cols, void **data, tf_error *err)
{
    size_t r, c;
    int rc = tf_h5_read_array(loc, name, type, data, &r, &c, err);
    if (rc < 0)
        return rc;
    /* An empty 2-D dataset may come back as rows x 0. */
    if (r != rows || (c != cols && rows * cols != 0)) {
        free(*data);
        *data = NULL;
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, name,
                          "expected %zu x %zu values, found %zu x %zu", rows, cols, r, c);
    }
    return 0;
}

/* An attribute that files of earlier versions leave out: 0 then. */
static int optional_double(int64_t loc, const char *name, double *v, tf_error *err)
{
    *v = 0;
    return tf_h5_attr_exists(loc, name) ? tf_h5_attr_read_double(loc, name, v, err) : 0;
}

static int read_count(int64_t loc, const char *name, int64_t max, int64_t *v, tf_error *err)
{
    int rc = tf_h5_attr_read_int64(loc, name, v, err);
    if (rc == 0 && (*v < -1 || *v > max))
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, NULL, "attribute '%s' out of range: %lld",
                          name, (long long)*v);
    return rc;
}

/* A string table (tf_h5_read_strings) into individually allocated copies; *n is the
 * count expected (SIZE_MAX: any) and gets the count read. */
static int read_names(int64_t loc, const char *name, size_t *count, char ***out, tf_error *err)
{
    char **block;
    size_t got;
    int rc = tf_h5_read_strings(loc, name, &block, &got, err);
    if (rc < 0)
        return rc;
    size_t n = *count == SIZE_MAX ? got : *count;
    *count = got;
    if (got != n) {
        free(block);
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "expected %zu strings, found %zu", n,
                          got);
    }
    *out = calloc(n + 1, sizeof **out);
    for (size_t i = 0; *out && i < n; i++)
        if (!((*out)[i] = strdup(block[i])))
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
    free(block);
    return *out ? rc : tf_fail(err, TF_ERR_NOMEM, "out of memory");
}

static int load_points(int64_t grp, size_t n, uint32_t nc, tf_fold_points *p, tf_error *err)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    /* in the order of formats/fold_h5.h */
    void **out[TF_FOLD_H5_POINT_COLUMNS] = {
        (void **)&p->instance, (void **)&p->x, (void **)&p->kind, (void **)&p->ip,
        (void **)&p->addr, (void **)&p->level, (void **)&p->weight, (void **)&p->y,
    };
    return tf_fold_h5_points_read(grp, n, nc, out, err);
}

static int load_changes(int64_t grp, tf_fold_group *g, uint32_t nc, tf_error *err)
{
    size_t n = SIZE_MAX, cols;
    int rc = tf_fold_h5_table_read(grp, &tf_fold_change_h5, &g->changes, &n, NULL, err);
    int64_t ch = -1;
    if (rc == 0 && (rc = tf_h5_group_open(grp, tf_fold_h5_changes.group, &ch, err)) == 0)
        rc = tf_h5_read_array(ch, "boundaries", TF_H5_DOUBLE, (void **)&g->boundaries,
                              &g->nboundaries, &cols, err);
    for (size_t k = 0; rc == 0 && k < n; k++)
        if (g->changes[k].counter >= nc)
            rc = tf_h5_fail(err, TF_ERR_FORMAT, ch, "counter", "counter index %u out of range",
                            g->changes[k].counter);
    g->nchanges = rc == 0 ? n : 0;
    tf_h5_close(ch);
    return rc;
}

/* The rates dropped as impossible, per counter: absent from the files
 * written before the check (none dropped then); each at most the grid. */
static int load_rate_dropped(int64_t grp, uint32_t nc, uint32_t grid, tf_fold_group *g,
                             tf_error *err)
{
    g->rate_dropped = calloc(nc + 1, sizeof *g->rate_dropped);
    if (!g->rate_dropped)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    if (!tf_h5_exists(grp, "rate_dropped"))
        return 0;
    int64_t *v = NULL;
    int rc = read_shaped(grp, "rate_dropped", TF_H5_INT64, nc, 0, (void **)&v, err);
    for (uint32_t c = 0; rc == 0 && c < nc; c++) {
        if (v[c] < 0 || v[c] > (int64_t)grid)
            rc = tf_h5_fail(err, TF_ERR_FORMAT, grp, "rate_dropped",
                            "%" PRId64 " grid points dropped of %u", v[c], grid);
        else
            g->rate_dropped[c] = (uint32_t)v[c];
    }
    free(v);
    return rc;
}

static int load_group(int64_t file, uint32_t region_index, uint32_t index,
                      const tf_fold_region *r, uint32_t grid, tf_fold_group *g, tf_error *err)
{
    char path[TF_FOLD_H5_PATH];
    int64_t grp;
    int rc = tf_h5_group_open(file, tf_fold_h5_group_path(path, region_index, index, NULL), &grp,
                              err);
    if (rc < 0)
        return rc;
    uint32_t nc = r->ncounters;
    int64_t v, points = 0, *ci = NULL;
    g->index = index;
    g->grid = grid;
    if ((rc = read_count(grp, "instances", (int64_t)r->ninstances, &v, err)) == 0)
        g->instances = (uint32_t)v;
    if (rc == 0 && (rc = read_count(grp, "instructions", (int64_t)nc - 1, &v, err)) == 0)
        g->instructions = (int32_t)v;
    if (rc == 0)
        rc = read_count(grp, "points", INT64_MAX, &points, err);
    if (rc == 0 && (rc = tf_h5_attr_read_double(grp, "mean_duration_ns", &g->mean_duration_ns,
                                                err)) == 0 &&
        (rc = tf_h5_attr_read_double(grp, "duration_lo_ns", &g->duration_lo_ns, err)) == 0 &&
        (rc = tf_h5_attr_read_double(grp, "duration_hi_ns", &g->duration_hi_ns, err)) == 0 &&
        (rc = read_shaped(grp, "counter_instances", TF_H5_INT64, nc, 0, (void **)&ci, err)) == 0 &&
        (rc = read_shaped(grp, "mean_total", TF_H5_DOUBLE, nc, 0, (void **)&g->mean_total,
                          err)) == 0 &&
        (rc = read_shaped(grp, "x", TF_H5_DOUBLE, grid, 0, (void **)&g->x, err)) == 0) {
        g->counter_instances = calloc(nc + 1, sizeof *g->counter_instances);
        if (!g->counter_instances)
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
        for (uint32_t c = 0; rc == 0 && c < nc; c++)
            g->counter_instances[c] = (uint32_t)ci[c];
    }
    double **curves[TF_FOLD_H5_CURVES] = {
        &g->curve, &g->curve_lo, &g->curve_hi, &g->rate, &g->rate_lo, &g->rate_hi, &g->ratio,
    };
    /* the ratio only with an instructions counter */
    int ncurves = g->instructions < 0 ? TF_FOLD_H5_RATIO : TF_FOLD_H5_CURVES;
    for (int k = 0; k < ncurves && rc == 0; k++)
        rc = read_shaped(grp, tf_fold_h5_curve_names[k], TF_H5_DOUBLE, nc, grid,
                         (void **)curves[k], err);
    if (rc == 0)
        rc = load_rate_dropped(grp, nc, grid, g, err);
    if (rc == 0)
        rc = load_changes(grp, g, nc, err);
    if (rc == 0)
        rc = load_points(grp, (size_t)points, nc, &g->points, err);
    for (size_t k = 0; rc == 0 && k < g->points.n; k++)
        if (g->points.instance[k] >= r->ninstances)
            rc = tf_h5_fail(err, TF_ERR_FORMAT, grp, "points/instance",
                            "instance %u out of range", g->points.instance[k]);
    free(ci);
    tf_h5_close(grp);
    return rc;
}

static int load_instances(int64_t region, tf_fold_region *r, tf_error *err)
{
    size_t n = r->ninstances;
    uint32_t missing;
    int rc = tf_fold_h5_table_read(region, &tf_fold_instance_h5, &r->instances, &n, &missing,
                                   err);
    /* The threads each instance covers (the table's one optional column):
     * computed again from the intervals in files written before it. */
    if (rc == 0 && missing && n && tf_fold_region_threads(r) == 0)
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
    for (size_t i = 0; rc == 0 && !missing && i < n; i++)
        if (r->instances[i].threads < 1 || r->instances[i].threads > n)
            rc = tf_h5_fail(err, TF_ERR_FORMAT, region, "instances/threads",
                            "row %zu: %u threads", i, r->instances[i].threads);
    int64_t grp;
    if (rc == 0 && (rc = tf_h5_group_open(region, tf_fold_h5_instances.group, &grp, err)) == 0) {
        rc = read_shaped(grp, "counter_delta", TF_H5_UINT64, n, r->ncounters,
                         (void **)&r->counter_delta, err);
        tf_h5_close(grp);
    }
    return rc;
}

static int load_region(int64_t file, uint32_t index, uint32_t grid, tf_fold_region *r,
                       tf_error *err)
{
    char path[TF_FOLD_H5_PATH];
    int64_t grp;
    int rc = tf_h5_group_open(file, tf_fold_h5_region_path(path, index), &grp, err);
    if (rc < 0)
        return rc;
    int64_t v;
    size_t nc = SIZE_MAX;
    if ((rc = tf_h5_attr_read_string(grp, "name", &r->name, err)) == 0 &&
        (rc = read_names(grp, "counter_names", &nc, &r->counter_names, err)) == 0)
        r->ncounters = (uint32_t)nc;
    if (rc == 0)
        rc = read_names(grp, "counter_units", &nc, &r->counter_units, err);
    int64_t counts[4] = { 0 };
    static const char *const count_names[] = { "instances", "used", "excluded", "incomplete" };
    for (size_t k = 0; k < 4 && rc == 0; k++)
        rc = read_count(grp, count_names[k], INT64_MAX, &counts[k], err);
    r->ninstances = (size_t)counts[0];
    r->used = (size_t)counts[1];
    r->excluded = (size_t)counts[2];
    r->incomplete = (size_t)counts[3];
    if (rc == 0)
        rc = load_instances(grp, r, err);
    /* The recording's cost: absent from the files of versions before it */
    if (rc == 0)
        rc = optional_double(grp, "observer_ns", &r->observer_ns, err);
    if (rc == 0)
        rc = optional_double(grp, "observer_spread_ns", &r->observer_spread_ns, err);
    if (rc == 0 && tf_h5_exists(grp, "observer_events"))
        rc = read_shaped(grp, "observer_events", TF_H5_DOUBLE, r->ncounters, 0,
                         (void **)&r->observer_events, err);
    if (rc == 0 && (rc = read_count(grp, "groups", 1 << 20, &v, err)) == 0) {
        r->groups = calloc((size_t)v + 1, sizeof *r->groups);
        if (!r->groups)
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
        else
            r->ngroups = (uint32_t)v;
    }
    for (uint32_t g = 0; g < r->ngroups && rc == 0; g++)
        rc = load_group(file, index, g, r, grid, &r->groups[g], err);
    tf_h5_close(grp);
    return rc;
}

static int load_params(int64_t file, tf_fold_params *p, tf_error *err)
{
    int64_t grp;
    int rc = tf_h5_group_open(file, "parameters", &grp, err);
    if (rc < 0)
        return rc;
    char *filter = NULL, *groups = NULL;
    int64_t grid = 0, bootstrap = 0;
    if ((rc = tf_h5_attr_read_string(grp, "filter", &filter, err)) == 0 &&
        (rc = tf_h5_attr_read_double(grp, "filter_k", &p->filter_k, err)) == 0 &&
        (rc = tf_h5_attr_read_double(grp, "shape_k", &p->shape_k, err)) == 0 &&
        (rc = tf_h5_attr_read_string(grp, "groups", &groups, err)) == 0 &&
        (rc = read_count(grp, "grid", 1 << 24, &grid, err)) == 0 &&
        (rc = read_count(grp, "bootstrap", 1 << 24, &bootstrap, err)) == 0 &&
        (rc = tf_h5_attr_read_double(grp, "confidence", &p->confidence, err)) == 0 &&
        (rc = tf_h5_attr_read_uint64(grp, "seed", &p->seed, err)) == 0 &&
        (rc = tf_h5_attr_read_double(grp, "min_change", &p->min_change, err)) == 0) {
        int f = tf_fold_filter_parse(filter);
        if (f < 0 || grid < 2)
            rc = tf_h5_fail(err, TF_ERR_FORMAT, grp, NULL, "invalid filter '%s' or grid %lld",
                            filter, (long long)grid);
        p->filter = f < 0 ? TF_FILTER_ROBUST : (enum tf_fold_filter)f;
        int by = tf_fold_group_by_parse(groups);
        p->group_by = by > 0 ? (enum tf_fold_group_by)by : TF_GROUP_BY_DURATION;
        p->groups = by > 0 ? 1 : strcmp(groups, "auto") ? (uint32_t)strtoul(groups, NULL, 10) : 0;
        p->grid = (uint32_t)grid;
        p->bootstrap = (uint32_t)bootstrap;
    }
    /* --region-scope as asked: auto in files written before it */
    char *scope = NULL;
    if (rc == 0 && tf_h5_attr_exists(grp, "region_scope") &&
        (rc = tf_h5_attr_read_string(grp, "region_scope", &scope, err)) == 0) {
        int sc = tf_region_scope_parse(scope);
        if (sc < 0)
            rc = tf_h5_fail(err, TF_ERR_FORMAT, grp, NULL, "invalid region_scope '%s'", scope);
        p->region_scope = sc < 0 ? TF_REGION_SCOPE_AUTO : (enum tf_region_scope)sc;
    }
    free(scope);
    free(filter);
    free(groups);
    tf_h5_close(grp);
    return rc;
}

int tf_fold_result_load(const char *path, tf_fold_result **out, tf_error *err)
{
    *out = NULL;
    int64_t file;
    int rc = tf_h5_file_open(path, false, &file, err);
    if (rc < 0)
        return rc;
    tf_fold_result *r = calloc(1, sizeof *r);
    char *format = NULL;
    int64_t version = 0, nregions = 0;
    if (!r) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((rc = tf_h5_attr_read_string(file, "format", &format, err)) < 0)
        goto done;
    if (strcmp(format, TF_FOLD_FORMAT)) {
        rc = tf_fail(err, TF_ERR_FORMAT, "%s: not a fold file (format '%s', expected '%s')",
                     path, format, TF_FOLD_FORMAT);
        goto done;
    }
    if ((rc = tf_h5_attr_read_int64(file, "version", &version, err)) < 0)
        goto done;
    if (version < TF_FOLD_OLDEST_VERSION || version > TF_FOLD_VERSION) {
        rc = tf_fail(err, TF_ERR_VERSION, "%s: fold format version %lld, this build reads %d "
                     "to %d", path, (long long)version, TF_FOLD_OLDEST_VERSION,
                     TF_FOLD_VERSION);
        goto done;
    }
    if ((rc = tf_h5_attr_read_string(file, "producer", &r->producer, err)) < 0 ||
        (rc = tf_h5_attr_read_string(file, "trace", &r->trace, err)) < 0 ||
        (rc = read_count(file, "regions", 1 << 20, &nregions, err)) < 0 ||
        (rc = load_params(file, &r->params, err)) < 0)
        goto done;
    r->regions = calloc((size_t)nregions + 1, sizeof *r->regions);
    if (!r->regions) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
        goto done;
    }
    r->nregions = (uint32_t)nregions;
    for (uint32_t i = 0; i < r->nregions && rc == 0; i++)
        rc = load_region(file, i, r->params.grid, &r->regions[i], err);
done:
    free(format);
    tf_h5_close(file);
    if (rc < 0) {
        tf_fold_result_free(r);
        return rc;
    }
    *out = r;
    return 0;
}
