/* SPDX-License-Identifier: BSD-3-Clause */
#include "h5util.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <hdf5.h>
#include <zlib.h>

#include "h5_vlen1.h"
#include "common/tf_memory.h"

_Static_assert(sizeof(hid_t) == sizeof(int64_t), "h5util.h passes hid_t as int64_t");

/* Arrays below this many elements stay contiguous: chunk indexing and
 * compression only pay off for larger ones. */
#define SMALL_ELEMENTS 4096
/* Elements per chunk of the larger arrays (512 KiB of 8-byte values):
 * deflate is set up anew for every chunk, which at 8 Ki elements cost
 * as much as compressing them. */
#define CHUNK_ELEMENTS TF_H5_CHUNK_ELEMENTS
#define DEFLATE_LEVEL 1

void tf_h5_silence(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void tf_h5_no_exit_cleanup(void)
{
    H5dont_atexit();
}

/* "FILE: /path/of/loc/name" for messages; "?" parts when HDF5 cannot say. */
static void describe(hid_t loc, const char *name, char *buf, size_t size)
{
    char file[512] = "?", path[512] = "";
    if (H5Fget_name(loc, file, sizeof file) < 0)
        snprintf(file, sizeof file, "?");
    if (H5Iget_type(loc) != H5I_FILE && H5Iget_name(loc, path, sizeof path) < 0)
        path[0] = '\0';
    if (!name)
        snprintf(buf, size, "%s: %s", file, path[0] ? path : "/");
    else if (name[0] == '/')
        snprintf(buf, size, "%s: %s", file, name);
    else
        snprintf(buf, size, "%s: %s/%s", file, strcmp(path, "/") ? path : "", name);
}

int tf_h5_fail(tf_error *err, int code, int64_t loc, const char *name, const char *fmt, ...)
{
    char place[1100], text[TF_ERROR_MSG_MAX];
    describe(loc, name, place, sizeof place);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return tf_fail(err, code, "%s: %s", place, text);
}

/* ---- files ---------------------------------------------------------------- */

/* The 1.8 object-header format at least: attributes of any size (a command
 * line can be long) and checksummed metadata. */
static hid_t new_fapl(void)
{
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl >= 0 && H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_LATEST) < 0) {
        H5Pclose(fapl);
        return -1;
    }
    return fapl;
}

int tf_h5_file_create(const char *path, int64_t *file, tf_error *err)
{
    tf_h5_silence();
    hid_t fapl = new_fapl();
    if (fapl < 0)
        return tf_fail(err, TF_ERR_INTERNAL, "%s: cannot set up HDF5 file access", path);
    errno = 0;
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    int saved = errno;
    H5Pclose(fapl);
    if (f < 0)
        return tf_fail(err, TF_ERR_IO, "%s: cannot create the file: %s", path,
                       saved ? strerror(saved) : "HDF5 refused it");
    *file = f;
    return 0;
}

struct stack_scan {
    bool truncated;
    char detail[256];   /* the innermost HDF5 message */
};

static herr_t scan_error(unsigned n, const H5E_error2_t *e, void *data)
{
    struct stack_scan *scan = data;
    if (e->desc) {
        if (strstr(e->desc, "truncated"))
            scan->truncated = true;
        if (n == 0)
            snprintf(scan->detail, sizeof scan->detail, "%s", e->desc);
    }
    return 0;
}

/* Says why an existing, non-empty HDF5 file did not open, from HDF5's error
 * stack: a short file (truncated copy, interrupted write) is the common case. */
static int explain_open_failure(const char *path, hid_t stack, tf_error *err)
{
    struct stack_scan scan = { .truncated = false, .detail = "" };
    if (stack >= 0) {
        H5Ewalk2(stack, H5E_WALK_UPWARD, scan_error, &scan);
        H5Eclose_stack(stack);
    }
    if (scan.truncated)
        return tf_fail(err, TF_ERR_FORMAT,
                       "%s: truncated HDF5 file: it ends before the end HDF5 recorded in it "
                       "(interrupted copy or write?)", path);
    return tf_fail(err, TF_ERR_FORMAT, "%s: corrupt HDF5 file (%s)", path,
                   scan.detail[0] ? scan.detail : "HDF5 cannot open it");
}

/* A reader's metadata cache: 1 MiB, fixed.  HDF5's default lets each open
 * file's cache grow to 32 MiB, and a trace of many processes, read table
 * by table, fills it with object headers and chunk-index nodes it never
 * reads again: the fold of 1000 synthetic processes held 134 MB more at its
 * peak with the default (338 against 204 MB), at the same speed; the reads
 * are sequential, so a small cache misses nothing that matters
 * (bench/RESULTS.md, "MPI"). */
#define READER_METADATA_CACHE ((size_t)1 << 20)

static int bounded_metadata_cache(hid_t fapl)
{
    H5AC_cache_config_t mdc = { .version = H5AC__CURR_CACHE_CONFIG_VERSION };
    if (H5Pget_mdc_config(fapl, &mdc) < 0)
        return -1;
    mdc.set_initial_size = true;
    mdc.initial_size = mdc.max_size = READER_METADATA_CACHE;
    if (mdc.min_size > READER_METADATA_CACHE)
        mdc.min_size = READER_METADATA_CACHE;
    mdc.incr_mode = H5C_incr__off;
    mdc.flash_incr_mode = H5C_flash_incr__off;
    mdc.decr_mode = H5C_decr__off;
    return H5Pset_mdc_config(fapl, &mdc) < 0 ? -1 : 0;
}

