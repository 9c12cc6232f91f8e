/* SPDX-License-Identifier: BSD-3-Clause */
#include "strtab.h"

#include <stdlib.h>
#include <string.h>

#include "common/tf_hash.h"

void tf_strtab_init(tf_strtab *t)
{
    memset(t, 0, sizeof *t);
}

void tf_strtab_free(tf_strtab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->strings[i]);
    free(t->strings);
    free(t->slots);
    tf_strtab_init(t);
}

static size_t probe(const tf_strtab *t, const char *s, bool *found)
{
    size_t mask = t->nslots - 1;
    size_t i = tf_fnv_string(TF_FNV_OFFSET, s) & mask;
    while (t->slots[i] && strcmp(t->strings[t->slots[i] - 1], s) != 0)
        i = (i + 1) & mask;
    *found = t->slots[i] != 0;
    return i;
}

bool tf_strtab_find(const tf_strtab *t, const char *s, uint32_t *id)
{
    if (!t->nslots)
        return false;
    bool found;
    size_t i = probe(t, s, &found);
    if (found)
        *id = t->slots[i] - 1;
    return found;
}

static bool rehash(tf_strtab *t, size_t nslots)
{
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots)
        return false;
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
    for (size_t id = 0; id < t->n; id++) {
        bool found;
        t->slots[probe(t, t->strings[id], &found)] = (uint32_t)id + 1;
    }
    return true;
}

bool tf_strtab_add(tf_strtab *t, const char *s, uint32_t *id)
{
    if (t->n >= UINT32_MAX - 1)
        return false;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        char **strings = realloc(t->strings, cap * sizeof *strings);
        if (!strings)
            return false;
        t->strings = strings;
        t->cap = cap;
    }
    if (2 * (t->n + 1) > t->nslots && !rehash(t, t->nslots ? 2 * t->nslots : 128))
        return false;
    char *copy = strdup(s);
    if (!copy)
        return false;
    t->strings[t->n] = copy;
    bool found;
    t->slots[probe(t, copy, &found)] = (uint32_t)t->n + 1;
    *id = (uint32_t)t->n++;
    return true;
}
