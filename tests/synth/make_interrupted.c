/* SPDX-License-Identifier: BSD-3-Clause */
/* Writes a trace as a recorder killed mid-run leaves it: flushed but never
 * completed, with a region still open.  For the tests of `tracefold info`. */
#include <stdio.h>

#include "formats/trace.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_interrupted OUT.h5\n");
        return 2;
    }
    tf_error err;
    tf_trace_out *w;
    tf_trace_meta meta = {.clock = "CLOCK_MONOTONIC", .host = "h", .command_line = "app",
                          .producer = "make_interrupted"};
    uint32_t loop, proc, thread;
    const char *names[] = {"instructions"};
    tf_process_desc d = {.pid = 7, .rank = -1, .executable = "app", .host = "h",
                         .build_id = "", .ncounters = 1, .counter_names = names};
    /* Two complete instances of "loop", then one that never ends. */
    tf_event ev[5] = {
        {.time = 100, .kind = TF_EVENT_ENTER}, {.time = 300, .kind = TF_EVENT_EXIT},
        {.time = 300, .kind = TF_EVENT_ENTER}, {.time = 700, .kind = TF_EVENT_EXIT},
        {.time = 700, .kind = TF_EVENT_ENTER},
    };
    uint64_t counters[5] = {10, 30, 30, 70, 70};
    if (tf_trace_out_create(&w, argv[1], &meta, 0, &err) < 0)
        goto fail;
    if (tf_trace_out_intern(w, "loop", &loop, &err) < 0 ||
        tf_trace_out_add_process(w, &d, &proc, &err) < 0 ||
        tf_trace_out_add_thread(w, proc, 7, &thread, &err) < 0)
        goto fail_open;
    for (int i = 0; i < 5; i++)
        ev[i].value = loop;
    if (tf_trace_out_append_events(w, proc, thread, ev, counters, 5, &err) < 0 ||
        tf_trace_out_flush(w, &err) < 0)
        goto fail_open;
    tf_trace_out_abort(w);
    return 0;
fail_open:
    tf_trace_out_abort(w);
fail:
    fprintf(stderr, "make_interrupted: %s\n", err.msg);
    return 1;
}
