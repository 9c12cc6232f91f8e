/* SPDX-License-Identifier: BSD-3-Clause */
/* Reads fold.h5 back into a tf_fold_result, checking the format name, the
 * version and the shape of every dataset against the counts the file
 * declares, so that a damaged or foreign file fails with the dataset named
 * instead of being read out of bounds later.  Every path, attribute,
 * table and dataset goes through the schema of formats/fold_h5.h; the
 * checks here are those of the values (counts within what the file
 * declares). */
#include "fold_result.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold_group_by.h"
#include "formats/fold_h5.h"
#include "formats/h5util.h"
#include "result_h5.h"

/* A count read from attribute `name`: -1 to max. */
static int check_count(int64_t loc, const char *name, int64_t v, int64_t max, tf_error *err)
{
    if (v < -1 || v > max)
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, NULL, "attribute '%s' out of range: %lld",
                          name, (long long)v);
    return 0;
}

/* A string dataset of t [*count] (SIZE_MAX: any; gets the count read)
 * into individually allocated copies. */
static int read_names(int64_t loc, const char *name, size_t *count, char ***out, tf_error *err)
{
    char **block;
    int rc = tf_fold_h5_dataset_read(loc, &tf_fold_h5_region, name, count, 0, (void **)&block,
                                     err);
    if (rc < 0)
        return rc;
    size_t n = *count;
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
    size_t n = SIZE_MAX, nb = SIZE_MAX;
    int rc = tf_fold_h5_table_read(grp, &tf_fold_change_h5, &g->changes, &n, NULL, err);
    int64_t ch = -1;
    if (rc == 0 && (rc = tf_h5_group_open(grp, tf_fold_h5_changes.group, &ch, err)) == 0 &&
        (rc = tf_fold_h5_dataset_read(ch, &tf_fold_h5_changes, "boundaries", &nb, 0,
                                      (void **)&g->boundaries, err)) == 0)
        g->nboundaries = nb;
    for (size_t k = 0; rc == 0 && k < n; k++)
        if (g->changes[k].counter >= nc)
            rc = tf_h5_fail(err, TF_ERR_FORMAT, ch, "counter", "counter index %u out of range",
                            g->changes[k].counter);
    g->nchanges = rc == 0 ? n : 0;
    tf_h5_close(ch);
    return rc;
}

/* A [rows] (cols 0) or [rows][cols] dataset of a group. */
static int read_group_data(int64_t grp, const char *name, size_t rows, size_t cols, void *data,
                           tf_error *err)
{
    return tf_fold_h5_dataset_read(grp, &tf_fold_h5_group, name, &rows, cols, data, err);
}

/* The rates dropped as impossible, per counter: absent from the files
 * written before the check (none dropped then); each at most the grid. */
