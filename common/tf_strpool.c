/* SPDX-License-Identifier: BSD-3-Clause */
#include "tf_strpool.h"

#include <stdlib.h>
#include <string.h>

#include "tf_hash.h"

static size_t find(const tf_strpool *pl, const char *str)
{
    size_t i = (size_t)tf_fnv_string(TF_FNV_OFFSET, str) & (pl->slots - 1);
    while (pl->slot[i] && strcmp(pl->s[pl->slot[i] - 1], str))
        i = (i + 1) & (pl->slots - 1);
    return i;
}

int64_t tf_strpool_add(tf_strpool *pl, const char *str, bool *added)
{
    if (added)
        *added = false;
    if (2 * (pl->n + 1) >= pl->slots) {
        size_t slots = pl->slots ? 2 * pl->slots : 256;
        uint32_t *slot = calloc(slots, sizeof *slot);
        if (!slot)
            return -1;
        free(pl->slot);
        pl->slot = slot;
        pl->slots = slots;
        for (size_t k = 0; k < pl->n; k++)
            pl->slot[find(pl, pl->s[k])] = (uint32_t)k + 1;
    }
    size_t i = find(pl, str);
    if (pl->slot[i])
        return pl->slot[i] - 1;
    if (pl->n == pl->cap) {
        size_t cap = pl->cap ? 2 * pl->cap : 64;
        char **v = realloc(pl->s, cap * sizeof *v);
        if (!v)
            return -1;
        pl->s = v;
        pl->cap = cap;
    }
    if (!(pl->s[pl->n] = strdup(str)))
        return -1;
    pl->slot[i] = (uint32_t)pl->n + 1;
    if (added)
        *added = true;
    return (int64_t)pl->n++;
}

void tf_strpool_free(tf_strpool *pl)
{
    for (size_t i = 0; i < pl->n; i++)
        free(pl->s[i]);
    free(pl->s);
    free(pl->slot);
    *pl = (tf_strpool){ 0 };
}
