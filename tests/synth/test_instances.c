/* SPDX-License-Identifier: BSD-3-Clause */
/* Region instance pairing on hand-made event sequences: nesting, regions
 * never closed, ends that skip an inner end, stray ends, and the region
 * statistics built on them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "extract/instances.h"

enum { A, B, NREGIONS };
static const char *const region_names[NREGIONS] = {"A", "B"};

struct ev {
    uint64_t time;
    uint8_t kind;
    int region;   /* A or B; -1 for a user event */
};

#define E(t, r) {t, TF_EVENT_ENTER, r}
#define X(t, r) {t, TF_EVENT_EXIT, r}
#define U(t) {t, TF_EVENT_USER, -1}

/* One thread per case; process 1 only checks the (process, thread) order. */
static const struct ev nested[] = {E(0, A), E(1, B), X(2, B), E(3, B), X(4, B), X(5, A)};
static const struct ev unclosed[] = {E(0, A), E(1, B), X(2, B), E(3, B), U(7)};
static const struct ev mismatched[] = {E(0, A), E(1, B), X(5, A), E(6, B), X(9, B)};
static const struct ev stray[] = {X(0, B), E(1, A), U(2), X(3, A)};
static const struct ev durations[] = {E(0, A), X(10, A), E(10, A), X(40, A), E(50, A), X(70, A),
                                      E(70, A), X(110, A), E(200, B), X(400, B), E(400, A)};
static const struct ev other_process[] = {E(5, B), X(6, B)};

struct thread_case {
    uint32_t proc;
    const struct ev *ev;
    size_t n;
};
#define CASE(p, a) {p, a, sizeof a / sizeof a[0]}
static const struct thread_case cases[] = {
    CASE(0, nested), CASE(0, unclosed), CASE(0, mismatched), CASE(0, stray), CASE(0, durations),
    CASE(1, other_process),
};
enum { T_NESTED, T_UNCLOSED, T_MISMATCHED, T_STRAY, T_DURATIONS, NCASES };

struct fixture {
    char path[256];
    tf_trace *tr;
    uint32_t id[NREGIONS];
};

