/* SPDX-License-Identifier: BSD-3-Clause */
#include "tf_array.h"

#include <stdint.h>
#include <stdlib.h>

void *tf_array_room(void *v, size_t n, size_t *cap, size_t elem, size_t min_cap)
{
    if (n < *cap)
        return v;
    size_t grown = *cap ? 2 * *cap : min_cap;
    if (grown <= n || grown > SIZE_MAX / elem)
        return NULL;
    void *w = realloc(v, grown * elem);
    if (w)
        *cap = grown;
    return w;
}