int tf_h5_file_open(const char *path, bool writable, int64_t *file, tf_error *err)
{
    tf_h5_silence();
    struct stat st;
    if (stat(path, &st) < 0)
        return tf_fail(err, errno == ENOENT ? TF_ERR_NOTFOUND : TF_ERR_IO, "%s: %s", path,
                       strerror(errno));
    if (S_ISDIR(st.st_mode))
        return tf_fail(err, TF_ERR_USAGE, "%s: is a directory, not an HDF5 file", path);
    if (st.st_size == 0)
        return tf_fail(err, TF_ERR_FORMAT, "%s: empty file, not an HDF5 file", path);
    htri_t is_hdf5 = H5Fis_hdf5(path);
    if (is_hdf5 == 0)
        return tf_fail(err, TF_ERR_FORMAT, "%s: not an HDF5 file (no HDF5 signature)", path);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (fapl < 0)
        return tf_fail(err, TF_ERR_INTERNAL, "%s: cannot set up HDF5 file access", path);
#if H5_VERSION_GE(1, 10, 7)
    /* Readers skip HDF5's advisory lock so a trace can be inspected while
     * its recorder still holds it open (they see the last flush). */
    if (!writable)
        H5Pset_file_locking(fapl, false, true);
#endif
    if (!writable && bounded_metadata_cache(fapl) < 0) {
        H5Pclose(fapl);
        return tf_fail(err, TF_ERR_INTERNAL, "%s: cannot set up HDF5's metadata cache", path);
    }
    errno = 0;
    hid_t f = is_hdf5 < 0 ? -1 : H5Fopen(path, writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, fapl);
    int saved = errno;
    /* Taken before any other HDF5 call, which would reset the stack. */
    hid_t stack = f < 0 ? H5Eget_current_stack() : -1;
    H5Pclose(fapl);
    if (f < 0) {
        if (is_hdf5 < 0 || saved == EACCES || saved == EPERM) {
            if (stack >= 0)
                H5Eclose_stack(stack);
            return tf_fail(err, TF_ERR_IO, "%s: cannot open: %s", path,
                           saved ? strerror(saved) : "HDF5 cannot read it");
        }
        return explain_open_failure(path, stack, err);
    }
    *file = f;
    return 0;
}

void tf_h5_close(int64_t id)
{
    if (id < 0)
        return;
    switch (H5Iget_type(id)) {
    case H5I_FILE: H5Fclose(id); break;
    case H5I_GROUP: H5Gclose(id); break;
    case H5I_DATASET: H5Dclose(id); break;
    case H5I_ATTR: H5Aclose(id); break;
    case H5I_DATATYPE: H5Tclose(id); break;
    case H5I_DATASPACE: H5Sclose(id); break;
    case H5I_GENPROP_LST: H5Pclose(id); break;
    default: break;
    }
}

/* ---- groups --------------------------------------------------------------- */

bool tf_h5_attr_exists(int64_t obj, const char *name)
{
    tf_h5_silence();
    return H5Aexists((hid_t)obj, name) > 0;
}

bool tf_h5_exists(int64_t loc, const char *path)
{
    tf_h5_silence();
    size_t len = strlen(path);
    char *prefix = malloc(len + 1);
    if (!prefix)
        return false;
    memcpy(prefix, path, len + 1);
    bool found = true;
    /* H5Lexists wants every parent to exist, so walk down one level at a time. */
    for (size_t i = 1; i <= len && found; i++) {
        if (i < len && path[i] != '/')
            continue;
        prefix[i] = '\0';
        if (strcmp(prefix, "/") != 0 && prefix[0] != '\0')
            found = H5Lexists(loc, prefix, H5P_DEFAULT) > 0;
        prefix[i] = path[i];
    }
    free(prefix);
    return found;
}

int tf_h5_group_open(int64_t loc, const char *path, int64_t *group, tf_error *err)
{
    tf_h5_silence();
    if (!tf_h5_exists(loc, path))
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, path, "missing group");
    hid_t g = H5Gopen2(loc, path, H5P_DEFAULT);
    if (g < 0)
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, path, "not a group");
    *group = g;
    return 0;
}

int tf_h5_group_create(int64_t loc, const char *path, int64_t *group, tf_error *err)
{
    tf_h5_silence();
    hid_t g;
    if (tf_h5_exists(loc, path)) {
        g = H5Gopen2(loc, path, H5P_DEFAULT);
        if (g < 0)
            return tf_h5_fail(err, TF_ERR_EXISTS, loc, path, "exists and is not a group");
    } else {
        hid_t lcpl = H5Pcreate(H5P_LINK_CREATE);
        if (lcpl < 0 || H5Pset_create_intermediate_group(lcpl, 1) < 0) {
            H5Pclose(lcpl);
            return tf_h5_fail(err, TF_ERR_INTERNAL, loc, path, "cannot set up group creation");
        }
        g = H5Gcreate2(loc, path, lcpl, H5P_DEFAULT, H5P_DEFAULT);
        H5Pclose(lcpl);
        if (g < 0)
            return tf_h5_fail(err, TF_ERR_IO, loc, path, "cannot create the group");
    }
    if (group)
        *group = g;
    else
        H5Gclose(g);
    return 0;
}

/* ---- attributes ----------------------------------------------------------- */

/* A fixed-length UTF-8 string type of size bytes, the last one the
 * terminating zero: format version 2 stores no variable-length strings,
 * whose global heap libhdf5 reads unchecked (docs/trace-format.md,
 * "What a reader guarantees"). */
