/* SPDX-License-Identifier: BSD-3-Clause */
/* Interned strings: each distinct string stored once, numbered in order
 * of first use, found by hash (FNV-1a, open addressing).  For labels that
 * repeat over millions of records: object names by call site, their
 * Paraver values. */
#ifndef TF_STRPOOL_H
#define TF_STRPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tf_strpool {
    char    **s;        /* s[i]: string number i, malloc'ed */
    size_t    n, cap;
    uint32_t *slot;     /* number + 1, 0 empty */
    size_t    slots;    /* a power of two, more than twice n */
} tf_strpool;           /* zero-initialised: empty */

/* The number of str, a copy added when new (*added set then, when
 * added is not NULL); -1 when out of memory. */
int64_t tf_strpool_add(tf_strpool *pool, const char *str, bool *added);
/* Frees the strings still in s[0..n) and the tables. */
void tf_strpool_free(tf_strpool *pool);

#endif
