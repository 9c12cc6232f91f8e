/* SPDX-License-Identifier: BSD-3-Clause */
/* Import of Extrae traces into tracefold traces: the namd trace (regions,
 * cumulative counters, counter sets, samples with symbolised stacks),
 * dynamic memory as objects, region specs, and failures that leave no file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/prv_import.h"
#include "test_dir.h"

static int counter_index(const tf_trace *tr, const tf_process *p, const char *name)
{
    for (uint32_t c = 0; c < p->ncounters; c++)
        if (!strcmp(tf_trace_string(tr, p->counters[c].name), name))
            return (int)c;
    return -1;
}

static void test_namd(void **state)
{
    (void)state;
    char *src = tf_test_namd_plain();
    assert_non_null(src);
    char *out = tf_test_path("namd.h5");
    tf_prv_import_stats st;
    tf_error err;
    if (tf_prv_import(src, out, false, NULL, NULL, &st, &err) < 0)
        fail_msg("%s", err.msg);
    assert_true(st.have_pcf);
    assert_true(st.have_row);
    assert_int_equal(st.skipped, 0);
    assert_int_equal(st.samples, 27829);
    assert_int_equal(st.counters, 11);

    tf_trace *tr;
    if (tf_trace_open(&tr, out, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(tf_trace_nprocesses(tr), 1);
    const tf_process *p = tf_trace_process(tr, 0);
    assert_string_equal(p->host, "node157");
    assert_int_equal(p->nthreads, 1);
    int ins = counter_index(tr, p, "PAPI_TOT_INS");
    int native = counter_index(tr, p, "counter 42001008");
    assert_true(ins >= 0);
    assert_true(native >= 0);
    assert_true(counter_index(tr, p, "LLC_MISSES") >= 0);

    uint32_t main_id;
    assert_true(tf_trace_find_string(tr, "main", &main_id));
    const tf_thread *th = &p->threads[0];
    size_t enters = 0, exits = 0;
    uint64_t last_ins = 0, with_ins = 0;
    for (size_t i = 0; i < th->nevents; i++) {
        const tf_event *e = &th->events[i];
        if (e->kind == TF_EVENT_ENTER && e->value == main_id)
            enters++;
        if (e->kind == TF_EVENT_EXIT && e->value == main_id)
            exits++;
        uint64_t v = th->event_counters[i * p->ncounters + (size_t)ins];
        if (e->kind != TF_EVENT_USER && v != TF_NOVALUE) {
            /* Cumulative: never decreasing. */
            assert_true(v >= last_ins);
            last_ins = v;
            with_ins++;
        }
    }
    assert_int_equal(enters, 38);
    assert_int_equal(exits, 38);
    /* PAPI_TOT_INS is in set 1 only, which covers part of the iterations. */
    assert_true(with_ins > 0 && with_ins < 76);

    /* Samples: routine and line resolve through the symbols. */
    tf_sample_cursor *c;
    assert_int_equal(tf_samples_open(tr, 0, 0, &c, &err), 0);
    tf_sample s[512];
    size_t n, total = 0, resolved = 0;
    while (tf_samples_read(c, s, NULL, 512, &n, &err) == 0 && n) {
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(s[i].kind, TF_SAMPLE_TIMER);
            for (size_t k = 0; k < p->nsymbols; k++)
                if (s[i].ip >= p->symbols[k].start && s[i].ip < p->symbols[k].end &&
                    p->symbols[k].line) {
                    resolved++;
                    break;
                }
        }
        total += n;
    }
    tf_samples_close(c);
    assert_int_equal(total, 27829);
    assert_true(resolved > total / 2);
    bool found_line = false;
    for (size_t k = 0; k < p->nsymbols; k++)
        if (p->symbols[k].line == 59 &&
            !strcmp(tf_trace_string(tr, p->symbols[k].file), "Molecule.C"))
            found_line = true;
    assert_true(found_line);

    char *name;
    assert_int_equal(tf_prv_region_resolve(tr, "User function=main", &name, &err), 0);
    assert_string_equal(name, "main");
    free(name);
    assert_int_equal(tf_prv_region_resolve(tr, "60000019=5", &name, &err), 0);
    assert_string_equal(name, "main");
    free(name);
    assert_int_equal(tf_prv_region_resolve(tr, "60000019=main", &name, &err), 0);
    free(name);
    assert_int_equal(tf_prv_region_resolve(tr, "User function=nope", &name, &err), -TF_ERR_NOTFOUND);
    assert_non_null(strstr(err.msg, "User function=main (60000019=5)"));
    tf_trace_close(tr);
    free(out);
    free(src);
}

