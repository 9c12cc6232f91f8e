/* SPDX-License-Identifier: BSD-3-Clause */
#include "v1_trace.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "formats/h5util.h"

static hid_t vlen_string_type(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

/* Replaces the string attribute name of obj by a variable-length one. */
static bool attr_to_vlen(hid_t obj, const char *name)
{
    char *value = NULL;
    if (tf_h5_attr_read_string(obj, name, &value, NULL) < 0)
        return false;
    hid_t type = vlen_string_type(), space = H5Screate(H5S_SCALAR);
    hid_t attr = type < 0 || space < 0 || H5Adelete(obj, name) < 0
                     ? -1 : H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
    const char *v = value;
    bool ok = attr >= 0 && H5Awrite(attr, type, &v) >= 0;
    if (attr >= 0)
        H5Aclose(attr);
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    free(value);
    return ok;
}

/* Every string attribute of obj (names collected first: deleting one
 * renumbers the others). */
static bool attrs_to_vlen(hid_t obj)
{
    H5O_info_t info;
    if (H5Oget_info2(obj, &info, H5O_INFO_NUM_ATTRS) < 0)
        return false;
    char names[32][64];
    size_t n = 0;
    for (hsize_t i = 0; i < info.num_attrs && n < 32; i++) {
        hid_t a = H5Aopen_by_idx(obj, ".", H5_INDEX_NAME, H5_ITER_INC, i, H5P_DEFAULT,
                                 H5P_DEFAULT);
        hid_t t = a < 0 ? -1 : H5Aget_type(a);
        if (t >= 0 && H5Tget_class(t) == H5T_STRING &&
            H5Aget_name(a, sizeof names[n], names[n]) > 0)
            n++;
        if (t >= 0)
            H5Tclose(t);
        if (a >= 0)
            H5Aclose(a);
    }
    for (size_t i = 0; i < n; i++)
        if (!attr_to_vlen(obj, names[i]))
            return false;
    return true;
}

/* A string table as the version-1 output made it: an unlimited, chunked,
 * shuffled and deflated table of variable-length strings. */
static bool table_to_vlen(hid_t file, const char *name)
{
    char **strings;
    size_t n;
    if (tf_h5_read_strings(file, name, &strings, &n, NULL) < 0)
        return false;
    hsize_t dims = n, max = H5S_UNLIMITED, chunk = 64;
    hid_t type = vlen_string_type(), space = H5Screate_simple(1, &dims, &max);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    bool ok = type >= 0 && space >= 0 && dcpl >= 0 && H5Pset_chunk(dcpl, 1, &chunk) >= 0 &&
              H5Pset_shuffle(dcpl) >= 0 && H5Pset_deflate(dcpl, 1) >= 0 &&
              H5Ldelete(file, name, H5P_DEFAULT) >= 0;
    hid_t d = ok ? H5Dcreate2(file, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT) : -1;
    ok = d >= 0 && (n == 0 || H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, strings) >= 0);
    if (d >= 0)
        H5Dclose(d);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    free(strings);
    return ok;
}

/* What the walk over the file collects. */
struct visit {
    const char *const *tables;
    char  paths[256][256];   /* the string tables found */
    size_t npaths;
    bool   ok;
};

static herr_t visit_object(hid_t root, const char *name, const H5O_info_t *info, void *data)
{
    struct visit *v = data;
    hid_t obj = H5Oopen(root, name, H5P_DEFAULT);
    v->ok &= obj >= 0 && attrs_to_vlen(obj);
    if (obj >= 0)
        H5Oclose(obj);
    const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
    for (size_t i = 0; info->type == H5O_TYPE_DATASET && v->tables[i]; i++)
        if (strcmp(base, v->tables[i]) == 0 && v->npaths < 256)
            snprintf(v->paths[v->npaths++], sizeof v->paths[0], "/%s", name);
    return v->ok ? 0 : -1;
}

int v1_convert(const char *path, const char *const *tables, char *why, size_t whylen)
{
    tf_error err = { 0 };
    int64_t file;
    if (tf_h5_file_open(path, true, &file, &err) < 0) {
        snprintf(why, whylen, "%s", err.msg);
        return -1;
    }
    static struct visit v;   /* 64 KiB of paths: not on the stack */
    v = (struct visit){ .tables = tables, .ok = true };
    /* The tables are replaced after the walk: it must not see links change. */
    bool ok = H5Ovisit2(file, H5_INDEX_NAME, H5_ITER_INC, visit_object, &v, H5O_INFO_BASIC) >= 0
              && v.ok;
    for (size_t i = 0; ok && i < v.npaths; i++)
        ok = table_to_vlen(file, v.paths[i]);
    ok = ok && tf_h5_attr_write_int64(file, "version", 1, &err) == 0;
    tf_h5_close(file);
    if (!ok)
        snprintf(why, whylen, "%s: cannot rewrite it in the version-1 layout", path);
    return ok ? 0 : -1;
}

int v1_trace_convert(const char *path, char *why, size_t whylen)
{
    static const char *const tables[] = { "strings", NULL };
    return v1_convert(path, tables, why, whylen);
}
