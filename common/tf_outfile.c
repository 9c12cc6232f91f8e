/* SPDX-License-Identifier: BSD-3-Clause */
#include "tf_outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tf_handoff.h"

/* Bytes per buffer: a write(2) each, large enough that the calls cost
 * nothing beside the copy. */
#define OUTFILE_BUFFER (1u << 20)

struct tf_outfile {
    char       *path;
    int         fd;
    char       *buf[2];
    size_t      len;        /* bytes in buf[k] */
    size_t      size[2];    /* bytes of each buffer handed over */
    unsigned    k;          /* the buffer being filled */
    uint64_t    total;      /* bytes appended */
    bool        behind;     /* full buffers go to the thread */
    pthread_t   thread;
    tf_handoff  h;
    atomic_int  error;      /* errno of the first failed write, 0 */
};

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void *write_behind(void *arg)
{
    tf_outfile *f = arg;
    for (unsigned k = 0; tf_handoff_take(&f->h, k); k ^= 1) {
        int e = atomic_load(&f->error);
        if (!e && (e = write_all(f->fd, f->buf[k], f->size[k])))
            atomic_store(&f->error, e);
        tf_handoff_release(&f->h, k, e != 0);
    }
    return NULL;
}

int tf_outfile_open(tf_outfile **out, const char *path, tf_error *err)
{
    *out = NULL;
    tf_outfile *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(path)) || !(f->buf[0] = malloc(OUTFILE_BUFFER))) {
        if (f)
            free(f->path);
        free(f);
        return tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", path);
    }
    f->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (f->fd < 0) {
        int e = errno;
        free(f->buf[0]);
        free(f->path);
        free(f);
        return tf_fail(err, TF_ERR_IO, "%s: cannot create: %s", path, strerror(e));
    }
    atomic_init(&f->error, 0);
    *out = f;
    return 0;
}

void tf_outfile_write_behind(tf_outfile *f)
{
    if (f->behind || f->len || !(f->buf[1] = malloc(OUTFILE_BUFFER)))
        return;
    tf_handoff_init(&f->h);
    if (pthread_create(&f->thread, NULL, write_behind, f) != 0) {
        tf_handoff_destroy(&f->h);
        free(f->buf[1]);
        f->buf[1] = NULL;
        return;
    }
    f->behind = true;
}

/* Hands the buffer being filled over (or writes it), leaving an empty one. */
static int flush(tf_outfile *f)
{
    if (!f->behind) {
        int e = f->len ? write_all(f->fd, f->buf[0], f->len) : 0;
        f->len = 0;
        if (e)
            atomic_store(&f->error, e);
        errno = e;
        return e ? -1 : 0;
    }
    f->size[f->k] = f->len;
    tf_handoff_put(&f->h, f->k);
    f->k ^= 1;
    f->len = 0;
    if (!tf_handoff_wait_empty(&f->h, f->k)) {
        errno = atomic_load(&f->error);
        return -1;
    }
    return 0;
}

int tf_outfile_write(tf_outfile *f, const void *p, size_t n)
{
    const char *s = p;
    int e = atomic_load_explicit(&f->error, memory_order_relaxed);
    if (e) {
        errno = e;
        return -1;
    }
    f->total += n;
    while (n) {
        size_t take = OUTFILE_BUFFER - f->len < n ? OUTFILE_BUFFER - f->len : n;
        memcpy(f->buf[f->k] + f->len, s, take);
        f->len += take;
        s += take;
        n -= take;
        if (f->len == OUTFILE_BUFFER && flush(f) < 0)
            return -1;
    }
    return 0;
}

uint64_t tf_outfile_tell(const tf_outfile *f)
{
    return f->total;
}

/* Stops the thread once every buffer handed over is written. */
static void end_behind(tf_outfile *f)
{
    if (!f->behind)
        return;
    tf_handoff_end(&f->h);
    pthread_join(f->thread, NULL);
    tf_handoff_destroy(&f->h);
    f->behind = false;
}

static void release(tf_outfile *f)
{
    free(f->buf[0]);
    free(f->buf[1]);
    free(f->path);
    free(f);
}

int tf_outfile_close(tf_outfile *f, tf_error *err)
{
    int e = f->len && f->behind ? (flush(f) < 0 ? errno : 0) : 0;
    end_behind(f);
    if (!e)
        e = atomic_load(&f->error);
    if (!e && f->len)
        e = write_all(f->fd, f->buf[f->k], f->len);
    if (close(f->fd) != 0 && !e)
        e = errno;
    int rc = e ? tf_fail(err, TF_ERR_IO, "%s: write error: %s", f->path, strerror(e)) : 0;
    release(f);
    return rc;
}

void tf_outfile_abort(tf_outfile *f)
{
    if (!f)
        return;
    if (f->behind) {
        /* Nothing more is put: the thread writes what it has and ends. */
        end_behind(f);
    }
    close(f->fd);
    release(f);
}
