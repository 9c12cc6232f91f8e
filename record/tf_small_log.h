/* SPDX-License-Identifier: BSD-3-Clause */
/* The log of small heap blocks (below heap-threshold), shared by the
 * library, which appends, and the writer, which turns it into objects of
 * kind TF_OBJECT_SMALL when the process ends (docs/recorder.md, "Small
 * blocks").  A file beside the process's control file, append-only and of
 * a fixed number of entries (option small-blocks): the memory it takes is
 * bounded and only the pages used are ever touched.  Threads claim entries
 * in chunks, so the shared index is touched once per chunk. */
#ifndef TF_SMALL_LOG_H
#define TF_SMALL_LOG_H

#include <stdatomic.h>
#include <stdint.h>

#define TF_SMALL_LOG_SUFFIX ".small"
#define TF_SMALL_LOG_MAGIC  0x31676f6c6c616d73ull   /* "smalllog1" */
/* Entries a thread claims at once. */
#define TF_SMALL_LOG_CHUNK  64

typedef struct tf_small_head {
    uint64_t magic;
    uint64_t cap;                  /* entries after the head */
    _Atomic uint64_t next;         /* entries claimed; >= cap: the log is full */
    /* The latest time (CLOCK_MONOTONIC ns) the recorder or the writer
     * read: an allocation takes it as its time rather than reading a
     * clock (docs/recorder.md says how close it is). */
    _Atomic uint64_t clock;
    uint64_t pad[4];
} tf_small_head;

typedef struct tf_small_entry {
    uint64_t addr;
    /* The allocation call's return address; 0 while the entry is being
     * written (or was never finished). */
    _Atomic uint64_t ret;
    uint64_t size;
    uint64_t time;                 /* the head's clock then, plus one (after it) */
} tf_small_entry;

static inline tf_small_entry *tf_small_entries(tf_small_head *h)
{
    return (tf_small_entry *)(h + 1);
}

#endif
