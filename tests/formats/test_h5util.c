/* SPDX-License-Identifier: BSD-3-Clause */
/* The HDF5 helpers: groups, attributes, numeric and string datasets, and
 * their errors. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <hdf5.h>

#include "formats/h5util.h"
#include "trace_fixture.h"

static int64_t new_file(const char *name, char **path)
{
    int64_t file = -1;
    *path = fixture_path(fixture_dir, name);
    OK(tf_h5_file_create(*path, &file, err));
    return file;
}

static void groups(void **state)
{
    char *path;
    int64_t f = new_file("groups.h5", &path), g = -1;
    assert_false(tf_h5_exists(f, "a/b/c"));
    OK(tf_h5_group_create(f, "a/b/c", &g, err));
    tf_h5_close(g);
    OK(tf_h5_group_create(f, "a/b/c", NULL, err));   /* already there: fine */
    assert_true(tf_h5_exists(f, "a"));
    assert_true(tf_h5_exists(f, "/a/b/c"));
    assert_false(tf_h5_exists(f, "a/x/c"));
    OK(tf_h5_group_open(f, "a/b", &g, err));
    assert_true(tf_h5_exists(g, "c"));
    tf_h5_close(g);
    FAILS(tf_h5_group_open(f, "a/nope", &g, err), TF_ERR_FORMAT, "/a/nope: missing group");
    double x = 1;
    OK(tf_h5_write_array(f, "a/data", TF_H5_DOUBLE, &x, 1, err));
    FAILS(tf_h5_group_create(f, "a/data", NULL, err), TF_ERR_EXISTS, "not a group");
    tf_h5_close(f);
    free(path);
}

static void attributes(void **state)
{
    char *path;
    int64_t f = new_file("attrs.h5", &path), g;
    OK(tf_h5_group_create(f, "grp", &g, err));
    OK(tf_h5_attr_write_string(g, "s", "first", err));
    OK(tf_h5_attr_write_string(g, "s", "second ✓", err));   /* replaced */
    OK(tf_h5_attr_write_int64(g, "i", INT64_MIN, err));
    OK(tf_h5_attr_write_uint64(g, "u", UINT64_MAX, err));
    OK(tf_h5_attr_write_uint64(g, "small", 5, err));
    OK(tf_h5_attr_write_double(g, "d", -2.5e300, err));
    OK(tf_h5_attr_write_int64(g, "neg", -1, err));
    tf_h5_close(g);
    tf_h5_close(f);

    OK(tf_h5_file_open(path, false, &f, err));
    OK(tf_h5_group_open(f, "grp", &g, err));
    char *s;
    int64_t i;
    uint64_t u;
    double d;
    OK(tf_h5_attr_read_string(g, "s", &s, err));
    assert_string_equal(s, "second ✓");
    free(s);
    OK(tf_h5_attr_read_int64(g, "i", &i, err));
    assert_true(i == INT64_MIN);
    OK(tf_h5_attr_read_uint64(g, "u", &u, err));
    assert_true(u == UINT64_MAX);
    OK(tf_h5_attr_read_int64(g, "small", &i, err));
    assert_int_equal(i, 5);
    OK(tf_h5_attr_read_double(g, "d", &d, err));
    assert_true(d == -2.5e300);
    OK(tf_h5_attr_read_double(g, "small", &d, err));   /* integers read as numbers */
    assert_true(d == 5.0);
    FAILS(tf_h5_attr_read_int64(g, "u", &i, err), TF_ERR_FORMAT, "does not fit");
    FAILS(tf_h5_attr_read_uint64(g, "neg", &u, err), TF_ERR_FORMAT, "negative");
    FAILS(tf_h5_attr_read_int64(g, "s", &i, err), TF_ERR_FORMAT, "not an integer");
    FAILS(tf_h5_attr_read_string(g, "i", &s, err), TF_ERR_FORMAT, "not a string");
    FAILS(tf_h5_attr_read_double(g, "missing", &d, err), TF_ERR_FORMAT,
          "/grp: missing attribute 'missing'");
    FAILS(tf_h5_attr_read_double(g, "missing", &d, err), TF_ERR_FORMAT, path);
    tf_h5_close(g);
    tf_h5_close(f);
    free(path);
}

