/* SPDX-License-Identifier: BSD-3-Clause */
/* What the trace output refuses, atomic writes and aborts, and a trace whose
 * writing process is SIGKILLed after a flush. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <hdf5.h>

#include "formats/trace.h"
#include "trace_fixture.h"

static const tf_trace_meta meta = { .clock = "CLOCK_MONOTONIC", .host = "h",
                                    .command_line = "cmd", .producer = "test" };
static const char *const names[2] = { "instructions", "cycles" };
static const tf_process_desc desc = { .pid = 9, .rank = -1, .ncounters = 2,
                                      .counter_names = names };

static bool exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* An output with one process and two threads. */
static tf_trace_out *open_out(const char *path, unsigned flags)
{
    tf_trace_out *w = NULL;
    uint32_t p, t;
    OK(tf_trace_out_create(&w, path, &meta, flags, err));
    OK(tf_trace_out_add_process(w, &desc, &p, err));
    OK(tf_trace_out_add_thread(w, p, 1, &t, err));
    OK(tf_trace_out_add_thread(w, p, 2, &t, err));
    return w;
}

static void refuses_decreasing_times(void **state)
{
    char *path = fixture_path(fixture_dir, "order.h5");
    tf_trace_out *w = open_out(path, 0);
    tf_event ev[3] = { { .time = 10, .kind = TF_EVENT_USER }, { .time = 20, .kind = TF_EVENT_USER },
                       { .time = 15, .kind = TF_EVENT_USER } };
    FAILS(tf_trace_out_append_events(w, 0, 1, ev, NULL, 3, err), TF_ERR_USAGE, path, "process 0",
          "thread 1", "event 2 ", "15 ns", "20 ns");
    OK(tf_trace_out_append_events(w, 0, 1, ev, NULL, 2, err));
    /* Across batches too, counting rows from the start of the thread. */
    FAILS(tf_trace_out_append_events(w, 0, 1, &ev[2], NULL, 1, err), TF_ERR_USAGE, "event 2 ");
    /* Equal times are fine; samples are ordered on their own. */
    OK(tf_trace_out_append_events(w, 0, 1, &ev[1], NULL, 1, err));
    tf_sample s[2] = { { .time = 5 }, { .time = 4 } };
    OK(tf_trace_out_append_samples(w, 0, 1, s, NULL, 1, err));
    FAILS(tf_trace_out_append_samples(w, 0, 1, &s[1], NULL, 1, err), TF_ERR_USAGE, path,
          "process 0", "thread 1", "sample 1 ");
    /* Another thread has its own clock. */
    OK(tf_trace_out_append_samples(w, 0, 0, &s[1], NULL, 1, err));
    OK(tf_trace_out_close(w, err));

    tf_trace *tr;
    OK(tf_trace_open(&tr, path, err));
    assert_int_equal(tf_trace_process(tr, 0)->threads[1].nevents, 3);
    assert_int_equal(tf_trace_process(tr, 0)->threads[1].nsamples, 1);
    tf_trace_close(tr);
    free(path);
}

