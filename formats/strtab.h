/* SPDX-License-Identifier: BSD-3-Clause */
/* Interned strings of a trace: id -> string and string -> id, shared by the
 * trace output (interning) and the reader (lookups).  Internal to formats/. */
#ifndef TF_STRTAB_H
#define TF_STRTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct tf_strtab {
    char    **strings;   /* id -> owned copy */
    size_t    n, cap;
    uint32_t *slots;     /* open-addressing hash: id + 1, 0 = empty */
    size_t    nslots;    /* a power of two, at least twice n */
} tf_strtab;

void tf_strtab_init(tf_strtab *t);
void tf_strtab_free(tf_strtab *t);
bool tf_strtab_find(const tf_strtab *t, const char *s, uint32_t *id);
/* Adds a copy of s, which must not be present yet; false when out of memory
 * or past UINT32_MAX strings. */
bool tf_strtab_add(tf_strtab *t, const char *s, uint32_t *id);

#endif
