/* SPDX-License-Identifier: BSD-3-Clause */
/* The reader of fold.h5's tables (fold_h5.h).  Every column is checked
 * before a row of it is used: present unless optional, 1-D, of the
 * table's length, and, put into a narrower member, of a value that fits
 * it; a failure names the file and the dataset. */
#include "fold_h5.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "h5util.h"

static const tf_fold_h5_column *column_of(const tf_fold_h5_table *t, const char *name)
{
    for (size_t k = 0; k < t->ncolumns; k++)
        if (!strcmp(t->columns[k].name, name))
            return &t->columns[k];
    return NULL;
}

/* The stored column into *data, malloc'ed, of the length *n (SIZE_MAX:
 * any, set then). */
static int read_column(int64_t grp, const tf_fold_h5_column *c, void **data, size_t *n,
                       tf_error *err)
{
    size_t rows, cols = 0;
    int rc;
    if (c->type == TF_FOLD_H5_STRINGS) {
        rc = tf_h5_read_strings(grp, c->name, (char ***)data, &rows, err);
    } else {
        static const enum tf_h5_type h5_type[] = {
            [TF_FOLD_H5_INT64] = TF_H5_INT64, [TF_FOLD_H5_UINT64] = TF_H5_UINT64,
            [TF_FOLD_H5_DOUBLE] = TF_H5_DOUBLE,
        };
        rc = tf_h5_read_array(grp, c->name, h5_type[c->type], data, &rows, &cols, err);
    }
    if (rc < 0)
        return rc;
    if (cols != 0 || (*n != SIZE_MAX && rows != *n)) {
        free(*data);
        *data = NULL;
        return tf_h5_fail(err, TF_ERR_FORMAT, grp, c->name, "expected %zu rows, found %zu x %zu",
                          *n == SIZE_MAX ? rows : *n, rows, cols);
    }
    *n = rows;
    return 0;
}

/* Stores v into the member f of row, failing when it does not fit. */
static int put_integer(int64_t grp, const tf_fold_h5_column *c, const tf_fold_h5_field *f,
                       char *row, size_t i, int64_t v, tf_error *err)
{
    char *p = row + f->offset;
    int64_t lo = 0, hi = INT64_MAX;
    switch (f->mem) {
    case TF_FOLD_H5_U8: hi = UINT8_MAX; break;
    case TF_FOLD_H5_U16: hi = UINT16_MAX; break;
    case TF_FOLD_H5_U32: hi = UINT32_MAX; break;
    case TF_FOLD_H5_I32: lo = INT32_MIN; hi = INT32_MAX; break;
    case TF_FOLD_H5_I64: lo = INT64_MIN; break;
    default:
        return tf_h5_fail(err, TF_ERR_INTERNAL, grp, c->name, "bound to a member of another type");
    }
    if (v < lo || v > hi)
        return tf_h5_fail(err, TF_ERR_FORMAT, grp, c->name, "row %zu: %" PRId64 " out of range",
                          i, v);
    switch (f->mem) {
    case TF_FOLD_H5_U8: *(uint8_t *)p = (uint8_t)v; break;
    case TF_FOLD_H5_U16: *(uint16_t *)p = (uint16_t)v; break;
    case TF_FOLD_H5_U32: *(uint32_t *)p = (uint32_t)v; break;
    case TF_FOLD_H5_I32: *(int32_t *)p = (int32_t)v; break;
    default: *(int64_t *)p = v; break;
    }
    return 0;
}

/* Column data of n rows into the members f of rows. */
static int scatter(int64_t grp, const tf_fold_h5_column *c, const tf_fold_h5_field *f,
                   const void *data, char *rows, size_t row_size, size_t n, tf_error *err)
{
    int rc = 0;
    if (c->type == TF_FOLD_H5_INT64) {
        for (size_t i = 0; rc == 0 && i < n; i++)
            rc = put_integer(grp, c, f, rows + i * row_size, i, ((const int64_t *)data)[i], err);
    } else if (c->type == TF_FOLD_H5_UINT64 && f->mem == TF_FOLD_H5_U64) {
        for (size_t i = 0; i < n; i++)
            *(uint64_t *)(rows + i * row_size + f->offset) = ((const uint64_t *)data)[i];
    } else if (c->type == TF_FOLD_H5_DOUBLE && f->mem == TF_FOLD_H5_F64) {
        for (size_t i = 0; i < n; i++)
            *(double *)(rows + i * row_size + f->offset) = ((const double *)data)[i];
    } else {
        rc = tf_h5_fail(err, TF_ERR_INTERNAL, grp, c->name, "bound to a member of another type");
    }
    return rc;
}

