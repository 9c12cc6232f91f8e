/* SPDX-License-Identifier: BSD-3-Clause */
/* The paths and tables of fold.h5, as docs/fold-format.md describes them.
 * A column marked optional is one that files written before it lack; the
 * readers take its absence as "not recorded". */
#include "fold_h5.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "h5util.h"

#define TABLE(dset, list, whole_optional) {                                    \
    .group = dset, .columns = list, .ncolumns = sizeof list / sizeof list[0], \
    .optional = whole_optional }

/* A group that is not a table: its attributes and datasets. */
#define GROUP(path, attr_list, dataset_list) {                                          \
    .group = path, .attrs = attr_list, .nattrs = sizeof attr_list / sizeof attr_list[0], \
    .datasets = dataset_list, .ndatasets = sizeof dataset_list / sizeof dataset_list[0] }
/* A group of attributes only. */
#define ATTRIBUTES(path, attr_list) {                                                    \
    .group = path, .attrs = attr_list, .nattrs = sizeof attr_list / sizeof attr_list[0] }
/* A table with datasets (and attributes) beside its columns. */
#define TABLE_WITH(dset, list, attr_list, nattr, dataset_list) {                 \
    .group = dset, .columns = list, .ncolumns = sizeof list / sizeof list[0],     \
    .attrs = attr_list, .nattrs = nattr, .datasets = dataset_list,                \
    .ndatasets = sizeof dataset_list / sizeof dataset_list[0] }

#define VECTOR(n, type) { n, TF_FOLD_H5_##type, 1, false }
#define MATRIX(n, type) { n, TF_FOLD_H5_##type, 2, false }

#define I64(n) { n, TF_FOLD_H5_INT64, false }
#define U64(n) { n, TF_FOLD_H5_UINT64, false }
#define F64(n) { n, TF_FOLD_H5_DOUBLE, false }
#define TEXT(n) { n, TF_FOLD_H5_STRINGS, false }

static const tf_fold_h5_column root_attrs[] = {
    TEXT("format"), I64("version"), TEXT("producer"), TEXT("trace"), I64("regions"),
};

static const tf_fold_h5_column parameter_attrs[] = {
    TEXT("filter"), F64("filter_k"), F64("shape_k"), TEXT("groups"), I64("grid"),
    I64("bootstrap"), F64("confidence"), U64("seed"),
    { "region_scope", TF_FOLD_H5_STRINGS, true },
    F64("min_change"),
};

static const tf_fold_h5_column region_attrs[] = {
    TEXT("name"), I64("instances"), I64("used"), I64("excluded"), I64("incomplete"),
    I64("groups"),
    /* the recording's cost, absent from the files of versions before it */
    { "observer_ns", TF_FOLD_H5_DOUBLE, true },
    { "observer_spread_ns", TF_FOLD_H5_DOUBLE, true },
};
/* [C] each */
static const tf_fold_h5_dataset region_datasets[] = {
    { "observer_events", TF_FOLD_H5_DOUBLE, 1, true },
    VECTOR("counter_names", STRINGS), VECTOR("counter_units", STRINGS),
};

static const tf_fold_h5_column group_attrs[] = {
    I64("index"), I64("instances"), F64("mean_duration_ns"), F64("duration_lo_ns"),
    F64("duration_hi_ns"), I64("points"), I64("instructions"),
};
/* [C], then x [G], then the curves [C][G] (tf_fold_h5_curve_names), the
 * ratio only with an instructions counter */
static const tf_fold_h5_dataset group_datasets[] = {
    VECTOR("counter_instances", INT64), VECTOR("mean_total", DOUBLE),
    /* absent from files written before the check: none dropped */
    { "rate_dropped", TF_FOLD_H5_INT64, 1, true },
    VECTOR("x", DOUBLE),
    MATRIX("curve", DOUBLE), MATRIX("curve_lo", DOUBLE), MATRIX("curve_hi", DOUBLE),
    MATRIX("rate", DOUBLE), MATRIX("rate_lo", DOUBLE), MATRIX("rate_hi", DOUBLE),
    { "ratio", TF_FOLD_H5_DOUBLE, 2, true },
};

static const tf_fold_h5_column analysis_attrs[] = {
    F64("mean_duration_ns"), I64("samples_folded"), I64("samples_analysed"),
};

static const tf_fold_h5_column machine_attrs[] = {
    TEXT("source"), I64("line_bytes"), I64("page_bytes"), F64("memory_ns"),
};
/* [levels][TF_FOLD_H5_LEVEL_COLUMNS] */
static const tf_fold_h5_dataset machine_datasets[] = { MATRIX("levels", DOUBLE) };

const tf_fold_h5_table tf_fold_h5_root = ATTRIBUTES("/", root_attrs);
const tf_fold_h5_table tf_fold_h5_parameters = ATTRIBUTES("parameters", parameter_attrs);
const tf_fold_h5_table tf_fold_h5_region = GROUP("region/<r>", region_attrs, region_datasets);
const tf_fold_h5_table tf_fold_h5_group =
    GROUP("region/<r>/group/<g>", group_attrs, group_datasets);
