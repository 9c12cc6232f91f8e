/* SPDX-License-Identifier: BSD-3-Clause */
#include "tf_u64map.h"

#include <stdlib.h>

bool tf_u64map_init(tf_u64map *m, size_t size)
{
    *m = (tf_u64map){ calloc(size, sizeof *m->key), malloc(size * sizeof *m->value), size, 0 };
    return m->key && m->value;
}

void tf_u64map_free(tf_u64map *m)
{
    free(m->key);
    free(m->value);
    *m = (tf_u64map){ 0 };
}

static size_t slot_of(const tf_u64map *m, uint64_t key)
{
    size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 32) & (m->size - 1);
    while (m->key[i] && m->key[i] != key)
        i = (i + 1) & (m->size - 1);
    return i;
}

static bool grow(tf_u64map *m)
{
    tf_u64map g;
    if (!tf_u64map_init(&g, 2 * m->size)) {
        tf_u64map_free(&g);
        return false;
    }
    for (size_t i = 0; i < m->size; i++)
        if (m->key[i]) {
            size_t j = slot_of(&g, m->key[i]);
            g.key[j] = m->key[i];
            g.value[j] = m->value[i];
        }
    g.n = m->n;
    tf_u64map_free(m);
    *m = g;
    return true;
}

uint64_t *tf_u64map_at(tf_u64map *m, uint64_t key, bool *added)
{
    size_t j = slot_of(m, key);
    *added = !m->key[j];
    if (*added) {
        if (2 * (m->n + 1) > m->size) {
            if (!grow(m))
                return NULL;
            j = slot_of(m, key);
        }
        m->key[j] = key;
        m->value[j] = 0;
        m->n++;
    }
    return &m->value[j];
}