static hid_t fixed_string_type(size_t size)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t >= 0 && (H5Tset_size(t, size) < 0 || H5Tset_strpad(t, H5T_STR_NULLTERM) < 0 ||
                   H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

static int attr_write(hid_t obj, const char *name, hid_t file_type, hid_t mem_type,
                      const void *value, tf_error *err)
{
    tf_h5_silence();
    if (H5Aexists(obj, name) > 0 && H5Adelete(obj, name) < 0)
        return tf_h5_fail(err, TF_ERR_IO, obj, NULL, "cannot replace attribute '%s'", name);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t attr = space < 0 ? -1 : H5Acreate2(obj, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT);
    herr_t rc = attr < 0 ? -1 : H5Awrite(attr, mem_type, value);
    if (attr >= 0)
        H5Aclose(attr);
    if (space >= 0)
        H5Sclose(space);
    if (rc < 0)
        return tf_h5_fail(err, TF_ERR_IO, obj, NULL, "cannot write attribute '%s'", name);
    return 0;
}

int tf_h5_attr_write_string(int64_t obj, const char *name, const char *value, tf_error *err)
{
    const char *v = value ? value : "";
    hid_t t = fixed_string_type(strlen(v) + 1);
    if (t < 0)
        return tf_h5_fail(err, TF_ERR_INTERNAL, obj, NULL, "cannot make a string type");
    int rc = attr_write(obj, name, t, t, v, err);
    H5Tclose(t);
    return rc;
}

int tf_h5_attr_write_int64(int64_t obj, const char *name, int64_t value, tf_error *err)
{
    return attr_write(obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value, err);
}

int tf_h5_attr_write_uint64(int64_t obj, const char *name, uint64_t value, tf_error *err)
{
    return attr_write(obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value, err);
}

int tf_h5_attr_write_double(int64_t obj, const char *name, double value, tf_error *err)
{
    return attr_write(obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value, err);
}

/* Opens a scalar attribute and its type, checking its class. */
static int attr_open(hid_t obj, const char *name, H5T_class_t want, hid_t *attr, hid_t *type,
                     tf_error *err)
{
    tf_h5_silence();
    if (H5Aexists(obj, name) <= 0)
        return tf_h5_fail(err, TF_ERR_FORMAT, obj, NULL, "missing attribute '%s'", name);
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    hid_t t = a < 0 ? -1 : H5Aget_type(a);
    hid_t s = a < 0 ? -1 : H5Aget_space(a);
    hssize_t npoints = s < 0 ? -1 : H5Sget_simple_extent_npoints(s);
    H5T_class_t cls = t < 0 ? H5T_NO_CLASS : H5Tget_class(t);
    if (s >= 0)
        H5Sclose(s);
    bool ok = npoints == 1 &&
              (cls == want || (want == H5T_FLOAT && cls == H5T_INTEGER));
    if (!ok) {
        if (t >= 0)
            H5Tclose(t);
        if (a >= 0)
            H5Aclose(a);
        static const char *const what[] = {
            [H5T_INTEGER] = "an integer", [H5T_FLOAT] = "a number", [H5T_STRING] = "a string",
        };
        return tf_h5_fail(err, TF_ERR_FORMAT, obj, NULL, "attribute '%s' is not %s value", name,
                          what[want]);
    }
    *attr = a;
    *type = t;
    return 0;
}

int tf_h5_attr_read_string(int64_t obj, const char *name, char **value, tf_error *err)
{
    hid_t attr, type;
    int rc = attr_open(obj, name, H5T_STRING, &attr, &type, err);
    if (rc < 0)
        return rc;
    char *copy = NULL;
    htri_t variable = H5Tis_variable_str(type);
    if (variable > 0) {   /* version 1 files */
        rc = tf_h5_vlen1_attr(obj, attr, name, &copy, err);
        H5Tclose(type);
        H5Aclose(attr);
        if (rc == 0)
            *value = copy;
        return rc;
    }
    if (variable == 0) {
        size_t size = H5Tget_size(type);
        hid_t mem = H5Tcopy(H5T_C_S1);
        copy = calloc(size + 1, 1);
        /* HDF5 converts no string between character sets: read as stored. */
        if (mem < 0 || !copy || H5Tset_size(mem, size + 1) < 0 ||
            H5Tset_cset(mem, H5Tget_cset(type)) < 0 ||
            H5Tset_strpad(mem, H5T_STR_NULLTERM) < 0 || H5Aread(attr, mem, copy) < 0) {
            free(copy);
            copy = NULL;
        }
        if (mem >= 0)
            H5Tclose(mem);
    }
    H5Tclose(type);
    H5Aclose(attr);
    if (!copy)
        return tf_h5_fail(err, TF_ERR_FORMAT, obj, NULL, "cannot read string attribute '%s'", name);
    *value = copy;
    return 0;
}

/* Integer attributes are read at 64 bits in their own signedness, which
 * HDF5 converts losslessly; the range check against the wanted type is ours
 * (HDF5 would clamp silently). */
static int attr_read_integer(hid_t obj, const char *name, bool want_signed, int64_t *s,
                             uint64_t *u, tf_error *err)
{
    hid_t attr, type;
    int rc = attr_open(obj, name, H5T_INTEGER, &attr, &type, err);
    if (rc < 0)
        return rc;
    bool is_signed = H5Tget_sign(type) == H5T_SGN_2;
    int64_t sv = 0;
    uint64_t uv = 0;
    herr_t r = is_signed ? H5Aread(attr, H5T_NATIVE_INT64, &sv)
                         : H5Aread(attr, H5T_NATIVE_UINT64, &uv);
    H5Tclose(type);
    H5Aclose(attr);
    if (r < 0)
        return tf_h5_fail(err, TF_ERR_FORMAT, obj, NULL, "cannot read attribute '%s'", name);
    if (want_signed && !is_signed && uv > INT64_MAX)
        return tf_h5_fail(err, TF_ERR_FORMAT, obj, NULL,
                          "attribute '%s' = %llu does not fit a signed 64-bit integer", name,
                          (unsigned long long)uv);
    if (!want_signed && is_signed && sv < 0)
        return tf_h5_fail(err, TF_ERR_FORMAT, obj, NULL,
                          "attribute '%s' = %lld is negative, expected an unsigned value", name,
                          (long long)sv);
    if (s)
        *s = is_signed ? sv : (int64_t)uv;
    if (u)
        *u = is_signed ? (uint64_t)sv : uv;
    return 0;
}

int tf_h5_attr_read_int64(int64_t obj, const char *name, int64_t *value, tf_error *err)
{
    return attr_read_integer(obj, name, true, value, NULL, err);
}

int tf_h5_attr_read_uint64(int64_t obj, const char *name, uint64_t *value, tf_error *err)
{
    return attr_read_integer(obj, name, false, NULL, value, err);
}

int tf_h5_attr_read_double(int64_t obj, const char *name, double *value, tf_error *err)
{
    hid_t attr, type;
    int rc = attr_open(obj, name, H5T_FLOAT, &attr, &type, err);
    if (rc < 0)
        return rc;
    herr_t r = H5Aread(attr, H5T_NATIVE_DOUBLE, value);
    H5Tclose(type);
    H5Aclose(attr);
    if (r < 0)
        return tf_h5_fail(err, TF_ERR_FORMAT, obj, NULL, "cannot read attribute '%s'", name);
    return 0;
}

/* ---- datasets ------------------------------------------------------------- */

/* The element type in memory, or little-endian as stored. */
static hid_t element_type(enum tf_h5_type type, bool file)
{
    switch (type) {
    case TF_H5_DOUBLE: return file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE;
    case TF_H5_INT64: return file ? H5T_STD_I64LE : H5T_NATIVE_INT64;
    case TF_H5_UINT64: return file ? H5T_STD_U64LE : H5T_NATIVE_UINT64;
    case TF_H5_INT32: return file ? H5T_STD_I32LE : H5T_NATIVE_INT32;
    }
    return -1;
}

/* The stored form of a chunk holding one value throughout, made once per
 * value and written as it is (H5Dwrite_chunk): a column of one value (no
 * address, no object: a trace without memory samples) would otherwise
 * cost libhdf5's shuffle and deflate of every chunk, 1.5 s for 80 MB of
 * zeros (bench/RESULTS.md), to store the same few hundred bytes each time. */
typedef struct one_value_chunk {
    unsigned char value[16];   /* the element, as stored (file type) */
    size_t        esize;       /* 0: not made yet */
    unsigned char *z;          /* shuffled and deflated, as create_dataset's filters make it */
    uLongf        zlen;
} one_value_chunk;

/* True when each of the n bytes at p, esize-byte elements, repeats the
 * first element. */
static bool one_value(const unsigned char *p, size_t n, size_t esize)
{
    return n >= esize && memcmp(p, p + esize, n - esize) == 0;
}

/* Makes c the stored chunk of `elements` copies of the element at value:
 * the shuffle filter's output (each byte of the elements in turn, H5Z
 * shuffle) deflated by compress2 at DEFLATE_LEVEL, as libhdf5's deflate
 * filter does.  Returns false when out of memory. */
static bool make_one_value_chunk(one_value_chunk *c, const unsigned char *value, size_t esize,
                                 size_t elements)
{
    if (c->esize == esize && c->z && !memcmp(c->value, value, esize))
        return true;
    size_t raw_len = elements * esize;
    unsigned char *raw = malloc(raw_len);
    uLongf zlen = compressBound(raw_len);
    unsigned char *z = malloc(zlen);
    bool ok = raw && z;
    for (size_t b = 0; ok && b < esize; b++)
        memset(raw + b * elements, value[b], elements);
    ok = ok && compress2(z, &zlen, raw, raw_len, DEFLATE_LEVEL) == Z_OK;
    free(raw);
    if (!ok) {
        free(z);
        return false;
    }
    free(c->z);
    *c = (one_value_chunk){ .esize = esize, .z = z, .zlen = zlen };
    memcpy(c->value, value, esize);
    return true;
}

/* Writes rows [at, at + len) of dset (rank 1, or 2 of dims[1] columns),
 * from src (row `at` first).  Chunked (chunk[0] rows a chunk, shuffled and
 * deflated by create_dataset) and with mem_type as stored, a whole chunk
 * of one value goes in its stored form, the rest through H5Dwrite. */
static herr_t write_rows(hid_t dset, hid_t mem_type, const void *src, int rank,
                         const hsize_t *dims, const hsize_t *chunk, hsize_t at, hsize_t len)
{
    size_t esize = H5Tget_size(mem_type);
    size_t row_bytes = (rank == 2 ? dims[1] : 1) * esize;
    hid_t file_space = H5Dget_space(dset), file_type = H5Dget_type(dset);
    bool as_stored = chunk[0] && esize <= sizeof ((one_value_chunk *)0)->value &&
                     file_type >= 0 && H5Tequal(file_type, mem_type) > 0;
    herr_t rc = file_space < 0 || esize == 0 ? -1 : 0;
    one_value_chunk c = { 0 };
    hsize_t step = chunk[0] ? chunk[0] : len;
    for (hsize_t r0 = at, next; rc >= 0 && r0 < at + len; r0 = next) {
        next = (r0 / step + 1) * step;
        next = next < at + len ? next : at + len;
        hsize_t start[2] = { r0, 0 }, count[2] = { next - r0, rank == 2 ? dims[1] : 1 };
        const unsigned char *piece = (const unsigned char *)src + (r0 - at) * row_bytes;
        /* A whole chunk (not the last, partial one: libhdf5 fills its rows
         * past the extent with zeros, which the stored form would not). */
        bool whole = r0 % step == 0 && next - r0 == step;
        if (as_stored && whole && one_value(piece, count[0] * row_bytes, esize) &&
            make_one_value_chunk(&c, piece, esize, (size_t)(chunk[0] * count[1]))) {
            rc = H5Dwrite_chunk(dset, H5P_DEFAULT, 0, start, c.zlen, c.z);
            continue;
        }
        hid_t mem_space = H5Screate_simple(rank, count, NULL);
        rc = mem_space < 0 ? -1
                           : H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL,
                                                 count, NULL);
        if (rc >= 0)
            rc = H5Dwrite(dset, mem_type, mem_space, file_space, H5P_DEFAULT, piece);
        if (mem_space >= 0)
            H5Sclose(mem_space);
    }
    free(c.z);
    if (file_type >= 0)
        H5Tclose(file_type);
    if (file_space >= 0)
        H5Sclose(file_space);
    return rc;
}

