/* SPDX-License-Identifier: BSD-3-Clause */
/* The writer's side of the small-block log (record/writer/tf_small_objects.c)
 * against a reference: a log file written here as the library writes it
 * (tf_small_log.h: several threads' rings, blocks reused at a few
 * addresses, times not in order across the rings, equal times, addresses
 * spread over many bits or few), drained and finished into a trace, whose
 * objects must be every block taken, in the order of time, then the order
 * taken (ring by ring, each ring's oldest first), each ending when the
 * next block at its address starts (in that order), with its call site's
 * one frame.  The reference sorts with qsort(3) and an index to break
 * ties, by address to find the ends, then by time; the writer's radix sort
 * of the times and its table of the latest block at each address must
 * agree whatever bits the blocks share, with one ring (taken in time
 * order: no sort) or several. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <fcntl.h>
#include <cmocka.h>

#include "formats/trace.h"
#include "record/tf_small_log.h"
#include "record/writer/tf_writer.h"

#define RINGS_MAX 3

struct ref {
    uint64_t addr, time, size, ret;
    size_t   taken;     /* the order the writer takes it in */
    uint64_t end;
};

static int by_addr_time_taken(const void *a, const void *b)
{
    const struct ref *x = a, *y = b;
    if (x->addr != y->addr)
        return x->addr < y->addr ? -1 : 1;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->taken < y->taken ? -1 : x->taken > y->taken;
}

static int by_time_taken(const void *a, const void *b)
{
    const struct ref *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return x->taken < y->taken ? -1 : x->taken > y->taken;
}

static uint64_t rng = 88172645463325252ull;

static uint64_t next_random(void)
{
    rng ^= rng << 13;   /* xorshift64 (Marsaglia, J. Stat. Softw. 8(14), 2003) */
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Writes into each of `rings` rings `per_ring` blocks at base + 16 *
 * (random % spread) with times base_time + (random % tspread) in each
 * ring's order of writing (nondecreasing when tspread is 0: a ring's
 * blocks then share its time steps), records them in ref in the order the
 * writer takes them, and checks the trace the writer makes of them. */
