/* SPDX-License-Identifier: BSD-3-Clause */
/* Opens TRACE... as one set (tf_trace_open_set) and each alone, and checks
 * that the set is their union: processes in rank order (then as given),
 * every region event naming the same region through the set's strings,
 * every counter, object and module name the same, event and sample times
 * moved by the member's start_time minus the earliest, frames unchanged.
 * Prints "ok P processes" or the first difference (exit 1). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/trace.h"

static int fail(const char *what, uint32_t p)
{
    printf("FAIL: set process %" PRIu32 ": %s\n", p, what);
    return 1;
}

static int same_samples(tf_trace *set, uint32_t sp, tf_trace *one, uint32_t op, uint32_t t,
                        uint64_t shift)
{
    tf_sample_cursor *a, *b;
    tf_error err;
    if (tf_samples_open(set, sp, t, &a, &err) || tf_samples_open(one, op, t, &b, &err)) {
        printf("FAIL: %s\n", err.msg);
        return 1;
    }
    tf_sample x[256], y[256];
    size_t nx, ny;
    int bad = 0;
    do {
        if (tf_samples_read(a, x, NULL, 256, &nx, &err) || tf_samples_read(b, y, NULL, 256, &ny, &err))
            return printf("FAIL: %s\n", err.msg), 1;
        bad |= nx != ny;
        for (size_t i = 0; !bad && i < nx; i++)
            bad |= x[i].time != y[i].time + shift || x[i].ip != y[i].ip || x[i].stack != y[i].stack;
        if (!bad && nx && x[0].stack_len) {
            uint64_t f1, f2;
            bad |= tf_trace_read_frames(set, sp, t, x[0].stack, 1, &f1, &err) ||
                   tf_trace_read_frames(one, op, t, y[0].stack, 1, &f2, &err) || f1 != f2;
        }
    } while (!bad && nx);
    tf_samples_close(a);
    tf_samples_close(b);
    return bad;
}

static int same_process(tf_trace *set, uint32_t sp, tf_trace *one, uint32_t op)
{
    const tf_process *a = tf_trace_process(set, sp), *b = tf_trace_process(one, op);
    uint64_t shift = tf_trace_get_meta(one)->start_time - tf_trace_get_meta(set)->start_time;
    if (a->pid != b->pid || a->rank != b->rank || a->nthreads != b->nthreads ||
        a->ncounters != b->ncounters || a->nobjects != b->nobjects || a->nmodules != b->nmodules)
        return fail("attributes or table sizes differ", sp);
    for (uint32_t c = 0; c < a->ncounters; c++)
        if (strcmp(tf_trace_string(set, a->counters[c].name), tf_trace_string(one, b->counters[c].name)))
            return fail("counter name differs", sp);
    for (size_t o = 0; o < a->nobjects; o++)
        if (strcmp(tf_trace_string(set, a->objects[o].name), tf_trace_string(one, b->objects[o].name)) ||
            strcmp(tf_trace_string(set, a->objects[o].callsite),
                   tf_trace_string(one, b->objects[o].callsite)))
            return fail("object name differs", sp);
    for (size_t m = 0; m < a->nmodules; m++)
        if (strcmp(tf_trace_string(set, a->modules[m].path), tf_trace_string(one, b->modules[m].path)))
            return fail("module path differs", sp);
    for (uint32_t t = 0; t < a->nthreads; t++) {
        const tf_thread *x = &a->threads[t], *y = &b->threads[t];
        if (x->nevents != y->nevents)
            return fail("event count differs", sp);
        for (size_t e = 0; e < x->nevents; e++) {
            if (x->events[e].time != y->events[e].time + shift)
                return fail("event time not moved by the start difference", sp);
            if (x->events[e].kind != TF_EVENT_USER &&
                strcmp(tf_trace_string(set, (uint32_t)x->events[e].value),
                       tf_trace_string(one, (uint32_t)y->events[e].value)))
                return fail("region name differs", sp);
        }
        if (same_samples(set, sp, one, op, t, shift))
            return fail("samples or frames differ", sp);
    }
    return 0;
}

typedef struct member {
    tf_trace *tr;
    int64_t   rank;
    int       index;
} member;

static int by_rank(const void *a, const void *b)
{
    const member *x = a, *y = b;
    return x->rank != y->rank ? (x->rank < y->rank ? -1 : 1) : x->index - y->index;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: check_set TRACE...\n");
        return 2;
    }
    tf_error err;
    tf_trace *set;
    if (tf_trace_open_set(&set, (const char *const *)argv + 1, (size_t)argc - 1, &err)) {
        printf("open_set: %s\n", err.msg);
        return 1;
    }
    member *m = calloc((size_t)argc, sizeof *m);
    int rc = 0;
    for (int i = 1; i < argc && !rc; i++) {
        if (tf_trace_open(&m[i - 1].tr, argv[i], &err))
            return printf("open: %s\n", err.msg), 1;
        const tf_process *p0 = tf_trace_process(m[i - 1].tr, 0);
        m[i - 1].rank = p0 && p0->rank >= 0 ? p0->rank : INT64_MAX;
        m[i - 1].index = i;
    }
    qsort(m, (size_t)argc - 1, sizeof *m, by_rank);
    uint32_t sp = 0;
    for (int i = 0; i < argc - 1 && !rc; i++)
        for (uint32_t p = 0; p < tf_trace_nprocesses(m[i].tr) && !rc; p++)
            rc = same_process(set, sp++, m[i].tr, p);
    if (!rc && sp != tf_trace_nprocesses(set))
        rc = fail("more processes in the set than in its members", sp);
    if (!rc)
        printf("ok %" PRIu32 " processes\n", sp);
    for (int i = 0; i < argc - 1; i++)
        tf_trace_close(m[i].tr);
    free(m);
    tf_trace_close(set);
    return rc;
}
