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
    { col, TF_FOLD_H5_##mem, offsetof(tf_fold_instance, member), NULL, NULL }

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
    { "scope", TF_FOLD_H5_COMPUTED, 0, NULL, scope_of },
    FIELD("score", F64, score),
};

const tf_fold_h5_binding tf_fold_instance_h5 =
    TF_FOLD_H5_BINDING(tf_fold_h5_instances, instance_fields, sizeof(tf_fold_instance));

static const tf_fold_h5_field change_fields[] = {
    { "counter", TF_FOLD_H5_U32, offsetof(tf_fold_change, counter), NULL, NULL },
    { "x", TF_FOLD_H5_F64, offsetof(tf_fold_change, x), NULL, NULL },
    { "rate_before", TF_FOLD_H5_F64, offsetof(tf_fold_change, rate_before), NULL, NULL },
    { "rate_after", TF_FOLD_H5_F64, offsetof(tf_fold_change, rate_after), NULL, NULL },
};

const tf_fold_h5_binding tf_fold_change_h5 =
    TF_FOLD_H5_BINDING(tf_fold_h5_changes, change_fields, sizeof(tf_fold_change));
