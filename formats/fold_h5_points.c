/* SPDX-License-Identifier: BSD-3-Clause */
/* The folded points of a group in fold.h5 (/region/<r>/group/<g>/points):
 * the columns that dominate the file, in compact element types (float32,
 * uint32, uint8).  Their integer columns (instance, kind, addresses,
 * level, weight: mostly runs and zeros) are shuffled and deflated, which
 * is cheap on such data; the float columns x and y are noise to deflate,
 * which spent more time on them than the whole read of the trace
 * (bench/RESULTS.md), so they stay uncompressed. */
#include "fold_h5.h"

#include <stdlib.h>

#include <hdf5.h>

enum compact { U8, U32, U64, F32 };

/* In the order of fold_h5.h. */
static const struct {
    const char  *name;
    enum compact type;
    int          rank;   /* 2: [C][P] */
    bool         compress;
} columns[TF_FOLD_H5_POINT_COLUMNS] = {
    { "instance", U32, 1, true }, { "x", F32, 1, false }, { "kind", U8, 1, true },
    { "ip", U64, 1, true },       { "addr", U64, 1, true }, { "level", U8, 1, true },
    { "weight", U32, 1, true },   { "y", F32, 2, false },
};

static hid_t file_type(enum compact t)
{
    switch (t) {
    case U8: return H5T_STD_U8LE;
    case U32: return H5T_STD_U32LE;
    case U64: return H5T_STD_U64LE;
    default: return H5T_IEEE_F32LE;
    }
}

static hid_t mem_type(enum compact t, size_t *size)
{
    switch (t) {
    case U8: *size = 1; return H5T_NATIVE_UINT8;
    case U32: *size = 4; return H5T_NATIVE_UINT32;
    case U64: *size = 8; return H5T_NATIVE_UINT64;
    default: *size = 4; return H5T_NATIVE_FLOAT;
    }
}

int tf_fold_h5_points_open(int64_t loc, size_t n, uint32_t nc,
                           tf_h5_slabs *slabs[TF_FOLD_H5_POINT_COLUMNS], int64_t *group,
                           tf_error *err)
{
    for (int k = 0; k < TF_FOLD_H5_POINT_COLUMNS; k++)
        slabs[k] = NULL;
    *group = -1;
    int rc = tf_h5_group_create(loc, TF_FOLD_H5_POINTS, group, err);
    for (int k = 0; k < TF_FOLD_H5_POINT_COLUMNS && rc == 0; k++) {
        size_t size;
        rc = tf_h5_slabs_open(*group, columns[k].name, file_type(columns[k].type),
                              mem_type(columns[k].type, &size), columns[k].rank, nc, n,
                              columns[k].compress, &slabs[k], err);
    }
    return rc;
}

/* A points column read straight into its compact in-memory type (HDF5
 * converts from whatever integer or float type is stored), so that loading
 * the points of a large fold needs no wide temporary copy.  The shape must
 * be rows (rank 1) or rows x cols (rank 2); files written before
 * 2026-12-03 store a rows x 0 matrix (y of a group without points) as
 * rows zeros, 1-D, which is read as the empty matrix it stands for. */
static int read_points_column(int64_t loc, const char *name, hid_t mem_type, size_t elsize,
                              int want_rank, size_t rows, size_t cols, void **out,
                              tf_error *err)
{
    *out = NULL;
    if (!tf_h5_exists(loc, name))
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "missing dataset");
    hid_t dset = H5Dopen2((hid_t)loc, name, H5P_DEFAULT);
    if (dset < 0)
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "not a dataset");
    hid_t space = H5Dget_space(dset);
    hsize_t dims[2] = { 0, 0 };
    int rank = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
    if (rank == 1 || rank == 2)
        H5Sget_simple_extent_dims(space, dims, NULL);
    if (want_rank == 2 && cols == 0 && rank == 1) {   /* the older form */
        rank = 2;
        dims[1] = 0;
    }
    if (space >= 0)
        H5Sclose(space);
    hid_t stored = H5Dget_type(dset);
    H5T_class_t cls = stored < 0 ? H5T_NO_CLASS : H5Tget_class(stored);
    size_t stored_size = stored < 0 ? 1 : H5Tget_size(stored);
    if (stored >= 0)
        H5Tclose(stored);
    int rc = 0;
    size_t n = rows * (want_rank == 2 ? cols : 1);
    if (rank != want_rank || dims[0] != rows || (want_rank == 2 && dims[1] != cols))
        rc = tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "expected %zu x %zu values", rows, cols);
    else if (cls != H5T_INTEGER && cls != H5T_FLOAT)
        rc = tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "not a numeric dataset");
    else if ((rc = tf_h5_check_extent(dset, n, stored_size, err)) < 0)
        ;   /* named by the check */
    else if (!(*out = malloc(n * elsize + 1)))
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for %zu values", n);
    else if (n && H5Dread(dset, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, *out) < 0)
        rc = tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "cannot read the dataset");
    H5Dclose(dset);
    if (rc < 0) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