static void arrays(void **state)
{
    enum { ROWS = 3000, COLS = 5 };   /* 15000 elements: chunked and compressed */
    char *path;
    int64_t f = new_file("arrays.h5", &path);
    int64_t *m = malloc(ROWS * COLS * sizeof *m);
    for (size_t i = 0; i < ROWS * COLS; i++)
        m[i] = (int64_t)i * (i % 2 ? -1 : 1);
    double v[3] = { 0.5, -1, 1e-300 };
    uint64_t u[2] = { UINT64_MAX, 0 };
    OK(tf_h5_group_create(f, "g", NULL, err));
    OK(tf_h5_write_matrix(f, "g/m", TF_H5_INT64, m, ROWS, COLS, err));
    OK(tf_h5_write_array(f, "g/v", TF_H5_DOUBLE, v, 3, err));
    OK(tf_h5_write_array(f, "g/u", TF_H5_UINT64, u, 2, err));
    OK(tf_h5_write_array(f, "g/empty", TF_H5_DOUBLE, NULL, 0, err));
    OK(tf_h5_write_array(f, "g/v", TF_H5_DOUBLE, v, 2, err));   /* replaced */
    tf_h5_close(f);

    OK(tf_h5_file_open(path, false, &f, err));
    void *data;
    size_t rows, cols;
    OK(tf_h5_read_array(f, "g/m", TF_H5_INT64, &data, &rows, &cols, err));
    assert_int_equal(rows, ROWS);
    assert_int_equal(cols, COLS);
    assert_memory_equal(data, m, sizeof(int64_t) * ROWS * COLS);
    free(data);
    OK(tf_h5_read_array(f, "g/m", TF_H5_DOUBLE, &data, &rows, &cols, err));
    assert_true(((double *)data)[7] == -7.0);
    free(data);
    OK(tf_h5_read_array(f, "g/v", TF_H5_DOUBLE, &data, &rows, &cols, err));
    assert_int_equal(rows, 2);
    assert_int_equal(cols, 0);
    assert_true(((double *)data)[1] == -1);
    free(data);
    OK(tf_h5_read_array(f, "g/u", TF_H5_UINT64, &data, &rows, &cols, err));
    assert_true(((uint64_t *)data)[0] == UINT64_MAX);
    free(data);
    OK(tf_h5_read_array(f, "g/empty", TF_H5_DOUBLE, &data, &rows, &cols, err));
    assert_int_equal(rows, 0);
    assert_null(data);
    FAILS(tf_h5_read_array(f, "g/v", TF_H5_INT64, &data, &rows, &cols, err), TF_ERR_FORMAT,
          "without loss");
    FAILS(tf_h5_read_array(f, "g/u", TF_H5_INT64, &data, &rows, &cols, err), TF_ERR_FORMAT,
          "/g/u");
    FAILS(tf_h5_read_array(f, "g/m", TF_H5_UINT64, &data, &rows, &cols, err), TF_ERR_FORMAT,
          "int64");
    FAILS(tf_h5_read_array(f, "g/none", TF_H5_DOUBLE, &data, &rows, &cols, err), TF_ERR_FORMAT,
          "/g/none: missing dataset");
    FAILS(tf_h5_read_array(f, "g", TF_H5_DOUBLE, &data, &rows, &cols, err), TF_ERR_FORMAT,
          "not a dataset");
    tf_h5_close(f);
    free(m);
    free(path);
}

/* A matrix of no columns (a fold of no counters, a group of no points) is
 * 2-D all the same, and nothing is read from its data: a 3 × 0 one from
 * a one-byte block, a 0 × 4 one from none. */
