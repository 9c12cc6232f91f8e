/* SPDX-License-Identifier: BSD-3-Clause */
#include "result_h5.h"

#include <stddef.h>

#include "fold_result.h"

/* The scope column: what the threads say (written, never read back). */
static int64_t scope_of(const void *row)
{
    const tf_fold_instance *in = row;
    return in->threads > 1 ? TF_REGION_SCOPE_PROCESS : TF_REGION_SCOPE_THREAD;
}

#define FIELD(col, mem, member) \
    { col, TF_FOLD_H5_##mem, offsetof(tf_fold_instance, member), NULL, NULL, NULL, 0 }

static const tf_fold_h5_field instance_fields[] = {
    FIELD("process", U32, proc),
    FIELD("thread", U32, thread),
    FIELD("tid", U64, tid),
    FIELD("begin_ns", U64, begin),
    FIELD("end_ns", U64, end),
    FIELD("duration_ns", U64, duration),
    FIELD("status", U8, status),
    FIELD("reason", U8, reason),
    FIELD("group", I32, group),
    FIELD("samples", U64, samples),
    FIELD("threads", U16, threads),
    { "scope", TF_FOLD_H5_COMPUTED, 0, NULL, scope_of, NULL, 0 },
    FIELD("score", F64, score),
};

const tf_fold_h5_binding tf_fold_instance_h5 =
    TF_FOLD_H5_BINDING(tf_fold_h5_instances, instance_fields, sizeof(tf_fold_instance));

static const tf_fold_h5_field change_fields[] = {
    { "counter", TF_FOLD_H5_U32, offsetof(tf_fold_change, counter), NULL, NULL, NULL, 0 },
    { "x", TF_FOLD_H5_F64, offsetof(tf_fold_change, x), NULL, NULL, NULL, 0 },
    { "rate_before", TF_FOLD_H5_F64, offsetof(tf_fold_change, rate_before), NULL, NULL, NULL, 0 },
    { "rate_after", TF_FOLD_H5_F64, offsetof(tf_fold_change, rate_after), NULL, NULL, NULL, 0 },
};

const tf_fold_h5_binding tf_fold_change_h5 =
    TF_FOLD_H5_BINDING(tf_fold_h5_changes, change_fields, sizeof(tf_fold_change));

/* The attributes, as stored. */
#define ATTR(type, col, mem, member) \
    { col, TF_FOLD_H5_##mem, offsetof(type, member), NULL, NULL, NULL, 0 }

static const tf_fold_h5_field root_fields[] = {
    ATTR(tf_fold_root_attrs, "format", TEXT, format),
    ATTR(tf_fold_root_attrs, "version", I64, version),
    ATTR(tf_fold_root_attrs, "producer", TEXT, producer),
    ATTR(tf_fold_root_attrs, "trace", TEXT, trace),
    ATTR(tf_fold_root_attrs, "regions", I64, regions),
};
const tf_fold_h5_binding tf_fold_root_h5 =
    TF_FOLD_H5_BINDING(tf_fold_h5_root, root_fields, sizeof(tf_fold_root_attrs));

static const tf_fold_h5_field params_fields[] = {
    ATTR(tf_fold_params_attrs, "filter", TEXT, filter),
    ATTR(tf_fold_params_attrs, "filter_k", F64, filter_k),
    ATTR(tf_fold_params_attrs, "shape_k", F64, shape_k),
    ATTR(tf_fold_params_attrs, "groups", TEXT, groups),
    ATTR(tf_fold_params_attrs, "grid", I64, grid),
    ATTR(tf_fold_params_attrs, "bootstrap", I64, bootstrap),
    ATTR(tf_fold_params_attrs, "confidence", F64, confidence),
    ATTR(tf_fold_params_attrs, "seed", U64, seed),
    ATTR(tf_fold_params_attrs, "region_scope", TEXT, region_scope),
    ATTR(tf_fold_params_attrs, "min_change", F64, min_change),
};
const tf_fold_h5_binding tf_fold_params_h5 =
    TF_FOLD_H5_BINDING(tf_fold_h5_parameters, params_fields, sizeof(tf_fold_params_attrs));

static const tf_fold_h5_field region_fields[] = {
    ATTR(tf_fold_region_attrs, "name", TEXT, name),
    ATTR(tf_fold_region_attrs, "instances", I64, instances),
    ATTR(tf_fold_region_attrs, "used", I64, used),
    ATTR(tf_fold_region_attrs, "excluded", I64, excluded),
    ATTR(tf_fold_region_attrs, "incomplete", I64, incomplete),
    ATTR(tf_fold_region_attrs, "groups", I64, groups),
    ATTR(tf_fold_region_attrs, "observer_ns", F64, observer_ns),
    ATTR(tf_fold_region_attrs, "observer_spread_ns", F64, observer_spread_ns),
};
const tf_fold_h5_binding tf_fold_region_h5 =
    TF_FOLD_H5_BINDING(tf_fold_h5_region, region_fields, sizeof(tf_fold_region_attrs));

static const tf_fold_h5_field group_fields[] = {
    ATTR(tf_fold_group_attrs, "index", I64, index),
    ATTR(tf_fold_group_attrs, "instances", I64, instances),
    ATTR(tf_fold_group_attrs, "mean_duration_ns", F64, mean_duration_ns),
    ATTR(tf_fold_group_attrs, "duration_lo_ns", F64, duration_lo_ns),
    ATTR(tf_fold_group_attrs, "duration_hi_ns", F64, duration_hi_ns),
    ATTR(tf_fold_group_attrs, "points", I64, points),
    ATTR(tf_fold_group_attrs, "instructions", I64, instructions),
};
const tf_fold_h5_binding tf_fold_group_h5 =
    TF_FOLD_H5_BINDING(tf_fold_h5_group, group_fields, sizeof(tf_fold_group_attrs));
