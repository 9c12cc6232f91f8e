/* SPDX-License-Identifier: BSD-3-Clause */
/* The reader of fold.h5's tables (fold_h5.h).  Every column is checked
 * before a row of it is used: present unless optional, 1-D, of the
 * table's length, and, put into a narrower member, of a value that fits
 * it; a failure names the file and the dataset. */
#include "fold_h5.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
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
    case TF_FOLD_H5_INT: lo = INT_MIN; hi = INT_MAX; break;
    case TF_FOLD_H5_BOOL: hi = 1; break;
    case TF_FOLD_H5_SIZE: case TF_FOLD_H5_U64: break;
    case TF_FOLD_H5_INDEX: lo = -1; hi = UINT32_MAX - 1; break;
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
    case TF_FOLD_H5_INT: *(int *)p = (int)v; break;
    case TF_FOLD_H5_BOOL: *(bool *)p = v != 0; break;
    case TF_FOLD_H5_SIZE: *(size_t *)p = (size_t)v; break;
    case TF_FOLD_H5_U64: *(uint64_t *)p = (uint64_t)v; break;
    case TF_FOLD_H5_INDEX: *(uint32_t *)p = v < 0 ? UINT32_MAX : (uint32_t)v; break;
    default: *(int64_t *)p = v; break;
    }
    return 0;
}

/* A string column of n rows into the members f of rows: copied (TEXT:
 * each malloc'ed; TEXT_ARRAY: cut to the array), or parsed (NAMED). */
static int scatter_text(int64_t grp, const tf_fold_h5_column *c, const tf_fold_h5_field *f,
                        const void *data, char *rows, size_t row_size, size_t n, tf_error *err)
{
    const char *const *text = data;
    for (size_t i = 0; i < n; i++) {
        char *p = rows + i * row_size + f->offset;
        if (f->mem == TF_FOLD_H5_TEXT) {
            if (!(*(char **)p = strdup(text[i])))
                return tf_fail(err, TF_ERR_NOMEM, "out of memory");
        } else if (f->mem == TF_FOLD_H5_TEXT_ARRAY && f->size) {
            snprintf(p, f->size, "%s", text[i]);
        } else if (f->mem == TF_FOLD_H5_NAMED && f->parse) {
            int v = f->parse(text[i]);
            if (v < 0 || v > UINT8_MAX)
                return tf_h5_fail(err, TF_ERR_FORMAT, grp, c->name, "row %zu: unknown '%s'", i,
                                  text[i]);
            *(uint8_t *)p = (uint8_t)v;
        } else {
            return tf_h5_fail(err, TF_ERR_INTERNAL, grp, c->name,
                              "bound to a member of another type");
        }
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
    } else if (c->type == TF_FOLD_H5_STRINGS) {
        rc = scatter_text(grp, c, f, data, rows, row_size, n, err);
    } else {
        rc = tf_h5_fail(err, TF_ERR_INTERNAL, grp, c->name, "bound to a member of another type");
    }
    return rc;
}

/* Frees the strings that the TEXT members of rows[0..nrows) got, on a
 * read that failed after some columns were scattered. */
static void free_row_text(const tf_fold_h5_binding *b, char *rows, size_t nrows)
{
    for (size_t k = 0; rows && k < b->nfields; k++)
        if (b->fields[k].mem == TF_FOLD_H5_TEXT)
            for (size_t i = 0; i < nrows; i++)
                free(*(char **)(rows + i * b->row_size + b->fields[k].offset));
}

