/* SPDX-License-Identifier: BSD-3-Clause */
/* A fold result bound to fold.h5's groups and tables (formats/fold_h5.h),
 * for fold_save.c and fold_load.c alike: a region's instances
 * (tf_fold_instance), a group's change points (tf_fold_change), and the
 * attributes of the root, /parameters, a region and a group as stored,
 * which the two convert to and from the result (the parameters' names,
 * the counts that fold_load.c checks before it trusts them). */
#ifndef TF_FOLD_RESULT_H5_H
#define TF_FOLD_RESULT_H5_H

#include <stdint.h>

#include "formats/fold_h5.h"

extern const tf_fold_h5_binding tf_fold_instance_h5, tf_fold_change_h5;

/* tf_fold_root_h5 binds format, version, then the rest, in this order, so
 * that a reader checks the first two before it reads more. */
typedef struct tf_fold_root_attrs {
    char   *format, *producer, *trace;
    int64_t version, regions;
} tf_fold_root_attrs;

typedef struct tf_fold_params_attrs {
    char    *filter, *groups, *region_scope;   /* region_scope NULL: not recorded */
    double   filter_k, shape_k, confidence, min_change;
    int64_t  grid, bootstrap;
    uint64_t seed;
} tf_fold_params_attrs;

typedef struct tf_fold_region_attrs {
    char   *name;
    int64_t instances, used, excluded, incomplete, groups;
    double  observer_ns, observer_spread_ns;   /* 0: not recorded */
} tf_fold_region_attrs;

typedef struct tf_fold_group_attrs {
    int64_t index, instances, points, instructions;
    double  mean_duration_ns, duration_lo_ns, duration_hi_ns;
} tf_fold_group_attrs;

extern const tf_fold_h5_binding tf_fold_root_h5, tf_fold_params_h5, tf_fold_region_h5,
    tf_fold_group_h5;

#endif
