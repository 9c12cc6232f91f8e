/* SPDX-License-Identifier: BSD-3-Clause */
/* Every kind of bad input gives one error that names the file and what is
 * wrong, and nothing crashes. */
#include <fcntl.h>
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

#include "bad_trace.h"
#include "formats/trace.h"
#include "trace_fixture.h"
#include "v1_trace.h"

struct bad_case {
    int line;
    const char *mode;
    int code;                /* of tf_trace_open, or of tf_samples_read when open succeeds */
    bool at_open;
    const char *parts[4];    /* the message contains each */
};

static const struct bad_case cases[] = {
    { __LINE__, "empty", TF_ERR_FORMAT, true, { "empty file" } },
    { __LINE__, "not-hdf5", TF_ERR_FORMAT, true, { "not an HDF5 file" } },
    { __LINE__, "truncated", TF_ERR_FORMAT, true, { "truncated" } },
    { __LINE__, "not-a-trace", TF_ERR_FORMAT, true, { "not a tracefold trace" } },
    { __LINE__, "wrong-format", TF_ERR_FORMAT, true,
      { "not a tracefold trace", "someone-elses-trace" } },
    { __LINE__, "wrong-version", TF_ERR_VERSION, true, { "version 99", "not supported" } },
    { __LINE__, "missing-dataset", TF_ERR_FORMAT, true,
      { "/process/0/thread/1/samples", "missing dataset" } },
    { __LINE__, "missing-attribute", TF_ERR_FORMAT, true, { "missing attribute 'clock'" } },
    { __LINE__, "missing-group", TF_ERR_FORMAT, true, { "/process/0/thread", "missing group" } },
    { __LINE__, "wrong-type", TF_ERR_FORMAT, true,
      { "/process/0/thread/0/samples", "compound" } },
    { __LINE__, "wrong-shape", TF_ERR_FORMAT, true,
      { "/process/0/thread/1/events", "expected a 1-D table, found 2 dimensions" } },
    { __LINE__, "counters-mismatch", TF_ERR_FORMAT, true,
      { "/process/0/thread/0/events", "not an array of 2 ", "one per counter" } },
    { __LINE__, "events-out-of-order", TF_ERR_FORMAT, true,
      { "process 0, thread 1", "event 3 ", "time order" } },
    { __LINE__, "samples-out-of-order", TF_ERR_FORMAT, false,
      { "process 0, thread 0", "sample 41 ", "time order" } },
    { __LINE__, "corrupt-samples", TF_ERR_FORMAT, false,
      { "/process/0/thread/0/samples", "cannot read rows 0..", "corrupt" } },
    { __LINE__, "bad-string-id", TF_ERR_FORMAT, true,
      { "/process/0/thread/0/events", "999999" } },
    { __LINE__, "bad-stack", TF_ERR_FORMAT, false,
      { "/process/0/thread/0/samples", "row 7:", "1099511627776", "past the thread's" } },
    { __LINE__, "bad-object-stack", TF_ERR_FORMAT, true,
      { "/process/0/objects", "row 0:", "1099511627776", "past the process's" } },
    { __LINE__, "huge-extent", TF_ERR_FORMAT, true,
      { "/process/0/thread/0/samples", "stores 0 of the", "chunks its extent needs" } },
};

static void check_message(const struct bad_case *c, const tf_error *err, const char *path)
{
    if (!strstr(err->msg, path))
        fail_msg("line %d (%s): \"%s\" does not name the file", c->line, c->mode, err->msg);
    for (size_t i = 0; i < 4 && c->parts[i]; i++)
        if (!strstr(err->msg, c->parts[i]))
            fail_msg("line %d (%s): \"%s\" lacks \"%s\"", c->line, c->mode, err->msg,
                     c->parts[i]);
    if (strchr(err->msg, '\n'))
        fail_msg("line %d (%s): the message spans lines: \"%s\"", c->line, c->mode, err->msg);
}

/* Reads every sample of every thread; returns the first failure. */
static int read_all_samples(tf_trace *tr, tf_error *err)
{
    for (uint32_t p = 0; p < tf_trace_nprocesses(tr); p++)
        for (uint32_t t = 0; t < tf_trace_process(tr, p)->nthreads; t++) {
            tf_sample_cursor *c;
            tf_sample s[16];
            size_t n;
            int rc = tf_samples_open(tr, p, t, &c, err);
            if (rc < 0)
                return rc;
            do
                rc = tf_samples_read(c, s, NULL, 16, &n, err);
            while (rc == 0 && n > 0);
            tf_samples_close(c);
            if (rc < 0)
                return rc;
        }
    return 0;
}