static int write_trace(struct fixture *f)
{
    tf_error err;
    tf_trace_out *w;
    tf_trace_meta meta = {.clock = "test", .host = "h", .command_line = "test",
                          .producer = "test_instances"};
    if (tf_trace_out_create(&w, f->path, &meta, 0, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    for (int r = 0; r < NREGIONS; r++)
        if (tf_trace_out_intern(w, region_names[r], &f->id[r], &err) < 0)
            goto fail;
    uint32_t procs[2];
    for (int p = 0; p < 2; p++) {
        tf_process_desc d = {.pid = 100 + p, .rank = -1, .executable = "x", .host = "h",
                             .build_id = ""};
        if (tf_trace_out_add_process(w, &d, &procs[p], &err) < 0)
            goto fail;
    }
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        uint32_t th;
        if (tf_trace_out_add_thread(w, procs[cases[c].proc], 1000 + c, &th, &err) < 0)
            goto fail;
        tf_event ev[16];
        for (size_t i = 0; i < cases[c].n; i++) {
            const struct ev *e = &cases[c].ev[i];
            ev[i] = (tf_event){.time = e->time, .kind = e->kind,
                               .value = e->region < 0 ? 42 : f->id[e->region],
                               .type = e->region < 0 ? 7 : 0};
        }
        if (tf_trace_out_append_events(w, procs[cases[c].proc], th, ev, NULL, cases[c].n, &err) < 0)
            goto fail;
    }
    if (tf_trace_out_close(w, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return -1;
    }
    return 0;
fail:
    fprintf(stderr, "%s\n", err.msg);
    tf_trace_out_abort(w);
    return -1;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(f->path, sizeof f->path, "%s/tf-instances-%ld.h5", dir, (long)getpid());
    tf_error err;
    if (write_trace(f) < 0 || tf_trace_open(&f->tr, f->path, &err) < 0) {
        unlink(f->path);
        free(f);
        return -1;
    }
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    tf_trace_close(f->tr);
    unlink(f->path);
    free(f);
    return 0;
}

/* The instances of one test thread of process 0, from a search over the
 * whole trace (*all to free), checking how many there are. */
static const tf_instance *case_instances(struct fixture *f, uint32_t thread, size_t expect,
                                         tf_instance **all)
{
    size_t n, k = 0;
    const tf_instance *first = NULL;
    tf_error err;
    assert_int_equal(tf_instances_find(f->tr, UINT32_MAX, all, &n, &err), 0);
    for (size_t i = 0; i < n; i++) {
        if ((*all)[i].proc != 0 || (*all)[i].thread != thread)
            continue;
        if (!first)
            first = &(*all)[i];
        k++;
    }
    assert_int_equal(k, expect);
    return first;
}

static void check(const tf_instance *in, uint32_t region, uint32_t depth, uint64_t begin,
                  uint64_t end, size_t begin_event, size_t end_event, uint8_t status)
{
    assert_int_equal(in->region, region);
    assert_int_equal(in->depth, depth);
    assert_int_equal(in->begin, begin);
    assert_int_equal(in->end, end);
    assert_int_equal(in->begin_event, begin_event);
    assert_int_equal(in->end_event, end_event);
    assert_int_equal(in->status, status);
}

static void test_nested(void **state)
{
    struct fixture *f = *state;
    tf_instance *all;
    const tf_instance *in = case_instances(f, T_NESTED, 3, &all);
    check(&in[0], f->id[A], 0, 0, 5, 0, 5, TF_INSTANCE_COMPLETE);
    check(&in[1], f->id[B], 1, 1, 2, 1, 2, TF_INSTANCE_COMPLETE);
    check(&in[2], f->id[B], 1, 3, 4, 3, 4, TF_INSTANCE_COMPLETE);
    free(all);
}

static void test_unclosed(void **state)
{
    struct fixture *f = *state;
    tf_instance *all;
    const tf_instance *in = case_instances(f, T_UNCLOSED, 3, &all);
    /* Without an end, the instance runs to the thread's last event. */
    check(&in[0], f->id[A], 0, 0, 7, 0, 0, TF_INSTANCE_NO_END);
    check(&in[1], f->id[B], 1, 1, 2, 1, 2, TF_INSTANCE_COMPLETE);
    check(&in[2], f->id[B], 1, 3, 7, 3, 3, TF_INSTANCE_NO_END);
    free(all);
}

static void test_mismatched(void **state)
{
    struct fixture *f = *state;
    tf_instance *all;
    const tf_instance *in = case_instances(f, T_MISMATCHED, 3, &all);
    check(&in[0], f->id[A], 0, 0, 5, 0, 2, TF_INSTANCE_COMPLETE);
    check(&in[1], f->id[B], 1, 1, 5, 1, 2, TF_INSTANCE_MISMATCHED);
    check(&in[2], f->id[B], 0, 6, 9, 3, 4, TF_INSTANCE_COMPLETE);
    free(all);
}

static void test_stray_end_and_user_events(void **state)
{
    struct fixture *f = *state;
    tf_instance *all;
    const tf_instance *in = case_instances(f, T_STRAY, 1, &all);
    check(&in[0], f->id[A], 0, 1, 3, 1, 3, TF_INSTANCE_COMPLETE);
    free(all);
}

static void test_order_and_filter(void **state)
{
    struct fixture *f = *state;
    tf_instance *all, *only_b;
    size_t n, nb;
    tf_error err;
    assert_int_equal(tf_instances_find(f->tr, UINT32_MAX, &all, &n, &err), 0);
    for (size_t i = 1; i < n; i++) {
        const tf_instance *a = &all[i - 1], *b = &all[i];
        bool ordered = a->proc < b->proc || (a->proc == b->proc && a->thread < b->thread) ||
                       (a->proc == b->proc && a->thread == b->thread && a->begin <= b->begin);
        assert_true(ordered);
    }
    assert_int_equal(all[n - 1].proc, 1);
    assert_int_equal(tf_instances_find(f->tr, f->id[B], &only_b, &nb, &err), 0);
    size_t expect = 0;
    for (size_t i = 0; i < n; i++)
        expect += all[i].region == f->id[B];
    assert_int_equal(nb, expect);
    /* Filtering keeps the depth computed from every region. */
    for (size_t i = 0, j = 0; i < n; i++)
        if (all[i].region == f->id[B])
            assert_memory_equal(&all[i], &only_b[j++], sizeof all[i]);
    free(all);
    free(only_b);
}

static void test_unknown_region(void **state)
{
    struct fixture *f = *state;
    tf_instance *none;
    size_t n = 99;
    tf_error err;
    assert_int_equal(tf_instances_find(f->tr, 123456, &none, &n, &err), 0);
    assert_int_equal(n, 0);
    free(none);
}

static void test_region_stats(void **state)
{
    struct fixture *f = *state;
    tf_region_stats *st;
    size_t n;
    tf_error err;
    assert_int_equal(tf_region_stats_compute(f->tr, &st, &n, &err), 0);
    assert_int_equal(n, 2);
    /* A: complete durations 5 (nested), 5 (mismatched), 2 (stray), 10, 30,
     * 20, 40 (durations); incomplete: unclosed A, durations' last A. */
    const tf_region_stats *a = st[0].region == f->id[A] ? &st[0] : &st[1];
    const tf_region_stats *b = a == &st[0] ? &st[1] : &st[0];
    assert_int_equal(a->count, 7);
    assert_int_equal(a->incomplete, 2);
    assert_int_equal(a->total, 5 + 5 + 2 + 10 + 30 + 20 + 40);
    assert_int_equal(a->min, 2);
    assert_int_equal(a->max, 40);
    assert_int_equal(a->median, 10);
    /* B: complete 1, 1 (nested), 1 (unclosed), 3 (mismatched), 200, 1
     * (process 1); incomplete: unclosed B, mismatched B. */
    assert_int_equal(b->count, 6);
    assert_int_equal(b->incomplete, 2);
    assert_int_equal(b->total, 1 + 1 + 1 + 3 + 200 + 1);
    assert_int_equal(b->min, 1);
    assert_int_equal(b->max, 200);
    assert_int_equal(b->median, 1);   /* (1 + 1) / 2 of 1 1 1 1 3 200 */
    /* Sorted by total time, largest first. */
    assert_true(st[0].total >= st[1].total);
    assert_int_equal(st[0].region, f->id[B]);
    free(st);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nested),
        cmocka_unit_test(test_unclosed),
        cmocka_unit_test(test_mismatched),
        cmocka_unit_test(test_stray_end_and_user_events),
        cmocka_unit_test(test_order_and_filter),
        cmocka_unit_test(test_unknown_region),
        cmocka_unit_test(test_region_stats),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
