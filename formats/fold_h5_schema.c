/* SPDX-License-Identifier: BSD-3-Clause */
/* The paths and tables of fold.h5, as docs/fold-format.md describes them.
 * A column marked optional is one that files written before it lack; the
 * readers take its absence as "not recorded". */
#include "fold_h5.h"

#include <inttypes.h>
#include <stdio.h>

#define TABLE(dset, list, whole_optional) {                                    \
    .group = dset, .columns = list, .ncolumns = sizeof list / sizeof list[0], \
    .optional = whole_optional }

#define I64(n) { n, TF_FOLD_H5_INT64, false }
#define U64(n) { n, TF_FOLD_H5_UINT64, false }
#define F64(n) { n, TF_FOLD_H5_DOUBLE, false }
#define TEXT(n) { n, TF_FOLD_H5_STRINGS, false }

static const tf_fold_h5_column instance_columns[] = {
    I64("process"), I64("thread"), U64("tid"), U64("begin_ns"), U64("end_ns"),
    U64("duration_ns"), I64("status"), I64("reason"), I64("group"), U64("samples"),
    { "threads", TF_FOLD_H5_INT64, true },
    /* what threads says, spelt out for readers of the file */
    I64("scope"),
    F64("score"),
};

/* and the dataset boundaries [B], of another length */
static const tf_fold_h5_column change_columns[] = {
    I64("counter"), F64("x"), F64("rate_before"), F64("rate_after"),
};

static const tf_fold_h5_column routine_columns[] = {
    TEXT("function"),
    { "file", TF_FOLD_H5_STRINGS, true },
    { "waiting", TF_FOLD_H5_INT64, true },
};
static const tf_fold_h5_column object_columns[] = {
    TEXT("name"), TEXT("kind"), U64("size_bytes"), F64("share"), I64("loads"), I64("stores"),
    I64("allocations"), TEXT("routine"),
};
static const tf_fold_h5_column window_columns[] = {
    F64("x_begin"), F64("x_end"), I64("routine"), I64("line"), F64("share"),
};
/* and the attribute per_instruction, the matrix per_unit [phases][C] with
 * counter_names [C] (analysis/analysis_h5.c) */
static const tf_fold_h5_column phase_columns[] = {
    TEXT("label"), I64("parent"), F64("x_begin"), F64("x_end"), I64("routine"), I64("line"),
    F64("share"), F64("mips"), F64("ipc"),
};
static const tf_fold_h5_column stream_columns[] = {
    I64("phase"), I64("object"), I64("direction"), I64("stride_bytes"), TEXT("stride_from"),
    I64("streams"), TEXT("pattern"), F64("ordered_r2"), F64("bytes"), F64("bandwidth_MBps"),
    I64("samples"),
};
/* and the matrix cost_modes [levels][4] */
static const tf_fold_h5_column level_columns[] = {
    I64("phase"), I64("level"), TEXT("level_name"), I64("loads"), F64("share"),
    F64("mean_cost"),
};
static const tf_fold_h5_column advice_columns[] = {
    I64("phase"), I64("object"), TEXT("finding"), TEXT("suggestion"), TEXT("evidence"),
    F64("expected_gain"),
};

const tf_fold_h5_table tf_fold_h5_instances = TABLE("instances", instance_columns, false);
const tf_fold_h5_table tf_fold_h5_changes = TABLE("changes", change_columns, false);
const tf_fold_h5_table tf_fold_h5_routines = TABLE("routines", routine_columns, false);
const tf_fold_h5_table tf_fold_h5_objects = TABLE("objects", object_columns, false);
const tf_fold_h5_table tf_fold_h5_windows = TABLE("windows", window_columns, false);
const tf_fold_h5_table tf_fold_h5_phases = TABLE("phases", phase_columns, false);
const tf_fold_h5_table tf_fold_h5_streams = TABLE("streams", stream_columns, false);
const tf_fold_h5_table tf_fold_h5_levels = TABLE("levels", level_columns, false);
/* folds written before the advice have none */
const tf_fold_h5_table tf_fold_h5_advice = TABLE("advice", advice_columns, true);

const char *const tf_fold_h5_curve_names[TF_FOLD_H5_CURVES] = {
    [TF_FOLD_H5_CURVE] = "curve", [TF_FOLD_H5_CURVE_LO] = "curve_lo",
    [TF_FOLD_H5_CURVE_HI] = "curve_hi", [TF_FOLD_H5_RATE] = "rate",
    [TF_FOLD_H5_RATE_LO] = "rate_lo", [TF_FOLD_H5_RATE_HI] = "rate_hi",
    [TF_FOLD_H5_RATIO] = "ratio",
};

const char *tf_fold_h5_region_path(char buf[TF_FOLD_H5_PATH], uint32_t region)
{
    snprintf(buf, TF_FOLD_H5_PATH, "region/%" PRIu32, region);
    return buf;
}

const char *tf_fold_h5_group_path(char buf[TF_FOLD_H5_PATH], uint32_t region, uint32_t group,
                                  const char *below)
{
    snprintf(buf, TF_FOLD_H5_PATH, "region/%" PRIu32 "/group/%" PRIu32 "%s%s", region, group,
             below ? "/" : "", below ? below : "");
    return buf;
}
