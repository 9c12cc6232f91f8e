/* SPDX-License-Identifier: BSD-3-Clause */
/* The writer's side of the small-block log (tf_small_log.h): the log is a
 * file the program writes, read here with every index taken modulo the
 * ring and every count checked against the file's size.  Entries are
 * taken from the threads' rings at every pass (and when a thread pokes,
 * its ring a quarter full) into the writer's memory, at most the log's
 * cap of them; at the end they become objects of kind TF_OBJECT_SMALL
 * whose one frame is the allocation call's return address (one frame per
 * distinct address, shared by its blocks).  Frees of small blocks are not
 * logged (that would cost free a lookup): a block ends when the next
 * logged block starts at its address, when the memory was demonstrably
 * given out again (docs/recorder.md, "Data objects"). */
#include "config.h"

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tf_small_log.h"
#include "tf_writer.h"

#define BATCH 4096

struct block {
    uint64_t addr, size, time, ret;
    uint64_t seq;           /* order taken: the order of equal times */
    uint64_t end;           /* free time: TF_NOTIME until a successor is seen */
};

struct tf_wsmall {
    tf_small_head *h;
    size_t   size;
    struct block *v;
    size_t   n, cap;        /* cap: grown up to the log's cap */
    uint64_t over;          /* entries past the log's cap, not kept */
};

static void log_path(char *buf, size_t size, const char *proc_file)
{
    snprintf(buf, size, "%s" TF_SMALL_LOG_SUFFIX, proc_file);
}

/* Maps the log; false when there is none (yet) or it is not one. */
static bool map_log(tf_wsmall *ws, const char *proc_file)
{
    char path[PATH_MAX + 16];
    log_path(path, sizeof path, proc_file);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    void *m = MAP_FAILED;
    if (!fstat(fd, &st) && (size_t)st.st_size >= sizeof(tf_small_head))
        m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return false;
    tf_small_head *h = m;
    uint64_t room = ((size_t)st.st_size - sizeof *h) / sizeof(tf_small_ring);
    if (h->magic != TF_SMALL_LOG_MAGIC || h->nrings > room) {
        munmap(m, (size_t)st.st_size);   /* not written yet, or not ours */
        return false;
    }
    ws->h = h;
    ws->size = (size_t)st.st_size;
    return true;
}

int tf_wsmall_drain(tf_wsmall **wsp, const char *proc_file, uint64_t now, tf_error *err)
{
    if (!*wsp && !(*wsp = calloc(1, sizeof **wsp)))
        return tf_fail(err, TF_ERR_NOMEM, "small-block log");
    tf_wsmall *ws = *wsp;
    if (!ws->h && !map_log(ws, proc_file))
        return 0;
    /* Only forward: the program may have written a later time. */
    uint64_t was = atomic_load(&ws->h->clock);
    while (was < now && !atomic_compare_exchange_weak(&ws->h->clock, &was, now))
        ;
    uint64_t cap = ws->h->cap;
    for (uint64_t k = 0, n = tf_small_rings_used(ws->h); k < n; k++) {
        tf_small_ring *r = &tf_small_rings(ws->h)[k];
        uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
        uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
        if (head - tail > TF_SMALL_RING)   /* a head the writer cannot trust */
            tail = head - TF_SMALL_RING;
        for (; tail != head; tail++) {
            if (ws->n >= cap) {
                ws->over += head - tail;
                atomic_store_explicit(&ws->h->full, 1, memory_order_relaxed);
                break;
            }
            if (ws->n == ws->cap) {
                size_t c = ws->cap ? 2 * ws->cap : 4096;
                struct block *v = realloc(ws->v, c * sizeof *v);
                if (!v)
                    return tf_fail(err, TF_ERR_NOMEM, "small-block log (%zu blocks)", ws->n);
                ws->v = v;
                ws->cap = c;
            }
            const tf_small_entry *e = &r->e[tail % TF_SMALL_RING];
            ws->v[ws->n] = (struct block){ e->addr, e->size, e->time, e->ret, ws->n, TF_NOTIME };
            ws->n++;
        }
        atomic_store_explicit(&r->tail, head, memory_order_release);
    }
    return 0;
}

