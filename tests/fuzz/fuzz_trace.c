/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness: the HDF5 trace reader (formats/trace_read.c), driven as
 * `tracefold info` drives it: open, every string the tables refer to, every
 * thread's samples streamed, the call stack of each sample read, and the
 * region statistics. */
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "extract/instances.h"
#include "formats/trace.h"

#define CHUNK 256
/* tf_sample.stack_len is 16-bit: no call stack is longer. */
#define MAX_STACK 65535

/* Reads the string behind every id, so that the sanitizer sees each byte. */
static size_t touch(const tf_trace *tr, uint32_t id)
{
    return strlen(tf_trace_string(tr, id));
}

static size_t touch_tables(const tf_trace *tr, const tf_process *p)
{
    size_t n = strlen(p->executable) + strlen(p->host) + strlen(p->build_id);
    for (uint32_t c = 0; c < p->ncounters; c++)
        n += touch(tr, p->counters[c].name) + touch(tr, p->counters[c].unit);
    for (size_t i = 0; i < p->nobjects; i++)
        n += touch(tr, p->objects[i].name) + touch(tr, p->objects[i].callsite);
    for (size_t i = 0; i < p->nmodules; i++)
        n += touch(tr, p->modules[i].path) + touch(tr, p->modules[i].build_id);
    for (size_t i = 0; i < p->nsymbols; i++)
        n += touch(tr, p->symbols[i].function) + touch(tr, p->symbols[i].file);
    return n;
}

/* Streams one thread's samples and reads each one's call stack, as fold
 * does for the samples it keeps.  A stack the reader refuses is an error it
 * reports, not a finding. */
static void read_thread(tf_trace *tr, uint32_t p, uint32_t t, tf_sample *buf, uint64_t *ips)
{
    tf_error err = { 0 };
    tf_sample_cursor *c;
    if (tf_samples_open(tr, p, t, &c, &err) < 0)
        return;
    size_t n;
    while (tf_samples_read(c, buf, NULL, CHUNK, &n, &err) == 0 && n > 0)
        for (size_t i = 0; i < n; i++)
            if (buf[i].stack_len &&
                tf_trace_read_frames(tr, p, t, buf[i].stack, buf[i].stack_len, ips, &err) < 0)
                break;
    tf_samples_close(c);
}

static void walk(tf_trace *tr, tf_sample *buf, uint64_t *ips)
{
    const tf_trace_meta *m = tf_trace_get_meta(tr);
    volatile size_t sink = strlen(m->clock) + strlen(m->host) + strlen(m->command_line) +
                           strlen(m->producer);
    for (uint32_t p = 0; p < tf_trace_nprocesses(tr); p++) {
        const tf_process *proc = tf_trace_process(tr, p);
        sink += touch_tables(tr, proc);
        for (uint32_t t = 0; t < proc->nthreads; t++)
            read_thread(tr, p, t, buf, ips);
    }
    (void)sink;
    tf_error err = { 0 };
    tf_region_stats *stats = NULL;
    size_t nstats = 0;
    if (tf_region_stats_compute(tr, &stats, &nstats, &err) == 0)
        free(stats);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static tf_sample buf[CHUNK];
    static uint64_t ips[MAX_STACK];
    char path[512];
    tf_fuzz_file("trace.h5", data, size, path, sizeof path);
    tf_error err = { 0 };
    tf_trace *tr = NULL;
    if (tf_trace_open(&tr, path, &err) == 0) {
        walk(tr, buf, ips);
        tf_trace_close(tr);
    }
    return 0;
}
