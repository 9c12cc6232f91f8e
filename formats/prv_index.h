/* SPDX-License-Identifier: BSD-3-Clause */
/* Dense indices for 64-bit keys (event values, addresses), assigned in
 * order of first appearance: the Paraver importer and exporters number
 * regions, call sites and addresses with it. */
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

#endif
