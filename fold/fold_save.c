/* SPDX-License-Identifier: BSD-3-Clause */
/* Writes a fold result to fold.h5 (layout: docs/fold-format.md), every
 * path, attribute, table and dataset through the schema of
 * formats/fold_h5.h. */
#include "fold_result.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "formats/fold_h5.h"
#include "formats/h5util.h"
#include "result_h5.h"

/* Column k of part p, in the order of formats/fold_h5.h. */
static const void *column_of(const tf_fold_points *p, int k)
{
    const void *data[TF_FOLD_H5_POINT_COLUMNS] = { p->instance, p->x, p->kind, p->ip,
                                                   p->addr, p->level, p->weight, p->y };
    return data[k];
}

static int write_part(void *arg, const tf_fold_points *part, size_t first, tf_error *err)
{
    (void)first;   /* the slabs follow one another */
    tf_h5_slabs *const *cols = arg;
    int rc = 0;
    for (int k = 0; k < TF_FOLD_H5_POINT_COLUMNS && rc == 0; k++)
        rc = tf_h5_slabs_write(cols[k], column_of(part, k), part->n, part->n, err);
    return rc;
}

/* The points a part at a time (tf_fold_group_each_part): they need not
 * be in memory at once. */
static int save_points(int64_t group, const tf_fold_group *g, uint32_t nc, tf_error *err)
{
    tf_h5_slabs *slabs[TF_FOLD_H5_POINT_COLUMNS];
    int64_t pts;
    int rc = tf_fold_h5_points_open(group, tf_fold_group_npoints(g), nc, slabs, &pts, err);
    if (rc == 0)
        /* not the name frames: the analysis is done with the trace, and
         * saved beside the points */
        rc = tf_fold_group_each_part(g, TF_FOLD_COL_ALL & ~TF_FOLD_COL_NAME_FRAME, write_part,
                                     slabs, err);
    for (int k = 0; k < TF_FOLD_H5_POINT_COLUMNS; k++) {
        int crc = tf_h5_slabs_close(slabs[k], rc == 0 ? err : NULL);
        rc = rc ? rc : crc;
    }
    tf_h5_close(pts);
    return rc;
}

/* The change points, and the boundaries of the phases they make. */
static int save_changes(int64_t group, const tf_fold_group *g, tf_error *err)
{
    int64_t ch;
    int rc = tf_fold_h5_table_write(group, &tf_fold_change_h5, g->changes, g->nchanges, &ch,
                                    err);
    if (rc == 0)
        rc = tf_fold_h5_dataset_write(ch, &tf_fold_h5_changes, "boundaries", g->boundaries,
                                      g->nboundaries, 0, err);
    tf_h5_close(ch);
    return rc;
}

/* A group's attributes, its vectors [C] and [G], and its curves [C][G]. */
static int save_curves(int64_t grp, const tf_fold_region *r, const tf_fold_group *g,
                       tf_error *err)
{
    uint32_t nc = r->ncounters;
    int64_t *ci = malloc((2 * (size_t)nc + 1) * sizeof *ci), *dropped = ci + nc;
    if (!ci)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory writing the fold");
    for (uint32_t c = 0; c < nc; c++) {
        ci[c] = g->counter_instances[c];
        dropped[c] = g->rate_dropped ? g->rate_dropped[c] : 0;
    }
    const tf_fold_group_attrs attrs = {
        .index = g->index, .instances = g->instances,
        .points = (int64_t)tf_fold_group_npoints(g), .instructions = g->instructions,
        .mean_duration_ns = g->mean_duration_ns, .duration_lo_ns = g->duration_lo_ns,
        .duration_hi_ns = g->duration_hi_ns,
    };
    const tf_fold_h5_table *t = &tf_fold_h5_group;
    int rc;
    if ((rc = tf_fold_h5_attrs_write(grp, &tf_fold_group_h5, &attrs, err)) == 0 &&
        (rc = tf_fold_h5_dataset_write(grp, t, "counter_instances", ci, nc, 0, err)) == 0 &&
        (rc = tf_fold_h5_dataset_write(grp, t, "mean_total", g->mean_total, nc, 0, err)) == 0 &&
        (rc = tf_fold_h5_dataset_write(grp, t, "rate_dropped", dropped, nc, 0, err)) == 0)
        rc = tf_fold_h5_dataset_write(grp, t, "x", g->x, g->grid, 0, err);
    const double *curves[TF_FOLD_H5_CURVES] = {
        g->curve, g->curve_lo, g->curve_hi, g->rate, g->rate_lo, g->rate_hi, g->ratio,
    };
    for (int k = 0; k < TF_FOLD_H5_CURVES && rc == 0; k++)
        if (curves[k])
            rc = tf_fold_h5_dataset_write(grp, t, tf_fold_h5_curve_names[k], curves[k], nc,
                                          g->grid, err);
    free(ci);
    return rc;
}

