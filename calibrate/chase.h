/* SPDX-License-Identifier: BSD-3-Clause */
/* Timed pointer chases: the measurement primitives of `tracefold calibrate`.
 * Every load depends on the previous one, so the time per load is the
 * latency of wherever the data sits, not a throughput the out-of-order core
 * or the prefetchers could hide; nodes are visited in a random order so that
 * no stride prefetcher can follow. */
#ifndef TF_CALIBRATE_CHASE_H
#define TF_CALIBRATE_CHASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/tf_error.h"

typedef struct tf_chase_arena {
    unsigned char *base;
    size_t         bytes;
    uint64_t       rng;       /* xorshift state: measurements are reproducible */
    size_t        *order;     /* scratch permutation, grown on demand */
    size_t         order_cap;
} tf_chase_arena;

/* Maps `bytes` of anonymous memory, 2 MiB aligned.  huge_pages asks for
 * transparent huge pages (cache measurements: no TLB misses, and physical
 * contiguity within 2 MiB so set-index bits above 4 KiB stay meaningful);
 * without, 4 KiB pages are forced (TLB measurements). */
int  tf_chase_arena_init(tf_chase_arena *a, size_t bytes, bool huge_pages, tf_error *err);
void tf_chase_arena_free(tf_chase_arena *a);

/* Nanoseconds per load of a random cyclic chase over `nodes` nodes placed
 * `spacing` bytes apart from the arena's start (node k at k*spacing +
 * (k*skew mod 4096), skew 0 for none), warmed by one pass, timed over
 * `loads` loads, best of `repeats`. */
double tf_chase_nodes(tf_chase_arena *a, size_t nodes, size_t spacing, size_t skew,
                      size_t loads, int repeats);

/* Nanoseconds per PAIR of loads: `blocks` blocks of `block` bytes visited in
 * random order; in each, the last word X is loaded, then X - s.  While s is
 * below the line (page) size the second load hits the line (page) the first
 * one brought in; from s = line (page) on it misses too.  Going downwards
 * keeps next-line prefetchers, which run upwards, from hiding the miss. */
double tf_chase_pairs(tf_chase_arena *a, size_t blocks, size_t block, size_t s,
                      size_t loads, int repeats);

#endif
