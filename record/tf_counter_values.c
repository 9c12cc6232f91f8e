/* SPDX-License-Identifier: BSD-3-Clause */
#include "tf_counter_values.h"

void tf_counter_group_values(const uint64_t *buf, size_t words, uint32_t count, uint64_t *last,
                             uint64_t *out)
{
    uint64_t enabled = buf && words >= 3 ? buf[1] : 0, running = buf && words >= 3 ? buf[2] : 0;
    if (!buf || words < 3 + (size_t)count || buf[0] < count || (enabled && !running)) {
        for (uint32_t i = 0; i < count; i++)
            out[i] = TF_NOVALUE;
        return;
    }
    for (uint32_t i = 0; i < count; i++) {
        uint64_t v = buf[3 + i];
        if (running < enabled) {
            /* 128-bit product: exact where a double would round counts
             * above 2^53. */
            unsigned __int128 scaled = (unsigned __int128)v * enabled / running;
            v = scaled >= TF_NOVALUE ? TF_NOVALUE - 1 : (uint64_t)scaled;
        }
        if (v < last[i])
            v = last[i];
        last[i] = v;
        out[i] = v;
    }
}