int tf_fold_h5_points_read(int64_t loc, size_t n, uint32_t nc,
                           void **out[TF_FOLD_H5_POINT_COLUMNS], tf_error *err)
{
    int64_t pts = -1;
    int rc = tf_h5_group_open(loc, TF_FOLD_H5_POINTS, &pts, err);
    for (int k = 0; k < TF_FOLD_H5_POINT_COLUMNS && rc == 0; k++) {
        size_t size;
        hid_t type = mem_type(columns[k].type, &size);
        rc = columns[k].rank == 2
                 ? read_points_column(pts, columns[k].name, type, size, 2, nc, n, out[k], err)
                 : read_points_column(pts, columns[k].name, type, size, 1, n, 0, out[k], err);
    }
    tf_h5_close(pts);
    return rc;
}

/* In the order of enum tf_fold_h5_analysis_point: the first three as
 * int32, millions of rows, whose deflating cost the fold more than their
 * values need. */
static const struct {
    const char     *name;
    enum tf_h5_type type;
} analysis_columns[TF_FOLD_H5_ANALYSIS_POINT_COLUMNS] = {
    { "routine", TF_H5_INT32 }, { "line", TF_H5_INT32 }, { "object", TF_H5_INT32 },
    { "offset", TF_H5_UINT64 },
};

int tf_fold_h5_analysis_points_open(int64_t loc, size_t n,
                                    tf_h5_slabs *slabs[TF_FOLD_H5_ANALYSIS_POINT_COLUMNS],
                                    int64_t *group, tf_error *err)
{
    for (int k = 0; k < TF_FOLD_H5_ANALYSIS_POINT_COLUMNS; k++)
        slabs[k] = NULL;
    *group = -1;
    int rc = tf_h5_group_create(loc, TF_FOLD_H5_POINTS, group, err);
    for (int k = 0; rc == 0 && k < TF_FOLD_H5_ANALYSIS_POINT_COLUMNS; k++)
        rc = tf_h5_slabs_open_array(*group, analysis_columns[k].name, analysis_columns[k].type,
                                    n, &slabs[k], err);
    return rc;
}

int tf_fold_h5_analysis_points_find(int64_t loc, int64_t *points, size_t *n, tf_error *err)
{
    int rc = tf_h5_group_open(loc, TF_FOLD_H5_POINTS, points, err);
    for (size_t c = 0; rc == 0 && c < TF_FOLD_H5_ANALYSIS_POINT_COLUMNS; c++) {
        size_t len;
        rc = tf_h5_array_length(*points, analysis_columns[c].name, &len, err);
        if (rc == 0 && c > 0 && len != *n)
            rc = tf_h5_fail(err, TF_ERR_FORMAT, *points, analysis_columns[c].name,
                            "expected %zu rows, found %zu", *n, len);
        *n = len;
    }
    return rc;
}

int tf_fold_h5_analysis_points_read(int64_t points, enum tf_fold_h5_analysis_point c, size_t at,
                                    size_t n, void *data, tf_error *err)
{
    return tf_h5_read_slab(points, analysis_columns[c].name, analysis_columns[c].type, at, n,
                           data, err);
}
