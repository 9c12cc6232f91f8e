/* SPDX-License-Identifier: BSD-3-Clause */
/* Every table of the trace written and read back: the fixture, empty
 * tables, 64-bit extremes, long strings, many processes and threads, and
 * appends in small batches that cross chunk boundaries; and the fixture
 * and long strings in the version-1 layout (variable-length strings). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "formats/trace.h"
#include "trace_fixture.h"
#include "v1_trace.h"

static const tf_trace_meta meta = { .clock = "CLOCK_MONOTONIC", .host = "h",
                                    .command_line = "cmd", .producer = "test",
                                    .start_time = 1 };

static tf_trace *reopen(const char *path)
{
    tf_trace *tr = NULL;
    OK(tf_trace_open(&tr, path, err));
    return tr;
}

/* Reads all samples of a thread through the cursor, max at a time. */
static size_t read_samples(tf_trace *tr, uint32_t proc, uint32_t thread, size_t max,
                           tf_sample *s, uint64_t *counters, size_t cap)
{
    tf_sample_cursor *c;
    OK(tf_samples_open(tr, proc, thread, &c, err));
    const tf_process *p = tf_trace_process(tr, proc);
    size_t total = 0, n;
    do {
        size_t want = max < cap - total ? max : cap - total;
        OK(tf_samples_read(c, s + total, counters ? counters + total * p->ncounters : NULL,
                           want, &n, err));
        total += n;
    } while (n > 0 && total < cap);
    tf_samples_close(c);
    return total;
}

/* Rewrites path in the version-1 layout. */
static void to_v1(const char *path)
{
    char why[1200];
    if (v1_trace_convert(path, why, sizeof why) < 0)
        fail_msg("%s", why);
}

/* Checks everything the fixture holds; frees path. */
static void check_fixture(char *path)
{
    tf_trace *tr = reopen(path);
    assert_string_equal(tf_trace_path(tr), path);
    const tf_trace_meta *m = tf_trace_get_meta(tr);
    assert_string_equal(m->clock, "CLOCK_MONOTONIC");
    assert_string_equal(m->host, "testhost");
    assert_string_equal(m->command_line, "./app 1 2");
    assert_string_equal(m->producer, "formats tests");
    assert_int_equal(m->start_time, 1700000000000000000ull);
    assert_true(tf_trace_complete(tr));
    assert_int_equal(tf_trace_nprocesses(tr), 1);
    const tf_process *p = tf_trace_process(tr, 0);
    assert_int_equal(p->pid, 4242);
    assert_int_equal(p->rank, -1);
    assert_string_equal(p->executable, "/bin/app");
    assert_string_equal(p->build_id, "abcdef");
    assert_int_equal(p->ncounters, FIXTURE_COUNTERS);
    assert_string_equal(tf_trace_string(tr, p->counters[2].name), "L1D misses");
    assert_string_equal(tf_trace_string(tr, p->counters[0].unit), "events");
    assert_int_equal(p->counters[1].kind, TF_COUNTER_HARDWARE);
    uint32_t id;
    assert_true(tf_trace_find_string(tr, "main", &id));
    assert_string_equal(tf_trace_string(tr, id), "main");
    assert_false(tf_trace_find_string(tr, "nowhere", &id));
    assert_string_equal(tf_trace_string(tr, 0), "");
    assert_string_equal(tf_trace_string(tr, 1u << 30), "");
    assert_int_equal(p->nmodules, 1);
    assert_int_equal(p->modules[0].end, 0x500000);
    assert_int_equal(p->nobjects, 1);
    assert_int_equal(p->objects[0].free_time, TF_NOTIME);
    assert_string_equal(tf_trace_string(tr, p->objects[0].name), "matrix");
    assert_int_equal(p->nframes, 3);
    assert_int_equal(p->objects[0].stack_len, 3);
    uint64_t alloc[3];
    OK(tf_trace_read_frames(tr, 0, UINT32_MAX, p->objects[0].stack, 3, alloc, err));
    assert_int_equal(alloc[2], 0x400f00);
    assert_int_equal(p->frames[0], 0x401050);
    assert_int_equal(p->nsymbols, 1);
    assert_int_equal(p->symbols[0].line, 42);
    assert_int_equal(p->nthreads, FIXTURE_THREADS);
    for (uint32_t t = 0; t < FIXTURE_THREADS; t++) {
        const tf_thread *th = &p->threads[t];
        assert_int_equal(th->tid, 100 + t);
        assert_int_equal(th->nevents, FIXTURE_EVENTS);
        assert_int_equal(th->events[3].time, 3000);
        assert_int_equal(th->events[3].kind, TF_EVENT_EXIT);
        assert_int_equal(th->event_counters[3 * FIXTURE_COUNTERS + 2], 302);
        assert_int_equal(th->nsamples, FIXTURE_SAMPLES);
        assert_int_equal(th->nframes, 2);
        tf_sample s[FIXTURE_SAMPLES];
        uint64_t c[FIXTURE_SAMPLES * FIXTURE_COUNTERS];
        assert_int_equal(read_samples(tr, 0, t, 7, s, c, FIXTURE_SAMPLES), FIXTURE_SAMPLES);
        assert_int_equal(s[31].time, 1550);
        assert_int_equal(s[31].ip, 0x401000 + 31);
        assert_int_equal(s[31].kind, 1);
        assert_int_equal(s[31].stack_len, 2);
        assert_int_equal(c[31 * FIXTURE_COUNTERS + 1], 311);
        uint64_t ips[2];
        OK(tf_trace_read_frames(tr, 0, t, s[31].stack, s[31].stack_len, ips, err));
        assert_int_equal(ips[1], 0x401100);
    }
    tf_trace_close(tr);
    assert_int_equal(fixture_open_hdf5_ids(), 0);
    free(path);
}

