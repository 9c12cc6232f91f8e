/* SPDX-License-Identifier: BSD-3-Clause */
/* The machine profile on disk: a small HDF5 file, so that every tracefold
 * output stays readable with h5dump/h5py and no JSON library is needed. */
#include "hierarchy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/fold_h5.h"
#include "formats/h5util.h"
#include "common/tf_output.h"

#define PROFILE_FORMAT "tracefold-machine"
#define PROFILE_VERSION 1
/* size_bytes, hit_ns, miss_penalty_ns, associativity: as fold.h5's /machine/levels */
#define LEVEL_COLUMNS TF_FOLD_H5_LEVEL_COLUMNS

static int write_curve(int64_t loc, const char *name, const tf_cal_curve *c, tf_error *err)
{
    double rows[TF_CAL_MAX_POINTS][2];
    for (size_t i = 0; i < c->n; i++) {
        rows[i][0] = c->bytes[i];
        rows[i][1] = c->ns[i];
    }
    return tf_h5_write_matrix(loc, name, TF_H5_DOUBLE, rows, c->n, 2, err);
}

/* The levels as rows of LEVEL_COLUMNS, into rows. */
static void pack_levels(const tf_cal_profile *p, double rows[][LEVEL_COLUMNS])
{
    for (int k = 0; k < p->nlevels; k++) {
        rows[k][0] = p->levels[k].size_bytes;
        rows[k][1] = p->levels[k].hit_ns;
        rows[k][2] = p->levels[k].miss_penalty_ns;
        rows[k][3] = p->levels[k].associativity;
    }
}

int tf_cal_profile_save(const tf_cal_profile *p, const char *path, tf_error *err)
{
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp)
        return tf_fail(err, TF_ERR_USAGE, "%s: path too long", path);
    int64_t file = -1, strides = -1;
    int rc = tf_h5_file_create(tmp, &file, err);
    if (rc)
        return rc;
    double levels[TF_CAL_MAX_LEVELS][LEVEL_COLUMNS];
    pack_levels(p, levels);
    if ((rc = tf_h5_attr_write_string(file, "format", PROFILE_FORMAT, err)) ||
        (rc = tf_h5_attr_write_int64(file, "version", PROFILE_VERSION, err)) ||
        (rc = tf_h5_attr_write_int64(file, "line_bytes", p->line_bytes, err)) ||
        (rc = tf_h5_attr_write_int64(file, "page_bytes", p->page_bytes, err)) ||
        (rc = tf_h5_attr_write_double(file, "tlb_reach_bytes", p->tlb_reach_bytes, err)) ||
        (rc = tf_h5_attr_write_double(file, "tlb_miss_ns", p->tlb_miss_ns, err)) ||
        (rc = tf_h5_attr_write_double(file, "memory_ns", p->memory_ns, err)) ||
        (rc = tf_h5_write_matrix(file, "levels", TF_H5_DOUBLE, levels, (size_t)p->nlevels,
                                 LEVEL_COLUMNS, err)) ||
        (rc = write_curve(file, "capacity", &p->capacity, err)) ||
        (rc = tf_h5_write_array(file, "stride_bytes", TF_H5_DOUBLE, p->stride_bytes,
                                (size_t)p->nstrides, err)) ||
        (rc = tf_h5_group_create(file, "strides", &strides, err)))
        goto fail;
    for (int s = 0; s < p->nstrides; s++) {
        char name[32];
        snprintf(name, sizeof name, "%.0f", p->stride_bytes[s]);
        if ((rc = write_curve(strides, name, &p->stride[s], err)))
            goto fail;
    }
    tf_h5_close(strides);
    tf_h5_close(file);
    if ((rc = tf_output_commit(tmp, path, err)) < 0) {
        remove(tmp);
        return rc;
    }
    return 0;
fail:
    tf_h5_close(strides);
    tf_h5_close(file);
    remove(tmp);
    return rc;
}

static int read_curve(int64_t loc, const char *name, tf_cal_curve *c, tf_error *err)
{
    double *rows = NULL;
    size_t n, cols;
    int rc = tf_h5_read_array(loc, name, TF_H5_DOUBLE, (void **)&rows, &n, &cols, err);
    if (rc)
        return rc;
    if ((n && cols != 2) || n > TF_CAL_MAX_POINTS) {
        free(rows);
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "expected at most %d rows of 2 columns",
                          TF_CAL_MAX_POINTS);
    }
    c->n = n;
    for (size_t i = 0; i < n; i++) {
        c->bytes[i] = rows[2 * i];
        c->ns[i] = rows[2 * i + 1];
    }
    free(rows);
    return 0;
}