static void empty_matrices(void **state)
{
    char *path;
    int64_t f = new_file("empty_matrices.h5", &path);
    unsigned char *one = malloc(1);
    OK(tf_h5_write_matrix(f, "wide0", TF_H5_DOUBLE, one, 3, 0, err));
    OK(tf_h5_write_matrix(f, "tall0", TF_H5_UINT64, NULL, 0, 4, err));
    tf_h5_close(f);
    free(one);

    hid_t h = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    const char *names[] = { "wide0", "tall0" };
    const hsize_t want[2][2] = { { 3, 0 }, { 0, 4 } };
    for (int k = 0; k < 2; k++) {
        hid_t d = H5Dopen2(h, names[k], H5P_DEFAULT), sp = H5Dget_space(d);
        hsize_t dims[2];
        assert_int_equal(H5Sget_simple_extent_ndims(sp), 2);
        H5Sget_simple_extent_dims(sp, dims, NULL);
        assert_int_equal(dims[0], want[k][0]);
        assert_int_equal(dims[1], want[k][1]);
        H5Sclose(sp);
        H5Dclose(d);
    }
    H5Fclose(h);
    OK(tf_h5_file_open(path, false, &f, err));
    void *data;
    size_t rows, cols;
    OK(tf_h5_read_array(f, "wide0", TF_H5_DOUBLE, &data, &rows, &cols, err));
    assert_int_equal(rows, 3);
    assert_int_equal(cols, 0);
    assert_null(data);
    tf_h5_close(f);
    free(path);
}

/* The bytes dataset name of f takes in the file. */
static hsize_t storage_of(int64_t f, const char *name)
{
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    assert_true(d >= 0);
    hsize_t stored = H5Dget_storage_size(d);
    H5Dclose(d);
    return stored;
}

/* Dataset name of f reads back as type with `rows` rows (and `cols`
 * columns, 0 for 1-D) and the bytes at want. */
static void assert_reads_back(int64_t f, const char *name, enum tf_h5_type type,
                              const void *want, size_t bytes, size_t want_rows, size_t want_cols)
{
    void *data;
    size_t rows, cols;
    tf_error e;
    if (tf_h5_read_array(f, name, type, &data, &rows, &cols, &e) < 0)
        fail_msg("%s", e.msg);
    assert_int_equal(rows, want_rows);
    assert_int_equal(cols, want_cols);
    assert_memory_equal(data, want, bytes);
    free(data);
}

/* Arrays that repeat their first element over whole chunks (the columns
 * of addresses and objects of a trace without memory samples) read back
 * the same, and those chunks take little room in the file. */
static void repeated_arrays(void **state)
{
    enum { N = 1000003, ROWS = 3, WIDE = 140001 };   /* chunks of 65536 (or a row): partial ones too */
    char *path;
    int64_t f = new_file("repeated.h5", &path);
    int32_t *none = malloc(N * sizeof *none);
    uint64_t *mixed = malloc(N * sizeof *mixed);
    int64_t *wide = calloc((size_t)ROWS * WIDE, sizeof *wide);
    for (size_t i = 0; i < N; i++) {
        none[i] = -1;
        mixed[i] = i >= 200000 && i < 200010 ? i : 7;   /* one chunk differs */
    }
    wide[(size_t)1 * WIDE + 100000] = 5;                /* in row 1, its chunk */
    OK(tf_h5_write_array(f, "none", TF_H5_INT32, none, N, err));
    OK(tf_h5_write_array(f, "mixed", TF_H5_UINT64, mixed, N, err));
    OK(tf_h5_write_matrix(f, "wide", TF_H5_INT64, wide, ROWS, WIDE, err));
    tf_h5_close(f);

    OK(tf_h5_file_open(path, false, &f, err));
    /* Every chunk is stored (a reader refuses unstored ones), but runs of
     * one value compress to almost nothing: under 2 % of their bytes. */
    const char *names[] = { "none", "mixed", "wide" };
    const size_t raw[] = { N * sizeof *none, N * sizeof *mixed, ROWS * WIDE * sizeof *wide };
    for (size_t k = 0; k < 3; k++) {
        hsize_t stored = storage_of(f, names[k]);
        assert_true(stored > 0 && stored < raw[k] / 50);
    }
    assert_reads_back(f, "none", TF_H5_INT32, none, N * sizeof *none, N, 0);
    assert_reads_back(f, "mixed", TF_H5_UINT64, mixed, N * sizeof *mixed, N, 0);
    assert_reads_back(f, "wide", TF_H5_INT64, wide, (size_t)ROWS * WIDE * sizeof *wide, ROWS,
                      WIDE);
    tf_h5_close(f);
    free(none);
    free(mixed);
    free(wide);
    free(path);
}

