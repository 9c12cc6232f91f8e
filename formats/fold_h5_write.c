/* SPDX-License-Identifier: BSD-3-Clause */
/* The output of fold.h5's tables (fold_h5.h): each column gathered from
 * the rows into one scratch column of its stored type, then written as a
 * 1-D dataset through formats/h5util.h. */
#include "fold_h5.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "h5util.h"

/* The field bound to column, NULL when none is. */
static const tf_fold_h5_field *field_of(const tf_fold_h5_binding *b, const char *column)
{
    for (size_t k = 0; k < b->nfields; k++)
        if (!strcmp(b->fields[k].column, column))
            return &b->fields[k];
    return NULL;
}

static int64_t integer_of(const tf_fold_h5_field *f, const char *row)
{
    const char *p = row + f->offset;
    switch (f->mem) {
    case TF_FOLD_H5_U8: return *(const uint8_t *)p;
    case TF_FOLD_H5_U16: return *(const uint16_t *)p;
    case TF_FOLD_H5_U32: return *(const uint32_t *)p;
    case TF_FOLD_H5_I32: return *(const int32_t *)p;
    case TF_FOLD_H5_INT: return *(const int *)p;
    case TF_FOLD_H5_U64: return (int64_t)*(const uint64_t *)p;
    case TF_FOLD_H5_I64: return *(const int64_t *)p;
    case TF_FOLD_H5_SIZE: return (int64_t)*(const size_t *)p;
    case TF_FOLD_H5_BOOL: return *(const bool *)p;
    case TF_FOLD_H5_INDEX: {
        uint32_t v = *(const uint32_t *)p;
        return v == UINT32_MAX ? -1 : (int64_t)v;
    }
    case TF_FOLD_H5_COMPUTED: return f->value(row);
    default: return 0;
    }
}

static const char *text_of(const tf_fold_h5_field *f, const char *row)
{
    const char *p = row + f->offset;
    switch (f->mem) {
    case TF_FOLD_H5_TEXT: return *(const char *const *)p;
    case TF_FOLD_H5_TEXT_ARRAY: return p;
    case TF_FOLD_H5_NAMED: return f->name(*(const uint8_t *)p);
    default: return NULL;
    }
}

/* Whether mem can be stored as type. */
static bool storable(enum tf_fold_h5_mem mem, enum tf_fold_h5_stored type)
{
    switch (type) {
    case TF_FOLD_H5_STRINGS:
        return mem == TF_FOLD_H5_TEXT || mem == TF_FOLD_H5_TEXT_ARRAY || mem == TF_FOLD_H5_NAMED;
    case TF_FOLD_H5_DOUBLE:
        return mem == TF_FOLD_H5_F64;
    default:
        return mem != TF_FOLD_H5_F64 && (mem <= TF_FOLD_H5_INDEX || mem == TF_FOLD_H5_COMPUTED);
    }
}

static const enum tf_h5_type h5_type[] = {
    [TF_FOLD_H5_INT64] = TF_H5_INT64, [TF_FOLD_H5_UINT64] = TF_H5_UINT64,
    [TF_FOLD_H5_DOUBLE] = TF_H5_DOUBLE,
};

static int write_column(int64_t grp, const tf_fold_h5_column *c, const tf_fold_h5_field *f,
                        const char *rows, size_t stride, size_t n, void *scratch,
                        tf_error *err)
{
    if (f->mem == TF_FOLD_H5_COLUMN) {   /* the caller's array as it is */
        const void *data = *(const void *const *)(rows + f->offset);
        return c->type == TF_FOLD_H5_STRINGS
                   ? tf_h5_write_strings(grp, c->name, data, n, err)
                   : tf_h5_write_array(grp, c->name, h5_type[c->type], data, n, err);
    }
    if (!storable(f->mem, c->type))
        return tf_h5_fail(err, TF_ERR_INTERNAL, grp, c->name, "bound to a member of another type");
    for (size_t i = 0; i < n; i++) {
        const char *row = rows + i * stride;
        if (c->type == TF_FOLD_H5_STRINGS)
            ((const char **)scratch)[i] = text_of(f, row);
        else if (c->type == TF_FOLD_H5_DOUBLE)
            ((double *)scratch)[i] = *(const double *)(row + f->offset);
        else if (c->type == TF_FOLD_H5_UINT64)
            ((uint64_t *)scratch)[i] = (uint64_t)integer_of(f, row);
        else
            ((int64_t *)scratch)[i] = integer_of(f, row);
    }
    return c->type == TF_FOLD_H5_STRINGS
               ? tf_h5_write_strings(grp, c->name, scratch, n, err)
               : tf_h5_write_array(grp, c->name, h5_type[c->type], scratch, n, err);
}