static int save_group(int64_t file, uint32_t region, const tf_fold_region *r,
                      const tf_fold_group *g, tf_error *err)
{
    char path[TF_FOLD_H5_PATH];
    int64_t grp;
    int rc = tf_h5_group_create(file, tf_fold_h5_group_path(path, region, g->index, NULL), &grp,
                                err);
    if (rc < 0)
        return rc;
    rc = save_curves(grp, r, g, err);
    if (rc == 0)
        rc = save_changes(grp, g, err);
    if (rc == 0)
        rc = save_points(grp, g, r->ncounters, err);
    tf_h5_close(grp);
    return rc;
}

/* The instance table as columns, and their counters' deltas [N][C]. */
static int save_instances(int64_t region, const tf_fold_region *r, tf_error *err)
{
    int64_t grp;
    int rc = tf_fold_h5_table_write(region, &tf_fold_instance_h5, r->instances, r->ninstances,
                                    &grp, err);
    if (rc == 0)
        rc = tf_fold_h5_dataset_write(grp, &tf_fold_h5_instances, "counter_delta",
                                      r->counter_delta, r->ninstances, r->ncounters, err);
    tf_h5_close(grp);
    return rc;
}

static int save_region(int64_t file, uint32_t index, const tf_fold_region *r, tf_error *err)
{
    char path[TF_FOLD_H5_PATH];
    int64_t grp;
    int rc = tf_h5_group_create(file, tf_fold_h5_region_path(path, index), &grp, err);
    if (rc < 0)
        return rc;
    const tf_fold_region_attrs attrs = {
        .name = r->name, .instances = (int64_t)r->ninstances, .used = (int64_t)r->used,
        .excluded = (int64_t)r->excluded, .incomplete = (int64_t)r->incomplete,
        .groups = r->ngroups, .observer_ns = r->observer_ns,
        .observer_spread_ns = r->observer_spread_ns,
    };
    const tf_fold_h5_table *t = &tf_fold_h5_region;
    if ((rc = tf_fold_h5_attrs_write(grp, &tf_fold_region_h5, &attrs, err)) == 0 &&
        /* without a measure (a result loaded from an earlier file): zeros */
        (rc = tf_fold_h5_dataset_write(grp, t, "observer_events", r->observer_events,
                                       r->ncounters, 0, err)) == 0 &&
        (rc = tf_fold_h5_dataset_write(grp, t, "counter_names", r->counter_names, r->ncounters,
                                       0, err)) == 0 &&
        (rc = tf_fold_h5_dataset_write(grp, t, "counter_units", r->counter_units, r->ncounters,
                                       0, err)) == 0)
        rc = save_instances(grp, r, err);
    for (uint32_t g = 0; g < r->ngroups && rc == 0; g++)
        rc = save_group(file, index, r, &r->groups[g], err);
    tf_h5_close(grp);
    return rc;
}

static int save_params(int64_t file, const tf_fold_params *p, tf_error *err)
{
    int64_t grp;
    int rc = tf_h5_group_create(file, tf_fold_h5_parameters.group, &grp, err);
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
    const tf_fold_params_attrs attrs = {
        .filter = (char *)(filter ? filter : "?"), .groups = groups,
        .region_scope = (char *)tf_region_scope_name(p->region_scope),
        .filter_k = p->filter_k, .shape_k = p->shape_k, .confidence = p->confidence,
        .min_change = p->min_change, .grid = p->grid, .bootstrap = p->bootstrap,
        .seed = p->seed,
    };
    rc = tf_fold_h5_attrs_write(grp, &tf_fold_params_h5, &attrs, err);
    tf_h5_close(grp);
    return rc;
}

int tf_fold_result_save(const tf_fold_result *r, const char *path, tf_error *err)
{
    int64_t file;
    int rc = tf_h5_file_create(path, &file, err);
    if (rc < 0)
        return rc;
    const tf_fold_root_attrs attrs = {
        .format = (char *)TF_FOLD_FORMAT, .version = TF_FOLD_VERSION, .producer = r->producer,
        .trace = r->trace, .regions = r->nregions,
    };
    if ((rc = tf_fold_h5_attrs_write(file, &tf_fold_root_h5, &attrs, err)) == 0)
        rc = save_params(file, &r->params, err);
    for (uint32_t i = 0; i < r->nregions && rc == 0; i++)
        rc = save_region(file, i, &r->regions[i], err);
    tf_h5_close(file);
    return rc;
}
