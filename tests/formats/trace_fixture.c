/* SPDX-License-Identifier: BSD-3-Clause */
#include "trace_fixture.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

long fixture_open_hdf5_ids(void)
{
    return (long)H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
}

char *fixture_tmpdir(void)
{
    char templ[] = "formats-test-XXXXXX";
    return mkdtemp(templ) ? strdup(templ) : NULL;
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    return remove(path);
}

void fixture_rmtree(char *dir)
{
    if (dir)
        nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(dir);
}

char *fixture_dir;

int fixture_setup(void **state)
{
    fixture_dir = fixture_tmpdir();
    return fixture_dir ? 0 : -1;
}

int fixture_teardown(void **state)
{
    fixture_rmtree(fixture_dir);
    fixture_dir = NULL;
    return 0;
}

const char *fixture_error_mismatch(int rc, const tf_error *err, int code,
                                   const char *const *parts)
{
    static char why[TF_ERROR_MSG_MAX + 200];
    if (rc != -code || err->code != code) {
        snprintf(why, sizeof why, "returned %d with code %d, expected code %d: \"%s\"", rc,
                 err->code, code, err->msg);
        return why;
    }
    for (; *parts; parts++)
        if (!strstr(err->msg, *parts)) {
            snprintf(why, sizeof why, "\"%s\" lacks \"%s\"", err->msg, *parts);
            return why;
        }
    return NULL;
}

char *fixture_path(const char *dir, const char *name)
{
    size_t len = strlen(dir) + strlen(name) + 2;
    char *p = malloc(len);
    if (p)
        snprintf(p, len, "%s/%s", dir, name);
    return p;
}

static const fixture_strings plain_strings = {
    .host = "testhost", .command_line = "./app 1 2", .executable = "/bin/app",
    .region = "main", .object = "matrix",
    .counters = { "instructions", "cycles", "L1D misses" },
};

/* OSC (set the window title, ended by BEL), CSI (clear the screen, colour,
 * blink), CR and LF, TAB, DEL, the C1 CSI as UTF-8 (0xc2 0x9b) and as a
 * lone byte (0x9b), a truncated UTF-8 sequence; '|', ',' and '"', which
 * Markdown and CSV quote their own way. */
const fixture_strings fixture_hostile_strings = {
    .host = "evil\x1b]0;pwned\x07host",
    .command_line = "./app\x1b[2J\r\n1 2",
    .executable = "/bin/\x9b" "31mapp",
    .region = "main\x1b[31m\nloop",
    .object = "matrix\x7f\xc2\x9b" "2J|x\xe2\x82",
    .counters = { "instr\tuctions", "cy\x1b[5mcles", "L1D, \"misses\"\r" },
};

static int write_thread(tf_trace_out *w, uint32_t proc, uint32_t thread, uint32_t region,
                        tf_error *err)
{
    tf_event ev[FIXTURE_EVENTS];
    uint64_t evc[FIXTURE_EVENTS * FIXTURE_COUNTERS];
    for (int i = 0; i < FIXTURE_EVENTS; i++) {
        ev[i] = (tf_event){ .time = 1000u * (uint64_t)i, .value = region,
                            .kind = i % 2 ? TF_EVENT_EXIT : TF_EVENT_ENTER };
        for (int c = 0; c < FIXTURE_COUNTERS; c++)
            evc[i * FIXTURE_COUNTERS + c] = 100u * (uint64_t)i + (uint64_t)c;
    }
    uint64_t ips[2] = { 0x401000, 0x401100 }, first;
    int rc = tf_trace_out_append_frames(w, proc, thread, ips, 2, &first, err);
    if (rc < 0)
        return rc;
    tf_sample s[FIXTURE_SAMPLES];
    uint64_t sc[FIXTURE_SAMPLES * FIXTURE_COUNTERS];
    for (int i = 0; i < FIXTURE_SAMPLES; i++) {
        s[i] = (tf_sample){ .time = 50u * (uint64_t)i, .ip = 0x401000 + (uint64_t)i,
                            .addr = i % 3 ? 0x7f0000001000 + 64u * (uint64_t)i : 0,
                            .kind = (uint8_t)(i % 3), .level = TF_LEVEL_L1, .weight = 4,
                            .stack = first, .stack_len = 2 };
        for (int c = 0; c < FIXTURE_COUNTERS; c++)
            sc[i * FIXTURE_COUNTERS + c] = 10u * (uint64_t)i + (uint64_t)c;
    }
    if ((rc = tf_trace_out_append_events(w, proc, thread, ev, evc, FIXTURE_EVENTS, err)) < 0)
        return rc;
    return tf_trace_out_append_samples(w, proc, thread, s, sc, FIXTURE_SAMPLES, err);
}

int fixture_write(const char *path, unsigned flags, tf_error *err)
{
    return fixture_write_strings(path, flags, &plain_strings, err);
}

int fixture_write_strings(const char *path, unsigned flags, const fixture_strings *str,
                          tf_error *err)
{
    tf_trace_meta meta = { .clock = "CLOCK_MONOTONIC", .host = str->host,
                           .command_line = str->command_line, .producer = "formats tests",
                           .start_time = 1700000000000000000ull };
    tf_process_desc desc = { .pid = 4242, .rank = -1, .nranks = 0,
                             .executable = str->executable, .host = str->host,
                             .build_id = "abcdef", .ncounters = FIXTURE_COUNTERS,
                             .counter_names = str->counters };
    tf_trace_out *w;
    int rc = tf_trace_out_create(&w, path, &meta, flags, err);
    if (rc < 0)
        return rc;
    uint32_t proc, thread, region, heap;
    if ((rc = tf_trace_out_add_process(w, &desc, &proc, err)) < 0 ||
        (rc = tf_trace_out_intern(w, str->region, &region, err)) < 0 ||
        (rc = tf_trace_out_intern(w, str->object, &heap, err)) < 0)
        goto fail;
    uint64_t alloc_stack[3] = { 0x401050, 0x401010, 0x400f00 }, first;
    if ((rc = tf_trace_out_append_frames(w, proc, UINT32_MAX, alloc_stack, 3, &first, err)) < 0)
        goto fail;
    tf_module mod = { .start = 0x400000, .end = 0x500000, .path = region };
    tf_object obj = { .start = 0x7f0000001000, .size = 1 << 20, .alloc_time = 10,
                      .free_time = TF_NOTIME, .id = 1, .name = heap, .kind = TF_OBJECT_HEAP,
                      .stack = first, .stack_len = 3 };
    tf_symbol sym = { .start = 0x401000, .end = 0x401200, .function = region, .file = heap,
                      .line = 42 };
    if ((rc = tf_trace_out_append_modules(w, proc, &mod, 1, err)) < 0 ||
        (rc = tf_trace_out_append_objects(w, proc, &obj, 1, err)) < 0 ||
        (rc = tf_trace_out_append_symbols(w, proc, &sym, 1, err)) < 0)
        goto fail;
    for (int t = 0; t < FIXTURE_THREADS; t++)
        if ((rc = tf_trace_out_add_thread(w, proc, 100 + (uint64_t)t, &thread, err)) < 0 ||
            (rc = write_thread(w, proc, thread, region, err)) < 0)
            goto fail;
    return tf_trace_out_close(w, err);
fail:
    tf_trace_out_abort(w);
    return rc;
}
