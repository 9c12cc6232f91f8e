/* SPDX-License-Identifier: BSD-3-Clause */
#include "h5_vlen1.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "h5util.h"

/* The opaque type the heap ids are read as; the tag tells our conversion
 * function its own destination from any other opaque type. */
#define RAW_ID_TAG "tracefold: raw variable-length heap id"

/* The id as stored (format spec IV.A.2.d, "Variable-length"): a 4-byte
 * length, then the collection's address and the object's 4-byte index. */
#define ID_LENGTH_BYTES 4
#define ID_INDEX_BYTES  4

/* Leaves the stored bytes as they are: the source (the id on disk) and the
 * destination (the opaque type of the same size) are converted in place,
 * so nothing is to be done, and HDF5 never reads the heap. */
static herr_t keep_heap_ids(hid_t src, hid_t dst, H5T_cdata_t *cdata, size_t n,
                            size_t buf_stride, size_t bkg_stride, void *buf, void *bkg,
                            hid_t dxpl)
{
    (void)n, (void)buf_stride, (void)bkg_stride, (void)buf, (void)bkg, (void)dxpl;
    if (cdata->command != H5T_CONV_INIT)
        return 0;
    if (H5Tget_class(src) != H5T_STRING || H5Tis_variable_str(src) <= 0 ||
        H5Tget_class(dst) != H5T_OPAQUE || H5Tget_size(src) != H5Tget_size(dst))
        return -1;
    char *tag = H5Tget_tag(dst);
    bool ours = tag && strcmp(tag, RAW_ID_TAG) == 0;
    H5free_memory(tag);
    cdata->need_bkg = H5T_BKG_NO;
    return ours ? 0 : -1;
}

/* Registers keep_heap_ids once per process and returns the opaque type of
 * ids of id_size bytes (to close), or -1. */
static hid_t raw_id_type(size_t id_size)
{
    static bool registered;
    if (!registered) {
        hid_t vstr = H5Tcopy(H5T_C_S1);
        hid_t op = H5Tcreate(H5T_OPAQUE, 16);
        registered = vstr >= 0 && op >= 0 && H5Tset_size(vstr, H5T_VARIABLE) >= 0 &&
                     H5Tset_tag(op, RAW_ID_TAG) >= 0 &&
                     H5Tregister(H5T_PERS_SOFT, "tracefold raw heap id", vstr, op,
                                 keep_heap_ids) >= 0;
        if (vstr >= 0)
            H5Tclose(vstr);
        if (op >= 0)
            H5Tclose(op);
        if (!registered)
            return -1;
    }
    hid_t t = H5Tcreate(H5T_OPAQUE, id_size);
    if (t >= 0 && H5Tset_tag(t, RAW_ID_TAG) < 0) {
        H5Tclose(t);
        return -1;
    }
    return t;
}

/* The file as plain bytes, and the one global heap collection last read. */
typedef struct heap_reader {
    int            fd;
    uint64_t       file_size;
    uint64_t       base;          /* where HDF5's addresses start: after a user block */
    size_t         addr_bytes, length_bytes;
    size_t         id_size;
    uint64_t       coll_addr;
    unsigned char *coll;          /* NULL: none read */
    uint64_t       coll_size;
} heap_reader;

static uint64_t little_endian(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = v << 8 | p[i];
    return v;
}

static bool read_at(int fd, void *buf, size_t n, uint64_t at)
{
    unsigned char *p = buf;
    while (n) {
        ssize_t got = pread(fd, p, n, (off_t)at);
        if (got <= 0)
            return false;
        p += got;
        n -= (size_t)got;
        at += (uint64_t)got;
    }
    return true;
}

