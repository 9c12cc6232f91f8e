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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/tf_memory.h"
#include "common/tf_u64map.h"
#include "record/tf_small_log.h"
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

/* Room for the blocks to come, backed by huge pages (tf_malloc_large): a
 * million blocks are 32 MiB, twice that while they are sorted, and on the
 * project's VM their first touch in 4 KiB pages was a quarter of the
 * writer's CPU on an allocation-heavy program (bench/RESULTS.md, "CPU
 * time on real-code patterns").  At once room for the log's cap, up to
 * GROW_AT_ONCE bytes: memory is touched only as blocks come, so a log
 * that keeps few costs no more, and one that fills is not copied as it
 * grows; past that, four times as many each time. */
#define GROW_AT_ONCE ((size_t)64 << 20)
static bool grow(tf_wsmall *ws, uint64_t cap)
{
    size_t c = ws->cap ? 4 * ws->cap : GROW_AT_ONCE / sizeof *ws->v;
    if (c > cap && cap > ws->cap)
        c = (size_t)cap;
    struct block *v = tf_malloc_large(c * sizeof *v);
    if (!v)
        return false;
    if (ws->n)
        memcpy(v, ws->v, ws->n * sizeof *v);
    free(ws->v);
    ws->v = v;
    ws->cap = c;
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
            if (ws->n == ws->cap && !grow(ws, cap))
                return tf_fail(err, TF_ERR_NOMEM, "small-block log (%zu blocks)", ws->n);
            /* The entries were written on the program's CPU: their lines
             * come from another core's cache, so ask for them well ahead
             * (8 entries, 4 lines) and let the misses overlap. */
            __builtin_prefetch(&r->e[(tail + 8) % TF_SMALL_RING]);
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

/* One digit of the sort key: `bits` bits from bit `shift` of a block's
 * time. */
struct digit {
    unsigned shift, bits;
};

#define DIGIT_BITS_MAX 11    /* 2048 counters of a pass: 16 KiB, in the L1 cache */
#define DIGITS_MAX     6     /* of 11 bits for a 64-bit time */

/* The digits covering the bits in which the times differ (mask: the OR
 * of every time XOR the first), from the lowest: as few passes of at most
 * DIGIT_BITS_MAX bits as cover them, of even widths. */
static unsigned plan_digits(struct digit *d, uint64_t mask)
{
    if (!mask)
        return 0;
    unsigned lo = (unsigned)__builtin_ctzll(mask), hi = 64 - (unsigned)__builtin_clzll(mask);
    unsigned passes = (hi - lo + DIGIT_BITS_MAX - 1) / DIGIT_BITS_MAX;
    unsigned bits = (hi - lo + passes - 1) / passes;
    for (unsigned k = 0; k < passes; k++) {
        unsigned shift = lo + k * bits;
        d[k] = (struct digit){ shift, hi - shift < bits ? hi - shift : bits };
    }
    return passes;
}

static size_t digit_of(const struct block *b, const struct digit *d)
{
    return (size_t)((b->time >> d->shift) & ((1u << d->bits) - 1));
}

/* Orders the blocks by time, then the order taken: a least significant
 * digit radix sort of the times' differing bits, one stable counting pass
 * per digit (Knuth, TAOCP vol. 3, 5.2.5), the counts of every digit taken
 * in one read.  Blocks taken in time order (one thread's, the common case)
 * need no pass and no second array; else *tmp is made (room for n blocks)
 * and the result, in *v or *tmp, is left in *v (the other in *tmp).
 * False when out of memory (*v unchanged). */
static bool order_by_time(struct block **v, struct block **tmp, size_t n)
{
    const struct block *b = *v;
    uint64_t tmask = 0;
    bool in_time_order = true;
    for (size_t i = 1; i < n; i++) {
        tmask |= b[i].time ^ b[0].time;
        in_time_order &= b[i - 1].time <= b[i].time;
    }
    if (in_time_order)
        return true;
    struct digit d[DIGITS_MAX];
    unsigned nd = plan_digits(d, tmask);
    size_t (*count)[1u << DIGIT_BITS_MAX] = calloc(nd, sizeof *count);
    if (!count || !(*tmp = tf_malloc_large(n * sizeof **tmp))) {
        free(count);
        return false;
    }
    for (size_t i = 0; i < n; i++)
        for (unsigned k = 0; k < nd; k++)
            count[k][digit_of(&b[i], &d[k])]++;
    for (unsigned k = 0; k < nd; k++) {
        size_t pos = 0;
        for (size_t x = 0; x < (1u << d[k].bits); x++) {
            size_t c = count[k][x];
            count[k][x] = pos;
            pos += c;
        }
        const struct block *src = *v;
        struct block *dst = *tmp;
        for (size_t i = 0; i < n; i++)
            dst[count[k][digit_of(&src[i], &d[k])]++] = src[i];
        *tmp = *v;
        *v = dst;
    }
    free(count);
    return true;
}

/* end[i]: when block i ends, the start of the next block at its address
 * in v's order (time, then the order taken), TF_NOTIME for the last. */
static bool block_ends(const struct block *v, size_t n, uint64_t *end)
{
    tf_u64map latest;   /* address -> the latest block there; thousands of addresses */
    bool ok = tf_u64map_init(&latest, 4096);
    for (size_t i = 0; ok && i < n; i++) {
        end[i] = TF_NOTIME;
        if (!v[i].addr)   /* a spoilt entry (tf_heap.c): 0 is the map's empty key */
            continue;
        bool added;
        uint64_t *at = tf_u64map_at(&latest, v[i].addr, &added);
        if (!(ok = at != NULL))
            break;
        if (!added)
            end[*at] = v[i].time;
        *at = i;
    }
    tf_u64map_free(&latest);
    return ok;
}

static int write_objects(tf_wsmall *ws, tf_wobjects *o, tf_trace_out *w, uint32_t proc,
                         uint64_t mono0, tf_error *err)
{
    size_t k = ws->n;
    if (!k)
        return 0;
    tf_u64map sites;   /* the return address plus one -> its rank; tens of sites */
    bool sites_made = tf_u64map_init(&sites, 512);
    uint64_t *rets = malloc(k * sizeof *rets);
    struct block *tmp = NULL;
    uint64_t *end = NULL;
    tf_object *out = malloc(BATCH * sizeof *out);
    int rc = 0;
    if (!sites_made || !rets || !out) {
        rc = tf_fail(err, TF_ERR_NOMEM, "small-block log of %zu blocks", k);
        goto done;
    }
    /* The call sites in the order first seen, each one frame; the block's
     * ret becomes its frame's index past the first. */
    size_t nrets = 0;
    for (size_t i = 0; i < k; i++) {
        struct block *b = &ws->v[i];
        b->time = b->time > mono0 ? b->time - mono0 : 0;
        bool added;
        uint64_t *rank = tf_u64map_at(&sites, b->ret + 1, &added);
        if (!rank) {
            rc = tf_fail(err, TF_ERR_NOMEM, "small-block log of %zu blocks", k);
            goto done;
        }
        if (added) {
            *rank = nrets;
            rets[nrets++] = b->ret;
        }
        b->ret = *rank;
    }
    uint64_t first = 0;
    if ((rc = tf_trace_out_append_frames(w, proc, UINT32_MAX, rets, nrets, &first, err)))
        goto done;
    if (!order_by_time(&ws->v, &tmp, k)) {
        rc = tf_fail(err, TF_ERR_NOMEM, "small-block log of %zu blocks", k);
        goto done;
    }
    ws->cap = k;   /* *v may be tmp now */
    /* the sort's spare array holds the ends when there is one */
    end = tmp ? (uint64_t *)tmp : tf_malloc_large(k * sizeof *end);
    if (!end || !block_ends(ws->v, k, end)) {
        rc = tf_fail(err, TF_ERR_NOMEM, "small-block log of %zu blocks", k);
        goto done;
    }
    const struct block *v = ws->v;
    size_t nout = 0;
    for (size_t i = 0; !rc && i < k; i++) {
        out[nout++] = (tf_object){ .start = v[i].addr, .size = v[i].size,
                                   .alloc_time = v[i].time, .free_time = end[i],
                                   .stack = first + v[i].ret,
                                   .id = tf_wobjects_new_id(o), .stack_len = 1,
                                   .kind = TF_OBJECT_SMALL };
        if (nout == BATCH || i + 1 == k) {
            rc = tf_trace_out_append_objects(w, proc, out, nout, err);
            nout = 0;
        }
    }
done:
    tf_u64map_free(&sites);
    free(rets);
    if (end != (uint64_t *)tmp)
        free(end);
    free(tmp);
    free(out);
    return rc;
}

int tf_wsmall_finish(tf_wsmall **wsp, const char *proc_file, tf_wobjects *o, tf_trace_out *w,
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
