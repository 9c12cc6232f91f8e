/* SPDX-License-Identifier: BSD-3-Clause */
/* Emits region begin/end pairs as fast as it can, far faster than the
 * writer drains a small buffer: the recorder must drop and count, not block
 * or grow.  Usage: burst_app PAIRS; prints the number of pairs emitted. */
#include <stdio.h>
#include <stdlib.h>

#include "tracefold.h"

int main(int argc, char **argv)
{
    long pairs = argc > 1 ? strtol(argv[1], NULL, 10) : 1000000;
    for (long i = 0; i < pairs; i++) {
        tracefold_region_begin("burst");
        tracefold_region_end("burst");
    }
    printf("%ld\n", pairs);
    return 0;
}