static int reader_open(hid_t obj, heap_reader *h)
{
    *h = (heap_reader){ .fd = -1 };
    hid_t file = H5Iget_file_id(obj);
    hid_t fcpl = file < 0 ? -1 : H5Fget_create_plist(file);
    char path[4096];
    hsize_t user_block = 0;
    bool ok = fcpl >= 0 && H5Pget_sizes(fcpl, &h->addr_bytes, &h->length_bytes) >= 0 &&
              H5Pget_userblock(fcpl, &user_block) >= 0 &&
              H5Fget_name(file, path, sizeof path) > 0 && h->addr_bytes <= 8 &&
              h->length_bytes <= 8;
    if (fcpl >= 0)
        H5Pclose(fcpl);
    if (file >= 0)
        H5Fclose(file);
    struct stat st;
    if (ok && (h->fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0 && fstat(h->fd, &st) == 0) {
        h->file_size = (uint64_t)st.st_size;
        h->base = user_block;
        h->id_size = ID_LENGTH_BYTES + h->addr_bytes + ID_INDEX_BYTES;
        return 0;
    }
    if (h->fd >= 0)
        close(h->fd);
    h->fd = -1;
    return -1;
}

static void reader_close(heap_reader *h)
{
    if (h->fd >= 0)
        close(h->fd);
    free(h->coll);
    h->coll = NULL;
}

/* Reads the collection at addr (spec III.E: "GCOL", version 1, three
 * reserved bytes, the collection's size, then its objects); NULL, or why
 * not. */
static const char *load_collection(heap_reader *h, uint64_t addr)
{
    if (h->coll && h->coll_addr == addr)
        return NULL;
    free(h->coll);
    h->coll = NULL;
    size_t head = 8 + h->length_bytes;
    unsigned char hdr[16];
    if (addr > h->file_size || h->base > h->file_size - addr ||
        head > h->file_size - addr - h->base)
        return "its heap collection address lies past the end of the file";
    uint64_t at = addr + h->base;
    if (!read_at(h->fd, hdr, head, at))
        return "cannot read its heap collection";
    if (memcmp(hdr, "GCOL", 4) != 0 || hdr[4] != 1)
        return "no global heap collection where it points";
    uint64_t size = little_endian(hdr + 8, h->length_bytes);
    if (size < head || size > h->file_size - at)
        return "its heap collection runs past the end of the file";
    h->coll = malloc(size);
    if (!h->coll)
        return "out of memory for its heap collection";
    if (!read_at(h->fd, h->coll, size, at)) {
        free(h->coll);
        h->coll = NULL;
        return "cannot read its heap collection";
    }
    h->coll_addr = addr;
    h->coll_size = size;
    return NULL;
}

/* Object idx of the loaded collection.  Each object is its index (2
 * bytes), a reference count (2), 4 reserved bytes and its size, then its
 * data padded to a multiple of 8; index 0 is the free space, which ends
 * the objects. */
static const char *find_object(const heap_reader *h, uint32_t idx, const unsigned char **data,
                               uint64_t *size)
{
    uint64_t obj_head = 8 + h->length_bytes;
    uint64_t off = 8 + h->length_bytes;
    while (h->coll_size >= obj_head && off <= h->coll_size - obj_head) {
        const unsigned char *p = h->coll + off;
        uint32_t this_idx = (uint32_t)little_endian(p, 2);
        uint64_t this_size = little_endian(p + 8, h->length_bytes);
        uint64_t at = off + obj_head;
        if (this_idx == 0)
            break;
        if (this_size > h->coll_size - at)
            return "an object of its heap collection runs past the collection";
        if (this_idx == idx) {
            *data = h->coll + at;
            *size = this_size;
            return NULL;
        }
        uint64_t padded = (this_size + 7) / 8 * 8;
        if (padded > h->coll_size - at)
            break;
        off = at + padded;
    }
    return "its object is not in the heap collection it names";
}

/* The string of one raw id, malloc'ed; NULL with *why set when damaged. */
static char *resolve(heap_reader *h, const unsigned char *id, const char **why)
{
    uint64_t len = little_endian(id, ID_LENGTH_BYTES);
    uint64_t addr = little_endian(id + ID_LENGTH_BYTES, h->addr_bytes);
    uint32_t idx = (uint32_t)little_endian(id + ID_LENGTH_BYTES + h->addr_bytes,
                                           ID_INDEX_BYTES);
    const unsigned char *data = NULL;
    uint64_t size = 0;
    if (len && (*why = load_collection(h, addr)) == NULL && (*why = find_object(h, idx, &data,
                                                                                &size)) == NULL &&
        len > size)
        *why = "its length exceeds its heap object";
    if (len && *why)
        return NULL;
    size_t n = len ? strnlen((const char *)data, (size_t)len) : 0;
    char *s = malloc(n + 1);
    if (!s) {
        *why = "out of memory";
        return NULL;
    }
    if (n)
        memcpy(s, data, n);
    s[n] = '\0';
    return s;
}

int tf_h5_vlen1_attr(hid_t obj, hid_t attr, const char *name, char **value, tf_error *err)
{
    heap_reader h;
    if (reader_open(obj, &h) < 0)
        return tf_h5_fail(err, TF_ERR_IO, obj, NULL, "cannot reopen the file to read "
                          "attribute '%s'", name);
    unsigned char id[ID_LENGTH_BYTES + 8 + ID_INDEX_BYTES];
    hid_t raw = raw_id_type(h.id_size);
    const char *why = "cannot read its heap id";
    char *s = raw >= 0 && H5Aread(attr, raw, id) >= 0 ? resolve(&h, id, &why) : NULL;
    if (raw >= 0)
        H5Tclose(raw);
    reader_close(&h);
    if (!s)
        return tf_h5_fail(err, TF_ERR_FORMAT, obj, NULL, "string attribute '%s': %s", name, why);
    *value = s;
    return 0;
}

int tf_h5_vlen1_dataset(hid_t loc, const char *name, hid_t dset, size_t n, char ***strings,
                        tf_error *err)
{
    heap_reader h;
    if (reader_open(dset, &h) < 0)
        return tf_h5_fail(err, TF_ERR_IO, loc, name, "cannot reopen the file to read it");
    int rc = tf_h5_check_extent(dset, n, h.id_size, err);
    unsigned char *ids = rc < 0 ? NULL : malloc(n ? n * h.id_size : 1);
    char **each = rc < 0 ? NULL : calloc(n ? n : 1, sizeof *each);
    hid_t raw = rc < 0 ? -1 : raw_id_type(h.id_size);
    if (rc == 0 && (!ids || !each))
        rc = tf_h5_fail(err, TF_ERR_NOMEM, loc, name, "out of memory for %zu strings", n);
    else if (rc == 0 && n && (raw < 0 || H5Dread(dset, raw, H5S_ALL, H5S_ALL, H5P_DEFAULT,
                                                 ids) < 0))
        rc = tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "cannot read the strings' heap ids");
    size_t total = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        const char *why = NULL;
        if (!(each[i] = resolve(&h, ids + i * h.id_size, &why)))
            rc = tf_h5_fail(err, TF_ERR_FORMAT, loc, name, "string %zu: %s", i, why);
        else
            total += strlen(each[i]) + 1;
    }
    char **out = rc < 0 ? NULL : malloc(n * sizeof *out + total + 1);
    if (rc == 0 && !out)
        rc = tf_h5_fail(err, TF_ERR_NOMEM, loc, name, "out of memory for %zu strings", n);
    char *p = out ? (char *)(out + n) : NULL;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        size_t len = strlen(each[i]) + 1;
        memcpy(p, each[i], len);
        out[i] = p;
        p += len;
    }
    for (size_t i = 0; each && i < n; i++)
        free(each[i]);
    free(each);
    free(ids);
    if (raw >= 0)
        H5Tclose(raw);
    reader_close(&h);
    if (rc < 0)
        return rc;
    *strings = out;
    return 0;
}
