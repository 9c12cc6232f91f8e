/* SPDX-License-Identifier: BSD-3-Clause */
#include "bad_trace.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "formats/h5util.h"
#include "trace_fixture.h"

typedef bool (*damage_fn)(hid_t file, const char *path);

static bool write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    fputs(text, f);
    return fclose(f) == 0;
}

/* Cuts the valid fixture file to 60 % of its size, as an interrupted copy would. */
static bool truncate_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && truncate(path, st.st_size * 6 / 10) == 0;
}

static bool set_string_attr(hid_t file, const char *name, const char *value)
{
    return tf_h5_attr_write_string(file, name, value, NULL) == 0;
}

static bool wrong_format(hid_t file, const char *path)
{
    return set_string_attr(file, "format", "someone-elses-trace");
}

static bool wrong_version(hid_t file, const char *path)
{
    return tf_h5_attr_write_int64(file, "version", 99, NULL) == 0;
}

static bool missing_dataset(hid_t file, const char *path)
{
    return H5Ldelete(file, "/process/0/thread/1/samples", H5P_DEFAULT) >= 0;
}

static bool missing_attribute(hid_t file, const char *path)
{
    return H5Adelete(file, "clock") >= 0;
}

static bool missing_group(hid_t file, const char *path)
{
    return H5Ldelete(file, "/process/0/thread", H5P_DEFAULT) >= 0;
}

/* The samples table replaced by plain numbers. */
static bool wrong_type(hid_t file, const char *path)
{
    double values[4] = { 1, 2, 3, 4 };
    hid_t g = H5Gopen2(file, "/process/0/thread/0", H5P_DEFAULT);
    bool ok = g >= 0 && H5Ldelete(g, "samples", H5P_DEFAULT) >= 0 &&
              tf_h5_write_array(g, "samples", TF_H5_DOUBLE, values, 4, NULL) == 0;
    if (g >= 0)
        H5Gclose(g);
    return ok;
}

/* The events table replaced by a 2-D array. */
static bool wrong_shape(hid_t file, const char *path)
{
    uint64_t values[6] = { 1, 2, 3, 4, 5, 6 };
    hid_t g = H5Gopen2(file, "/process/0/thread/1", H5P_DEFAULT);
    bool ok = g >= 0 && H5Ldelete(g, "events", H5P_DEFAULT) >= 0 &&
              tf_h5_write_matrix(g, "events", TF_H5_UINT64, values, 3, 2, NULL) == 0;
    if (g >= 0)
        H5Gclose(g);
    return ok;
}

/* One counter fewer declared than the events and samples carry. */
static bool counters_mismatch(hid_t file, const char *path)
{
    hid_t dset = H5Dopen2(file, "/process/0/counters", H5P_DEFAULT);
    hsize_t rows = FIXTURE_COUNTERS - 1;
    bool ok = dset >= 0 && H5Dset_extent(dset, &rows) >= 0;
    if (dset >= 0)
        H5Dclose(dset);
    return ok;
}

/* Garbage over the middle of the first compressed chunk of thread 0's
 * samples: the deflate stream no longer decodes. */
static bool corrupt_samples(hid_t file, const char *path)
{
    hid_t dset = H5Dopen2(file, "/process/0/thread/0/samples", H5P_DEFAULT);
    hsize_t offset[1];
    unsigned mask;
    haddr_t addr = HADDR_UNDEF;
    hsize_t size = 0;
    hid_t space = dset < 0 ? -1 : H5Dget_space(dset);
    bool ok = space >= 0 &&
              H5Dget_chunk_info(dset, space, 0, offset, &mask, &addr, &size) >= 0 && size > 8;
    if (space >= 0)
        H5Sclose(space);
    if (dset >= 0)
        H5Dclose(dset);
    FILE *f = ok ? fopen(path, "r+b") : NULL;
    if (!f)
        return false;
    ok = fseek(f, (long)(addr + size / 4), SEEK_SET) == 0;
    for (hsize_t i = 0; ok && i < size / 2; i++)
        ok = fputc(0xa5, f) != EOF;
    return fclose(f) == 0 && ok;
}

/* Rewrites one uint64 member of a table, leaving the others: HDF5 writes a
 * compound subset by member name. */
static bool poke_member(hid_t file, const char *table, const char *member, size_t row,
                        uint64_t value, bool swap_with_next)
{
    hid_t dset = H5Dopen2(file, table, H5P_DEFAULT);
    hid_t type = H5Tcreate(H5T_COMPOUND, sizeof(uint64_t));
    hid_t space = dset < 0 ? -1 : H5Dget_space(dset);
    hssize_t n = space < 0 ? -1 : H5Sget_simple_extent_npoints(space);
    uint64_t column[4096];
    bool ok = dset >= 0 && type >= 0 && n > (hssize_t)row + swap_with_next && n <= 4096 &&
              H5Tinsert(type, member, 0, H5T_NATIVE_UINT64) >= 0 &&
              H5Dread(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, column) >= 0;
    if (ok) {
        if (swap_with_next) {
            uint64_t t = column[row];
            column[row] = column[row + 1];
            column[row + 1] = t;
        } else {
            column[row] = value;
        }
        ok = H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, column) >= 0;
    }
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    if (dset >= 0)
        H5Dclose(dset);
    return ok;
}

static bool events_out_of_order(hid_t file, const char *path)
{
    return poke_member(file, "/process/0/thread/1/events", "time", 2, 0, true);
}

static bool samples_out_of_order(hid_t file, const char *path)
{
    return poke_member(file, "/process/0/thread/0/samples", "time", 40, 0, true);
}

static bool bad_string_id(hid_t file, const char *path)
{
    return poke_member(file, "/process/0/thread/0/events", "value", 0, 999999, false);
}