/* Creates loc/name (replacing an older one) with the given shape; when
 * compress and large, chunked and compressed, its chunk's shape in chunk
 * (left zero otherwise).  Every chunk is written, even
 * one of a single value (deflate makes it a few hundred bytes): readers
 * refuse a dataset whose chunks are not all stored (tf_h5_check_extent). */
static int create_dataset(hid_t loc, const char *name, hid_t type, int rank,
                          const hsize_t *dims, bool compress, hsize_t *chunk, hid_t *out,
                          tf_error *err)
{
    if (H5Lexists(loc, name, H5P_DEFAULT) > 0 && H5Ldelete(loc, name, H5P_DEFAULT) < 0)
        return tf_h5_fail(err, TF_ERR_IO, loc, name, "cannot replace the dataset");
    hsize_t elements = rank == 1 ? dims[0] : dims[0] * dims[1];
    chunk[0] = chunk[1] = 0;
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (dcpl >= 0 && compress && elements > SMALL_ELEMENTS) {
        chunk[1] = rank == 2 ? dims[1] : 1;
        hsize_t r = CHUNK_ELEMENTS / chunk[1] ? CHUNK_ELEMENTS / chunk[1] : 1;
        chunk[0] = r < dims[0] ? r : dims[0];
        if (H5Pset_chunk(dcpl, rank, chunk) < 0 || H5Pset_shuffle(dcpl) < 0 ||
            H5Pset_deflate(dcpl, DEFLATE_LEVEL) < 0) {
            H5Pclose(dcpl);
            dcpl = -1;
        }
    }
    hid_t space = H5Screate_simple(rank, dims, NULL);
    hid_t dset = dcpl < 0 || space < 0 ? -1 :
                 H5Dcreate2(loc, name, type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (space >= 0)
        H5Sclose(space);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (dset < 0)
        return tf_h5_fail(err, TF_ERR_IO, loc, name, "cannot create the dataset");
    *out = dset;
    return 0;
}

int tf_h5_write_typed(int64_t loc, const char *name, int64_t file_type, int64_t mem_type,
                      const void *data, int rank, size_t rows, size_t cols, bool compress,
                      tf_error *err)
{
    tf_h5_silence();
    hsize_t dims[2] = { rows, rank == 2 ? cols : 1 }, chunk[2];
    hid_t dset;
    int status = create_dataset(loc, name, file_type, rank, dims, compress, chunk, &dset, err);
    if (status < 0)
        return status;
    herr_t rc = 0;
    if (dims[0] * dims[1] != 0 && data)
        rc = chunk[0] ? write_rows(dset, mem_type, data, rank, dims, chunk, 0, dims[0])
                      : H5Dwrite(dset, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    H5Dclose(dset);
    if (rc < 0)
        return tf_h5_fail(err, TF_ERR_IO, loc, name, "cannot write the dataset");
    return 0;
}

int tf_h5_write_array(int64_t loc, const char *name, enum tf_h5_type type, const void *data,
                      size_t n, tf_error *err)
{
    return tf_h5_write_typed(loc, name, element_type(type, true), element_type(type, false), data,
                             1, n, 0, true, err);
}

int tf_h5_write_matrix(int64_t loc, const char *name, enum tf_h5_type type, const void *data,
                       size_t rows, size_t cols, tf_error *err)
{
    return tf_h5_write_typed(loc, name, element_type(type, true), element_type(type, false), data,
                             2, rows, cols, true, err);
}

struct tf_h5_slabs {
    hid_t loc, file_type, mem_type, dset;   /* dset < 0 until the first write */
    char *name;
    int rank;
    hsize_t rows, n, at;                    /* rank 1: rows unused */
    bool compress;
    hsize_t chunk[2];
};

int tf_h5_slabs_open(int64_t loc, const char *name, int64_t file_type, int64_t mem_type,
                     int rank, size_t rows, size_t n, bool compress, tf_h5_slabs **out,
                     tf_error *err)
{
    tf_h5_silence();
    *out = NULL;
    tf_h5_slabs *s = calloc(1, sizeof *s);
    char *copy = strdup(name);
    if (!s || !copy) {
        free(s);
        free(copy);
        return tf_h5_fail(err, TF_ERR_NOMEM, loc, name, "out of memory");
    }
    if (H5Tget_size(mem_type) == 0) {
        free(s);
        free(copy);
        return tf_h5_fail(err, TF_ERR_INTERNAL, loc, name, "no slabs of this element type");
    }
    *s = (tf_h5_slabs){
        .loc = loc, .file_type = file_type, .mem_type = mem_type, .dset = -1, .name = copy,
        .rank = rank == 2 ? 2 : 1, .rows = rows, .n = n, .compress = compress && rank != 2,
    };
    *out = s;
    return 0;
}

int tf_h5_slabs_open_array(int64_t loc, const char *name, enum tf_h5_type type, size_t n,
                           tf_h5_slabs **s, tf_error *err)
{
    return tf_h5_slabs_open(loc, name, element_type(type, true), element_type(type, false), 1,
                            0, n, true, s, err);
}

/* The dataset, created at the first write or at close. */
static int slabs_create(tf_h5_slabs *s, tf_error *err)
{
    hsize_t dims[2] = { s->rank == 2 ? s->rows : s->n, s->rank == 2 ? s->n : 1 };
    return create_dataset(s->loc, s->name, s->file_type, s->rank, dims, s->compress, s->chunk,
                          &s->dset, err);
}

int tf_h5_slabs_write(tf_h5_slabs *s, const void *data, size_t len, size_t stride,
                      tf_error *err)
{
    if (len == 0)
        return 0;
    if (len > s->n - s->at)
        return tf_h5_fail(err, TF_ERR_INTERNAL, s->loc, s->name,
                          "%zu more elements than the %llu of the dataset", len,
                          (unsigned long long)s->n);
    int rc = s->dset < 0 ? slabs_create(s, err) : 0;
    if (rc < 0)
        return rc;
    herr_t hrc = 0;
    if (s->rank == 1 && s->chunk[0]) {
        hsize_t dims[2] = { s->n, 1 };
        hrc = write_rows(s->dset, s->mem_type, data, 1, dims, s->chunk, s->at, len);
    } else if (s->rank == 1 || s->rows > 0) {
        /* row r of the slab at data + r · stride elements (rank 2) */
        bool two = s->rank == 2;
        hsize_t start[2] = { two ? 0 : s->at, two ? s->at : 0 };
        hsize_t count[2] = { two ? s->rows : len, two ? len : 1 };
        hsize_t mem_dims[2] = { two ? s->rows : len, two ? stride : 1 };
        hsize_t origin[2] = { 0, 0 };
        hid_t file_space = H5Dget_space(s->dset);
        hid_t mem_space = H5Screate_simple(s->rank, mem_dims, NULL);
        hrc = file_space < 0 || mem_space < 0 ||
              H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, count, NULL) < 0 ||
              H5Sselect_hyperslab(mem_space, H5S_SELECT_SET, origin, NULL, count, NULL) < 0
                  ? -1
                  : H5Dwrite(s->dset, s->mem_type, mem_space, file_space, H5P_DEFAULT, data);
        if (mem_space >= 0)
            H5Sclose(mem_space);
        if (file_space >= 0)
            H5Sclose(file_space);
    }
    if (hrc < 0)
        return tf_h5_fail(err, TF_ERR_IO, s->loc, s->name,
                          "cannot write elements %llu to %llu of the dataset",
                          (unsigned long long)s->at, (unsigned long long)(s->at + len - 1));
    s->at += len;
    return 0;
}

int tf_h5_slabs_close(tf_h5_slabs *s, tf_error *err)
{
    if (!s)
        return 0;
    int rc = 0;
    if (err && s->at < s->n)
        rc = tf_h5_fail(err, TF_ERR_INTERNAL, s->loc, s->name,
                        "closed after %llu of its %llu elements", (unsigned long long)s->at,
                        (unsigned long long)s->n);
    else if (err && s->dset < 0)
        rc = slabs_create(s, err);   /* nothing to write: empty, or rows of nothing */
    if (s->dset >= 0 && H5Dclose(s->dset) < 0 && rc == 0 && err)
        rc = tf_h5_fail(err, TF_ERR_IO, s->loc, s->name, "cannot close the dataset");
    free(s->name);
    free(s);
    return rc;
}

/* Opens loc/name and reads its shape, requiring rank 1 (or 2 when allowed). */
static int open_dataset(hid_t loc, const char *name, int max_rank, hsize_t *dims, int *rank,
                        hid_t *out, tf_error *err)
{
    if (!tf_h5_exists(loc, name))
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "missing dataset");
    hid_t dset = H5Dopen2(loc, name, H5P_DEFAULT);
    if (dset < 0)
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "not a dataset");
    hid_t space = H5Dget_space(dset);
    int r = space < 0 ? -1 : H5Sget_simple_extent_ndims(space);
    if (r >= 1 && r <= max_rank)
        H5Sget_simple_extent_dims(space, dims, NULL);
    if (space >= 0)
        H5Sclose(space);
    if (r < 1 || r > max_rank) {
        H5Dclose(dset);
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "expected a %s dataset, found rank %d",
                          max_rank == 1 ? "1-D" : "1-D or 2-D", r);
    }
    *rank = r;
    *out = dset;
    return 0;
}

