/* SPDX-License-Identifier: BSD-3-Clause */
/* The output and reader of fold.h5's tables (formats/fold_h5.h): rows come
 * back as written, and a damaged table (a column missing, of another
 * length or 2-D, a value too large for its member) is refused naming the
 * dataset, while the columns that earlier files lack read as absent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <hdf5.h>

#include "formats/fold_h5.h"
#include "formats/h5util.h"

/* The change points' table bound to a narrow counter, so that a stored
 * value beyond 255 must be refused. */
typedef struct change_row {
    uint8_t counter;
    double  x, before, after;
} change_row;

static const tf_fold_h5_field change_fields[] = {
    { "counter", TF_FOLD_H5_U8, offsetof(change_row, counter), NULL, NULL, NULL, 0 },
    { "x", TF_FOLD_H5_F64, offsetof(change_row, x), NULL, NULL, NULL, 0 },
    { "rate_before", TF_FOLD_H5_F64, offsetof(change_row, before), NULL, NULL, NULL, 0 },
    { "rate_after", TF_FOLD_H5_F64, offsetof(change_row, after), NULL, NULL, NULL, 0 },
};
static const tf_fold_h5_binding changes =
    TF_FOLD_H5_BINDING(tf_fold_h5_changes, change_fields, sizeof(change_row));

static char path[64];

static int64_t fresh_file(void)
{
    int64_t file;
    tf_error err = { 0 };
    snprintf(path, sizeof path, "/tmp/tf-fold-h5-%d.h5", (int)getpid());
    if (tf_h5_file_create(path, &file, &err) < 0)
        fail_msg("%s", err.msg);
    return file;
}