static void refuses_bad_records(void **state)
{
    char *path = fixture_path(fixture_dir, "bad-records.h5");
    tf_trace_out *w = open_out(path, 0);
    tf_event bad_kind = { .kind = 7 };
    FAILS(tf_trace_out_append_events(w, 0, 0, &bad_kind, NULL, 1, err), TF_ERR_USAGE, "kind 7");
    tf_event bad_region = { .kind = TF_EVENT_ENTER, .value = 1000 };
    FAILS(tf_trace_out_append_events(w, 0, 0, &bad_region, NULL, 1, err), TF_ERR_USAGE,
          "event 0 names region string id 1000");
    tf_sample bad_sample = { .kind = 9 };
    FAILS(tf_trace_out_append_samples(w, 0, 0, &bad_sample, NULL, 1, err), TF_ERR_USAGE, "kind 9");
    tf_sample no_frames = { .stack = 0, .stack_len = 3 };
    FAILS(tf_trace_out_append_samples(w, 0, 0, &no_frames, NULL, 1, err), TF_ERR_USAGE,
          "0 frames");
    tf_object unstacked = { .stack = 0, .stack_len = 1 };
    FAILS(tf_trace_out_append_objects(w, 0, &unstacked, 1, err), TF_ERR_USAGE,
          "the process has 0 frames");
    tf_object obj = { .name = 77 };
    FAILS(tf_trace_out_append_objects(w, 0, &obj, 1, err), TF_ERR_USAGE,
          "objects row 0: name is string id 77");
    tf_module mod = { .path = 77 };
    FAILS(tf_trace_out_append_modules(w, 0, &mod, 1, err), TF_ERR_USAGE, "modules row 0: path");
    tf_symbol sym = { .file = 77 };
    FAILS(tf_trace_out_append_symbols(w, 0, &sym, 1, err), TF_ERR_USAGE, "symbols row 0: file");
    uint32_t t;
    FAILS(tf_trace_out_add_thread(w, 3, 1, &t, err), TF_ERR_USAGE, "no process 3");
    tf_event ok = { .kind = TF_EVENT_USER };
    FAILS(tf_trace_out_append_events(w, 0, 5, &ok, NULL, 1, err), TF_ERR_USAGE, "no thread 5");
    uint64_t ip = 1, first;
    FAILS(tf_trace_out_append_frames(w, 1, UINT32_MAX, &ip, 1, &first, err), TF_ERR_USAGE,
          "no process 1");
    tf_process_desc nameless = desc;
    nameless.counter_names = (const char *const[]){ "a", NULL };
    uint32_t p;
    FAILS(tf_trace_out_add_process(w, &nameless, &p, err), TF_ERR_USAGE, "counter 1 has no name");
    tf_process_desc too_many = desc;
    too_many.ncounters = TF_MAX_COUNTERS + 1;
    FAILS(tf_trace_out_add_process(w, &too_many, &p, err), TF_ERR_USAGE, "at most");
    tf_trace_out_abort(w);
    assert_int_equal(fixture_open_hdf5_ids(), 0);
    free(path);
}

static void atomic_close_and_abort(void **state)
{
    char *path = fixture_path(fixture_dir, "atomic.h5");
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    tf_trace_out *w = open_out(path, TF_TRACE_OUT_ATOMIC);
    assert_false(exists(path));
    assert_true(exists(tmp));
    OK(tf_trace_out_close(w, err));
    assert_true(exists(path));
    assert_false(exists(tmp));
    tf_trace *tr;
    OK(tf_trace_open(&tr, path, err));
    assert_true(tf_trace_complete(tr));
    tf_trace_close(tr);

    char *aborted = fixture_path(fixture_dir, "aborted.h5");
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", aborted, (long)getpid());
    w = open_out(aborted, TF_TRACE_OUT_ATOMIC);
    tf_sample s = { .time = 1 };
    OK(tf_trace_out_append_samples(w, 0, 0, &s, NULL, 1, err));
    OK(tf_trace_out_flush(w, err));
    tf_trace_out_abort(w);
    assert_false(exists(aborted));
    assert_false(exists(tmp));
    assert_int_equal(fixture_open_hdf5_ids(), 0);
    free(aborted);
    free(path);
}

/* The records a producer lost: stored per thread, the latest value kept,
 * 0 for a thread that lost none; an unknown thread is refused. */
static void dropped_counts(void **state)
{
    char *path = fixture_path(fixture_dir, "dropped.h5");
    tf_trace_out *w = open_out(path, 0);
    OK(tf_trace_out_set_dropped(w, 0, 1, 3, 4, err));
    OK(tf_trace_out_set_dropped(w, 0, 1, 30, 40, err));
    FAILS(tf_trace_out_set_dropped(w, 0, 2, 1, 1, err), TF_ERR_USAGE, path, "thread 2");
    OK(tf_trace_out_close(w, err));
    tf_trace *tr;
    OK(tf_trace_open(&tr, path, err));
    const tf_process *p = tf_trace_process(tr, 0);
    assert_int_equal(p->threads[0].dropped_events, 0);
    assert_int_equal(p->threads[0].dropped_samples, 0);
    assert_int_equal(p->threads[1].dropped_events, 30);
    assert_int_equal(p->threads[1].dropped_samples, 40);
    tf_trace_close(tr);

    /* An attribute of the wrong type: refused, naming the file and it. */
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t g = H5Gopen2(f, "process/0/thread/1", H5P_DEFAULT);
    assert_true(g >= 0);
    assert_true(H5Adelete(g, "dropped_events") >= 0);
    hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR);
    H5Tset_size(type, 4);
    hid_t a = H5Acreate2(g, "dropped_events", type, space, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(a >= 0);
    assert_true(H5Awrite(a, type, "many") >= 0);
    H5Aclose(a);
    H5Sclose(space);
    H5Tclose(type);
    H5Gclose(g);
    H5Fclose(f);
    FAILS(tf_trace_open(&tr, path, err), TF_ERR_FORMAT, path, "dropped_events");
    free(path);
}