static void fixture_roundtrip(void **state)
{
    char *path = fixture_path(fixture_dir, "fixture.h5");
    OK(fixture_write(path, 0, err));
    check_fixture(path);
}

/* A version-1 trace reads as it always did. */
static void fixture_version_1(void **state)
{
    char *path = fixture_path(fixture_dir, "fixture-v1.h5");
    OK(fixture_write(path, 0, err));
    to_v1(path);
    check_fixture(path);
}

/* A process with no counters, no modules, objects or symbols; a thread with
 * nothing in it; and events written without counter values. */
static void empty_tables(void **state)
{
    char *path = fixture_path(fixture_dir, "empty.h5");
    tf_trace_out *w;
    OK(tf_trace_out_create(&w, path, &meta, 0, err));
    tf_process_desc bare = { .pid = 1, .rank = -1 };
    tf_process_desc counted = { .pid = 2, .rank = -1, .ncounters = 2,
                                .counter_names = (const char *const[]){ "a", "b" } };
    uint32_t p0, p1, t0, t1, region;
    OK(tf_trace_out_add_process(w, &bare, &p0, err));
    OK(tf_trace_out_add_process(w, &counted, &p1, err));
    OK(tf_trace_out_add_thread(w, p0, 7, &t0, err));
    OK(tf_trace_out_add_thread(w, p1, 8, &t1, err));
    OK(tf_trace_out_intern(w, "loop", &region, err));
    tf_event ev[2] = { { .time = 5, .value = region, .kind = TF_EVENT_ENTER },
                       { .time = 9, .value = region, .kind = TF_EVENT_EXIT } };
    OK(tf_trace_out_append_events(w, p1, t1, ev, NULL, 2, err));
    OK(tf_trace_out_append_events(w, p0, t0, ev, NULL, 0, err));
    OK(tf_trace_out_close(w, err));

    tf_trace *tr = reopen(path);
    assert_int_equal(tf_trace_nprocesses(tr), 2);
    const tf_process *p = tf_trace_process(tr, 0);
    assert_int_equal(p->ncounters, 0);
    assert_int_equal(p->nmodules + p->nobjects + p->nsymbols + p->nframes, 0);
    assert_int_equal(p->nthreads, 1);
    assert_int_equal(p->threads[0].nevents + p->threads[0].nsamples + p->threads[0].nframes, 0);
    tf_sample s[4];
    assert_int_equal(read_samples(tr, 0, 0, 4, s, NULL, 4), 0);
    p = tf_trace_process(tr, 1);
    assert_int_equal(p->ncounters, 2);
    assert_int_equal(p->threads[0].nevents, 2);
    assert_int_equal(p->threads[0].event_counters[3], TF_NOVALUE);
    assert_string_equal(tf_trace_string(tr, (uint32_t)p->threads[0].events[1].value), "loop");
    assert_null(tf_trace_process(tr, 2));
    tf_trace_close(tr);
    free(path);
}