static void rows_round_trip(void **state)
{
    (void)state;
    int64_t file = fresh_file();
    const change_row in[3] = { { 0, 0.1, 1, 2 }, { 2, 0.5, 3, 4 }, { 255, 0.9, 5, 6 } };
    tf_error err = { 0 };
    if (tf_fold_h5_table_write(file, &changes, in, 3, NULL, &err) < 0)
        fail_msg("%s", err.msg);
    change_row *out = NULL;
    size_t n = SIZE_MAX;
    if (tf_fold_h5_table_read(file, &changes, &out, &n, NULL, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(out[i].counter, in[i].counter);
        assert_true(out[i].x == in[i].x && out[i].after == in[i].after);
    }
    free(out);
    /* a length the caller knows must match */
    n = 4;
    assert_true(tf_fold_h5_table_read(file, &changes, &out, &n, NULL, &err) < 0);
    assert_null(out);
    assert_non_null(strstr(err.msg, "/changes/counter"));
    tf_h5_close(file);
    remove(path);
}

/* A table written column by column, as a damaged file would hold it. */
static void write_columns(int64_t file, const int64_t *counter, size_t ncounter, size_t nx,
                          size_t x_cols)
{
    const double v[8] = { 0 };
    int64_t grp;
    tf_error err = { 0 };
    if (tf_h5_group_create(file, "changes", &grp, &err) < 0 ||
        tf_h5_write_array(grp, "counter", TF_H5_INT64, counter, ncounter, &err) < 0 ||
        (x_cols ? tf_h5_write_matrix(grp, "x", TF_H5_DOUBLE, v, nx, x_cols, &err)
                : tf_h5_write_array(grp, "x", TF_H5_DOUBLE, v, nx, &err)) < 0 ||
        tf_h5_write_array(grp, "rate_before", TF_H5_DOUBLE, v, ncounter, &err) < 0 ||
        tf_h5_write_array(grp, "rate_after", TF_H5_DOUBLE, v, ncounter, &err) < 0)
        fail_msg("%s", err.msg);
    tf_h5_close(grp);
}

/* Reads the damaged table and expects a format error naming what. */
static void expect_refused(int64_t file, const char *what)
{
    change_row *out = NULL;
    size_t n = SIZE_MAX;
    tf_error err = { 0 };
    assert_int_equal(tf_fold_h5_table_read(file, &changes, &out, &n, NULL, &err),
                     -TF_ERR_FORMAT);
    assert_null(out);
    if (!strstr(err.msg, what))
        fail_msg("'%s' does not name %s", err.msg, what);
    tf_h5_close(file);
    remove(path);
}

static void damaged_tables_refused(void **state)
{
    (void)state;
    const int64_t counter[3] = { 1, 2, 3 }, wide[3] = { 1, 256, 3 };
    int64_t file = fresh_file();
    write_columns(file, counter, 3, 2, 0);   /* x shorter */
    expect_refused(file, "/changes/x");
    file = fresh_file();
    write_columns(file, counter, 3, 3, 2);   /* x 2-D */
    expect_refused(file, "/changes/x");
    file = fresh_file();
    write_columns(file, wide, 3, 3, 0);      /* 256 in a uint8_t */
    expect_refused(file, "/changes/counter");
    file = fresh_file();                     /* no changes at all */
    expect_refused(file, "changes");
}

/* The routines' file and waiting columns, and the advice group, are absent
 * from files written before them. */
typedef struct routine_columns {
    char   **function, **file;
    int64_t *waiting;
} routine_columns;

static void earlier_files_read(void **state)
{
    (void)state;
    int64_t file = fresh_file(), grp;
    tf_error err = { 0 };
    const char *const names[2] = { "main", "solve" };
    if (tf_h5_group_create(file, "routines", &grp, &err) < 0 ||
        tf_h5_write_strings(grp, "function", names, 2, &err) < 0)
        fail_msg("%s", err.msg);
    tf_h5_close(grp);
    static const tf_fold_h5_field fields[] = {
        { "function", TF_FOLD_H5_COLUMN, offsetof(routine_columns, function), NULL, NULL, NULL, 0 },
        { "file", TF_FOLD_H5_COLUMN, offsetof(routine_columns, file), NULL, NULL, NULL, 0 },
        { "waiting", TF_FOLD_H5_COLUMN, offsetof(routine_columns, waiting), NULL, NULL, NULL, 0 },
    };
    static const tf_fold_h5_binding routines =
        TF_FOLD_H5_BINDING(tf_fold_h5_routines, fields, 0);
    routine_columns c = { 0 };
    size_t n = SIZE_MAX;
    uint32_t missing;
    if (tf_fold_h5_table_read(file, &routines, &c, &n, &missing, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(n, 2);
    assert_string_equal(c.function[1], "solve");
    assert_null(c.file);
    assert_null(c.waiting);
    assert_int_equal(missing, 6);   /* fields 1 and 2 */
    free(c.function);
    /* no advice group: no advice */
    static const tf_fold_h5_field advice_fields[] = {
        { "finding", TF_FOLD_H5_COLUMN, 0, NULL, NULL, NULL, 0 },
    };
    static const tf_fold_h5_binding advice =
        TF_FOLD_H5_BINDING(tf_fold_h5_advice, advice_fields, 0);
    char **finding = NULL;
    n = SIZE_MAX;
    if (tf_fold_h5_table_read(file, &advice, &finding, &n, NULL, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(n, 0);
    assert_null(finding);
    tf_h5_close(file);
    remove(path);
}

/* The output refuses a binding that leaves a column of the table out. */
static void incomplete_binding_refused(void **state)
{
    (void)state;
    static const tf_fold_h5_binding short_binding =
        { .table = &tf_fold_h5_changes, .fields = change_fields, .nfields = 3,
          .row_size = sizeof(change_row) };
    int64_t file = fresh_file();
    const change_row in[1] = { { 1, 0.5, 1, 2 } };
    tf_error err = { 0 };
    assert_int_equal(tf_fold_h5_table_write(file, &short_binding, in, 1, NULL, &err),
                     -TF_ERR_INTERNAL);
    assert_non_null(strstr(err.msg, "rate_after"));
    tf_h5_close(file);
    remove(path);
}

/* A group's attributes: written from one struct, read back into it; an
 * attribute too large for its member is refused naming it, an optional
 * one that earlier files lack is reported missing. */
typedef struct region_row {
    char    *name;
    uint8_t  groups;
    int64_t  instances, used, excluded, incomplete;
    double   observer_ns, observer_spread_ns;
} region_row;

#define REGION(col, mem, member) \
    { col, TF_FOLD_H5_##mem, offsetof(region_row, member), NULL, NULL, NULL, 0 }
static const tf_fold_h5_field region_fields[] = {
    REGION("name", TEXT, name), REGION("instances", I64, instances), REGION("used", I64, used),
    REGION("excluded", I64, excluded), REGION("incomplete", I64, incomplete),
    REGION("groups", U8, groups), REGION("observer_ns", F64, observer_ns),
    REGION("observer_spread_ns", F64, observer_spread_ns),
};
static const tf_fold_h5_binding region_attrs =
    TF_FOLD_H5_BINDING(tf_fold_h5_region, region_fields, sizeof(region_row));

static void attributes_round_trip(void **state)
{
    (void)state;
    int64_t file = fresh_file();
    region_row in = { "solve", 3, 10, 8, 1, 1, 2.5, 0.5 }, out = { 0 };
    tf_error err = { 0 };
    uint32_t missing = 99;
    if (tf_fold_h5_attrs_write(file, &region_attrs, &in, &err) < 0 ||
        tf_fold_h5_attrs_read(file, &region_attrs, &out, &missing, &err) < 0)
        fail_msg("%s", err.msg);
    assert_string_equal(out.name, "solve");
    assert_int_equal(out.groups, 3);
    assert_int_equal(out.used, 8);
    assert_true(out.observer_ns == 2.5 && out.observer_spread_ns == 0.5);
    assert_int_equal(missing, 0);
    free(out.name);
    /* earlier files lack the recording's cost: missing, left as it was */
    assert_true(H5Adelete((hid_t)file, "observer_ns") >= 0);
    out = (region_row){ .observer_ns = -1 };
    if (tf_fold_h5_attrs_read(file, &region_attrs, &out, &missing, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(missing, 1u << 6);
    assert_true(out.observer_ns == -1);
    free(out.name);
    /* 300 groups do not fit a uint8_t */
    if (tf_h5_attr_write_int64(file, "groups", 300, &err) < 0)
        fail_msg("%s", err.msg);
    out = (region_row){ 0 };
    assert_int_equal(tf_fold_h5_attrs_read(file, &region_attrs, &out, NULL, &err),
                     -TF_ERR_FORMAT);
    if (!strstr(err.msg, "attribute 'groups'") || !strstr(err.msg, "300"))
        fail_msg("'%s' does not name the attribute and its value", err.msg);
    free(out.name);
    /* a binding that leaves an attribute out is refused by the output */
    tf_fold_h5_binding short_binding = region_attrs;
    short_binding.nfields--;
    assert_int_equal(tf_fold_h5_attrs_write(file, &short_binding, &in, &err), -TF_ERR_INTERNAL);
    assert_non_null(strstr(err.msg, "observer_spread_ns"));
    tf_h5_close(file);
    remove(path);
}

/* A group's other datasets: written and read by the schema's name with
 * the shape the caller expects; a name the schema lacks, or a shape other
 * than the expected one, is refused; an optional one absent reads as
 * NULL. */
static void datasets_by_schema(void **state)
{
    (void)state;
    int64_t file = fresh_file();
    const double curve[2][3] = { { 0, 0.5, 1 }, { 0, 0.25, 1 } };
    tf_error err = { 0 };
    if (tf_fold_h5_dataset_write(file, &tf_fold_h5_group, "curve", curve, 2, 3, &err) < 0)
        fail_msg("%s", err.msg);
    double *back = NULL;
    size_t rows = 2;
    if (tf_fold_h5_dataset_read(file, &tf_fold_h5_group, "curve", &rows, 3, (void **)&back,
                                &err) < 0)
        fail_msg("%s", err.msg);
    assert_true(back[4] == 0.25);
    free(back);
    rows = 3;   /* a grid of another size */
    assert_int_equal(tf_fold_h5_dataset_read(file, &tf_fold_h5_group, "curve", &rows, 3,
                                             (void **)&back, &err), -TF_ERR_FORMAT);
    assert_null(back);
    assert_non_null(strstr(err.msg, "curve"));
    /* not in the schema of the group */
    assert_int_equal(tf_fold_h5_dataset_write(file, &tf_fold_h5_group, "curves", curve, 2, 3,
                                              &err), -TF_ERR_INTERNAL);
    assert_non_null(strstr(err.msg, "curves"));
    /* a vector written as a matrix */
    assert_int_equal(tf_fold_h5_dataset_write(file, &tf_fold_h5_group, "x", curve, 2, 3, &err),
                     -TF_ERR_INTERNAL);
    /* the ratio only with an instructions counter: absent, NULL */
    rows = 2;
    back = (double *)curve;
    if (tf_fold_h5_dataset_read(file, &tf_fold_h5_group, "ratio", &rows, 3, (void **)&back,
                                &err) < 0)
        fail_msg("%s", err.msg);
    assert_null(back);
    /* strings, of any count */
    const char *const names[2] = { "instructions", "cycles" };
    char **got = NULL;
    rows = SIZE_MAX;
    if (tf_fold_h5_dataset_write(file, &tf_fold_h5_region, "counter_names", names, 2, 0, &err) <
            0 ||
        tf_fold_h5_dataset_read(file, &tf_fold_h5_region, "counter_names", &rows, 0,
                                (void **)&got, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(rows, 2);
    assert_string_equal(got[1], "cycles");
    free(got);
    tf_h5_close(file);
    remove(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_round_trip),
        cmocka_unit_test(damaged_tables_refused),
        cmocka_unit_test(earlier_files_read),
        cmocka_unit_test(incomplete_binding_refused),
        cmocka_unit_test(attributes_round_trip),
        cmocka_unit_test(datasets_by_schema),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
