/* SPDX-License-Identifier: BSD-3-Clause */
/* Room on disk for a trace to be closed.
 *
 * HDF5 does not survive a write that fails half-way: a flush that runs
 * out of space leaves metadata pointing past the end of the file, and the
 * trace cannot be opened at all.  So the writer keeps a reserve of disk
 * blocks allocated beyond the end of each trace (fallocate(2) with
 * FALLOC_FL_KEEP_SIZE: the blocks are the file's, its size does not
 * change) and renews it before each drain.  When the reserve cannot be
 * renewed (a full file system, or the file size limit, RLIMIT_FSIZE, which
 * fallocate does not check for blocks beyond the size) the trace is closed
 * at once, writing into the reserve, and is left readable and marked
 * incomplete.  What is left of the reserve after the close is given back.
 *
 * File systems without fallocate (EOPNOTSUPP) get no reserve: a full
 * disk there still stops the trace, but the file may be unreadable. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tf_writer.h"

int tf_reserve_open(tf_reserve *r, const char *path, uint64_t size, tf_error *err)
{
    r->size = size;
    r->supported = true;
    r->renewed_end = UINT64_MAX;
    r->fd = open(path, O_WRONLY | O_CLOEXEC);
    if (r->fd < 0)
        return tf_fail(err, TF_ERR_IO, "%s: cannot open to reserve disk space: %s", path,
                       strerror(errno));
    return 0;
}

int tf_reserve_renew(tf_reserve *r, const char *path, tf_error *err)
{
    struct stat st;
    if (r->fd < 0 || !r->supported)
        return 0;
    if (fstat(r->fd, &st))
        return tf_fail(err, TF_ERR_IO, "%s: %s", path, strerror(errno));
    /* The writer renews before every drain, twenty times a second, and a
     * fallocate costs a journal update even when it allocates nothing. */
    if ((uint64_t)st.st_size == r->renewed_end)
        return 0;
    uint64_t end = (uint64_t)st.st_size + r->size;
    struct rlimit rl;
    if (!getrlimit(RLIMIT_FSIZE, &rl) && rl.rlim_cur != RLIM_INFINITY && end > rl.rlim_cur)
        return tf_fail(err, TF_ERR_IO,
                       "%s: the file size limit (ulimit -f, %llu bytes) leaves no room for "
                       "%llu more bytes", path, (unsigned long long)rl.rlim_cur,
                       (unsigned long long)r->size);
    if (!fallocate(r->fd, FALLOC_FL_KEEP_SIZE, st.st_size, (off_t)r->size)) {
        r->renewed_end = (uint64_t)st.st_size;
        return 0;
    }
    if (errno == EOPNOTSUPP || errno == ENOSYS) {
        r->supported = false;
        return 0;
    }
    if (errno == ENOSPC || errno == EDQUOT)
        return tf_fail(err, TF_ERR_IO,
                       "%s: the file system is full (less than the %llu KiB free that closing "
                       "the trace needs)", path, (unsigned long long)(r->size >> 10));
    return tf_fail(err, TF_ERR_IO, "%s: cannot reserve disk space: %s", path, strerror(errno));
}

void tf_reserve_release(tf_reserve *r)
{
    struct stat st;
    if (r->fd < 0)
        return;
    /* Truncating to the same size frees the blocks beyond it (ext4 and
     * tmpfs; punching a hole there does not on ext4). */
    if (r->supported && !fstat(r->fd, &st) && ftruncate(r->fd, st.st_size) < 0)
        r->supported = false;   /* the blocks stay the file's: nothing else to try */
    close(r->fd);
    r->fd = -1;
}
