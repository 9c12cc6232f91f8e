/* SPDX-License-Identifier: BSD-3-Clause */
/* libtracefold-read: a fold result (fold.h5) as fold/fold_load.c loads
 * it for `tracefold render`: regions, instances, groups, curves and the
 * folded samples. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fold/fold_result.h"
#include "read_error.h"

struct tracefold_fold {
    tf_fold_result *result;
    char           *path;
};

int tracefold_fold_open(const char *path, tracefold_fold **out, tracefold_error *err)
{
    tracefold_fold *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path))) {
        free(f);
        return tf_read_fail(err, TF_ERR_NOMEM, "%s: out of memory opening the fold result", path);
    }
    tf_error e;
    if (tf_fold_result_load(path, &f->result, &e) < 0) {
        tracefold_fold_close(f);
        return tf_read_error(err, &e);
    }
    *out = f;
    return 0;
}

void tracefold_fold_close(tracefold_fold *f)
{
    if (!f)
        return;
    tf_fold_result_free(f->result);
    free(f->path);
    free(f);
}

void tracefold_fold_get_info(const tracefold_fold *f, tracefold_fold_info *info)
{
    *info = (tracefold_fold_info){
        .path = f->path,
        .producer = f->result->producer,
        .trace = f->result->trace,
        .nregions = f->result->nregions,
    };
}

static int region_at(const tracefold_fold *f, uint32_t region, const tf_fold_region **r,
                     tracefold_error *err)
{
    if (region >= f->result->nregions)
        return tf_read_fail(err, TF_ERR_USAGE, "%s: no region %u (the fold result has %u)",
                            f->path, region, f->result->nregions);
    *r = &f->result->regions[region];
    return 0;
}

static int group_at(const tracefold_fold *f, uint32_t region, uint32_t group,
                    const tf_fold_group **g, tracefold_error *err)
{
    const tf_fold_region *r = NULL;
    int rc = region_at(f, region, &r, err);
    if (rc < 0)
        return rc;
    if (group >= r->ngroups)
        return tf_read_fail(err, TF_ERR_USAGE, "%s: region %u has no group %u (it has %u)",
                            f->path, region, group, r->ngroups);
    *g = &r->groups[group];
    return 0;
}

int tracefold_fold_region_get(const tracefold_fold *f, uint32_t region,
                              tracefold_fold_region *out, tracefold_error *err)
{
    const tf_fold_region *r = NULL;
    int rc = region_at(f, region, &r, err);
    if (rc < 0)
        return rc;
    *out = (tracefold_fold_region){
        .name = r->name,
        .ncounters = r->ncounters,
        .counter_names = (const char *const *)r->counter_names,
        .counter_units = (const char *const *)r->counter_units,
        .ninstances = r->ninstances,
        .used = r->used,
        .excluded = r->excluded,
        .incomplete = r->incomplete,
        .ngroups = r->ngroups,
    };
    return 0;
}

int tracefold_fold_instance_get(const tracefold_fold *f, uint32_t region, size_t instance,
                                tracefold_fold_instance *out, tracefold_error *err)
{
    const tf_fold_region *r = NULL;
    int rc = region_at(f, region, &r, err);
    if (rc < 0)
        return rc;
    if (instance >= r->ninstances)
        return tf_read_fail(err, TF_ERR_USAGE, "%s: region %u has no instance %zu (it has %zu)",
                            f->path, region, instance, r->ninstances);
    const tf_fold_instance *in = &r->instances[instance];
    *out = (tracefold_fold_instance){
        .process = in->proc,
        .thread = in->thread,
        .tid = in->tid,
        .begin = in->begin,
        .end = in->end,
        .duration = in->duration,
        .status = in->status,
        .group = in->group,
        .samples = in->samples,
        .counter_delta = r->ncounters ? &r->counter_delta[instance * r->ncounters] : NULL,
    };
    return 0;
}

int tracefold_fold_group_get(const tracefold_fold *f, uint32_t region, uint32_t group,
                             tracefold_fold_group *out, tracefold_error *err)
{
    const tf_fold_group *g = NULL;
    int rc = group_at(f, region, group, &g, err);
    if (rc < 0)
        return rc;
    *out = (tracefold_fold_group){
        .instances = g->instances,
        .mean_duration_ns = g->mean_duration_ns,
        .grid = g->grid,
        .npoints = g->points.n,
    };
    return 0;
}

int tracefold_fold_curve_get(const tracefold_fold *f, uint32_t region, uint32_t group,
                             uint32_t counter, tracefold_fold_curve *out, tracefold_error *err)
{
    const tf_fold_group *g = NULL;
    int rc = group_at(f, region, group, &g, err);
    if (rc < 0)
        return rc;
    uint32_t nc = f->result->regions[region].ncounters;
    if (counter >= nc)
        return tf_read_fail(err, TF_ERR_USAGE, "%s: region %u has no counter %u (it has %u)",
                            f->path, region, counter, nc);
    size_t row = (size_t)counter * g->grid;
    *out = (tracefold_fold_curve){
        .grid = g->grid,
        .x = g->x,
        .value = g->curve + row,
        .value_lo = g->curve_lo + row,
        .value_hi = g->curve_hi + row,
        .rate = g->rate + row,
        .rate_lo = g->rate_lo + row,
        .rate_hi = g->rate_hi + row,
    };
    return 0;
}

int tracefold_fold_points_read(const tracefold_fold *f, uint32_t region, uint32_t group,
                               size_t first, tracefold_fold_point *buf, double *values,
                               size_t max, size_t *n, tracefold_error *err)
{
    const tf_fold_group *g = NULL;
    int rc = group_at(f, region, group, &g, err);
    if (rc < 0)
        return rc;
    /* A loaded result holds every point in one part (fold_result.h). */
    const tf_fold_points *p = &g->points;
    uint32_t nc = f->result->regions[region].ncounters;
    size_t count = first < p->n ? p->n - first : 0;
    if (count > max)
        count = max;
    for (size_t i = 0; i < count; i++) {
        size_t k = first + i;
        buf[i] = (tracefold_fold_point){
            .x = p->x[k],
            .instance = p->instance[k],
            .kind = p->kind[k],
            .level = p->level[k],
            .weight = p->weight[k],
            .ip = p->ip[k],
            .address = p->addr[k],
        };
        for (uint32_t c = 0; values && c < nc; c++)
            values[i * nc + c] = p->y[(size_t)c * p->n + k];
    }
    *n = count;
    return 0;
}