/* Lossless conversions only: integers of the same signedness, narrower
 * unsigned into int64 or int32, and any integer or float into double. */
static bool convertible(hid_t stored, enum tf_h5_type want)
{
    H5T_class_t cls = H5Tget_class(stored);
    if (want == TF_H5_DOUBLE)
        return cls == H5T_FLOAT || cls == H5T_INTEGER;
    if (cls != H5T_INTEGER)
        return false;
    bool is_signed = H5Tget_sign(stored) == H5T_SGN_2;
    if (want == TF_H5_UINT64)
        return !is_signed;
    if (want == TF_H5_INT32)
        return H5Tget_size(stored) < 4 || (is_signed && H5Tget_size(stored) == 4);
    return is_signed || H5Tget_size(stored) < 8;
}

/* open_dataset, and the stored element type readable as type. */
static int open_readable(hid_t loc, const char *name, enum tf_h5_type type, int max_rank,
                         hsize_t *dims, int *rank, hid_t *out, tf_error *err)
{
    int status = open_dataset(loc, name, max_rank, dims, rank, out, err);
    if (status < 0)
        return status;
    hid_t stored = H5Dget_type(*out);
    bool ok = stored >= 0 && convertible(stored, type);
    if (stored >= 0)
        H5Tclose(stored);
    if (ok)
        return 0;
    H5Dclose(*out);
    static const char *const names[] = { "double", "int64", "uint64", "int32" };
    return tf_h5_fail(err, TF_ERR_FORMAT, loc, name,
                      "the stored element type cannot be read as %s without loss", names[type]);
}