/* Written a slab at a time, in slabs that cut chunks anywhere, a dataset
 * holds what it holds written whole: the same values, the same stored
 * chunks, and a 2-D one's rows. */
static void slabs(void **state)
{
    enum { N = 300007, ROWS = 3 };
    static const size_t cuts[] = { 0, 1, 70000, 70003, 131072, 200005, 299999, N };
    char *path;
    int64_t f = new_file("slabs.h5", &path);
    uint64_t *mixed = malloc(N * sizeof *mixed);
    float *y = malloc((size_t)ROWS * N * sizeof *y);
    double *yd = malloc((size_t)ROWS * N * sizeof *yd);   /* as read back */
    for (size_t i = 0; i < N; i++) {
        mixed[i] = i >= 200000 && i < 200010 ? i : 7;   /* one chunk, across a cut, differs */
        for (size_t r = 0; r < ROWS; r++)
            yd[r * N + i] = y[r * N + i] = (float)(r * 1000003 + i) * 0.5f;
    }
    OK(tf_h5_write_array(f, "whole", TF_H5_UINT64, mixed, N, err));
    tf_h5_slabs *a, *b, *c;
    OK(tf_h5_slabs_open(f, "mixed", H5T_STD_U64LE, H5T_NATIVE_UINT64, 1, 0, N, true, &a, err));
    OK(tf_h5_slabs_open(f, "y", H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, 2, ROWS, N, false, &b, err));
    for (size_t k = 0; k + 1 < sizeof cuts / sizeof cuts[0]; k++) {
        size_t at = cuts[k], len = cuts[k + 1] - at;
        OK(tf_h5_slabs_write(a, mixed + at, len, 0, err));
        OK(tf_h5_slabs_write(b, y + at, len, N, err));
    }
    FAILS(tf_h5_slabs_write(a, mixed, 1, 0, err), TF_ERR_INTERNAL, "more elements than");
    OK(tf_h5_slabs_close(a, err));
    OK(tf_h5_slabs_close(b, err));
    /* nothing written: an empty dataset; too little: an error */
    OK(tf_h5_slabs_open(f, "empty", H5T_STD_U64LE, H5T_NATIVE_UINT64, 1, 0, 0, true, &c, err));
    OK(tf_h5_slabs_close(c, err));
    OK(tf_h5_slabs_open(f, "short", H5T_STD_U64LE, H5T_NATIVE_UINT64, 1, 0, 5, true, &c, err));
    OK(tf_h5_slabs_write(c, mixed, 4, 0, err));
    FAILS(tf_h5_slabs_close(c, err), TF_ERR_INTERNAL, "closed after 4 of its 5 elements");
    tf_h5_close(f);

    OK(tf_h5_file_open(path, false, &f, err));
    hsize_t whole = storage_of(f, "whole");
    assert_true(whole > 0);
    assert_int_equal(storage_of(f, "mixed"), whole);
    assert_reads_back(f, "mixed", TF_H5_UINT64, mixed, N * sizeof *mixed, N, 0);
    /* and read a slab at a time, across chunks */
    size_t len;
    OK(tf_h5_array_length(f, "mixed", &len, err));
    assert_int_equal(len, N);
    static uint64_t part[70001];
    for (size_t k = 0; k + 1 < sizeof cuts / sizeof cuts[0]; k++) {
        size_t at = cuts[k], n = cuts[k + 1] - at < 70001 ? cuts[k + 1] - at : 70001;
        OK(tf_h5_read_slab(f, "mixed", TF_H5_UINT64, at, n, part, err));
        assert_memory_equal(part, mixed + at, n * sizeof *part);
    }
    FAILS(tf_h5_read_slab(f, "mixed", TF_H5_UINT64, N - 1, 2, part, err), TF_ERR_FORMAT,
          "rows 300006 to 300008 asked for, of 300007");
    FAILS(tf_h5_read_slab(f, "mixed", TF_H5_INT32, 0, 1, part, err), TF_ERR_FORMAT,
          "cannot be read as int32 without loss");
    assert_reads_back(f, "y", TF_H5_DOUBLE, yd, (size_t)ROWS * N * sizeof *yd, ROWS, N);
    void *data;
    size_t rows, cols;
    OK(tf_h5_read_array(f, "empty", TF_H5_UINT64, &data, &rows, &cols, err));
    assert_int_equal(rows, 0);
    tf_h5_close(f);
    free(mixed);
    free(y);
    free(yd);
    free(path);
}