static void check_log(unsigned rings, uint64_t base, uint64_t spread, uint64_t tspread,
                      size_t per_ring)
{
    char dir[] = "/tmp/tf-small-objects.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char proc[64], log[80], trace[80];
    snprintf(proc, sizeof proc, "%s/proc", dir);
    snprintf(log, sizeof log, "%s" TF_SMALL_LOG_SUFFIX, proc);
    snprintf(trace, sizeof trace, "%s/t.h5", dir);
    size_t size = sizeof(tf_small_head) + RINGS_MAX * sizeof(tf_small_ring);
    int fd = open(log, O_RDWR | O_CREAT | O_EXCL, 0600);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, (off_t)size), 0);
    tf_small_head *h = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    assert_true(h != MAP_FAILED);
    h->nrings = rings;
    h->cap = 1u << 20;
    h->nused = rings;
    h->magic = TF_SMALL_LOG_MAGIC;
    const uint64_t mono0 = 1000, rets[3] = { 0x401000, 0x402000, 0x401000 + 7 };
    size_t n = rings * per_ring;
    struct ref *ref = calloc(n, sizeof *ref);
    assert_non_null(ref);
    for (size_t k = 0, at = 0; k < rings; k++) {
        tf_small_ring *r = &tf_small_rings(h)[k];
        uint64_t t = mono0 + 5;
        for (size_t i = 0; i < per_ring; i++, at++) {
            t += tspread ? 0 : next_random() % 3;
            tf_small_entry *e = &r->e[i % TF_SMALL_RING];
            *e = (tf_small_entry){ .addr = base + 16 * (next_random() % spread),
                                   .ret = rets[next_random() % 3],
                                   .size = 16 + next_random() % 4000,
                                   .time = tspread ? mono0 + 5 + next_random() % tspread : t };
            ref[at] = (struct ref){ e->addr, e->time - mono0, e->size, e->ret, at, TF_NOTIME };
        }
        atomic_store(&r->head, per_ring);
    }
    qsort(ref, n, sizeof *ref, by_addr_time_taken);
    for (size_t i = 0; i < n; i++)
        ref[i].end = i + 1 < n && ref[i + 1].addr == ref[i].addr ? ref[i + 1].time : TF_NOTIME;
    qsort(ref, n, sizeof *ref, by_time_taken);

    tf_error err;
    tf_error_clear(&err);
    tf_trace_out *w = NULL;
    tf_trace_meta meta = { .clock = "CLOCK_MONOTONIC", .host = "h", .command_line = "c",
                           .producer = "test" };
    tf_process_desc d = { .pid = 1, .rank = -1, .executable = "x", .host = "h", .build_id = "" };
    uint32_t p = 0;
    tf_wobjects *o = NULL;
    tf_wsmall *ws = NULL;
    tf_small_lost lost;
    assert_int_equal(tf_trace_out_create(&w, trace, &meta, 0, &err), 0);
    assert_int_equal(tf_trace_out_add_process(w, &d, &p, &err), 0);
    assert_int_equal(tf_wobjects_create(&o, &err), 0);
    assert_int_equal(tf_wsmall_drain(&ws, proc, mono0 + 1, &err), 0);
    assert_int_equal(tf_wsmall_finish(&ws, proc, o, w, p, mono0, &lost, &err), 0);
    assert_int_equal(tf_wobjects_finish(o, w, p, &err), 0);
    assert_int_equal(tf_trace_out_close(w, &err), 0);
    tf_wobjects_destroy(o);
    assert_int_equal(lost.over + lost.ring, 0);

    tf_trace *tr = NULL;
    assert_int_equal(tf_trace_open(&tr, trace, &err), 0);
    const tf_process *pr = tf_trace_process(tr, 0);
    assert_int_equal(pr->nobjects, n);
    for (size_t i = 0; i < n; i++) {
        const tf_object *x = &pr->objects[i];
        assert_int_equal(x->kind, TF_OBJECT_SMALL);
        assert_int_equal(x->start, ref[i].addr);
        assert_int_equal(x->size, ref[i].size);
        assert_int_equal(x->alloc_time, ref[i].time);
        assert_int_equal(x->free_time, ref[i].end);
        assert_int_equal(x->stack_len, 1);
        assert_true(x->stack < pr->nframes);
        assert_int_equal(pr->frames[x->stack], ref[i].ret);
    }
    tf_trace_close(tr);
    free(ref);
    munmap(h, size);
    unlink(log);
    unlink(trace);
    rmdir(dir);
}

/* Heap-like: 16-byte aligned addresses over a few MiB, times in order
 * within each ring but interleaved across rings. */
static void test_heap_spread(void **state)
{
    (void)state;
    check_log(RINGS_MAX, 0x55d4a0000000ull, 1u << 18, 0, 16000);
}

/* A few addresses reused over and over (temporaries): equal addresses,
 * many equal times. */
static void test_reused(void **state)
{
    (void)state;
    check_log(RINGS_MAX, 0x7f3c00001000ull, 7, 0, 15000);
}

/* One thread's blocks: taken in time order, ended without a sort. */
static void test_one_thread(void **state)
{
    (void)state;
    check_log(1, 0x7f3c00001000ull, 7, 0, 15000);
    check_log(1, 0x55d4a0000000ull, 1u << 18, 0, 16000);
}

/* Times in no order within a ring, addresses over many bits (several
 * digits of each key). */
static void test_unordered_wide(void **state)
{
    (void)state;
    check_log(RINGS_MAX, 0x100000ull, 1ull << 40, 1ull << 45, 12000);
}

/* One block, and one address and time for all. */
static void test_degenerate(void **state)
{
    (void)state;
    check_log(RINGS_MAX, 0x1000, 1, 1, 1);
    check_log(RINGS_MAX, 0x1000, 1, 1, 500);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heap_spread),
        cmocka_unit_test(test_reused),
        cmocka_unit_test(test_one_thread),
        cmocka_unit_test(test_unordered_wide),
        cmocka_unit_test(test_degenerate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