const tf_fold_h5_table tf_fold_h5_analysis =
    ATTRIBUTES("region/<r>/group/<g>/analysis", analysis_attrs);
const tf_fold_h5_table tf_fold_h5_machine_profile =
    GROUP("machine", machine_attrs, machine_datasets);

static const tf_fold_h5_column instance_columns[] = {
    I64("process"), I64("thread"), U64("tid"), U64("begin_ns"), U64("end_ns"),
    U64("duration_ns"), I64("status"), I64("reason"), I64("group"), U64("samples"),
    { "threads", TF_FOLD_H5_INT64, true },
    /* what threads says, spelt out for readers of the file */
    I64("scope"),
    F64("score"),
};

/* counter_delta [N][C] */
static const tf_fold_h5_dataset instance_datasets[] = { MATRIX("counter_delta", UINT64) };

static const tf_fold_h5_column change_columns[] = {
    I64("counter"), F64("x"), F64("rate_before"), F64("rate_after"),
};
/* the merged boundaries [B], of another length */
static const tf_fold_h5_dataset change_datasets[] = { VECTOR("boundaries", DOUBLE) };

static const tf_fold_h5_column routine_columns[] = {
    TEXT("function"),
    { "file", TF_FOLD_H5_STRINGS, true },
    { "waiting", TF_FOLD_H5_INT64, true },
};
static const tf_fold_h5_column object_columns[] = {
    TEXT("name"), TEXT("kind"), U64("size_bytes"), F64("share"), I64("loads"), I64("stores"),
    /* absent from folds written before the families of objects */
    { "allocations", TF_FOLD_H5_INT64, true }, { "routine", TF_FOLD_H5_STRINGS, true },
};
static const tf_fold_h5_column window_columns[] = {
    F64("x_begin"), F64("x_end"), I64("routine"), I64("line"), F64("share"),
};
static const tf_fold_h5_column phase_columns[] = {
    TEXT("label"), I64("parent"), F64("x_begin"), F64("x_end"), I64("routine"), I64("line"),
    F64("share"), F64("mips"), F64("ipc"),
};
static const tf_fold_h5_column phase_attrs[] = { I64("per_instruction") };
/* the rates per counter [phases][C] with the counters' names [C], where the
 * analysis has counters */
static const tf_fold_h5_dataset phase_datasets[] = {
    { "per_unit", TF_FOLD_H5_DOUBLE, 2, true }, { "counter_names", TF_FOLD_H5_STRINGS, 1, true },
};
static const tf_fold_h5_column stream_columns[] = {
    I64("phase"), I64("object"), I64("direction"), I64("stride_bytes"), TEXT("stride_from"),
    I64("streams"), TEXT("pattern"), F64("ordered_r2"), F64("bytes"), F64("bandwidth_MBps"),
    I64("samples"),
};
static const tf_fold_h5_column level_columns[] = {
    I64("phase"), I64("level"), TEXT("level_name"), I64("loads"), F64("share"),
    F64("mean_cost"),
};
/* the cost modes [levels][TF_ANALYSIS_MAX_MODES], NaN past a level's */
static const tf_fold_h5_dataset level_datasets[] = { MATRIX("cost_modes", DOUBLE) };
static const tf_fold_h5_column advice_columns[] = {
    I64("phase"), I64("object"), TEXT("finding"), TEXT("suggestion"), TEXT("evidence"),
    F64("expected_gain"),
};

const tf_fold_h5_table tf_fold_h5_instances =
    TABLE_WITH("instances", instance_columns, NULL, 0, instance_datasets);
const tf_fold_h5_table tf_fold_h5_changes =
    TABLE_WITH("changes", change_columns, NULL, 0, change_datasets);
const tf_fold_h5_table tf_fold_h5_routines = TABLE("routines", routine_columns, false);
const tf_fold_h5_table tf_fold_h5_objects = TABLE("objects", object_columns, false);
const tf_fold_h5_table tf_fold_h5_windows = TABLE("windows", window_columns, false);
const tf_fold_h5_table tf_fold_h5_phases =
    TABLE_WITH("phases", phase_columns, phase_attrs, 1, phase_datasets);
const tf_fold_h5_table tf_fold_h5_streams = TABLE("streams", stream_columns, false);
const tf_fold_h5_table tf_fold_h5_levels =
    TABLE_WITH("levels", level_columns, NULL, 0, level_datasets);
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

const tf_fold_h5_dataset *tf_fold_h5_dataset_of(int64_t loc, const tf_fold_h5_table *t,
                                                const char *name, tf_error *err)
{
    for (size_t k = 0; k < t->ndatasets; k++)
        if (!strcmp(t->datasets[k].name, name))
            return &t->datasets[k];
    tf_h5_fail(err, TF_ERR_INTERNAL, loc, name, "not a dataset of %s in the schema", t->group);
    return NULL;
}
