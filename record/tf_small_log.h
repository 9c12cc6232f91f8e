/* SPDX-License-Identifier: BSD-3-Clause */
/* The log of small heap blocks (below heap-threshold), shared by the
 * library, which appends, and the writer, which drains it and turns what
 * it took into objects of kind TF_OBJECT_SMALL when the process ends
 * (docs/recorder.md, "Data objects").  A file beside the process's control
 * file holding one ring per thread slot (single producer, the writer the
 * consumer): an entry is written into memory the thread has written
 * before, not a fresh page (a first touch of a page of shared memory cost
 * about 60 µs on the project's VM, 460 ns per 32-byte entry), and the
 * memory the program's process uses is bounded by the rings; the writer
 * keeps at most `cap` entries (option small-blocks) and counts the rest. */
#ifndef TF_SMALL_LOG_H
#define TF_SMALL_LOG_H

#include <stdatomic.h>
#include <stdint.h>

#define TF_SMALL_LOG_SUFFIX ".small"
#define TF_SMALL_LOG_MAGIC  0x33676f6c6c616d73ull   /* "smallog3" */
/* Entries of each thread's ring (512 KiB, touched once): a quarter of it
 * pokes the writer, which then has 12 Ki more allocations' time to take
 * them; a full ring makes the thread wait for the writer, a bounded time
 * (tf_heap.c, small_ring_wait), and the blocks it then refuses are
 * counted and said at the end. */
#define TF_SMALL_RING       16384

typedef struct tf_small_entry {
    uint64_t addr;
    uint64_t ret;                  /* the allocation call's return address */
    uint64_t size;
    uint64_t time;                 /* the head's clock then, plus one (after it) */
} tf_small_entry;

typedef struct tf_small_ring {
    _Atomic uint64_t head;         /* entries written (the thread's) */
    uint64_t pad0[7];
    _Atomic uint64_t tail;         /* entries taken (the writer's) */
    _Atomic uint64_t lost;         /* entries refused, the ring full */
    _Atomic uint64_t past;         /* blocks not logged, the log's cap reached */
    uint64_t pad1[5];
    tf_small_entry e[TF_SMALL_RING];
} tf_small_ring;

typedef struct tf_small_head {
    uint64_t magic;
    uint64_t nrings;               /* rings after the head, one per thread slot */
    uint64_t cap;                  /* entries the writer keeps (option small-blocks) */
    /* The latest time (CLOCK_MONOTONIC ns) the recorder or the writer
     * read: an allocation takes it as its time rather than reading a
     * clock (docs/recorder.md says how close it is). */
    _Atomic uint64_t clock;
    /* Rings that a thread has taken (the highest slot plus one): the
     * writer reads no further, rather than touching the head of each of
     * the nrings rings, a page apart, at every pass. */
    _Atomic uint64_t nused;
    /* Set by the writer once it keeps its cap of blocks: threads then
     * only count theirs (past), rather than fill rings the writer would
     * wake for only to count them. */
    _Atomic uint64_t full;
    uint64_t pad[2];
} tf_small_head;

/* The rings the writer reads: those taken, within those the log has. */
static inline uint64_t tf_small_rings_used(tf_small_head *h)
{
    uint64_t n = atomic_load_explicit(&h->nused, memory_order_acquire);
    return n < h->nrings ? n : h->nrings;
}

static inline tf_small_ring *tf_small_rings(tf_small_head *h)
{
    return (tf_small_ring *)(h + 1);
}

#endif