static void test_objects_and_sets(void **state)
{
    (void)state;
    char *prv = tf_test_path("mem.prv"), *pcf = tf_test_path("mem.pcf"), *out = tf_test_path("mem.h5");
    FILE *f = fopen(prv, "w");
    assert_non_null(f);
    fputs("#Paraver (02/03/2024 at 11:12):100_ns:1(2):1:1(2:1),0\n"
          "2:1:1:1:1:1:41999999:1:42000050:0:60000019:3\n"
          "2:1:1:1:1:2:40000040:1:40000041:4096\n"
          "2:1:1:1:1:3:40000040:0:40000043:65536\n"
          "2:2:1:1:2:3:42000050:7\n"
          "2:1:1:1:1:4:32000000:65600:32000002:4:32000006:120:30000000:2:30000100:2:42000050:100\n"
          "2:1:1:1:1:5:42000050:5:41999999:2:42000059:0\n"
          /* realloc moves the object; the later free of its old address ends nothing */
          "2:1:1:1:1:5:40000040:3:40000041:8192:40000042:65536\n"
          "2:1:1:1:1:5:40000040:0:40000043:131072\n"
          "2:1:1:1:1:6:40000040:2:40000042:65536\n"
          "2:1:1:1:1:7:40000040:0:42000059:40\n"
          /* frees of an address never allocated, twice */
          "2:1:1:1:1:7:40000040:2:40000042:999\n"
          "2:1:1:1:1:7:40000040:0\n"
          "2:1:1:1:1:7:40000040:2:40000042:999\n"
          "2:1:1:1:1:7:40000040:0\n"
          "2:1:1:1:1:8:60000019:0:42000059:2\n", f);
    fclose(f);
    f = fopen(pcf, "w");
    fputs("EVENT_TYPE\n0 60000019 User function\nVALUES\n0 End\n3 solver\n\n"
          "EVENT_TYPE\n0 30000000 Sampled functions\nVALUES\n2 kernel\n\n"
          "EVENT_TYPE\n0 30000100 Sampled lines\nVALUES\n2 42 (kernel.c)\n\n", f);
    fclose(f);
    tf_prv_import_stats st;
    tf_error err;
    if (tf_prv_import(prv, out, false, NULL, NULL, &st, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(st.objects, 2);
    tf_trace *tr;
    assert_int_equal(tf_trace_open(&tr, out, &err), 0);
    const tf_process *p = tf_trace_process(tr, 0);
    assert_int_equal(p->nthreads, 2);
    assert_int_equal(p->nobjects, 2);
    assert_int_equal(p->objects[0].start, 65536);
    assert_int_equal(p->objects[0].size, 4096);
    assert_int_equal(p->objects[0].alloc_time, 2);
    assert_int_equal(p->objects[0].free_time, 5);
    assert_int_equal(p->objects[1].start, 131072);
    assert_int_equal(p->objects[1].size, 8192);
    assert_int_equal(p->objects[1].alloc_time, 5);
    assert_true(p->objects[1].free_time == TF_NOTIME);
    int ins = counter_index(tr, p, "PAPI_TOT_INS"), cyc = counter_index(tr, p, "PAPI_TOT_CYC");
    assert_true(ins >= 0 && cyc >= 0);
    /* Thread 1: enter at 1, exit at 8 where only cycles (set 2) are read. */
    const tf_thread *th = &p->threads[0];
    const tf_event *exit = NULL;
    size_t exit_i = 0;
    for (size_t i = 0; i < th->nevents; i++)
        if (th->events[i].kind == TF_EVENT_EXIT) {
            exit = &th->events[i];
            exit_i = i;
        }
    assert_non_null(exit);
    assert_int_equal(exit->time, 8);
    assert_int_equal(th->event_counters[exit_i * p->ncounters + (size_t)cyc], 42);
    assert_true(th->event_counters[exit_i * p->ncounters + (size_t)ins] == TF_NOVALUE);
    /* The memory sample: load, L3, cost 120, cumulative instructions 100. */
    tf_sample_cursor *c;
    assert_int_equal(tf_samples_open(tr, 0, 0, &c, &err), 0);
    tf_sample s[4];
    uint64_t rows[4 * TF_MAX_COUNTERS];
    size_t n;
    assert_int_equal(tf_samples_read(c, s, rows, 4, &n, &err), 0);
    assert_int_equal(n, 1);
    assert_int_equal(s[0].kind, TF_SAMPLE_LOAD);
    assert_int_equal(s[0].addr, 65600);
    assert_int_equal(s[0].level, TF_LEVEL_L3);
    assert_int_equal(s[0].weight, 120);
    assert_int_equal(s[0].stack_len, 1);
    assert_int_equal(rows[ins], 100);
    tf_samples_close(c);
    /* Thread 2 accumulates on its own. */
    assert_int_equal(p->threads[1].nevents, 0);
    tf_trace_close(tr);
    free(prv);
    free(pcf);
    free(out);
}

/* Sampled callers become a call stack whose callers are return
 * addresses: looked up at their call (the address before), as every
 * reader of stacks does, they give the caller's routine and line. */
static void test_caller_frames(void **state)
{
    (void)state;
    char *prv = tf_test_path("callers.prv"), *pcf = tf_test_path("callers.pcf"),
         *out = tf_test_path("callers.h5");
    FILE *f = fopen(prv, "w");
    assert_non_null(f);
    fputs("#Paraver (02/03/2024 at 11:12):100_ns:1(1):1:1(1:1),0\n"
          "2:1:1:1:1:1:30000000:2:30000100:2:30000001:3:30000101:3\n"
          "2:1:1:1:1:2:30000000:3:30000100:3\n", f);
    fclose(f);
    f = fopen(pcf, "w");
    assert_non_null(f);
    fputs("EVENT_TYPE\n0 30000000 Sampled functions\n0 30000001 Sampled functions (depth 1)\n"
          "VALUES\n2 kernel\n3 main\n\n"
          "EVENT_TYPE\n0 30000100 Sampled lines\n0 30000101 Sampled lines (depth 1)\n"
          "VALUES\n2 42 (kernel.c)\n3 7 (main.c)\n\n", f);
    fclose(f);
    tf_prv_import_stats st;
    tf_error err;
    if (tf_prv_import(prv, out, false, NULL, NULL, &st, &err) < 0)
        fail_msg("%s", err.msg);
    tf_trace *tr;
    assert_int_equal(tf_trace_open(&tr, out, &err), 0);
    const tf_process *p = tf_trace_process(tr, 0);
    tf_sample_cursor *c;
    assert_int_equal(tf_samples_open(tr, 0, 0, &c, &err), 0);
    tf_sample s[4];
    size_t n;
    assert_int_equal(tf_samples_read(c, s, NULL, 4, &n, &err), 0);
    tf_samples_close(c);
    assert_int_equal(n, 2);
    assert_int_equal(s[0].stack_len, 2);
    uint64_t frames[2];
    assert_int_equal(tf_trace_read_frames(tr, 0, 0, s[0].stack, 2, frames, &err), 0);
    assert_int_equal(frames[0], s[0].ip);
    /* the caller's call, and the second sample's ip, are main.c:7 */
    const char *want[2][2] = { { "kernel", "kernel.c" }, { "main", "main.c" } };
    uint64_t at[3] = { frames[0], frames[1] - 1, s[1].ip };
    for (int k = 0; k < 3; k++) {
        const tf_symbol *sym = NULL;
        for (size_t i = 0; i < p->nsymbols; i++)
            if (p->symbols[i].start <= at[k] && at[k] < p->symbols[i].end)
                sym = &p->symbols[i];
        assert_non_null(sym);
        assert_string_equal(tf_trace_string(tr, sym->function), want[k > 0][0]);
        assert_string_equal(tf_trace_string(tr, sym->file), want[k > 0][1]);
        assert_int_equal(sym->line, k ? 7 : 42);
    }
    tf_trace_close(tr);
    free(prv);
    free(pcf);
    free(out);
}

static void test_failures_leave_nothing(void **state)
{
    (void)state;
    char *prv = tf_test_path("bad.prv"), *out = tf_test_path("bad.h5");
    FILE *f = fopen(prv, "w");
    fputs("#Paraver (x):10_ns:1(1):1:1(1:1),0\n2:1:1:1:1:1:60000019:1\n2:1:1:1:1:0:1:1\n", f);
    fclose(f);
    tf_prv_import_stats st;
    tf_error err;
    assert_int_equal(tf_prv_import(prv, out, false, NULL, NULL, &st, &err), -TF_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "bad.prv: line 3: "));
    assert_int_not_equal(access(out, F_OK), 0);
    /* Lenient: the bad record is skipped and counted. */
    assert_int_equal(tf_prv_import(prv, out, true, NULL, NULL, &st, &err), 0);
    assert_int_equal(st.skipped, 1);
    assert_non_null(strstr(st.first_skip, "line 3: "));
    assert_int_equal(access(out, F_OK), 0);
    free(prv);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_namd),
        cmocka_unit_test(test_objects_and_sets),
        cmocka_unit_test(test_caller_frames),
        cmocka_unit_test(test_failures_leave_nothing),
    };
    return cmocka_run_group_tests(tests, tf_test_dir_setup, tf_test_dir_teardown);
}