static void extreme_values(void **state)
{
    char *path = fixture_path(fixture_dir, "extreme.h5");
    tf_trace_meta big = meta;
    big.start_time = UINT64_MAX;
    tf_trace_out *w;
    OK(tf_trace_out_create(&w, path, &big, 0, err));
    tf_process_desc lo = { .pid = INT64_MIN, .rank = INT32_MIN, .nranks = INT32_MAX,
                           .ncounters = 1, .counter_names = (const char *const[]){ "x" },
                           .counter_kinds = (const uint8_t[]){ TF_COUNTER_USER } };
    tf_process_desc hi = { .pid = INT64_MAX, .rank = INT32_MAX, .nranks = INT32_MAX };
    uint32_t p0, p1, t0;
    OK(tf_trace_out_add_process(w, &lo, &p0, err));
    OK(tf_trace_out_add_process(w, &hi, &p1, err));
    OK(tf_trace_out_add_thread(w, p0, UINT64_MAX, &t0, err));
    /* stack_len is 16 bits: a full-length stack needs that many frames. */
    size_t nframes = UINT16_MAX;
    uint64_t *ips = malloc(nframes * sizeof *ips), first;
    for (size_t i = 0; i < nframes; i++)
        ips[i] = UINT64_MAX - i;
    OK(tf_trace_out_append_frames(w, p0, t0, ips, nframes, &first, err));
    tf_event ev[2] = { { .time = 0, .value = UINT64_MAX, .type = UINT32_MAX,
                         .kind = TF_EVENT_USER },
                       { .time = UINT64_MAX, .value = 0, .type = 0, .kind = TF_EVENT_USER } };
    uint64_t evc[2] = { 0, UINT64_MAX - 1 };
    OK(tf_trace_out_append_events(w, p0, t0, ev, evc, 2, err));
    tf_sample s[2] = {
        { .time = 0, .ip = UINT64_MAX, .addr = UINT64_MAX, .data_source = UINT64_MAX,
          .stack = first, .stack_len = UINT16_MAX, .weight = UINT32_MAX, .kind = TF_SAMPLE_RMW,
          .level = UINT8_MAX, .flags = UINT8_MAX },
        { .time = UINT64_MAX },
    };
    uint64_t sc[2] = { UINT64_MAX, 0 };
    OK(tf_trace_out_append_samples(w, p0, t0, s, sc, 2, err));
    tf_object o = { .start = UINT64_MAX, .size = UINT64_MAX, .alloc_time = UINT64_MAX,
                    .free_time = UINT64_MAX, .id = UINT32_MAX, .kind = TF_OBJECT_MMAP };
    OK(tf_trace_out_append_objects(w, p0, &o, 1, err));
    tf_module m = { .start = UINT64_MAX, .end = UINT64_MAX, .offset = UINT64_MAX };
    OK(tf_trace_out_append_modules(w, p0, &m, 1, err));
    tf_symbol sym = { .start = 0, .end = UINT64_MAX, .line = UINT32_MAX };
    OK(tf_trace_out_append_symbols(w, p0, &sym, 1, err));
    OK(tf_trace_out_close(w, err));

    tf_trace *tr = reopen(path);
    assert_int_equal(tf_trace_get_meta(tr)->start_time, UINT64_MAX);
    const tf_process *p = tf_trace_process(tr, 0);
    assert_true(p->pid == INT64_MIN);
    assert_int_equal(p->rank, INT32_MIN);
    assert_int_equal(p->nranks, INT32_MAX);
    assert_int_equal(p->counters[0].kind, TF_COUNTER_USER);
    assert_true(tf_trace_process(tr, 1)->pid == INT64_MAX);
    assert_int_equal(p->threads[0].tid, UINT64_MAX);
    assert_int_equal(p->threads[0].events[0].value, UINT64_MAX);
    assert_int_equal(p->threads[0].events[0].type, UINT32_MAX);
    assert_int_equal(p->threads[0].events[1].time, UINT64_MAX);
    assert_int_equal(p->threads[0].event_counters[1], UINT64_MAX - 1);
    tf_sample r[2];
    uint64_t rc[2];
    assert_int_equal(read_samples(tr, 0, 0, 2, r, rc, 2), 2);
    assert_memory_equal(&r[0], &s[0], sizeof r[0]);   /* padding included: unpack zeroes it */
    assert_int_equal(r[1].time, UINT64_MAX);
    assert_int_equal(rc[0], UINT64_MAX);
    assert_int_equal(rc[1], 0);
    assert_memory_equal(&p->objects[0], &o, sizeof o);
    assert_memory_equal(&p->modules[0], &m, sizeof m);
    assert_memory_equal(&p->symbols[0], &sym, sizeof sym);
    uint64_t *back = malloc(nframes * sizeof *back);
    OK(tf_trace_read_frames(tr, 0, 0, r[0].stack, r[0].stack_len, back, err));
    assert_memory_equal(back, ips, nframes * sizeof *ips);
    tf_trace_close(tr);
    free(back);
    free(ips);
    free(path);
}

