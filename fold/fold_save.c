/* SPDX-License-Identifier: BSD-3-Clause */
/* Writes a fold result to fold.h5 (layout: docs/fold-format.md): the
 * paths, the instance table and the folded points through
 * formats/fold_h5.h, the attributes, curves and change points through
 * formats/h5util.h. */
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
        rc = tf_h5_write_array(ch, "boundaries", TF_H5_DOUBLE, g->boundaries, g->nboundaries,
                               err);
    tf_h5_close(ch);
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
    const double *curves[TF_FOLD_H5_CURVES] = {
        g->curve, g->curve_lo, g->curve_hi, g->rate, g->rate_lo, g->rate_hi, g->ratio,
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
        for (int k = 0; k < TF_FOLD_H5_CURVES && rc == 0; k++)
            if (curves[k])
                rc = tf_h5_write_matrix(grp, tf_fold_h5_curve_names[k], TF_H5_DOUBLE, curves[k],
                                        nc, g->grid, err);
    }
    if (rc == 0)
        rc = save_changes(grp, g, err);
    if (rc == 0)
        rc = save_points(grp, g, nc, err);
    free(ci);
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
        rc = tf_h5_write_matrix(grp, "counter_delta", TF_H5_UINT64, r->counter_delta,
                                r->ninstances, r->ncounters, err);
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
        rc = save_group(file, index, r, &r->groups[g], err);
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
