/* SPDX-License-Identifier: BSD-3-Clause */
/* Dense indices for 64-bit keys (event values, addresses), assigned in
 * order of first appearance, and the growable arrays that hold what they
 * index: the Paraver importer and exports number regions, call sites and
 * addresses with them. */
#ifndef TF_PRV_INDEX_H
#define TF_PRV_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tf_prv_index {
    uint64_t *keys;
    uint32_t *vals;
    size_t    n, cap;   /* n keys; cap a power of two; UINT64_MAX marks a free slot */
} tf_prv_index;

/* The index of key, which becomes n (the count so far) when new: *added
 * says so.  -1 when out of memory.  UINT64_MAX cannot be a key. */
int  tf_prv_index_get(tf_prv_index *x, uint64_t key, uint32_t *index, bool *added);
void tf_prv_index_free(tf_prv_index *x);

/* arr (of *cap elements of elem bytes) grown to hold need elements,
 * doubling from `first`: the new array, with *cap updated, or NULL (arr
 * untouched) when out of memory. */
void *tf_prv_grow(void *arr, size_t *cap, size_t need, size_t elem, size_t first);

#endif