static void strings(void **state)
{
    enum { MANY = 5000 };
    char *path;
    int64_t f = new_file("strings.h5", &path);
    char *big = malloc(100000);
    memset(big, 'x', 99999);
    big[99999] = '\0';
    const char *few[4] = { "alpha", NULL, "ünïcode", big };
    OK(tf_h5_write_strings(f, "few", few, 4, err));
    OK(tf_h5_write_strings(f, "none", few, 0, err));
    char **many = malloc(MANY * sizeof *many);
    for (size_t i = 0; i < MANY; i++) {
        many[i] = malloc(16);
        snprintf(many[i], 16, "s%zu", i);
    }
    OK(tf_h5_write_strings(f, "many", (const char *const *)many, MANY, err));
    tf_h5_close(f);

    OK(tf_h5_file_open(path, false, &f, err));
    char **back;
    size_t n;
    OK(tf_h5_read_strings(f, "few", &back, &n, err));
    assert_int_equal(n, 4);
    assert_string_equal(back[0], "alpha");
    assert_string_equal(back[1], "");
    assert_string_equal(back[2], "ünïcode");
    assert_string_equal(back[3], big);
    free(back);
    OK(tf_h5_read_strings(f, "none", &back, &n, err));
    assert_int_equal(n, 0);
    free(back);
    OK(tf_h5_read_strings(f, "many", &back, &n, err));
    assert_int_equal(n, MANY);
    assert_string_equal(back[4321], "s4321");
    free(back);
    double x = 1;
    tf_h5_close(f);
    OK(tf_h5_file_open(path, true, &f, err));
    OK(tf_h5_write_array(f, "numbers", TF_H5_DOUBLE, &x, 1, err));
    FAILS(tf_h5_read_strings(f, "numbers", &back, &n, err), TF_ERR_FORMAT, "strings");
    tf_h5_close(f);
    for (size_t i = 0; i < MANY; i++)
        free(many[i]);
    free(many);
    free(big);
    free(path);
}

/* An empty chunked, deflated dataset of doubles claiming 2^40 rows, with
 * a fill value of its own or none. */
