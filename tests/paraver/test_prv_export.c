/* SPDX-License-Identifier: BSD-3-Clause */
/* Raw export: tracefold trace -> Paraver -> tracefold trace keeps the
 * records (events, cumulative counters, samples, objects, routines); every
 * written trace passes the checker (sorted, consistent header, complete
 * labels); the checker itself catches each kind of fault. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/prv_check.h"
#include "formats/prv_export.h"
#include "formats/prv_import.h"
#include "test_dir.h"

static void check_ok(const char *prv)
{
    tf_prv_check_report rep;
    tf_error err;
    if (tf_prv_check(prv, &rep, &err) < 0)
        fail_msg("%s", err.msg);
    assert_true(rep.records > 0);
}

static const char *counter_name(const tf_trace *tr, const tf_process *p, uint32_t c)
{
    return tf_trace_string(tr, p->counters[c].name);
}

/* Events (kind, time, region name or user type/value) and every counter
 * value by name must match between two traces, thread by thread. */
static void same_events(const tf_trace *a, const tf_trace *b)
{
    assert_int_equal(tf_trace_nprocesses(a), tf_trace_nprocesses(b));
    for (uint32_t p = 0; p < tf_trace_nprocesses(a); p++) {
        const tf_process *pa = tf_trace_process(a, p), *pb = tf_trace_process(b, p);
        assert_int_equal(pa->nthreads, pb->nthreads);
        for (uint32_t t = 0; t < pa->nthreads; t++) {
            const tf_thread *ta = &pa->threads[t], *tb = &pb->threads[t];
            assert_int_equal(ta->nevents, tb->nevents);
            assert_int_equal(ta->nsamples, tb->nsamples);
            for (size_t i = 0; i < ta->nevents; i++) {
                const tf_event *x = &ta->events[i], *y = &tb->events[i];
                assert_int_equal(x->kind, y->kind);
                assert_int_equal(x->time, y->time);
                if (x->kind == TF_EVENT_USER) {
                    assert_int_equal(x->type, y->type);
                    assert_int_equal(x->value, y->value);
                } else {
                    assert_string_equal(tf_trace_string(a, (uint32_t)x->value),
                                        tf_trace_string(b, (uint32_t)y->value));
                }
                for (uint32_t c = 0; c < pa->ncounters; c++) {
                    uint32_t k = 0;
                    while (k < pb->ncounters && strcmp(counter_name(a, pa, c), counter_name(b, pb, k)))
                        k++;
                    if (k == pb->ncounters)
                        fail_msg("counter %s lost", counter_name(a, pa, c));
                    uint64_t va = ta->event_counters[i * pa->ncounters + c];
                    uint64_t vb = tb->event_counters[i * pb->ncounters + k];
                    if (va != vb)
                        fail_msg("event %zu counter %s: %llu != %llu", i, counter_name(a, pa, c),
                                 (unsigned long long)va, (unsigned long long)vb);
                }
            }
        }
    }
}

static const char *function_at(const tf_trace *tr, const tf_process *p, uint64_t ip)
{
    for (size_t k = 0; k < p->nsymbols; k++)
        if (ip >= p->symbols[k].start && ip < p->symbols[k].end)
            return tf_trace_string(tr, p->symbols[k].function);
    return "";
}