static int load_rate_dropped(int64_t grp, uint32_t nc, uint32_t grid, tf_fold_group *g,
                             tf_error *err)
{
    g->rate_dropped = calloc(nc + 1, sizeof *g->rate_dropped);
    if (!g->rate_dropped)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    int64_t *v = NULL;
    int rc = read_group_data(grp, "rate_dropped", nc, 0, &v, err);
    for (uint32_t c = 0; rc == 0 && v && c < nc; c++) {
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
    int64_t *ci = NULL;
    tf_fold_group_attrs a = { 0 };
    g->index = index;
    g->grid = grid;
    if ((rc = tf_fold_h5_attrs_read(grp, &tf_fold_group_h5, &a, NULL, err)) == 0 &&
        (rc = check_count(grp, "instances", a.instances, (int64_t)r->ninstances, err)) == 0 &&
        (rc = check_count(grp, "instructions", a.instructions, (int64_t)nc - 1, err)) == 0)
        rc = check_count(grp, "points", a.points, INT64_MAX, err);
    if (rc == 0) {
        g->instances = (uint32_t)a.instances;
        g->instructions = (int32_t)a.instructions;
        g->mean_duration_ns = a.mean_duration_ns;
        g->duration_lo_ns = a.duration_lo_ns;
        g->duration_hi_ns = a.duration_hi_ns;
    }
    if (rc == 0 && (rc = read_group_data(grp, "counter_instances", nc, 0, &ci, err)) == 0 &&
        (rc = read_group_data(grp, "mean_total", nc, 0, &g->mean_total, err)) == 0 &&
        (rc = read_group_data(grp, "x", grid, 0, &g->x, err)) == 0) {
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
        rc = read_group_data(grp, tf_fold_h5_curve_names[k], nc, grid, curves[k], err);
    if (rc == 0 && g->instructions >= 0 && !g->ratio)
        rc = tf_h5_fail(err, TF_ERR_FORMAT, grp, "ratio", "missing with an instructions counter");
    if (rc == 0)
        rc = load_rate_dropped(grp, nc, grid, g, err);
    if (rc == 0)
        rc = load_changes(grp, g, nc, err);
    if (rc == 0)
        rc = load_points(grp, (size_t)a.points, nc, &g->points, err);
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
        rc = tf_fold_h5_dataset_read(grp, &tf_fold_h5_instances, "counter_delta", &n,
                                     r->ncounters, (void **)&r->counter_delta, err);
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
    tf_fold_region_attrs a = { 0 };
    size_t nc = SIZE_MAX;
    /* the recording's cost is absent from the files of versions before it: 0 */
    if ((rc = tf_fold_h5_attrs_read(grp, &tf_fold_region_h5, &a, NULL, err)) == 0 &&
        (rc = read_names(grp, "counter_names", &nc, &r->counter_names, err)) == 0)
        r->ncounters = (uint32_t)nc;
    r->name = a.name;
    if (rc == 0)
        rc = read_names(grp, "counter_units", &nc, &r->counter_units, err);
    const int64_t counts[4] = { a.instances, a.used, a.excluded, a.incomplete };
    static const char *const count_names[] = { "instances", "used", "excluded", "incomplete" };
    for (size_t k = 0; k < 4 && rc == 0; k++)
        rc = check_count(grp, count_names[k], counts[k], INT64_MAX, err);
    r->ninstances = (size_t)counts[0];
    r->used = (size_t)counts[1];
    r->excluded = (size_t)counts[2];
    r->incomplete = (size_t)counts[3];
    if (rc == 0)
        rc = load_instances(grp, r, err);
    r->observer_ns = a.observer_ns;
    r->observer_spread_ns = a.observer_spread_ns;
    size_t ne = r->ncounters;
    if (rc == 0)
        rc = tf_fold_h5_dataset_read(grp, &tf_fold_h5_region, "observer_events", &ne, 0,
                                     (void **)&r->observer_events, err);
    if (rc == 0 && (rc = check_count(grp, "groups", a.groups, 1 << 20, err)) == 0) {
        r->groups = calloc((size_t)a.groups + 1, sizeof *r->groups);
        if (!r->groups)
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
        else
            r->ngroups = (uint32_t)a.groups;
    }
    for (uint32_t g = 0; g < r->ngroups && rc == 0; g++)
        rc = load_group(file, index, g, r, grid, &r->groups[g], err);
    tf_h5_close(grp);
    return rc;
}

static int load_params(int64_t file, tf_fold_params *p, tf_error *err)
{
    int64_t grp;
    int rc = tf_h5_group_open(file, tf_fold_h5_parameters.group, &grp, err);
    if (rc < 0)
        return rc;
    tf_fold_params_attrs a = { 0 };
    if ((rc = tf_fold_h5_attrs_read(grp, &tf_fold_params_h5, &a, NULL, err)) == 0 &&
        (rc = check_count(grp, "grid", a.grid, 1 << 24, err)) == 0 &&
        (rc = check_count(grp, "bootstrap", a.bootstrap, 1 << 24, err)) == 0) {
        p->filter_k = a.filter_k;
        p->shape_k = a.shape_k;
        p->confidence = a.confidence;
        p->seed = a.seed;
        p->min_change = a.min_change;
        int f = tf_fold_filter_parse(a.filter);
        if (f < 0 || a.grid < 2)
            rc = tf_h5_fail(err, TF_ERR_FORMAT, grp, NULL, "invalid filter '%s' or grid %lld",
                            a.filter, (long long)a.grid);
        p->filter = f < 0 ? TF_FILTER_ROBUST : (enum tf_fold_filter)f;
        int by = tf_fold_group_by_parse(a.groups);
        p->group_by = by > 0 ? (enum tf_fold_group_by)by : TF_GROUP_BY_DURATION;
        p->groups = by > 0 ? 1 : strcmp(a.groups, "auto") ? (uint32_t)strtoul(a.groups, NULL, 10)
                                                          : 0;
        p->grid = (uint32_t)a.grid;
        p->bootstrap = (uint32_t)a.bootstrap;
    }
    /* --region-scope as asked: auto in files written before it */
    if (rc == 0 && a.region_scope) {
        int sc = tf_region_scope_parse(a.region_scope);
        if (sc < 0)
            rc = tf_h5_fail(err, TF_ERR_FORMAT, grp, NULL, "invalid region_scope '%s'",
                            a.region_scope);
        p->region_scope = sc < 0 ? TF_REGION_SCOPE_AUTO : (enum tf_region_scope)sc;
    }
    free(a.region_scope);
    free(a.filter);
    free(a.groups);
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
    tf_fold_root_attrs a = { 0 };
    if (!r) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* the format, then the version, before the rest: another file's
     * attributes are not ours (result_h5.h binds them in this order) */
    tf_fold_h5_binding format = tf_fold_root_h5, version = format, rest = format;
    format.nfields = version.nfields = 1;
    version.fields += 1;
    rest.fields += 2;
    rest.nfields -= 2;
    if ((rc = tf_fold_h5_attrs_read(file, &format, &a, NULL, err)) < 0)
        goto done;
    if (strcmp(a.format, TF_FOLD_FORMAT)) {
        rc = tf_fail(err, TF_ERR_FORMAT, "%s: not a fold file (format '%s', expected '%s')",
                     path, a.format, TF_FOLD_FORMAT);
        goto done;
    }
    if ((rc = tf_fold_h5_attrs_read(file, &version, &a, NULL, err)) < 0)
        goto done;
    if (a.version < TF_FOLD_OLDEST_VERSION || a.version > TF_FOLD_VERSION) {
        rc = tf_fail(err, TF_ERR_VERSION, "%s: fold format version %lld, this build reads %d "
                     "to %d", path, (long long)a.version, TF_FOLD_OLDEST_VERSION,
                     TF_FOLD_VERSION);
        goto done;
    }
    if ((rc = tf_fold_h5_attrs_read(file, &rest, &a, NULL, err)) < 0 ||
        (rc = check_count(file, "regions", a.regions, 1 << 20, err)) < 0 ||
        (rc = load_params(file, &r->params, err)) < 0)
        goto done;
    r->producer = a.producer;
    r->trace = a.trace;
    a.producer = a.trace = NULL;
    r->regions = calloc((size_t)a.regions + 1, sizeof *r->regions);
    if (!r->regions) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
        goto done;
    }
    r->nregions = (uint32_t)a.regions;
    for (uint32_t i = 0; i < r->nregions && rc == 0; i++)
        rc = load_region(file, i, r->params.grid, &r->regions[i], err);
done:
    free(a.format);
    free(a.producer);
    free(a.trace);
    tf_h5_close(file);
    if (rc < 0) {
        tf_fold_result_free(r);
        return rc;
    }
    *out = r;
    return 0;
}
