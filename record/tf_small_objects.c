/* SPDX-License-Identifier: BSD-3-Clause */
/* The writer's side of the small-block log (tf_small_log.h): the log is a
 * file the program wrote, read here with every count checked against the
 * file's size.  Its entries become objects of kind TF_OBJECT_SMALL whose
 * one frame is the allocation call's return address (one frame per
 * distinct address, shared by its blocks).  Frees of small blocks are not
 * logged (that would cost free a lookup): a block ends when the next
 * logged block starts at its address, which is when the memory was
 * demonstrably given out again (docs/recorder.md, "Small blocks"). */
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

static void log_path(char *buf, size_t size, const char *proc_file)
{
    snprintf(buf, size, "%s" TF_SMALL_LOG_SUFFIX, proc_file);
}

/* The log mapped, with its usable entries; NULL when there is none or it
 * is not one (the program died before writing its head). */
static tf_small_head *map_log(const char *proc_file, size_t *size, uint64_t *n)
{
    char path[PATH_MAX + 16];
    log_path(path, sizeof path, proc_file);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    void *m = MAP_FAILED;
    if (!fstat(fd, &st) && (size_t)st.st_size >= sizeof(tf_small_head))
        m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return NULL;
    tf_small_head *h = m;
    uint64_t room = ((size_t)st.st_size - sizeof *h) / sizeof(tf_small_entry);
    if (h->magic != TF_SMALL_LOG_MAGIC || h->cap > room) {
        munmap(m, (size_t)st.st_size);
        return NULL;
    }
    uint64_t next = atomic_load(&h->next);
    *n = next < h->cap ? next : h->cap;
    *size = (size_t)st.st_size;
    return h;
}

void tf_small_objects_tick(const char *proc_file, uint64_t now)
{
    size_t size;
    uint64_t n;
    tf_small_head *h = map_log(proc_file, &size, &n);
    if (!h)
        return;
    /* Only forward: the program may have written a later time. */
    uint64_t was = atomic_load(&h->clock);
    while (was < now && !atomic_compare_exchange_weak(&h->clock, &was, now))
        ;
    munmap(h, size);
}

void tf_small_objects_unlink(const char *proc_file)
{
    char path[PATH_MAX + 16];
    log_path(path, sizeof path, proc_file);
    unlink(path);
}

struct block {
    uint64_t addr, size, time, ret;
    uint64_t seq;           /* position in the log: the order of equal times */
    uint64_t end;           /* free time: TF_NOTIME until a successor is seen */
    uint64_t stack;         /* index of its frame */
};

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

int tf_small_objects_finish(const char *proc_file, tf_wobjects *o, tf_writer *w, uint32_t proc,
                            uint64_t mono0, uint64_t *full, tf_error *err)
{
    size_t size;
    uint64_t n;
    *full = 0;
    tf_small_head *h = map_log(proc_file, &size, &n);
    if (!h)
        return 0;
    if (atomic_load(&h->next) >= h->cap)
        *full = h->cap;
    struct block *v = malloc((n ? n : 1) * sizeof *v);
    uint64_t *rets = malloc((n ? n : 1) * sizeof *rets);
    tf_object *out = malloc(BATCH * sizeof *out);
    int rc = 0;
    if (!v || !rets || !out) {
        rc = tf_fail(err, TF_ERR_NOMEM, "small-block log of %" PRIu64 " entries", n);
        goto done;
    }
    const tf_small_entry *e = tf_small_entries(h);
    size_t k = 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t ret = atomic_load_explicit(&((tf_small_entry *)&e[i])->ret, memory_order_acquire);
        if (!ret)   /* claimed, never finished */
            continue;
        uint64_t t = e[i].time > mono0 ? e[i].time - mono0 : 0;
        v[k] = (struct block){ e[i].addr, e[i].size, t, ret, i, TF_NOTIME, 0 };
        rets[k++] = ret;
    }
    qsort(rets, k, sizeof *rets, by_u64);
    size_t nrets = 0;
    for (size_t i = 0; i < k; i++)
        if (!nrets || rets[i] != rets[nrets - 1])
            rets[nrets++] = rets[i];
    uint64_t first = 0;
    if (nrets && (rc = tf_writer_append_frames(w, proc, UINT32_MAX, rets, nrets, &first, err)))
        goto done;
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
    free(v);
    free(rets);
    free(out);
    munmap(h, size);
    return rc;
}
