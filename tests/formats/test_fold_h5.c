/* SPDX-License-Identifier: BSD-3-Clause */
/* The writer and reader of fold.h5's tables (formats/fold_h5.h): rows come
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

#include "formats/fold_h5.h"
#include "formats/h5util.h"

/* The change points' table bound to a narrow counter, so that a stored
 * value beyond 255 must be refused. */
typedef struct change_row {
    uint8_t counter;
    double  x, before, after;
} change_row;

static const tf_fold_h5_field change_fields[] = {
    { "counter", TF_FOLD_H5_U8, offsetof(change_row, counter), NULL, NULL },
    { "x", TF_FOLD_H5_F64, offsetof(change_row, x), NULL, NULL },
    { "rate_before", TF_FOLD_H5_F64, offsetof(change_row, before), NULL, NULL },
    { "rate_after", TF_FOLD_H5_F64, offsetof(change_row, after), NULL, NULL },
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
        { "function", TF_FOLD_H5_COLUMN, offsetof(routine_columns, function), NULL, NULL },
        { "file", TF_FOLD_H5_COLUMN, offsetof(routine_columns, file), NULL, NULL },
        { "waiting", TF_FOLD_H5_COLUMN, offsetof(routine_columns, waiting), NULL, NULL },
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
        { "finding", TF_FOLD_H5_COLUMN, 0, NULL, NULL },
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

/* The writer refuses a binding that leaves a column of the table out. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_round_trip),
        cmocka_unit_test(damaged_tables_refused),
        cmocka_unit_test(earlier_files_read),
        cmocka_unit_test(incomplete_binding_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