static void huge_dataset(int64_t f, const char *name, bool fill)
{
    hsize_t rows = (hsize_t)1 << 40, max = H5S_UNLIMITED, chunk = 1024;
    double zero = 0;
    hid_t space = H5Screate_simple(1, &rows, &max), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    assert_true(H5Pset_chunk(dcpl, 1, &chunk) >= 0 && H5Pset_deflate(dcpl, 1) >= 0);
    assert_true(!fill || H5Pset_fill_value(dcpl, H5T_NATIVE_DOUBLE, &zero) >= 0);
    hid_t d = H5Dcreate2(f, name, H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    assert_true(d >= 0);
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
}

/* Format 2's layout: string attributes fixed-length, string tables bytes
 * ended by zero bytes; fixed-length string datasets read too; an
 * unterminated table and extents no storage can hold are refused, naming
 * the dataset. */
static void string_layout_and_extents(void **state)
{
    char *path;
    int64_t f = new_file("layout.h5", &path);
    const char *two[2] = { "a", "bc" };
    OK(tf_h5_write_strings(f, "two", two, 2, err));
    OK(tf_h5_attr_write_string(f, "host", "node-1", err));
    hid_t d = H5Dopen2(f, "two", H5P_DEFAULT), t = H5Dget_type(d);
    assert_int_equal(H5Tget_class(t), H5T_INTEGER);
    assert_int_equal(H5Tget_size(t), 1);
    H5Tclose(t);
    H5Dclose(d);
    hid_t a = H5Aopen(f, "host", H5P_DEFAULT);
    t = H5Aget_type(a);
    assert_int_equal(H5Tis_variable_str(t), 0);
    assert_int_equal(H5Tget_size(t), sizeof "node-1");
    H5Tclose(t);
    H5Aclose(a);

    OK(tf_h5_write_typed(f, "unterminated", H5T_STD_U8LE, H5T_NATIVE_UINT8, "ab\0cd", 1, 5, 0,
                         true, err));
    /* Fixed-length fields, a full one without its zero byte. */
    hsize_t three = 3;
    hid_t fixed = H5Tcopy(H5T_C_S1), space = H5Screate_simple(1, &three, NULL);
    assert_true(H5Tset_size(fixed, 4) >= 0 && H5Tset_strpad(fixed, H5T_STR_NULLPAD) >= 0);
    d = H5Dcreate2(f, "fixed", fixed, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(d >= 0 && H5Dwrite(d, fixed, H5S_ALL, H5S_ALL, H5P_DEFAULT, "ab\0\0abcd\0\0\0\0") >= 0);
    H5Dclose(d);
    H5Sclose(space);
    H5Tclose(fixed);
    huge_dataset(f, "huge", false);
    huge_dataset(f, "huge_fill", true);
    tf_h5_close(f);

    OK(tf_h5_file_open(path, false, &f, err));
    char **back, *host;
    size_t n, rows, cols;
    OK(tf_h5_read_strings(f, "two", &back, &n, err));
    assert_int_equal(n, 2);
    assert_string_equal(back[1], "bc");
    free(back);
    OK(tf_h5_attr_read_string(f, "host", &host, err));
    assert_string_equal(host, "node-1");
    free(host);
    OK(tf_h5_read_strings(f, "fixed", &back, &n, err));
    assert_int_equal(n, 3);
    assert_string_equal(back[0], "ab");
    assert_string_equal(back[1], "abcd");
    assert_string_equal(back[2], "");
    free(back);
    FAILS(tf_h5_read_strings(f, "unterminated", &back, &n, err), TF_ERR_FORMAT, path,
          "/unterminated", "no terminating zero byte");
    void *data;
    /* Unstored chunks are refused, fill value or none: libhdf5 would read
     * them as fill values, which no byte of the file pays for. */
    FAILS(tf_h5_read_array(f, "huge", TF_H5_DOUBLE, &data, &rows, &cols, err), TF_ERR_FORMAT,
          path, "/huge", "stores 0 of the 1073741824 chunks its extent needs");
    FAILS(tf_h5_array_length(f, "huge", &n, err), TF_ERR_FORMAT, "/huge", "stores 0 of");
    FAILS(tf_h5_read_array(f, "huge_fill", TF_H5_DOUBLE, &data, &rows, &cols, err),
          TF_ERR_FORMAT, "/huge_fill", "stores 0 of the 1073741824 chunks its extent needs");
    tf_h5_close(f);
    free(path);
}

static void open_errors(void **state)
{
    char *missing = fixture_path(fixture_dir, "missing.h5"), *empty = fixture_path(fixture_dir, "empty.h5");
    char *text = fixture_path(fixture_dir, "text.h5");
    fclose(fopen(empty, "w"));
    FILE *t = fopen(text, "w");
    fputs("hello\n", t);
    fclose(t);
    int64_t f;
    FAILS(tf_h5_file_open(missing, false, &f, err), TF_ERR_NOTFOUND, missing);
    FAILS(tf_h5_file_open(empty, false, &f, err), TF_ERR_FORMAT, "empty file");
    FAILS(tf_h5_file_open(text, false, &f, err), TF_ERR_FORMAT, "not an HDF5 file");
    FAILS(tf_h5_file_create("/nonexistent-dir/x.h5", &f, err), TF_ERR_IO, "cannot create");
    free(missing);
    free(empty);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(groups),
        cmocka_unit_test(attributes),
        cmocka_unit_test(arrays),
        cmocka_unit_test(empty_matrices),
        cmocka_unit_test(repeated_arrays),
        cmocka_unit_test(slabs),
        cmocka_unit_test(strings),
        cmocka_unit_test(string_layout_and_extents),
        cmocka_unit_test(open_errors),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
