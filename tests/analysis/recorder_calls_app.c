/* SPDX-License-Identifier: BSD-3-Clause */
/* An iteration spent mostly inside the recorder: one routine that calls
 * tracefold_counter_add in a loop, so that most timer samples land in
 * libtracefold's code.  recorder_frames.sh checks that the report gives
 * them to this routine (the caller), never to the recorder.
 * Usage: recorder_calls_app ITERATIONS CALLS */
#include <stdlib.h>

#include "tracefold.h"

__attribute__((noinline)) static void count_items(int counter, long calls)
{
    for (long i = 0; i < calls; i++)
        tracefold_counter_add(counter, 1); /* the-call */
}

int main(int argc, char **argv)
{
    long iterations = argc > 1 ? strtol(argv[1], NULL, 10) : 20;
    long calls = argc > 2 ? strtol(argv[2], NULL, 10) : 10000000;
    int counter = tracefold_counter_define("items");
    for (long it = 0; it < iterations; it++) {
        tracefold_region_begin("iteration");
        count_items(counter, calls);
        tracefold_region_end("iteration");
    }
    return 0;
}