/* tf_h5_check_extent for n elements of the dataset's stored type. */
static int check_stored_extent(hid_t dset, uint64_t n, tf_error *err)
{
    hid_t stored = H5Dget_type(dset);
    size_t esize = stored < 0 ? 0 : H5Tget_size(stored);
    if (stored >= 0)
        H5Tclose(stored);
    return tf_h5_check_extent(dset, n, esize ? esize : 1, err);
}

int tf_h5_read_array(int64_t loc, const char *name, enum tf_h5_type type, void **data,
                     size_t *rows, size_t *cols, tf_error *err)
{
    tf_h5_silence();
    hsize_t dims[2] = { 0, 0 };
    int rank;
    hid_t dset;
    int status = open_readable(loc, name, type, 2, dims, &rank, &dset, err);
    if (status < 0)
        return status;
    size_t n = rank == 2 ? dims[0] * dims[1] : dims[0];
    if (rank == 2 && dims[1] && dims[0] > UINT64_MAX / dims[1])
        n = SIZE_MAX;
    if ((status = check_stored_extent(dset, n, err)) < 0) {
        H5Dclose(dset);
        return status;
    }
    void *buf = NULL;
    if (n) {
        buf = tf_malloc_large(n * H5Tget_size(element_type(type, false)));
        if (!buf) {
            H5Dclose(dset);
            return tf_h5_fail(err, TF_ERR_NOMEM, loc, name, "out of memory for %zu values", n);
        }
        if (H5Dread(dset, element_type(type, false), H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
            free(buf);
            H5Dclose(dset);
            return tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "cannot read the dataset");
        }
    }
    H5Dclose(dset);
    *data = buf;
    *rows = dims[0];
    *cols = rank == 2 ? dims[1] : 0;
    return 0;
}

int tf_h5_array_length(int64_t loc, const char *name, size_t *n, tf_error *err)
{
    tf_h5_silence();
    hsize_t dims[2] = { 0, 0 };
    int rank;
    hid_t dset;
    int status = open_dataset(loc, name, 1, dims, &rank, &dset, err);
    if (status < 0)
        return status;
    status = check_stored_extent(dset, dims[0], err);
    H5Dclose(dset);
    *n = dims[0];
    return status;
}

int tf_h5_read_slab(int64_t loc, const char *name, enum tf_h5_type type, size_t at, size_t n,
                    void *data, tf_error *err)
{
    tf_h5_silence();
    hsize_t dims[2] = { 0, 0 };
    int rank;
    hid_t dset;
    int status = open_readable(loc, name, type, 1, dims, &rank, &dset, err);
    if (status < 0)
        return status;
    if (at > dims[0] || n > dims[0] - at) {
        H5Dclose(dset);
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "rows %zu to %zu asked for, of %llu",
                          at, at + n, (unsigned long long)dims[0]);
    }
    herr_t rc = 0;
    if (n) {
        hsize_t start[1] = { at }, count[1] = { n };
        hid_t file_space = H5Dget_space(dset), mem_space = H5Screate_simple(1, count, NULL);
        rc = file_space < 0 || mem_space < 0 ||
             H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, NULL, count, NULL) < 0
                 ? -1
                 : H5Dread(dset, element_type(type, false), mem_space, file_space, H5P_DEFAULT,
                           data);
        if (mem_space >= 0)
            H5Sclose(mem_space);
        if (file_space >= 0)
            H5Sclose(file_space);
    }
    H5Dclose(dset);
    if (rc < 0)
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "cannot read rows %zu to %zu", at,
                          at + n);
    return 0;
}