/* The stride sweep, in the order of /stride_bytes (absent: none saved). */
static int read_strides(int64_t file, const char *path, tf_cal_profile *p, tf_error *err)
{
    if (!tf_h5_exists(file, "stride_bytes"))
        return 0;
    double *bytes = NULL;
    size_t n = 0, cols = 0;
    int64_t group = -1;
    int rc = tf_h5_read_array(file, "stride_bytes", TF_H5_DOUBLE, (void **)&bytes, &n, &cols, err);
    if (rc)
        return rc;
    if (cols != 0 || n > TF_CAL_MAX_STRIDES) {
        rc = tf_fail(err, TF_ERR_FORMAT, "%s: /stride_bytes: expected at most %d values", path,
                     TF_CAL_MAX_STRIDES);
        goto out;
    }
    if (n && (rc = tf_h5_group_open(file, "strides", &group, err)))
        goto out;
    for (size_t k = 0; k < n; k++) {
        char name[32];
        snprintf(name, sizeof name, "%.0f", bytes[k]);
        p->stride_bytes[k] = bytes[k];
        if ((rc = read_curve(group, name, &p->stride[k], err)))
            goto out;
    }
    p->nstrides = (int)n;
out:
    tf_h5_close(group);
    free(bytes);
    return rc;
}

int tf_cal_profile_load(tf_cal_profile *p, const char *path, tf_error *err)
{
    memset(p, 0, sizeof *p);
    int64_t file = -1;
    int rc = tf_h5_file_open(path, false, &file, err);
    if (rc)
        return rc;
    char *format = NULL;
    int64_t version = 0, line = 0, page = 0;
    double *levels = NULL;
    size_t n = 0, cols = 0;
    if ((rc = tf_h5_attr_read_string(file, "format", &format, err)))
        goto out;
    if (strcmp(format, PROFILE_FORMAT)) {
        rc = tf_fail(err, TF_ERR_FORMAT, "%s: not a machine profile (format '%s', expected '%s')",
                     path, format, PROFILE_FORMAT);
        goto out;
    }
    if ((rc = tf_h5_attr_read_int64(file, "version", &version, err)))
        goto out;
    if (version != PROFILE_VERSION) {
        rc = tf_fail(err, TF_ERR_VERSION, "%s: machine profile version %lld, expected %d", path,
                     (long long)version, PROFILE_VERSION);
        goto out;
    }
    if ((rc = tf_h5_attr_read_int64(file, "line_bytes", &line, err)) ||
        (rc = tf_h5_attr_read_int64(file, "page_bytes", &page, err)) ||
        (rc = tf_h5_attr_read_double(file, "tlb_reach_bytes", &p->tlb_reach_bytes, err)) ||
        (rc = tf_h5_attr_read_double(file, "tlb_miss_ns", &p->tlb_miss_ns, err)) ||
        (rc = tf_h5_attr_read_double(file, "memory_ns", &p->memory_ns, err)) ||
        (rc = tf_h5_read_array(file, "levels", TF_H5_DOUBLE, (void **)&levels, &n, &cols, err)) ||
        (rc = read_curve(file, "capacity", &p->capacity, err)) ||
        (rc = read_strides(file, path, p, err)))
        goto out;
    if (n > TF_CAL_MAX_LEVELS || (n && cols != LEVEL_COLUMNS)) {
        rc = tf_fail(err, TF_ERR_FORMAT, "%s: /levels: expected at most %d rows of %d columns",
                     path, TF_CAL_MAX_LEVELS, LEVEL_COLUMNS);
        goto out;
    }
    p->line_bytes = (int)line;
    p->page_bytes = (int)page;
    p->nlevels = (int)n;
    for (size_t k = 0; k < n; k++)
        p->levels[k] = (tf_cal_level){levels[k * LEVEL_COLUMNS], levels[k * LEVEL_COLUMNS + 1],
                                      levels[k * LEVEL_COLUMNS + 2],
                                      (int)levels[k * LEVEL_COLUMNS + 3]};
out:
    free(levels);
    free(format);
    tf_h5_close(file);
    return rc;
}

int tf_cal_profile_attach(const tf_cal_profile *p, const char *source, const char *h5_path,
                          tf_error *err)
{
    _Static_assert(TF_CAL_MAX_LEVELS <= TF_FOLD_H5_MAX_LEVELS, "fold.h5's /machine holds them");
    tf_fold_h5_machine m = { .source = source, .line_bytes = p->line_bytes,
                             .page_bytes = p->page_bytes, .memory_ns = p->memory_ns,
                             .nlevels = (size_t)p->nlevels };
    pack_levels(p, m.levels);
    return tf_fold_h5_machine_write(h5_path, &m, err);
}
