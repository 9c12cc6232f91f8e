/* SPDX-License-Identifier: BSD-3-Clause */
/* Growable arrays: the one place that doubles a capacity. */
#ifndef TF_ARRAY_H
#define TF_ARRAY_H

#include <stddef.h>

/* Room for element n of array v (capacity *cap, elements of elem bytes):
 * returns v when n < *cap, else v reallocated to twice the capacity
 * (min_cap the first time) with *cap updated.  Returns NULL when out of
 * memory, leaving v and *cap as they were.  Not for signal handlers. */
void *tf_array_room(void *v, size_t n, size_t *cap, size_t elem, size_t min_cap);

#endif
