/* SPDX-License-Identifier: BSD-3-Clause */
#include "prv_index.h"

#include <stdlib.h>
#include <string.h>

/* Open addressing with linear probing, kept at most half full. */
static size_t slot(const tf_prv_index *x, uint64_t key)
{
    size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (x->cap - 1);
    while (x->keys[h] != UINT64_MAX && x->keys[h] != key)
        h = (h + 1) & (x->cap - 1);
    return h;
}

static int grow(tf_prv_index *x)
{
    tf_prv_index g = {.cap = x->cap ? 2 * x->cap : 64, .n = x->n};
    g.keys = malloc(g.cap * sizeof *g.keys);
    g.vals = malloc(g.cap * sizeof *g.vals);
    if (!g.keys || !g.vals) {
        free(g.keys);
        free(g.vals);
        return -1;
    }
    memset(g.keys, 0xff, g.cap * sizeof *g.keys);
    for (size_t i = 0; i < x->cap; i++)
        if (x->keys[i] != UINT64_MAX) {
            size_t s = slot(&g, x->keys[i]);
            g.keys[s] = x->keys[i];
            g.vals[s] = x->vals[i];
        }
    free(x->keys);
    free(x->vals);
    *x = g;
    return 0;
}

int tf_prv_index_get(tf_prv_index *x, uint64_t key, uint32_t *index, bool *added)
{
    *added = false;
    if (2 * (x->n + 1) > x->cap && grow(x) < 0)
        return -1;
    size_t s = slot(x, key);
    if (x->keys[s] == UINT64_MAX) {
        x->keys[s] = key;
        x->vals[s] = (uint32_t)x->n++;
        *added = true;
    }
    *index = x->vals[s];
    return 0;
}

void tf_prv_index_free(tf_prv_index *x)
{
    free(x->keys);
    free(x->vals);
    memset(x, 0, sizeof *x);
}

void *tf_prv_grow(void *arr, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap)
        return arr;
    size_t c = *cap ? *cap : first;
    while (c < need)
        c *= 2;
    void *n = realloc(arr, c * elem);
    if (n)
        *cap = c;
    return n;
}
