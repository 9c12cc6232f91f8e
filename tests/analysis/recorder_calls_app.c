/* SPDX-License-Identifier: BSD-3-Clause */
/* An iteration spent mostly inside the recorder: one routine that calls
 * tracefold_counter_add in a loop, so that most timer samples land in
 * libtracefold's code.  recorder_frames.sh checks that the report gives
 * them to this routine (the caller), never to the recorder.  With
 * "events", each call is a tracefold_event instead, which reads the
 * counters (read(2) of the counter group): the samples then land in the
 * kernel's service of the recorder's read, which is still the recorder's.
 * Usage: recorder_calls_app ITERATIONS CALLS [events] */
#include <stdlib.h>
#include <string.h>

#include "tracefold.h"

__attribute__((noinline)) static void count_items(int counter, long calls)
{
    for (long i = 0; i < calls; i++)
        tracefold_counter_add(counter, 1); /* the-call */
}

__attribute__((noinline)) static void mark_items(long calls)
{
    for (long i = 0; i < calls; i++)
        tracefold_event(1000, (uint64_t)i); /* the-event */
}

int main(int argc, char **argv)
{
    long iterations = argc > 1 ? strtol(argv[1], NULL, 10) : 20;
    long calls = argc > 2 ? strtol(argv[2], NULL, 10) : 10000000;
    int events = argc > 3 && !strcmp(argv[3], "events");
    int counter = tracefold_counter_define("items");
    for (long it = 0; it < iterations; it++) {
        tracefold_region_begin("iteration");
        if (events)
            mark_items(calls);
        else
            count_items(counter, calls);
        tracefold_region_end("iteration");
    }
    return 0;
}
