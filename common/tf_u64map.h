/* SPDX-License-Identifier: BSD-3-Clause */
/* A map of nonzero 64-bit keys to 64-bit values: open addressing (Knuth,
 * TAOCP vol. 3, 6.4, linear probing, a multiplicative hash), kept at most
 * half full.  For the tables a loop over millions of elements consults
 * once per element with few distinct keys: the writer's call sites and
 * latest block at each address of the small-block log, the object
 * namer's small-block sites. */
#ifndef TF_U64MAP_H
#define TF_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tf_u64map {
    uint64_t *key;     /* 0: empty */
    uint64_t *value;
    size_t    size, n;
} tf_u64map;

/* An empty map of room for size / 2 keys (size a power of two) before it
 * grows; false when out of memory (*m then safe to free). */
bool tf_u64map_init(tf_u64map *m, size_t size);
void tf_u64map_free(tf_u64map *m);

/* The value of key (nonzero), added as 0 when absent (*added then true),
 * the map doubled first when half full; NULL when out of memory.  Valid
 * until the next call that adds. */
uint64_t *tf_u64map_at(tf_u64map *m, uint64_t key, bool *added);

#endif