int tf_fold_h5_table_write(int64_t loc, const tf_fold_h5_binding *b, const void *rows,
                           size_t n, int64_t *group, tf_error *err)
{
    const tf_fold_h5_table *t = b->table;
    if (group)
        *group = -1;
    /* room for a column of any stored type */
    union value { int64_t i; uint64_t u; double d; const char *s; };
    void *scratch = b->row_size ? malloc((n + 1) * sizeof(union value)) : NULL;
    if (b->row_size && !scratch)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory writing /%s", t->group);
    int64_t grp = -1;
    int rc = tf_h5_group_create(loc, t->group, &grp, err);
    for (size_t k = 0; rc == 0 && k < t->ncolumns; k++) {
        const tf_fold_h5_field *f = field_of(b, t->columns[k].name);
        rc = f ? write_column(grp, &t->columns[k], f, rows, b->row_size, n, scratch, err)
               : tf_h5_fail(err, TF_ERR_INTERNAL, grp, t->columns[k].name, "no field bound");
    }
    free(scratch);
    if (rc == 0 && group)
        *group = grp;
    else
        tf_h5_close(grp);
    return rc;
}

int tf_fold_h5_attrs_write(int64_t obj, const tf_fold_h5_binding *b, const void *row,
                           tf_error *err)
{
    const tf_fold_h5_table *t = b->table;
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < t->nattrs; k++) {
        const tf_fold_h5_column *a = &t->attrs[k];
        const tf_fold_h5_field *f = field_of(b, a->name);
        if (!f || !storable(f->mem, a->type))
            return tf_h5_fail(err, TF_ERR_INTERNAL, obj, NULL, "attribute '%s' %s", a->name,
                              f ? "bound to a member of another type" : "not bound");
        const char *r = row;
        switch (a->type) {
        case TF_FOLD_H5_STRINGS:
            rc = tf_h5_attr_write_string(obj, a->name, text_of(f, r), err);
            break;
        case TF_FOLD_H5_DOUBLE:
            rc = tf_h5_attr_write_double(obj, a->name, *(const double *)(r + f->offset), err);
            break;
        case TF_FOLD_H5_UINT64:
            rc = tf_h5_attr_write_uint64(obj, a->name, (uint64_t)integer_of(f, r), err);
            break;
        default:
            rc = tf_h5_attr_write_int64(obj, a->name, integer_of(f, r), err);
            break;
        }
    }
    return rc;
}

int tf_fold_h5_dataset_write(int64_t loc, const tf_fold_h5_table *t, const char *name,
                             const void *data, size_t rows, size_t cols, tf_error *err)
{
    const tf_fold_h5_dataset *d = tf_fold_h5_dataset_of(loc, t, name, err);
    if (!d)
        return -TF_ERR_INTERNAL;
    if (d->rank == 1 && cols)
        return tf_h5_fail(err, TF_ERR_INTERNAL, loc, name, "a vector, written with %zu columns",
                          cols);
    if (d->type == TF_FOLD_H5_STRINGS)
        return tf_h5_write_strings(loc, name, data, rows, err);
    return d->rank == 2 ? tf_h5_write_matrix(loc, name, h5_type[d->type], data, rows, cols, err)
                        : tf_h5_write_array(loc, name, h5_type[d->type], data, rows, err);
}

#define MACHINE(col, mem, member) \
    { col, TF_FOLD_H5_##mem, offsetof(tf_fold_h5_machine, member), NULL, NULL, NULL, 0 }
static const tf_fold_h5_field machine_fields[] = {
    MACHINE("source", TEXT, source), MACHINE("line_bytes", I64, line_bytes),
    MACHINE("page_bytes", I64, page_bytes), MACHINE("memory_ns", F64, memory_ns),
};
static const tf_fold_h5_binding machine_binding =
    TF_FOLD_H5_BINDING(tf_fold_h5_machine_profile, machine_fields, sizeof(tf_fold_h5_machine));

int tf_fold_h5_machine_write(const char *path, const tf_fold_h5_machine *m, tf_error *err)
{
    int64_t file = -1, group = -1;
    int rc = tf_h5_file_open(path, true, &file, err);
    if (rc == 0)
        rc = tf_h5_group_create(file, tf_fold_h5_machine_profile.group, &group, err);
    if (rc == 0)
        rc = tf_fold_h5_attrs_write(group, &machine_binding, m, err);
    if (rc == 0)
        rc = tf_fold_h5_dataset_write(group, &tf_fold_h5_machine_profile, "levels", m->levels,
                                      m->nlevels, TF_FOLD_H5_LEVEL_COLUMNS, err);
    tf_h5_close(group);
    tf_h5_close(file);
    return rc;
}