static void test_namd_round_trip(void **state)
{
    (void)state;
    char *src = tf_test_namd_gz();
    assert_non_null(src);
    char *h5 = tf_test_path("namd.h5"), *prv = tf_test_path("namd-raw.prv"), *back = tf_test_path("back.h5");
    tf_prv_import_stats ist;
    tf_prv_export_stats est;
    tf_error err;
    tf_trace *a, *b;
    if (tf_prv_import(src, h5, false, NULL, NULL, &ist, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(tf_trace_open(&a, h5, &err), 0);
    if (tf_prv_export_raw(a, prv, NULL, NULL, NULL, &est, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(est.samples, 27829);
    check_ok(prv);
    if (tf_prv_import(prv, back, false, NULL, NULL, &ist, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(tf_trace_open(&b, back, &err), 0);
    same_events(a, b);
    /* Samples: same times, same routines. */
    const tf_process *pa = tf_trace_process(a, 0), *pb = tf_trace_process(b, 0);
    tf_sample_cursor *ca, *cb;
    assert_int_equal(tf_samples_open(a, 0, 0, &ca, &err), 0);
    assert_int_equal(tf_samples_open(b, 0, 0, &cb, &err), 0);
    tf_sample sa[256], sb[256];
    size_t na, nb;
    while (tf_samples_read(ca, sa, NULL, 256, &na, &err) == 0 && na) {
        assert_int_equal(tf_samples_read(cb, sb, NULL, na, &nb, &err), 0);
        assert_int_equal(na, nb);
        for (size_t i = 0; i < na; i++) {
            assert_int_equal(sa[i].time, sb[i].time);
            assert_string_equal(function_at(a, pa, sa[i].ip), function_at(b, pb, sb[i].ip));
        }
    }
    tf_samples_close(ca);
    tf_samples_close(cb);
    tf_trace_close(a);
    tf_trace_close(b);
    free(h5);
    free(prv);
    free(back);
    free(src);
}

/* A trace written here with two processes on two hosts, nested regions,
 * user events, counters with and without PAPI names, memory samples and
 * objects. */
static void make_trace(const char *path)
{
    tf_error err;
    tf_trace_out *w;
    tf_trace_meta meta = {"CLOCK_MONOTONIC", "host-a", "./app", "test", 0};
    assert_int_equal(tf_trace_out_create(&w, path, &meta, 0, &err), 0);
    const char *names[] = {"instructions", "cycles", "my_counter"};
    uint32_t outer, inner, site;
    assert_int_equal(tf_trace_out_intern(w, "outer", &outer, &err), 0);
    assert_int_equal(tf_trace_out_intern(w, "inner", &inner, &err), 0);
    assert_int_equal(tf_trace_out_intern(w, "app.c:12", &site, &err), 0);
    for (int pi = 0; pi < 2; pi++) {
        tf_process_desc d = {.pid = 100 + pi, .rank = pi, .nranks = 2, .executable = "/bin/app",
                             .host = pi ? "host-b" : "host-a", .build_id = "",
                             .ncounters = 3, .counter_names = names};
        uint32_t proc, th;
        assert_int_equal(tf_trace_out_add_process(w, &d, &proc, &err), 0);
        for (int ti = 0; ti < 2; ti++) {
            assert_int_equal(tf_trace_out_add_thread(w, proc, 1000 + ti, &th, &err), 0);
            tf_event ev[] = {
                {10, outer, 0, TF_EVENT_ENTER}, {20, inner, 0, TF_EVENT_ENTER},
                {25, 7, 1234, TF_EVENT_USER}, {30, inner, 0, TF_EVENT_EXIT},
                {40, outer, 0, TF_EVENT_EXIT},
            };
            uint64_t rows[] = {
                100, 200, 1, 150, 260, TF_NOVALUE, TF_NOVALUE, TF_NOVALUE, TF_NOVALUE,
                300, 420, 5, 500, 800, 9,
            };
            if (tf_trace_out_append_events(w, proc, th, ev, rows, 5, &err) < 0)
                fail_msg("%s", err.msg);
            tf_sample s[] = {
                {.time = 22, .ip = 0x401000, .kind = TF_SAMPLE_TIMER, .level = TF_LEVEL_UNKNOWN},
                {.time = 23, .ip = 0x401010, .addr = 0x7f0000001010, .weight = 300,
                 .kind = TF_SAMPLE_LOAD, .level = TF_LEVEL_DRAM},
                {.time = 24, .ip = 0x401020, .addr = 0xffff800000000000ull,
                 .kind = TF_SAMPLE_STORE, .level = TF_LEVEL_L1, .flags = TF_SAMPLE_HIT},
            };
            uint64_t srows[] = {160, 270, 2, TF_NOVALUE, TF_NOVALUE, TF_NOVALUE,
                                TF_NOVALUE, TF_NOVALUE, TF_NOVALUE};
            uint64_t frames[] = {0x401000, 0x402010};  /* the caller: a return address */
            uint64_t first;
            assert_int_equal(tf_trace_out_append_frames(w, proc, th, frames, 2, &first, &err), 0);
            s[0].stack = first;
            s[0].stack_len = 2;
            if (tf_trace_out_append_samples(w, proc, th, s, srows, 3, &err) < 0)
                fail_msg("%s", err.msg);
        }
        tf_object o = {.start = 0x7f0000001000, .size = 4096, .alloc_time = 12, .free_time = 35,
                       .id = 0, .callsite = site, .kind = TF_OBJECT_HEAP};
        assert_int_equal(tf_trace_out_append_objects(w, proc, &o, 1, &err), 0);
        uint32_t fk, fm, file;
        assert_int_equal(tf_trace_out_intern(w, "kernel", &fk, &err), 0);
        assert_int_equal(tf_trace_out_intern(w, "main", &fm, &err), 0);
        assert_int_equal(tf_trace_out_intern(w, "/src/app.c", &file, &err), 0);
        tf_symbol sym[] = {{0x401000, 0x401100, fk, file, 12}, {0x402000, 0x402100, fm, file, 40}};
        assert_int_equal(tf_trace_out_append_symbols(w, proc, sym, 2, &err), 0);
    }
    if (tf_trace_out_close(w, &err) < 0)
        fail_msg("%s", err.msg);
}

static void test_written_trace_round_trip(void **state)
{
    (void)state;
    char *h5 = tf_test_path("made.h5"), *prv = tf_test_path("made.prv.gz"), *back = tf_test_path("made-back.h5");
    make_trace(h5);
    tf_error err;
    tf_trace *a, *b;
    tf_prv_export_stats est;
    tf_prv_import_stats ist;
    assert_int_equal(tf_trace_open(&a, h5, &err), 0);
    if (tf_prv_export_raw(a, prv, NULL, NULL, NULL, &est, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(est.threads, 4);
    assert_int_equal(est.samples, 12);
    assert_int_equal(est.objects, 2);
    check_ok(prv);
    if (tf_prv_import(prv, back, false, NULL, NULL, &ist, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(tf_trace_open(&b, back, &err), 0);
    same_events(a, b);
    const tf_process *pb = tf_trace_process(b, 1);
    assert_string_equal(pb->host, "host-b");
    assert_int_equal(pb->rank, 1);
    assert_int_equal(pb->nobjects, 1);
    assert_int_equal(pb->objects[0].start, 0x7f0000001000);
    assert_int_equal(pb->objects[0].size, 4096);
    assert_int_equal(pb->objects[0].alloc_time, 12);
    assert_int_equal(pb->objects[0].free_time, 35);
    tf_sample_cursor *c;
    tf_sample s[4];
    uint64_t rows[4 * 3];
    size_t n;
    assert_int_equal(tf_samples_open(b, 1, 1, &c, &err), 0);
    assert_int_equal(tf_samples_read(c, s, rows, 4, &n, &err), 0);
    assert_int_equal(n, 3);
    assert_int_equal(s[0].ip, 0x401000);
    assert_int_equal(s[0].stack_len, 2);
    assert_int_equal(s[1].kind, TF_SAMPLE_LOAD);
    assert_int_equal(s[1].addr, 0x7f0000001010);
    assert_int_equal(s[1].weight, 300);
    assert_int_equal(s[1].level, TF_LEVEL_DRAM);
    /* An address above 2^63 survives as its bits. */
    assert_int_equal(s[2].kind, TF_SAMPLE_STORE);
    assert_int_equal(s[2].addr, 0xffff800000000000ull);
    assert_true(s[2].flags & TF_SAMPLE_HIT);
    tf_samples_close(c);
    uint64_t frame[2];
    assert_int_equal(tf_trace_read_frames(b, 1, 1, s[0].stack, 2, frame, &err), 0);
    assert_string_equal(function_at(b, pb, frame[0]), "kernel");
    assert_string_equal(function_at(b, pb, frame[1]), "main");
    tf_trace_close(a);
    tf_trace_close(b);
    free(h5);
    free(prv);
    free(back);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static const struct check_case {
    int         src_line;
    const char *prv, *pcf, *row;
    const char *says;
} check_cases[] = {
    {__LINE__, "2:1:1:1:1:5:100:1\n", "EVENT_TYPE\n0 100 A\nVALUES\n1 one\n", NULL, NULL},
    {__LINE__, "2:1:1:1:1:5:100:2\n", "EVENT_TYPE\n0 100 A\nVALUES\n1 one\n", NULL,
     "line 2: value 2 of event type 100 (A) has no label"},
    {__LINE__, "2:1:1:1:1:5:101:2\n", "EVENT_TYPE\n0 100 A\n", NULL,
     "line 2: event type 101 has no label"},
    {__LINE__, "1:1:1:1:1:5:9:3\n", "STATES\n1 Running\n", NULL, "line 2: state 3 has no label"},
    {__LINE__, "2:1:1:1:1:5:100:1\n2:1:1:2:1:4:100:1\n", "EVENT_TYPE\n0 100 A\n", NULL,
     "line 3: time 4 before the previous record's 5 (not globally time-sorted)"},
    {__LINE__, "2:1:1:1:1:5000:100:1\n", "EVENT_TYPE\n0 100 A\n", NULL,
     "after the end time 1000"},
    {__LINE__, "2:1:1:1:1:5:100:1\n", "EVENT_TYPE\n0 100 A\n",
     "LEVEL THREAD SIZE 1\nTHREAD 1.1.1\n", "c.row: line 1: level THREAD has 1 names, the .prv header 2"},
};

static void test_checker_faults(void **state)
{
    (void)state;
    char *prv = tf_test_path("c.prv"), *pcf = tf_test_path("c.pcf"), *row = tf_test_path("c.row");
    for (size_t i = 0; i < sizeof check_cases / sizeof check_cases[0]; i++) {
        const struct check_case *c = &check_cases[i];
        char text[1024];
        snprintf(text, sizeof text, "#Paraver (x):1000_ns:1(2):1:2(1:1,1:1),0\n%s", c->prv);
        write_file(prv, text);
        write_file(pcf, c->pcf);
        write_file(row, c->row ? c->row : "LEVEL THREAD SIZE 2\nTHREAD 1.1.1\nTHREAD 1.2.1\n");
        tf_prv_check_report rep;
        tf_error err;
        tf_error_clear(&err);
        int rc = tf_prv_check(prv, &rep, &err);
        if (c->says ? rc >= 0 || !strstr(err.msg, c->says) : rc < 0)
            fail_msg("case at %s:%d: rc %d '%s', expected '%s'", __FILE__, c->src_line, rc,
                     err.msg, c->says ? c->says : "success");
    }
    free(prv);
    free(pcf);
    free(row);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_namd_round_trip),
        cmocka_unit_test(test_written_trace_round_trip),
        cmocka_unit_test(test_checker_faults),
    };
    return cmocka_run_group_tests(tests, tf_test_dir_setup, tf_test_dir_teardown);
}