static void bad_inputs(void **state)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct bad_case *c = &cases[i];
        /* Not named after the mode, which the message must not echo by chance. */
        char name[32];
        snprintf(name, sizeof name, "case-%zu.h5", i);
        char *path = fixture_path(fixture_dir, name);
        char why[1200];
        if (bad_trace_make(c->mode, path, why, sizeof why) < 0)
            fail_msg("line %d: %s", c->line, why);
        tf_trace *tr = NULL;
        tf_error err = { 0 };
        int rc = tf_trace_open(&tr, path, &err);
        if (c->at_open) {
            if (rc == 0)
                fail_msg("line %d (%s): the trace opened", c->line, c->mode);
            assert_null(tr);
        } else {
            if (rc < 0)
                fail_msg("line %d (%s): %s", c->line, c->mode, err.msg);
            rc = read_all_samples(tr, &err);
            tf_trace_close(tr);
        }
        if (rc != -c->code || err.code != c->code)
            fail_msg("line %d (%s): code %d, expected %d: %s", c->line, c->mode, err.code,
                     c->code, err.msg);
        check_message(c, &err, path);
        if (fixture_open_hdf5_ids() != 0)
            fail_msg("line %d (%s): %ld HDF5 ids left open", c->line, c->mode,
                     fixture_open_hdf5_ids());
        free(path);
    }
}

static bool copy_file(const char *from, const char *to, long damage_at)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    bool ok = in && out;
    for (long pos = 0; ok; pos++) {
        int c = fgetc(in);
        if (c == EOF)
            break;
        /* 8 bytes of garbage: flips some bits, zeroes others */
        if (pos >= damage_at && pos < damage_at + 8)
            c = (int)((pos - damage_at) % 2 ? 0 : (unsigned)c ^ 0xa5u);
        ok = fputc(c, out) != EOF;
    }
    if (in)
        fclose(in);
    return (out ? fclose(out) == 0 : false) && ok;
}

/* The byte ranges of HDF5 global heap collections in a file: a "GCOL"
 * signature, version, 3 reserved bytes, then the collection's size. */
static size_t global_heaps(const char *path, long *start, long *end, size_t max)
{
    FILE *f = fopen(path, "rb");
    size_t n = 0;
    unsigned char buf[16];
    for (long at = 0; f && n < max && fseek(f, at, SEEK_SET) == 0 &&
                      fread(buf, 1, sizeof buf, f) == sizeof buf; at++) {
        if (memcmp(buf, "GCOL", 4) != 0)
            continue;
        uint64_t size = 0;
        for (int i = 7; i >= 0; i--)
            size = size << 8 | buf[8 + i];
        start[n] = at;
        end[n++] = at + (long)size;
    }
    if (f)
        fclose(f);
    return n;
}

/* True when the file at path holds a sanitizer's report. */
static bool sanitizer_report(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[512];
    bool found = false;
    while (f && !found && fgets(line, sizeof line, f))
        found = strstr(line, "Sanitizer") || strstr(line, "runtime error");
    if (f)
        fclose(f);
    return found;
}

/* Opens and reads the trace at bad in a child process, so that a crash is
 * seen, not suffered, and a hang is cut by an alarm: 0 when it read, 1
 * when it failed naming the file; fails the test otherwise, and when the
 * sanitizer build reported anything (it exits 1 as well). */
static int read_in_child(const char *bad, long at)
{
    char report[4096];
    snprintf(report, sizeof report, "%s.stderr", bad);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int fd = open(report, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0)
            dup2(fd, STDERR_FILENO);
        /* cmocka's handlers would catch a crash and go on testing here */
        static const int crashes[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGALRM };
        for (size_t i = 0; i < sizeof crashes / sizeof crashes[0]; i++)
            signal(crashes[i], SIG_DFL);
        alarm(10);
        tf_trace *tr;
        tf_error err = { 0 };
        int rc = tf_trace_open(&tr, bad, &err);
        if (rc == 0) {
            rc = read_all_samples(tr, &err);
            tf_trace_close(tr);
        }
        _exit(rc == 0 ? 0 : strstr(err.msg, bad) ? 1 : 2);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
        fail_msg("garbage at offset %ld: still reading after 10 s", at);
    if (WIFSIGNALED(status))
        fail_msg("garbage at offset %ld: killed by signal %d", at, WTERMSIG(status));
    if (WEXITSTATUS(status) == 2)
        fail_msg("garbage at offset %ld: the error does not name the file", at);
    if (sanitizer_report(report))
        fail_msg("garbage at offset %ld: the sanitizer reported an error (%s)", at, report);
    return WEXITSTATUS(status);
}

