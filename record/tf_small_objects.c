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

/* A block as taken; its place in the writer's array is the order taken,
 * which decides between equal times (the sort below is stable). */
struct block {
    uint64_t addr, time, size, ret;
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
            ws->v[ws->n] = (struct block){ e->addr, e->time, e->size, e->ret };
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

/* Byte k of a block's sort key: bytes 0-7 its time, 8-15 its address,
 * least significant first. */
static unsigned key_byte(const struct block *b, unsigned k)
{
    return (unsigned)((k < 8 ? b->time >> (8 * k) : b->addr >> (8 * (k - 8))) & 0xff);
}

/* Orders the blocks by address, then time, then the order taken: a least
 * significant digit radix sort, one stable counting pass per byte of the
 * key (Knuth, TAOCP vol. 3, 5.2.5), the counts of every byte taken in one
 * read.  A byte that every block shares (the high bytes of heap addresses
 * and of times since the start) needs no pass, nor does the time when the
 * blocks were taken in time order (one thread's).  A million blocks sort
 * in a quarter to a third of the CPU time of qsort(3) with a comparison
 * function, which sorted them through an array of pointers and was, with
 * its copies, a third of the writer's CPU on an allocation-heavy program
 * (bench/RESULTS.md, "CPU time on real-code patterns").  The result is in
 * *v (tmp: room for n blocks, swapped with *v when the result ends there). */
static void sort_blocks(struct block **v, struct block **tmp, size_t n)
{
    size_t count[16][256];
    memset(count, 0, sizeof count);
    bool in_time_order = true;
    for (size_t i = 0; i < n; i++) {
        const struct block *b = &(*v)[i];
        in_time_order &= i == 0 || b[-1].time <= b->time;
        for (unsigned k = 0; k < 8; k++) {
            count[k][(b->time >> (8 * k)) & 0xff]++;
            count[8 + k][(b->addr >> (8 * k)) & 0xff]++;
        }
    }
    for (unsigned k = in_time_order ? 8 : 0; k < 16; k++) {
        if (count[k][key_byte(&(*v)[0], k)] == n)
            continue;
        size_t pos = 0;
        for (unsigned d = 0; d < 256; d++) {
            size_t c = count[k][d];
            count[k][d] = pos;
            pos += c;
        }
        const struct block *src = *v;
        for (size_t i = 0; i < n; i++)
            (*tmp)[count[k][key_byte(&src[i], k)]++] = src[i];
        struct block *t = *v;
        *v = *tmp;
        *tmp = t;
    }
}

/* The distinct call sites, each with its frame's index: an open-addressing
 * table (Knuth, TAOCP vol. 3, 6.4, linear probing), the sites being tens
 * where the blocks are up to millions, kept at most half full. */
struct site_table {
    uint64_t *key;          /* the return address plus one; 0: empty */
    uint64_t *rank;
    size_t    size, n;
};

static size_t site_slot(const struct site_table *t, uint64_t key)
{
    size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (t->size - 1);
    while (t->key[i] && t->key[i] != key)
        i = (i + 1) & (t->size - 1);
    return i;
}

static bool site_grow(struct site_table *t)
{
    struct site_table g = { calloc(2 * t->size, sizeof *g.key), malloc(2 * t->size * sizeof *g.rank),
                            2 * t->size, t->n };
    if (!g.key || !g.rank) {
        free(g.key);
        free(g.rank);
        return false;
    }
    for (size_t i = 0; i < t->size; i++)
        if (t->key[i]) {
            size_t j = site_slot(&g, t->key[i]);
            g.key[j] = t->key[i];
            g.rank[j] = t->rank[i];
        }
    free(t->key);
    free(t->rank);
    *t = g;
    return true;
}

static int write_objects(tf_wsmall *ws, tf_wobjects *o, tf_writer *w, uint32_t proc,
                         uint64_t mono0, tf_error *err)
{
    size_t k = ws->n;
    if (!k)
        return 0;
    struct site_table sites = { calloc(512, sizeof *sites.key), malloc(512 * sizeof *sites.rank),
                                512, 0 };
    uint64_t *rets = malloc(k * sizeof *rets);
    struct block *tmp = malloc(k * sizeof *tmp);
    tf_object *out = malloc(BATCH * sizeof *out);
    int rc = 0;
    if (!sites.key || !sites.rank || !rets || !tmp || !out) {
        rc = tf_fail(err, TF_ERR_NOMEM, "small-block log of %zu blocks", k);
        goto done;
    }
    /* The call sites in the order first seen, each one frame; the block's
     * ret becomes its frame's index past the first. */
    size_t nrets = 0;
    for (size_t i = 0; i < k; i++) {
        struct block *b = &ws->v[i];
        b->time = b->time > mono0 ? b->time - mono0 : 0;
        if (2 * (sites.n + 1) > sites.size && !site_grow(&sites)) {
            rc = tf_fail(err, TF_ERR_NOMEM, "small-block log of %zu blocks", k);
            goto done;
        }
        size_t j = site_slot(&sites, b->ret + 1);
        if (!sites.key[j]) {
            sites.key[j] = b->ret + 1;
            sites.rank[j] = nrets;
            rets[nrets++] = b->ret;
            sites.n++;
        }
        b->ret = sites.rank[j];
    }
    uint64_t first = 0;
    if ((rc = tf_writer_append_frames(w, proc, UINT32_MAX, rets, nrets, &first, err)))
        goto done;
    sort_blocks(&ws->v, &tmp, k);
    ws->cap = k;   /* *v may be tmp now */
    const struct block *v = ws->v;
    size_t nout = 0;
    for (size_t i = 0; !rc && i < k; i++) {
        /* A block ends when the next one at its address starts. */
        uint64_t end = i + 1 < k && v[i + 1].addr == v[i].addr ? v[i + 1].time : TF_NOTIME;
        out[nout++] = (tf_object){ .start = v[i].addr, .size = v[i].size,
                                   .alloc_time = v[i].time, .free_time = end,
                                   .stack = first + v[i].ret,
                                   .id = tf_wobjects_new_id(o), .stack_len = 1,
                                   .kind = TF_OBJECT_SMALL };
        if (nout == BATCH || i + 1 == k) {
            rc = tf_writer_append_objects(w, proc, out, nout, err);
            nout = 0;
        }
    }
done:
    free(sites.key);
    free(sites.rank);
    free(rets);
    free(tmp);
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