int tf_h5_write_strings(int64_t loc, const char *name, const char *const *strings, size_t n,
                        tf_error *err)
{
    tf_h5_silence();
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += (strings[i] ? strlen(strings[i]) : 0) + 1;
    char *bytes = malloc(total ? total : 1);
    if (!bytes)
        return tf_h5_fail(err, TF_ERR_NOMEM, loc, name, "out of memory");
    char *p = bytes;
    for (size_t i = 0; i < n; i++) {
        size_t len = strings[i] ? strlen(strings[i]) : 0;
        if (len)
            memcpy(p, strings[i], len);
        p[len] = '\0';
        p += len + 1;
    }
    int rc = tf_h5_write_typed(loc, name, H5T_STD_U8LE, H5T_NATIVE_UINT8, bytes, 1, total, 0,
                               true, err);
    free(bytes);
    return rc;
}

/* Splits bytes, each string ended by a zero byte, into one block: the
 * pointer array, then the strings. */
static int split_strings(hid_t loc, const char *name, const char *bytes, size_t len,
                         char ***strings, size_t *n, tf_error *err)
{
    if (len && bytes[len - 1] != '\0')
        return tf_h5_fail(err, TF_ERR_FORMAT, loc, name,
                          "the last string has no terminating zero byte (truncated table?)");
    size_t count = 0;
    for (size_t i = 0; i < len; i++)
        count += bytes[i] == '\0';
    char **out = malloc(count * sizeof *out + len + 1);
    if (!out)
        return tf_h5_fail(err, TF_ERR_NOMEM, loc, name, "out of memory for %zu strings", count);
    char *p = (char *)(out + count);
    if (len)
        memcpy(p, bytes, len);
    for (size_t i = 0; i < count; i++) {
        out[i] = p;
        p += strlen(p) + 1;
    }
    *strings = out;
    *n = count;
    return 0;
}

/* The format-2 string table: a 1-D dataset of bytes. */
static int read_string_bytes(hid_t loc, const char *name, hid_t dset, size_t len,
                             char ***strings, size_t *n, tf_error *err)
{
    int rc = tf_h5_check_extent(dset, len, 1, err);
    if (rc < 0)
        return rc;
    char *bytes = tf_malloc_large(len ? len : 1);
    if (!bytes)
        return tf_h5_fail(err, TF_ERR_NOMEM, loc, name, "out of memory for %zu bytes", len);
    if (len && H5Dread(dset, H5T_NATIVE_UINT8, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes) < 0)
        rc = tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "cannot read the strings");
    else
        rc = split_strings(loc, name, bytes, len, strings, n, err);
    free(bytes);
    return rc;
}

/* Fixed-length strings (written by other tools): size bytes each, ended
 * by a zero byte or by the field's end. */
static int read_fixed_strings(hid_t loc, const char *name, hid_t dset, size_t count,
                              size_t size, H5T_cset_t cset, char ***strings, size_t *n,
                              tf_error *err)
{
    int rc = tf_h5_check_extent(dset, count, size, err);
    if (rc < 0)
        return rc;
    hid_t mem = H5Tcopy(H5T_C_S1);
    char *raw = count && size > SIZE_MAX / count ? NULL : tf_malloc_large(count * size + 1);
    if (mem < 0 || H5Tset_size(mem, size) < 0 || H5Tset_cset(mem, cset) < 0 ||
        H5Tset_strpad(mem, H5T_STR_NULLPAD) < 0)
        rc = tf_h5_fail(err, TF_ERR_INTERNAL, loc, name, "no string type");
    else if (!raw)
        rc = tf_h5_fail(err, TF_ERR_NOMEM, loc, name, "out of memory for %zu strings", count);
    else if (count && H5Dread(dset, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw) < 0)
        rc = tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "cannot read the strings");
    /* Each field to a terminated string (a full field has no zero byte). */
    char *packed = rc < 0 ? NULL : tf_malloc_large(count * (size + 1) + 1);
    if (rc == 0 && !packed)
        rc = tf_h5_fail(err, TF_ERR_NOMEM, loc, name, "out of memory for %zu strings", count);
    size_t len = 0;
    for (size_t i = 0; rc == 0 && i < count; i++) {
        size_t l = strnlen(raw + i * size, size);
        memcpy(packed + len, raw + i * size, l);
        packed[len + l] = '\0';
        len += l + 1;
    }
    if (rc == 0)
        rc = split_strings(loc, name, packed, len, strings, n, err);
    free(packed);
    free(raw);
    if (mem >= 0)
        H5Tclose(mem);
    return rc;
}

int tf_h5_read_strings(int64_t loc, const char *name, char ***strings, size_t *n,
                       tf_error *err)
{
    tf_h5_silence();
    hsize_t dims[1] = { 0 };
    int rank;
    hid_t dset;
    int status = open_dataset(loc, name, 1, dims, &rank, &dset, err);
    if (status < 0)
        return status;
    hid_t stored = H5Dget_type(dset);
    H5T_class_t cls = stored < 0 ? H5T_NO_CLASS : H5Tget_class(stored);
    bool bytes = cls == H5T_INTEGER && H5Tget_size(stored) == 1;
    htri_t variable = cls == H5T_STRING ? H5Tis_variable_str(stored) : -1;
    size_t fixed = variable == 0 ? H5Tget_size(stored) : 0;
    H5T_cset_t cset = variable == 0 ? H5Tget_cset(stored) : H5T_CSET_ASCII;
    if (stored >= 0)
        H5Tclose(stored);
    if (dims[0] > SIZE_MAX)
        status = tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "too long");
    else if (bytes)
        status = read_string_bytes(loc, name, dset, dims[0], strings, n, err);
    else if (variable > 0) {   /* version 1 files */
        status = tf_h5_vlen1_dataset(loc, name, dset, dims[0], strings, err);
        if (status == 0)
            *n = dims[0];
    } else if (variable == 0 && fixed)
        status = read_fixed_strings(loc, name, dset, dims[0], fixed, cset, strings, n,
                                    err);
    else
        status = tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "expected a dataset of strings");
    H5Dclose(dset);
    return status;
}