static char *long_string(size_t len, char fill)
{
    char *s = malloc(len + 1);
    for (size_t i = 0; i < len; i++)
        s[i] = (char)(fill + (char)(i % 26));
    s[len] = '\0';
    return s;
}

/* Strings of up to 200 KiB, in the layout of the version (1 or 2). */
static void check_long_strings(const char *file, int version)
{
    char *path = fixture_path(fixture_dir, file);
    char *cmd = long_string(100 * 1024, 'a'), *exe = long_string(70 * 1024, 'A');
    char *name = long_string(200 * 1024, 'a');
    tf_trace_meta lm = meta;
    lm.command_line = cmd;
    tf_process_desc d = { .pid = 1, .rank = -1, .executable = exe, .host = "ü-host ✓" };
    tf_trace_out *w;
    uint32_t p, id, utf;
    OK(tf_trace_out_create(&w, path, &lm, 0, err));
    OK(tf_trace_out_add_process(w, &d, &p, err));
    OK(tf_trace_out_intern(w, name, &id, err));
    OK(tf_trace_out_intern(w, "λ-région", &utf, err));
    uint32_t again;
    OK(tf_trace_out_intern(w, name, &again, err));
    assert_int_equal(again, id);
    OK(tf_trace_out_close(w, err));
    if (version == 1)
        to_v1(path);

    tf_trace *tr = reopen(path);
    assert_string_equal(tf_trace_get_meta(tr)->command_line, cmd);
    assert_string_equal(tf_trace_process(tr, 0)->executable, exe);
    assert_string_equal(tf_trace_process(tr, 0)->host, "ü-host ✓");
    assert_string_equal(tf_trace_string(tr, id), name);
    assert_string_equal(tf_trace_string(tr, utf), "λ-région");
    tf_trace_close(tr);
    free(cmd);
    free(exe);
    free(name);
    free(path);
}

static void long_strings(void **state)
{
    check_long_strings("long.h5", 2);
}

static void long_strings_version_1(void **state)
{
    check_long_strings("long-v1.h5", 1);
}