void tf_wsmall_unlink(const char *proc_file)
{
    char path[PATH_MAX + 16];
    log_path(path, sizeof path, proc_file);
    unlink(path);
}

static int by_addr_time(const void *pa, const void *pb)
{
    const struct block *p = pa, *q = pb;
    if (p->addr != q->addr)
        return (p->addr > q->addr) - (p->addr < q->addr);
    if (p->time != q->time)
        return (p->time > q->time) - (p->time < q->time);
    return (p->seq > q->seq) - (p->seq < q->seq);
}

static int by_u64(const void *pa, const void *pb)
{
    uint64_t p = *(const uint64_t *)pa, q = *(const uint64_t *)pb;
    return (p > q) - (p < q);
}

/* Index of ret in the sorted distinct rets[0..n). */
static uint64_t rank_of(const uint64_t *rets, size_t n, uint64_t ret)
{
    size_t lo = 0, hi = n;
    while (lo + 1 < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rets[mid] <= ret)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static int write_objects(tf_wsmall *ws, tf_wobjects *o, tf_writer *w, uint32_t proc,
                         uint64_t mono0, tf_error *err)
{
    size_t k = ws->n;
    if (!k)
        return 0;
    uint64_t *rets = malloc(k * sizeof *rets);
    tf_object *out = malloc(BATCH * sizeof *out);
    int rc = 0;
    if (!rets || !out) {
        rc = tf_fail(err, TF_ERR_NOMEM, "small-block log of %zu blocks", k);
        goto done;
    }
    for (size_t i = 0; i < k; i++) {
        ws->v[i].time = ws->v[i].time > mono0 ? ws->v[i].time - mono0 : 0;
        rets[i] = ws->v[i].ret;
    }
    qsort(rets, k, sizeof *rets, by_u64);
    size_t nrets = 0;
    for (size_t i = 0; i < k; i++)
        if (!nrets || rets[i] != rets[nrets - 1])
            rets[nrets++] = rets[i];
    uint64_t first = 0;
    if (nrets && (rc = tf_writer_append_frames(w, proc, UINT32_MAX, rets, nrets, &first, err)))
        goto done;
    struct block *v = ws->v;
    qsort(v, k, sizeof *v, by_addr_time);
    for (size_t i = 0; i + 1 < k; i++)
        if (v[i + 1].addr == v[i].addr)
            v[i].end = v[i + 1].time;
    size_t nout = 0;
    for (size_t i = 0; !rc && i < k; i++) {
        out[nout++] = (tf_object){ .start = v[i].addr, .size = v[i].size,
                                   .alloc_time = v[i].time, .free_time = v[i].end,
                                   .stack = first + rank_of(rets, nrets, v[i].ret),
                                   .id = tf_wobjects_new_id(o), .stack_len = 1,
                                   .kind = TF_OBJECT_SMALL };
        if (nout == BATCH || i + 1 == k) {
            rc = tf_writer_append_objects(w, proc, out, nout, err);
            nout = 0;
        }
    }
done:
    free(rets);
    free(out);
    return rc;
}

int tf_wsmall_finish(tf_wsmall **wsp, const char *proc_file, tf_wobjects *o, tf_writer *w,
                     uint32_t proc, uint64_t mono0, tf_small_lost *lost, tf_error *err)
{
    *lost = (tf_small_lost){ 0 };
    int rc = tf_wsmall_drain(wsp, proc_file, 0, err);
    tf_wsmall *ws = *wsp;
    if (!rc && ws && ws->h) {
        for (uint64_t k = 0, n = tf_small_rings_used(ws->h); k < n; k++) {
            lost->ring += atomic_load(&tf_small_rings(ws->h)[k].lost);
            ws->over += atomic_load(&tf_small_rings(ws->h)[k].past);
        }
        lost->cap = ws->h->cap;
        lost->over = ws->over;
        rc = write_objects(ws, o, w, proc, mono0, err);
    }
    tf_wsmall_free(ws);
    *wsp = NULL;
    return rc;
}

void tf_wsmall_free(tf_wsmall *ws)
{
    if (!ws)
        return;
    if (ws->h)
        munmap(ws->h, ws->size);
    free(ws->v);
    free(ws);
}