/* A plain output that is aborted leaves an honest, incomplete trace. */
static void abort_leaves_incomplete_trace(void **state)
{
    char *path = fixture_path(fixture_dir, "incomplete.h5");
    tf_trace_out *w = open_out(path, 0);
    tf_sample s = { .time = 1 };
    OK(tf_trace_out_append_samples(w, 0, 0, &s, NULL, 1, err));
    tf_trace_out_abort(w);
    tf_trace *tr;
    OK(tf_trace_open(&tr, path, err));
    assert_false(tf_trace_complete(tr));
    assert_int_equal(tf_trace_process(tr, 0)->threads[0].nsamples, 1);
    tf_trace_close(tr);
    free(path);
}

enum { FLUSHED = 1000, AFTER = 50000 };

/* The child: writes FLUSHED samples and a region name, flushes, then keeps
 * appending (enough to complete and evict the chunk that was partial at
 * the flush) and dies by SIGKILL without closing. */
static void write_until_killed(const char *path)
{
    tf_trace_out *w = open_out(path, 0);
    tf_error err;
    uint32_t region;
    tf_sample *s = calloc(AFTER, sizeof *s);
    uint64_t *c = calloc(2 * AFTER, sizeof *c);
    if (!w || !s || !c || tf_trace_out_intern(w, "flushed region", &region, &err) < 0)
        _exit(3);
    for (uint64_t i = 0; i < AFTER; i++) {
        s[i] = (tf_sample){ .time = i, .ip = i + 1 };
        c[2 * i] = i;
        c[2 * i + 1] = 2 * i;
    }
    tf_event ev = { .time = 0, .value = region, .kind = TF_EVENT_ENTER };
    if (tf_trace_out_append_events(w, 0, 0, &ev, NULL, 1, &err) < 0 ||
        tf_trace_out_append_samples(w, 0, 0, s, c, FLUSHED, &err) < 0 ||
        tf_trace_out_flush(w, &err) < 0)
        _exit(4);
    uint32_t late;
    if (tf_trace_out_intern(w, "never flushed", &late, &err) < 0 ||
        tf_trace_out_append_samples(w, 0, 0, s + FLUSHED, c + 2 * FLUSHED, AFTER - FLUSHED,
                                    &err) < 0)
        _exit(5);
    raise(SIGKILL);
    _exit(6);
}

static void sigkill_after_flush(void **state)
{
    char *path = fixture_path(fixture_dir, "killed.h5");
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        write_until_killed(path);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (!WIFSIGNALED(status))
        fail_msg("the writing child exited with %d before SIGKILL", WEXITSTATUS(status));
    assert_int_equal(WTERMSIG(status), SIGKILL);

    tf_trace *tr;
    OK(tf_trace_open(&tr, path, err));
    assert_false(tf_trace_complete(tr));
    uint32_t id;
    assert_true(tf_trace_find_string(tr, "flushed region", &id));
    assert_false(tf_trace_find_string(tr, "never flushed", &id));
    const tf_thread *t = &tf_trace_process(tr, 0)->threads[0];
    assert_int_equal(t->nevents, 1);
    assert_string_equal(tf_trace_string(tr, (uint32_t)t->events[0].value), "flushed region");
    assert_int_equal(t->nsamples, FLUSHED);
    tf_sample_cursor *cur;
    OK(tf_samples_open(tr, 0, 0, &cur, err));
    tf_sample s[FLUSHED + 1];
    uint64_t c[2 * (FLUSHED + 1)];
    size_t n;
    OK(tf_samples_read(cur, s, c, FLUSHED + 1, &n, err));
    assert_int_equal(n, FLUSHED);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(s[i].time, i);
        assert_int_equal(s[i].ip, i + 1);
        assert_int_equal(c[2 * i + 1], 2 * i);
    }
    tf_samples_close(cur);
    tf_trace_close(tr);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refuses_decreasing_times),
        cmocka_unit_test(refuses_bad_records),
        cmocka_unit_test(atomic_close_and_abort),
        cmocka_unit_test(dropped_counts),
        cmocka_unit_test(abort_leaves_incomplete_trace),
        cmocka_unit_test(sigkill_after_flush),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
