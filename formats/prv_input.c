/* SPDX-License-Identifier: BSD-3-Clause */
#include "prv_input.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* Compressed bytes read per system call. */
#define RAW_CHUNK (1u << 20)

struct tf_prv_input {
    int            fd;
    bool           gz;
    z_stream       zs;          /* plain input uses next_in/avail_in as its buffer too */
    bool           zinit;
    unsigned char *raw;
    bool           raw_eof;
    uint64_t       raw_total;   /* bytes read from the file so far */
    bool           member_end;  /* a gzip member ended: another may follow, nothing else */
    bool           finished;
    int            zerr;        /* inflate's error, reported once its output is read */
    uint64_t       zerr_at;
    uint64_t       size;
};

static int read_raw(tf_prv_input *in, tf_error *err)
{
    if (in->zs.avail_in || in->raw_eof)
        return 0;
    ssize_t k;
    do
        k = read(in->fd, in->raw, RAW_CHUNK);
    while (k < 0 && errno == EINTR);
    if (k < 0)
        return tf_fail(err, TF_ERR_IO, "read error: %s", strerror(errno));
    in->raw_eof = k == 0;
    in->raw_total += (uint64_t)k;
    in->zs.next_in = in->raw;
    in->zs.avail_in = (uInt)k;
    return 0;
}

int tf_prv_input_open(tf_prv_input **out, const char *path, tf_error *err)
{
    *out = NULL;
    tf_prv_input *in = calloc(1, sizeof *in);
    if (!in || !(in->raw = malloc(RAW_CHUNK))) {
        free(in);
        return tf_fail(err, TF_ERR_NOMEM, "%s: out of memory for a read buffer", path);
    }
    struct stat st;
    int rc = 0;
    /* O_NONBLOCK: opening a FIFO without a writer must not hang; a regular
     * file ignores it. */
    in->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (in->fd < 0)
        rc = tf_fail(err, errno == ENOENT ? TF_ERR_NOTFOUND : TF_ERR_IO, "%s: cannot open: %s",
                     path, strerror(errno));
    else if (fstat(in->fd, &st) != 0)
        rc = tf_fail(err, TF_ERR_IO, "%s: cannot read its status: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = tf_fail(err, TF_ERR_FORMAT, "%s: not a regular file (%s): a Paraver trace is read "
                     "from a file, whose end can be checked", path,
                     S_ISDIR(st.st_mode) ? "a folder" : S_ISFIFO(st.st_mode) ? "a pipe"
                     : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" : "not a file");
    if (rc == 0) {
        in->size = (uint64_t)st.st_size;
        if ((rc = read_raw(in, err)) < 0)
            tf_error_prefix(err, "%s: ", path);
    }
    /* RFC 1952 section 2.3.1: ID1 = 31, ID2 = 139. */
    in->gz = rc == 0 && in->zs.avail_in >= 2 && in->raw[0] == 0x1f && in->raw[1] == 0x8b;
    if (in->gz) {
        int zr = inflateInit2(&in->zs, 15 + 16);   /* 16: gzip wrapper only */
        in->zinit = zr == Z_OK;
        if (!in->zinit)
            rc = tf_fail(err, TF_ERR_NOMEM, "%s: cannot start decompressing: %s", path,
                         zError(zr));
    }
    if (rc < 0) {
        tf_prv_input_close(in);
        return rc;
    }
    *out = in;
    return 0;
}

void tf_prv_input_close(tf_prv_input *in)
{
    if (!in)
        return;
    if (in->zinit)
        inflateEnd(&in->zs);
    if (in->fd >= 0)
        close(in->fd);
    free(in->raw);
    free(in);
}

uint64_t tf_prv_input_file_size(const tf_prv_input *in) { return in->size; }

/* The bytes sniffed at opening first, then straight into the caller's
 * buffer: no second copy of the text. */
static int read_plain(tf_prv_input *in, char *buf, size_t size, size_t *got, tf_error *err)
{
    if (in->zs.avail_in) {
        size_t n = in->zs.avail_in < size ? in->zs.avail_in : size;
        memcpy(buf, in->zs.next_in, n);
        in->zs.next_in += n;
        in->zs.avail_in -= (uInt)n;
        *got = n;
        return 0;
    }
    ssize_t k;
    do
        k = read(in->fd, buf, size);
    while (k < 0 && errno == EINTR);
    if (k < 0)
        return tf_fail(err, TF_ERR_IO, "read error: %s", strerror(errno));
    *got = (size_t)k;
    return 0;
}

/* After a member's end (its CRC-32 and length checked by inflate), only
 * another member may follow (RFC 1952 section 2.2: a file is a series of
 * members), or the end of the file. */
static int next_member(tf_prv_input *in, tf_error *err)
{
    uint64_t at = in->raw_total - in->zs.avail_in;
    if (in->zs.avail_in == 0) {
        in->finished = true;
        return 0;
    }
    if (in->zs.next_in[0] != 0x1f || (in->zs.avail_in > 1 && in->zs.next_in[1] != 0x8b))
        return tf_fail(err, TF_ERR_FORMAT, "%" PRIu64 " bytes of garbage after the end of the "
                       "gzip stream (from byte %" PRIu64 " of the file)", in->size - at, at);
    in->member_end = false;
    return inflateReset(&in->zs) == Z_OK ? 0
           : tf_fail(err, TF_ERR_INTERNAL, "cannot restart decompressing at byte %" PRIu64, at);
}

static int read_gz(tf_prv_input *in, char *buf, size_t size, size_t *got, tf_error *err)
{
    in->zs.next_out = (Bytef *)buf;
    in->zs.avail_out = (uInt)size;
    if (in->zerr)
        return in->zerr == Z_MEM_ERROR
                   ? tf_fail(err, TF_ERR_NOMEM, "out of memory while decompressing")
                   : tf_fail(err, TF_ERR_FORMAT, "damaged gzip data near byte %" PRIu64
                             " of the file: %s", in->zerr_at, in->zs.msg ? in->zs.msg
                                                                      : zError(in->zerr));
    while (in->zs.avail_out == size && !in->finished) {
        int rc = read_raw(in, err);
        if (rc < 0)
            return rc;
        if (in->member_end) {
            if ((rc = next_member(in, err)) < 0)
                return rc;
            continue;
        }
        if (in->zs.avail_in == 0)
            return tf_fail(err, TF_ERR_FORMAT, "the gzip stream is cut short: the file ends "
                           "after %" PRIu64 " bytes, before the end of the compressed data "
                           "and its check", in->raw_total);
        int zr = inflate(&in->zs, Z_NO_FLUSH);
        if (zr == Z_STREAM_END) {
            in->member_end = true;
        } else if (zr != Z_OK && zr != Z_BUF_ERROR) {
            /* The text decompressed before the damage is read first, so the
             * message gives the line the damage reaches (a CRC-32 mismatch
             * shows at the end of its member). */
            in->zerr = zr;
            in->zerr_at = in->raw_total - in->zs.avail_in;
            if (in->zs.avail_out == size)
                return read_gz(in, buf, size, got, err);
        }
    }
    *got = size - in->zs.avail_out;
    return 0;
}

int tf_prv_input_read(tf_prv_input *in, char *buf, size_t size, size_t *got, tf_error *err)
{
    /* zlib counts in uInt: larger requests are served in parts. */
    if (size > UINT32_MAX)
        size = UINT32_MAX;
    *got = 0;
    return in->gz ? read_gz(in, buf, size, got, err) : read_plain(in, buf, size, got, err);
}