static void many_processes_and_threads(void **state)
{
    enum { PROCS = 12, THREADS = 9 };
    char *path = fixture_path(fixture_dir, "many.h5");
    tf_trace_out *w;
    OK(tf_trace_out_create(&w, path, &meta, 0, err));
    for (uint32_t p = 0; p < PROCS; p++) {
        tf_process_desc d = { .pid = 1000 + p, .rank = (int32_t)p, .nranks = PROCS,
                              .ncounters = 1, .counter_names = (const char *const[]){ "c" } };
        uint32_t proc, thread;
        OK(tf_trace_out_add_process(w, &d, &proc, err));
        assert_int_equal(proc, p);
        for (uint32_t t = 0; t < THREADS; t++) {
            OK(tf_trace_out_add_thread(w, proc, 10 * p + t, &thread, err));
            tf_sample s = { .time = p * 100 + t };
            uint64_t v = p * 1000 + t;
            OK(tf_trace_out_append_samples(w, proc, thread, &s, &v, 1, err));
        }
    }
    OK(tf_trace_out_close(w, err));
    tf_trace *tr = reopen(path);
    assert_int_equal(tf_trace_nprocesses(tr), PROCS);
    for (uint32_t p = 0; p < PROCS; p++) {
        const tf_process *proc = tf_trace_process(tr, p);
        assert_int_equal(proc->rank, p);
        assert_int_equal(proc->nthreads, THREADS);
        for (uint32_t t = 0; t < THREADS; t++) {
            tf_sample s;
            uint64_t v;
            assert_int_equal(proc->threads[t].tid, 10 * p + t);
            assert_int_equal(read_samples(tr, p, t, 5, &s, &v, 1), 1);
            assert_int_equal(s.time, p * 100 + t);
            assert_int_equal(v, p * 1000 + t);
        }
    }
    tf_trace_close(tr);
    free(path);
}

/* 8 counters make 113-byte rows and chunks of a few hundred rows: batches
 * of 1..13 rows cross many chunk boundaries, and flushes in between make
 * the trace output rewrite partial chunks. */
static void small_batches(void **state)
{
    enum { N = 20000, NC = 8 };
    char *path = fixture_path(fixture_dir, "batches.h5");
    static const char *const names[NC] = { "c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7" };
    tf_process_desc d = { .pid = 1, .rank = -1, .ncounters = NC, .counter_names = names };
    tf_trace_out *w;
    uint32_t p, t;
    OK(tf_trace_out_create(&w, path, &meta, 0, err));
    OK(tf_trace_out_add_process(w, &d, &p, err));
    OK(tf_trace_out_add_thread(w, p, 1, &t, err));
    tf_sample *s = calloc(N, sizeof *s);
    uint64_t *c = malloc(N * NC * sizeof *c);
    for (size_t i = 0; i < N; i++) {
        s[i] = (tf_sample){ .time = 3 * i, .ip = i * 7, .addr = i ^ 0x5555, .weight = (uint32_t)i,
                            .kind = (uint8_t)(i % 4) };
        for (size_t k = 0; k < NC; k++)
            c[i * NC + k] = i * 31 + k;
    }
    size_t batch = 1;
    for (size_t i = 0; i < N; i += batch, batch = batch % 13 + 1) {
        size_t n = N - i < batch ? N - i : batch;
        uint64_t frame = i, first;
        OK(tf_trace_out_append_samples(w, p, t, s + i, c + i * NC, n, err));
        OK(tf_trace_out_append_frames(w, p, t, &frame, 1, &first, err));
        if (i % 4999 < batch)
            OK(tf_trace_out_flush(w, err));
    }
    OK(tf_trace_out_close(w, err));

    tf_trace *tr = reopen(path);
    tf_sample *r = calloc(N, sizeof *r);
    uint64_t *rc = malloc(N * NC * sizeof *rc);
    assert_int_equal(read_samples(tr, 0, 0, 333, r, rc, N), N);
    assert_memory_equal(r, s, N * sizeof *s);
    assert_memory_equal(rc, c, N * NC * sizeof *c);
    const tf_thread *th = &tf_trace_process(tr, 0)->threads[0];
    uint64_t frames[3];
    OK(tf_trace_read_frames(tr, 0, 0, th->nframes - 3, 3, frames, err));
    assert_true(frames[0] < frames[1] && frames[1] < frames[2]);
    tf_trace_close(tr);
    assert_int_equal(fixture_open_hdf5_ids(), 0);
    free(r);
    free(rc);
    free(s);
    free(c);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixture_roundtrip),
        cmocka_unit_test(fixture_version_1),
        cmocka_unit_test(long_strings_version_1),
        cmocka_unit_test(empty_tables),
        cmocka_unit_test(extreme_values),
        cmocka_unit_test(long_strings),
        cmocka_unit_test(many_processes_and_threads),
        cmocka_unit_test(small_batches),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