/* A sample whose call stack starts far past the thread's frames. */
static bool bad_stack(hid_t file, const char *path)
{
    return poke_member(file, "/process/0/thread/0/samples", "stack_len", 7, 2, false) &&
           poke_member(file, "/process/0/thread/0/samples", "stack", 7, (uint64_t)1 << 40,
                       false);
}

/* The object's allocation stack past the process's frames. */
static bool bad_object_stack(hid_t file, const char *path)
{
    return poke_member(file, "/process/0/objects", "stack", 0, (uint64_t)1 << 40, false);
}

/* xorshift64: bytes deflate cannot shrink, the same at every run. */
static void random_bytes(unsigned char *p, size_t n)
{
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (unsigned char)x;
    }
}

int bad_trace_claim(int64_t file, const char *name, uint64_t rows, uint64_t stored, bool fill)
{
    hid_t old = H5Dopen2(file, name, H5P_DEFAULT);
    if (old < 0)
        return -1;
    hid_t type = H5Dget_type(old), old_dcpl = H5Dget_create_plist(old);
    hsize_t chunk = 65536;
    if (old_dcpl >= 0 && H5Pget_layout(old_dcpl) == H5D_CHUNKED)
        H5Pget_chunk(old_dcpl, 1, &chunk);
    H5Dclose(old);
    if (old_dcpl >= 0)
        H5Pclose(old_dcpl);
    size_t esize = type < 0 ? 0 : H5Tget_size(type);
    unsigned char *zero = calloc(1, esize ? esize : 1), *data = malloc(stored * esize + 1);
    hsize_t max = H5S_UNLIMITED, extent = rows, written = stored;
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), space = H5Screate_simple(1, &extent, &max);
    int rc = esize && zero && data && dcpl >= 0 && space >= 0 &&
             H5Pset_chunk(dcpl, 1, &chunk) >= 0 && H5Pset_deflate(dcpl, 1) >= 0 &&
             (!fill || H5Pset_fill_value(dcpl, type, zero) >= 0) &&
             H5Ldelete(file, name, H5P_DEFAULT) >= 0 ? 0 : -1;
    hid_t d = rc < 0 ? -1 : H5Dcreate2(file, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (d < 0)
        rc = -1;
    if (rc == 0 && stored) {
        hsize_t start = 0;
        hid_t mem = H5Screate_simple(1, &written, NULL);
        random_bytes(data, stored * esize);
        rc = mem >= 0 && H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &written,
                                             NULL) >= 0 &&
             H5Dwrite(d, type, mem, space, H5P_DEFAULT, data) >= 0 ? 0 : -1;
        if (mem >= 0)
            H5Sclose(mem);
    }
    if (d >= 0)
        H5Dclose(d);
    if (space >= 0)
        H5Sclose(space);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (type >= 0)
        H5Tclose(type);
    free(zero);
    free(data);
    return rc;
}

/* Thread 0's samples replaced by a table of the same type that claims
 * 2^40 rows, none of them written (HDF5 reads unwritten chunks as fill
 * values, for ever). */
static bool huge_extent(hid_t file, const char *path)
{
    return bad_trace_claim(file, "/process/0/thread/0/samples", (uint64_t)1 << 40, 0,
                           false) == 0;
}

struct mode {
    const char *name;
    damage_fn   damage;   /* applied to the fixture trace, or NULL for a special case */
};

static const struct mode modes[] = {
    { "empty", NULL }, { "not-hdf5", NULL }, { "truncated", NULL }, { "not-a-trace", NULL },
    { "wrong-format", wrong_format }, { "wrong-version", wrong_version },
    { "missing-dataset", missing_dataset }, { "missing-attribute", missing_attribute },
    { "missing-group", missing_group }, { "wrong-type", wrong_type },
    { "wrong-shape", wrong_shape }, { "counters-mismatch", counters_mismatch }, { "corrupt-samples", corrupt_samples },
    { "events-out-of-order", events_out_of_order },
    { "samples-out-of-order", samples_out_of_order }, { "bad-string-id", bad_string_id },
    { "bad-stack", bad_stack }, { "bad-object-stack", bad_object_stack },
    { "huge-extent", huge_extent },
};

const char *bad_trace_mode(size_t i)
{
    return i < sizeof modes / sizeof *modes ? modes[i].name : NULL;
}

int bad_trace_make(const char *name, const char *path, char *why, size_t whylen)
{
    const struct mode *m = NULL;
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++)
        if (strcmp(modes[i].name, name) == 0)
            m = &modes[i];
    if (!m) {
        snprintf(why, whylen, "unknown mode '%s'", name);
        return -1;
    }
    tf_error err = { 0 };
    bool ok;
    if (strcmp(name, "empty") == 0) {
        ok = write_text(path, "");
    } else if (strcmp(name, "not-hdf5") == 0) {
        ok = write_text(path, "time,value\n1,2\n");
    } else if (strcmp(name, "not-a-trace") == 0) {
        int64_t file;
        ok = tf_h5_file_create(path, &file, &err) == 0;
        if (ok) {
            double x = 1;
            ok = tf_h5_write_array(file, "data", TF_H5_DOUBLE, &x, 1, &err) == 0;
            tf_h5_close(file);
        }
    } else {
        ok = fixture_write(path, 0, &err) == 0;
        if (ok && !m->damage) {
            ok = truncate_file(path);
        } else if (ok) {
            int64_t file;
            ok = tf_h5_file_open(path, true, &file, &err) == 0;
            if (ok) {
                ok = m->damage(file, path);
                tf_h5_close(file);
            }
        }
    }
    if (!ok) {
        snprintf(why, whylen, "%s: cannot make the '%s' case%s%s", path, name,
                 err.msg[0] ? ": " : "", err.msg);
        return -1;
    }
    return 0;
}