static int read_fields(int64_t grp, const tf_fold_h5_binding *b, void *dest, size_t *n,
                       uint32_t *missing, tf_error *err)
{
    char *rows = NULL;
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < b->nfields; k++) {
        const tf_fold_h5_field *f = &b->fields[k];
        const tf_fold_h5_column *c = column_of(b->table, f->column);
        if (!c)
            return tf_h5_fail(err, TF_ERR_INTERNAL, grp, f->column, "not a column of the table");
        if (f->mem == TF_FOLD_H5_NAMED || f->mem == TF_FOLD_H5_COMPUTED)
            continue;   /* derived from other columns, for the file's readers */
        if (c->optional && !tf_h5_exists(grp, c->name)) {
            if (missing && k < 32)
                *missing |= 1u << k;
            continue;
        }
        void *data = NULL;
        if ((rc = read_column(grp, c, &data, n, err)) < 0)
            break;
        if (!b->row_size) {   /* one array per column: the caller's now */
            *(void **)((char *)dest + f->offset) = data;
            continue;
        }
        if (!rows && !(rows = calloc(*n + 1, b->row_size)))
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for %zu rows", *n);
        else
            rc = scatter(grp, c, f, data, rows, b->row_size, *n, err);
        free(data);
    }
    if (*n == SIZE_MAX)   /* nothing stored */
        *n = 0;
    if (b->row_size) {
        if (rc == 0 && !rows && !(rows = calloc(*n + 1, b->row_size)))
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for %zu rows", *n);
        if (rc < 0) {
            free(rows);
            rows = NULL;
        }
        *(void **)dest = rows;
    }
    return rc;
}

int tf_fold_h5_table_read(int64_t loc, const tf_fold_h5_binding *b, void *dest, size_t *n,
                          uint32_t *missing, tf_error *err)
{
    const tf_fold_h5_table *t = b->table;
    if (missing)
        *missing = 0;
    if (t->optional && !tf_h5_exists(loc, t->group)) {
        *n = 0;
        if (missing)
            *missing = UINT32_MAX;
        if (b->row_size && !(*(void **)dest = calloc(1, b->row_size)))
            return tf_fail(err, TF_ERR_NOMEM, "out of memory");
        return 0;
    }
    int64_t grp = -1;
    int rc = tf_h5_group_open(loc, t->group, &grp, err);
    if (rc == 0)
        rc = read_fields(grp, b, dest, n, missing, err);
    tf_h5_close(grp);
    return rc;
}

int tf_fold_h5_machine_read_caches(const char *path, double *bytes, size_t max, size_t *n,
                                   tf_error *err)
{
    *n = 0;
    int64_t file = -1;
    int rc = tf_h5_file_open(path, false, &file, err);
    if (rc < 0 || !tf_h5_exists(file, "machine/levels")) {
        tf_h5_close(file);
        return rc;
    }
    double *rows = NULL;
    size_t nrows = 0, cols = 0;
    rc = tf_h5_read_array(file, "machine/levels", TF_H5_DOUBLE, (void **)&rows, &nrows, &cols,
                          err);
    if (rc == 0 && (nrows > max || (nrows && cols != TF_FOLD_H5_LEVEL_COLUMNS)))
        rc = tf_h5_fail(err, TF_ERR_FORMAT, file, "machine/levels",
                        "expected at most %zu rows of %d columns, found %zu x %zu", max,
                        TF_FOLD_H5_LEVEL_COLUMNS, nrows, cols);
    for (size_t k = 0; rc == 0 && k < nrows; k++)
        if (!(rows[k * TF_FOLD_H5_LEVEL_COLUMNS] > 0) ||
            (k && rows[k * TF_FOLD_H5_LEVEL_COLUMNS] <= rows[(k - 1) * TF_FOLD_H5_LEVEL_COLUMNS]))
            rc = tf_h5_fail(err, TF_ERR_FORMAT, file, "machine/levels",
                            "cache sizes must be positive and increasing (row %zu)", k);
    for (size_t k = 0; rc == 0 && k < nrows; k++)
        bytes[k] = rows[k * TF_FOLD_H5_LEVEL_COLUMNS];
    if (rc == 0)
        *n = nrows;
    free(rows);
    tf_h5_close(file);
    return rc;
}