static int read_fields(int64_t grp, const tf_fold_h5_binding *b, void *dest, size_t *n,
                       uint32_t *missing, tf_error *err)
{
    char *rows = NULL;
    size_t nrows = 0;   /* rows allocated (calloc: their strings NULL) */
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < b->nfields; k++) {
        const tf_fold_h5_field *f = &b->fields[k];
        const tf_fold_h5_column *c = column_of(b->table, f->column);
        if (!c)
            return tf_h5_fail(err, TF_ERR_INTERNAL, grp, f->column, "not a column of the table");
        if ((f->mem == TF_FOLD_H5_NAMED && !f->parse) || f->mem == TF_FOLD_H5_COMPUTED)
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
        if (!rows && (nrows = *n, !(rows = calloc(*n + 1, b->row_size))))
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
            free_row_text(b, rows, nrows);
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

/* Attribute a of obj into the member f of row. */
static int read_attr(int64_t obj, const tf_fold_h5_column *a, const tf_fold_h5_field *f,
                     char *row, tf_error *err)
{
    char *p = row + f->offset;
    int rc;
    switch (a->type) {
    case TF_FOLD_H5_STRINGS:
        if (f->mem != TF_FOLD_H5_TEXT)
            break;
        return tf_h5_attr_read_string(obj, a->name, (char **)p, err);
    case TF_FOLD_H5_DOUBLE:
        if (f->mem != TF_FOLD_H5_F64)
            break;
        return tf_h5_attr_read_double(obj, a->name, (double *)p, err);
    case TF_FOLD_H5_UINT64:
        if (f->mem != TF_FOLD_H5_U64)
            break;
        return tf_h5_attr_read_uint64(obj, a->name, (uint64_t *)p, err);
    default: {
        int64_t v;
        if ((rc = tf_h5_attr_read_int64(obj, a->name, &v, err)) < 0)
            return rc;
        rc = put_integer(obj, a, f, row, 0, v, err);
        if (rc < 0)   /* an attribute has no rows: name it instead */
            tf_h5_fail(err, -rc, obj, NULL, "attribute '%s': %" PRId64 " out of range", a->name,
                       v);
        return rc;
    }
    }
    return tf_h5_fail(err, TF_ERR_INTERNAL, obj, NULL, "attribute '%s' bound to a member of "
                      "another type", a->name);
}

int tf_fold_h5_attrs_read(int64_t obj, const tf_fold_h5_binding *b, void *row,
                          uint32_t *missing, tf_error *err)
{
    const tf_fold_h5_table *t = b->table;
    if (missing)
        *missing = 0;
    for (size_t k = 0; k < b->nfields; k++) {
        const tf_fold_h5_field *f = &b->fields[k];
        const tf_fold_h5_column *a = NULL;
        for (size_t j = 0; j < t->nattrs && !a; j++)
            if (!strcmp(t->attrs[j].name, f->column))
                a = &t->attrs[j];
        if (!a)
            return tf_h5_fail(err, TF_ERR_INTERNAL, obj, NULL, "'%s' is no attribute of %s",
                              f->column, t->group);
        if (f->mem == TF_FOLD_H5_NAMED || f->mem == TF_FOLD_H5_COMPUTED)
            continue;   /* derived from other members, for the file's readers */
        if (a->optional && !tf_h5_attr_exists(obj, a->name)) {
            if (missing && k < 32)
                *missing |= 1u << k;
            continue;
        }
        int rc = read_attr(obj, a, f, row, err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int tf_fold_h5_dataset_read(int64_t loc, const tf_fold_h5_table *t, const char *name,
                            size_t *rows, size_t cols, void **data, tf_error *err)
{
    *data = NULL;
    const tf_fold_h5_dataset *d = tf_fold_h5_dataset_of(loc, t, name, err);
    if (!d)
        return -TF_ERR_INTERNAL;
    if (d->optional && !tf_h5_exists(loc, name))
        return 0;
    size_t r, c = 0;
    int rc = d->type == TF_FOLD_H5_STRINGS
                 ? tf_h5_read_strings(loc, name, (char ***)data, &r, err)
                 : tf_h5_read_array(loc, name, d->type == TF_FOLD_H5_DOUBLE ? TF_H5_DOUBLE
                                                 : d->type == TF_FOLD_H5_UINT64 ? TF_H5_UINT64
                                                                                 : TF_H5_INT64,
                                    data, &r, &c, err);
    if (rc < 0)
        return rc;
    if (*rows == SIZE_MAX)
        *rows = r;
    /* An empty 2-D dataset may come back as rows x 0. */
    if (r != *rows || (c != cols && *rows * cols != 0)) {
        free(*data);
        *data = NULL;
        return d->type == TF_FOLD_H5_STRINGS
                   ? tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "expected %zu strings, found %zu",
                                *rows, r)
                   : tf_h5_fail(err, TF_ERR_FORMAT, loc, name,
                                "expected %zu x %zu values, found %zu x %zu", *rows, cols, r, c);
    }
    return 0;
}

int tf_fold_h5_machine_read_caches(const char *path, double *bytes, size_t max, size_t *n,
                                   tf_error *err)
{
    *n = 0;
    int64_t file = -1, machine = -1;
    double *rows = NULL;
    size_t nrows = SIZE_MAX;
    int rc = tf_h5_file_open(path, false, &file, err);
    if (rc == 0 && tf_h5_exists(file, tf_fold_h5_machine_profile.group) &&
        (rc = tf_h5_group_open(file, tf_fold_h5_machine_profile.group, &machine, err)) == 0)
        rc = tf_fold_h5_dataset_read(machine, &tf_fold_h5_machine_profile, "levels", &nrows,
                                     TF_FOLD_H5_LEVEL_COLUMNS, (void **)&rows, err);
    if (nrows == SIZE_MAX)   /* no machine */
        nrows = 0;
    if (rc == 0 && nrows > max)
        rc = tf_h5_fail(err, TF_ERR_FORMAT, machine, "levels",
                        "expected at most %zu rows of %d columns, found %zu", max,
                        TF_FOLD_H5_LEVEL_COLUMNS, nrows);
    for (size_t k = 0; rc == 0 && k < nrows; k++)
        if (!(rows[k * TF_FOLD_H5_LEVEL_COLUMNS] > 0) ||
            (k && rows[k * TF_FOLD_H5_LEVEL_COLUMNS] <= rows[(k - 1) * TF_FOLD_H5_LEVEL_COLUMNS]))
            rc = tf_h5_fail(err, TF_ERR_FORMAT, machine, "levels",
                            "cache sizes must be positive and increasing (row %zu)", k);
    for (size_t k = 0; rc == 0 && k < nrows; k++)
        bytes[k] = rows[k * TF_FOLD_H5_LEVEL_COLUMNS];
    if (rc == 0)
        *n = nrows;
    free(rows);
    tf_h5_close(machine);
    tf_h5_close(file);
    return rc;
}