/* Deflate's largest compression ratio: 1032 to 1 (a run of 258-byte
 * matches, each coded in about 2 bits; zlib's technical notes, "Maximum
 * compression factor").  Shuffle and Fletcher-32 change no size. */
#define DEFLATE_MAX_RATIO 1032
/* The largest chunk a reader accepts.  libhdf5 allocates a whole chunk to
 * read any part of it, whatever is stored, so a damaged chunk size would
 * cost memory before any extent is read; tracefold writes chunks of at
 * most about 1 MiB (TF_H5_CHUNK_ELEMENTS values, TF_TRACE_CHUNK_BYTES). */
#define CHUNK_MAX_BYTES ((uint64_t)64 << 20)

/* How many chunks cover a chunked dataset's extent; *why set when a chunk is
 * too large to read or the layout cannot be read. */
static uint64_t chunks_needed(hid_t dset, hid_t dcpl, char *why, size_t whylen)
{
    hsize_t dims[H5S_MAX_RANK], extent[H5S_MAX_RANK];
    int rank = H5Pget_chunk(dcpl, H5S_MAX_RANK, dims);
    hid_t type = H5Dget_type(dset), space = H5Dget_space(dset);
    uint64_t bytes = type < 0 ? 0 : H5Tget_size(type);
    int srank = space < 0 ? -1 : H5Sget_simple_extent_dims(space, extent, NULL);
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    if (rank <= 0 || !bytes || srank != rank) {
        snprintf(why, whylen, "cannot read its chunk layout");
        return 0;
    }
    uint64_t needed = 1;
    for (int i = 0; i < rank; i++) {
        if (!dims[i] || bytes > CHUNK_MAX_BYTES / dims[i]) {
            snprintf(why, whylen, "has chunks over %" PRIu64 " MiB (damaged file?)",
                     CHUNK_MAX_BYTES >> 20);
            return 0;
        }
        bytes *= dims[i];
        /* Each factor is at most the extent, itself checked against the
         * file's size by the caller; saturate rather than wrap meanwhile. */
        uint64_t along = extent[i] / dims[i] + (extent[i] % dims[i] != 0);
        needed = along && needed > UINT64_MAX / along ? UINT64_MAX : needed * along;
    }
    return needed;
}

/* The most bytes a dataset's storage can stand for; *why set when it
 * cannot say or uses a filter tracefold does not write. */
static uint64_t extent_limit(hid_t dset, char *why, size_t whylen)
{
    hid_t file = H5Iget_file_id(dset);
    hsize_t file_size = 0;
    bool sized = file >= 0 && H5Fget_filesize(file, &file_size) >= 0;
    if (file >= 0)
        H5Fclose(file);
    hid_t dcpl = H5Dget_create_plist(dset);
    H5D_layout_t layout = dcpl < 0 ? H5D_LAYOUT_ERROR : H5Pget_layout(dcpl);
    if (!sized || layout < 0) {
        if (dcpl >= 0)
            H5Pclose(dcpl);
        snprintf(why, whylen, "cannot read its storage layout");
        return 0;
    }
    uint64_t limit = file_size;
    if (layout == H5D_CHUNKED) {
        uint64_t needed = chunks_needed(dset, dcpl, why, whylen);
        uint64_t ratio = 1;
        int nfilters = H5Pget_nfilters(dcpl);
        for (int i = 0; i < nfilters && !why[0]; i++) {
            unsigned flags, values[8];
            size_t nvalues = 8;
            H5Z_filter_t id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &nvalues, values, 0,
                                             NULL, NULL);
            if (id == H5Z_FILTER_DEFLATE)
                ratio = DEFLATE_MAX_RATIO;
            else if (id != H5Z_FILTER_SHUFFLE && id != H5Z_FILTER_FLETCHER32)
                snprintf(why, whylen, "stored through HDF5 filter %d, which tracefold "
                         "neither writes nor reads", (int)id);
        }
        uint64_t stored = H5Dget_storage_size(dset);
        hsize_t nchunks = 0;
        /* libhdf5 1.10.8 takes no H5S_ALL here: the dataset's own space. */
        hid_t space = H5Dget_space(dset);
        /* The chunk index gives each chunk's stored size, which libhdf5
         * allocates to read it: their sum cannot exceed the file. */
        if (!why[0] && stored > file_size)
            snprintf(why, whylen, "its chunks claim %" PRIu64 " bytes, more than the file's "
                     "%" PRIu64 " (damaged file?)", stored, (uint64_t)file_size);
        /* libhdf5 reads a chunk never written as the fill value, which no
         * byte of the file pays for: every chunk of the extent must be
         * stored (tracefold's outputs store them all, even a run of one value). */
        else if (!why[0] && (space < 0 || H5Dget_num_chunks(dset, space, &nchunks) < 0))
            snprintf(why, whylen, "cannot read its chunk index");
        else if (!why[0] && nchunks < needed)
            snprintf(why, whylen, "stores %llu of the %" PRIu64 " chunks its extent needs "
                     "(damaged file, or a fold.h5 of a tracefold before 2026-12-06 that left "
                     "out runs of one value: fold again)", (unsigned long long)nchunks,
                     needed);
        if (space >= 0)
            H5Sclose(space);
        limit = stored > UINT64_MAX / ratio ? UINT64_MAX : stored * ratio;
    }
    H5Pclose(dcpl);
    return limit;
}

int tf_h5_check_extent(int64_t dset, uint64_t elements, size_t esize, tf_error *err)
{
    char why[200] = "";
    uint64_t limit = extent_limit(dset, why, sizeof why);
    if (!why[0] && esize && elements > UINT64_MAX / esize)
        snprintf(why, sizeof why, "claims %" PRIu64 " elements of %zu bytes, more than any "
                 "file holds", elements, esize);
    else if (!why[0] && elements * esize > limit)
        snprintf(why, sizeof why, "claims %" PRIu64 " elements of %zu bytes, more than the "
                 "%" PRIu64 " bytes its storage in the file can hold (damaged file?)", elements,
                 esize, limit);
    return why[0] ? tf_h5_fail(err, TF_ERR_FORMAT, dset, NULL, "%s", why) : 0;
}