/* Garbage at offsets all over a valid trace: opening and reading it either
 * works or fails with a message naming the file, and never crashes or
 * hangs.  Version 2 stores no variable-length strings, so no part of the
 * file is left out. */
static void corruption_sweep(void **state)
{
    char *good = fixture_path(fixture_dir, "sweep-good.h5");
    char *bad = fixture_path(fixture_dir, "sweep-bad.h5");
    OK(fixture_write(good, 0, err));
    struct stat st;
    assert_int_equal(stat(good, &st), 0);
    int failures = 0;
    for (long at = 0; at < st.st_size; at += 61) {
        assert_true(copy_file(good, bad, at));
        failures += read_in_child(bad, at);
    }
    assert_true(failures > 0);   /* the sweep did hit the trace's structures */
    free(good);
    free(bad);
}

/* Garbage over the global heap collections of a version-1 trace, where its
 * variable-length strings live unchecked by HDF5 (which crashed or looped
 * on such files): every third offset of each collection's first 2 KiB,
 * which hold its header and the strings' objects. */
static void version_1_heap_sweep(void **state)
{
    char *good = fixture_path(fixture_dir, "sweep-v1-good.h5");
    char *bad = fixture_path(fixture_dir, "sweep-v1-bad.h5");
    OK(fixture_write(good, 0, err));
    char why[1200];
    if (v1_trace_convert(good, why, sizeof why) < 0)
        fail_msg("%s", why);
    long heap_start[16], heap_end[16];
    size_t heaps = global_heaps(good, heap_start, heap_end, 16);
    assert_true(heaps > 0);
    int failures = 0;
    for (size_t h = 0; h < heaps; h++)
        for (long at = heap_start[h]; at < heap_end[h] && at < heap_start[h] + 2048; at += 3) {
            assert_true(copy_file(good, bad, at));
            failures += read_in_child(bad, at);
        }
    assert_true(failures > 0);
    free(good);
    free(bad);
}

static void every_mode_is_tested(void **state)
{
    for (size_t m = 0; bad_trace_mode(m); m++) {
        bool found = false;
        for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
            found |= strcmp(cases[i].mode, bad_trace_mode(m)) == 0;
        if (!found)
            fail_msg("mode %s has no case", bad_trace_mode(m));
    }
}

static void missing_file_and_directory(void **state)
{
    char *path = fixture_path(fixture_dir, "no-such-trace.h5");
    tf_trace *tr = NULL;
    tf_error err = { 0 };
    assert_int_equal(tf_trace_open(&tr, path, &err), -TF_ERR_NOTFOUND);
    assert_non_null(strstr(err.msg, path));
    assert_non_null(strstr(err.msg, "No such file"));
    assert_int_equal(tf_trace_open(&tr, fixture_dir, &err), -TF_ERR_USAGE);
    assert_non_null(strstr(err.msg, "directory"));
    assert_int_equal(fixture_open_hdf5_ids(), 0);
    free(path);
}

/* Out-of-range requests on a good trace fail cleanly. */
static void bad_requests(void **state)
{
    char *path = fixture_path(fixture_dir, "good.h5");
    tf_error err = { 0 };
    assert_int_equal(fixture_write(path, 0, &err), 0);
    tf_trace *tr;
    assert_int_equal(tf_trace_open(&tr, path, &err), 0);
    tf_sample_cursor *c;
    assert_int_equal(tf_samples_open(tr, 0, FIXTURE_THREADS, &c, &err), -TF_ERR_USAGE);
    assert_int_equal(tf_samples_open(tr, 1, 0, &c, &err), -TF_ERR_USAGE);
    uint64_t ips[4];
    assert_int_equal(tf_trace_read_frames(tr, 0, 0, 1, 2, ips, &err), -TF_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "out of range"));
    assert_int_equal(tf_trace_read_frames(tr, 0, UINT32_MAX, 2, 2, ips, &err), -TF_ERR_FORMAT);
    tf_trace_close(tr);
    assert_int_equal(fixture_open_hdf5_ids(), 0);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_inputs),
        cmocka_unit_test(every_mode_is_tested),
        cmocka_unit_test(corruption_sweep),
        cmocka_unit_test(version_1_heap_sweep),
        cmocka_unit_test(missing_file_and_directory),
        cmocka_unit_test(bad_requests),
    };
    return cmocka_run_group_tests(tests, fixture_setup, fixture_teardown);
}
