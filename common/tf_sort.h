/* SPDX-License-Identifier: BSD-3-Clause */
/* Sorting in linear time: least-significant-byte radix sorts through a
 * buffer of n, skipping the bytes every key shares (line numbers and
 * addresses leave their upper bytes alike).  Stable, so keys sorted with
 * their indexes as payload come out tied by index.  Used where the count
 * can reach millions (a fold's samples, a run's allocations) and an
 * O(n log n) comparison sort showed in the profile. */
#ifndef TF_SORT_H
#define TF_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Sorts v[0..n) ascending.  False when out of memory (v unchanged). */
bool tf_sort_u32(uint32_t *v, size_t n);

/* Sorts key[0..n) ascending, moving payload[i] (may be NULL) with key[i].
 * False when out of memory (both unchanged). */
bool tf_sort_u64(uint64_t *key, uint32_t *payload, size_t n);

/* Sorts v[0..n) ascending (qsort: a NaN sorts as equal to everything). */
void tf_sort_double(double *v, size_t n);
/* The median of v[0..n), n > 0, the mean of the two middle values for an
 * even n; sorts v. */
double tf_median_sorted(double *v, size_t n);

#endif
