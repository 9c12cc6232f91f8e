/* SPDX-License-Identifier: BSD-3-Clause */
/* Emits region begin/end pairs as fast as it can, far faster than the
 * writer drains a small buffer: the recorder must drop and count, not block
 * or grow.  With GAP_US, sleeps that many microseconds after each pair: a
 * steady rate that a writer draining when woken keeps up with.
 * Usage: burst_app PAIRS [GAP_US]; prints the number of pairs emitted. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "tracefold.h"

int main(int argc, char **argv)
{
    long pairs = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;
    long gap_us = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
    struct timespec gap = {gap_us / 1000000, gap_us % 1000000 * 1000};
    for (long i = 0; i < pairs; i++) {
        tracefold_region_begin("burst");
        tracefold_region_end("burst");
        if (gap_us > 0)
            nanosleep(&gap, NULL);
    }
    printf("%ld\n", pairs);
    return 0;
}
