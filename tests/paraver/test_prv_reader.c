/* SPDX-License-Identifier: BSD-3-Clause */
/* The .prv reader, .pcf and .row parsers: the real Extrae trace, every
 * malformed-input case (error naming file and line), lenient mode, gzip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "formats/prv_pcf.h"
#include "formats/prv_reader.h"
#include "formats/prv_row.h"
#include "test_dir.h"

/* The real trace's records, read from path (plain or gzip). */
static void check_namd_records(const char *path)
{
    tf_prv_reader *r;
    tf_error err;
    assert_int_equal(tf_prv_open(&r, path, false, &err), 0);
    const tf_prv_header *h = tf_prv_get_header(r);
    assert_int_equal(h->end_time, 556919776419ull);
    assert_int_equal(h->unit_ns, 1);
    assert_int_equal(h->nnodes, 1);
    assert_int_equal(h->ncpus, 1);
    assert_int_equal(h->nappls, 1);
    assert_int_equal(tf_prv_nthreads(h), 1);
    size_t counts[4] = {0}, begins = 0, ends = 0, samples = 0;
    tf_prv_record rec;
    int rc;
    while ((rc = tf_prv_next(r, &rec, &err)) == 1) {
        counts[rec.kind]++;
        for (size_t i = 0; rec.kind == TF_PRV_EVENT && i < rec.npairs; i++) {
            if (rec.pairs[i].type == 60000019)
                rec.pairs[i].value ? begins++ : ends++;
            if (rec.pairs[i].type == 30000000)
                samples++;
        }
    }
    assert_int_equal(rc, 0);
    assert_int_equal(counts[TF_PRV_STATE], 4);
    assert_int_equal(counts[TF_PRV_EVENT], 27919);
    assert_int_equal(begins, 38);
    assert_int_equal(ends, 38);
    assert_int_equal(samples, 27829);
    assert_int_equal(tf_prv_line(r), 27924);
    tf_prv_close(r);
}

static void test_namd_records(void **state)
{
    (void)state;
    char *plain = tf_test_namd_plain(), *gz = tf_test_namd_gz();
    assert_non_null(plain);
    assert_non_null(gz);
    check_namd_records(plain);
    check_namd_records(gz);
    free(plain);
    free(gz);
}

static void test_namd_labels(void **state)
{
    (void)state;
    char *prv = tf_test_namd_plain();
    assert_non_null(prv);
    const size_t base = strlen(prv) - strlen(".prv");
    char path[4200];
    tf_error err;
    snprintf(path, sizeof path, "%.*s.pcf", (int)base, prv);
    tf_pcf *pcf;
    assert_int_equal(tf_pcf_read(path, &pcf, &err), 0);
    assert_string_equal(tf_pcf_type_label(pcf, 60000019), "User function");
    assert_string_equal(tf_pcf_value_label(pcf, 60000019, 5), "main");
    assert_string_equal(tf_pcf_value_label(pcf, 30000001, 5), "main");
    assert_string_equal(tf_pcf_value_label(pcf, 30000100, 115), "184 (spec_namd.C)");
    assert_string_equal(tf_pcf_type_label(pcf, 42000050), "(PAPI_TOT_INS) Instr completed");
    assert_null(tf_pcf_value_label(pcf, 42000050, 1));
    assert_string_equal(tf_pcf_state_label(pcf, 1), "Running");
    uint32_t type;
    uint64_t value;
    assert_true(tf_pcf_find_type(pcf, "User function", &type));
    assert_int_equal(type, 60000019);
    assert_true(tf_pcf_find_value(pcf, type, "main", &value));
    assert_int_equal(value, 5);
    assert_false(tf_pcf_find_value(pcf, type, "no such function", &value));
    tf_pcf_free(pcf);

    snprintf(path, sizeof path, "%.*s.row", (int)base, prv);
    tf_row row;
    assert_int_equal(tf_row_read(path, &row, &err), 0);
    assert_string_equal(tf_row_name(&row, TF_ROW_THREAD, 0), "THREAD 1.1.1");
    assert_string_equal(tf_row_name(&row, TF_ROW_NODE, 0), "node157");
    assert_null(tf_row_name(&row, TF_ROW_THREAD, 1));
    tf_row_free(&row);
    free(prv);
}

/* ---- malformed input ----------------------------------------------------- */

static char *write_temp(const char *text, const char *suffix)
{
    char name[32];
    snprintf(name, sizeof name, "case%s", suffix);
    char *path = tf_test_path(name);
    assert_non_null(path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

#define HDR "#Paraver (01/01/2025 at 10:00):1000_ns:1(2):1:2(1:1,2:1),0\n"

static const struct bad_case {
    int         src_line;
    const char *text;
    int         bad_line;      /* 0: header error on line 1 */
    const char *says;          /* part of the message */
} bad_cases[] = {
    {__LINE__, "not a paraver trace\n", 1, "first line starting with '#Paraver ('"},
    {__LINE__, "#Paraver (x):10_ns:1(1):1:1(1:2),0\n", 1, "task nodes"},
    {__LINE__, "#Paraver (x):10_ns:1(1):0:1(1:1)\n", 1, "positive number of applications"},
    {__LINE__, "#Paraver (x):10_xs:1(1):1:1(1:1)\n", 1, "time unit"},
    {__LINE__, "#Paraver (x):10_ns:1(1):1:1(1:1),2\nc:1:1:1:1\n", 3, "communicator line 2"},
    {__LINE__, HDR "1:1:1:1:1:0:10\n", 2, "state record: expected 8 numeric fields"},
    {__LINE__, HDR "1:1:1:1:1:0:10:1:5\n", 2, "state record: expected 8 numeric fields"},
    {__LINE__, HDR "2:1:1:1:1:5:100:1:200\n", 2, "type 200 has no value"},
    {__LINE__, HDR "2:1:1:1:1:5\n", 2, "expected TYPE:VALUE pairs"},
    {__LINE__, HDR "2:1:1:1:1:5:100:x\n", 2, "expected a numeric 64-bit value"},
    {__LINE__, HDR "2:1:1:1:1:5:100:7y:3:4\n", 2, "pair 1: expected a numeric 64-bit value"},
    {__LINE__, HDR "2:1:1:1:1:5x:100:1\n", 2, "field 6"},
    {__LINE__, HDR "2:1:1:one:1:5:100:1\n", 2, "numeric CPU:APPL:TASK:THREAD"},
    {__LINE__, HDR "2:1:1:1:1:9:100:1\n2:1:1:1:1:8:100:1\n", 3, "goes backwards"},
    {__LINE__, HDR "2:3:1:1:1:9:100:1\n", 2, "CPU 3 is not in the header"},
    {__LINE__, HDR "2:1:2:1:1:9:100:1\n", 2, "application 2 is not in the header"},
    {__LINE__, HDR "2:1:1:3:1:9:100:1\n", 2, "task 3 is not in application 1"},
    {__LINE__, HDR "2:1:1:1:2:9:100:1\n", 2, "thread 2 is not in task 1.1"},
    {__LINE__, HDR "4:1:1:1:1:9:100:1\n", 2, "unknown record type '4'"},
    {__LINE__, HDR "1:1:1:1:1:9:3:1\n", 2, "ends at 3 before it begins at 9"},
    {__LINE__, HDR "3:1:1:1:1:1:2:2:1:2:2:3:4:8\n", 2, "communication record: expected 15"},
    {__LINE__, HDR "3:1:1:1:1:1:2:2:1:9:1:3:4:8:1\n", 2, "receiver task 9"},
    {__LINE__, HDR "2:1:1:1:1:5:100:1\n2:1:1:1:1:6:100:12", 3, "without its newline"},
    {__LINE__, HDR "2:1:1:1:1:5:100:1\n2:1:1:1:1:1001:100:1\n", 3, "after the end time 1000"},
    {__LINE__, HDR "1:1:1:1:1:5:1001:1\n", 2, "time 1001 after the end time 1000"},
    {__LINE__, "#Paraver (x):10_ns:4294967295(1,1):1:1(1:1)\n", 1, "4294967295 CPU counts"},
    {__LINE__, "#Paraver (x):10_ns:0:4294967295:1(1:1)\n", 1, "4294967295 applications"},
    {__LINE__, "#Paraver (x):10_ns:0:1:4294967295(1:1,1:1)\n", 1, "4294967295 tasks"},
    {__LINE__, "#Paraver (x):10_ns:0:1:1(4294967295:1)\n", 1, "declares 4294967295 threads"},
    {__LINE__, "#Paraver (x):10_ns:0:1:1(1:1),4294967295\n2:0:1:1:1:5:100:1\n", 2,
     "communicator line 1 of 4294967295"},
};

static void test_malformed(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const struct bad_case *c = &bad_cases[i];
        char *path = write_temp(c->text, ".prv");
        tf_prv_reader *r = NULL;
        tf_error err;
        tf_error_clear(&err);
        int rc = tf_prv_open(&r, path, false, &err);
        tf_prv_record rec;
        if (rc == 0)
            while ((rc = tf_prv_next(r, &rec, &err)) == 1)
                ;
        char where[4200];
        snprintf(where, sizeof where, "%s: line %d: ", path, c->bad_line);
        if (rc >= 0 || strncmp(err.msg, where, strlen(where)) || !strstr(err.msg, c->says))
            fail_msg("case at %s:%d: rc %d, message '%s', expected '%s...%s'", __FILE__,
                     c->src_line, rc, err.msg, where, c->says);
        assert_int_equal(err.code, TF_ERR_FORMAT);
        tf_prv_close(r);
        unlink(path);
        free(path);
    }
}

static void test_lenient(void **state)
{
    (void)state;
    char *path = write_temp(HDR "2:1:1:1:1:5:100:1\n"
                                "2:1:1:1:1:4:100:2\n"       /* backwards */
                                "2:9:1:1:1:6:100:3\n"       /* CPU out of range */
                                "7:junk\n"                  /* unknown type */
                                "2:2:1:2:1:7:100:4:200:5\n"
                                "1:1:1:1:1:8:9\n"           /* too few fields */
                                "2:1:1:1:1:9:100:6\n", ".prv");
    tf_prv_reader *r;
    tf_error err;
    assert_int_equal(tf_prv_open(&r, path, true, &err), 0);
    tf_prv_record rec;
    uint64_t values[8];
    size_t n = 0;
    int rc;
    while ((rc = tf_prv_next(r, &rec, &err)) == 1) {
        assert_int_equal(rec.kind, TF_PRV_EVENT);
        values[n++] = rec.pairs[0].value;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(n, 3);
    assert_int_equal(values[0], 1);
    assert_int_equal(values[1], 4);
    assert_int_equal(values[2], 6);
    assert_int_equal(tf_prv_skipped(r), 4);
    assert_non_null(strstr(tf_prv_first_skip(r), "line 3: "));
    tf_prv_close(r);
    unlink(path);
    free(path);
}

static void test_gzip_and_values(void **state)
{
    (void)state;
    const char *text = "#Paraver (d):5_us:0:2:1(2:1):1(1:1),1\nc:1:1:1:1\n"
                       "# a comment\n"
                       "2:0:1:1:2:1:32000000:-8:32000001:18446744073709551615\n"
                       "3:0:1:1:1:2:3:0:2:1:1:4:5:64:7\r\n";
    char *path = tf_test_path("gz.prv.gz");
    assert_non_null(path);
    gzFile z = gzopen(path, "wb");
    assert_non_null(z);
    gzputs(z, text);
    gzclose(z);
    tf_prv_reader *r;
    tf_error err;
    assert_int_equal(tf_prv_open(&r, path, false, &err), 0);
    const tf_prv_header *h = tf_prv_get_header(r);
    assert_int_equal(h->unit_ns, 1000);
    assert_int_equal(h->nnodes, 0);
    assert_int_equal(h->nappls, 2);
    assert_int_equal(h->ncomms, 1);
    assert_string_equal(h->comms[0], "c:1:1:1:1");
    assert_int_equal(tf_prv_nthreads(h), 3);
    tf_prv_record rec;
    assert_int_equal(tf_prv_next(r, &rec, &err), 1);
    assert_int_equal(rec.thread_index, 1);   /* application 1, task 1, thread 2 */
    assert_int_equal(rec.npairs, 2);
    assert_int_equal(rec.pairs[0].value, (uint64_t)-8);
    assert_int_equal(rec.pairs[1].value, UINT64_MAX);
    assert_int_equal(tf_prv_next(r, &rec, &err), 1);
    assert_int_equal(rec.kind, TF_PRV_COMM);
    assert_int_equal(rec.thread_index, 0);
    assert_int_equal(rec.partner.appl, 2);
    assert_int_equal(rec.size, 64);
    assert_int_equal(rec.tag, 7);
    assert_int_equal(tf_prv_next(r, &rec, &err), 0);
    tf_prv_close(r);
    unlink(path);
    free(path);
}

static void test_pcf_errors(void **state)
{
    (void)state;
    char *path = write_temp("EVENT_TYPE\n0 100 A type\nVALUES\n1 one\nzz two\n", ".pcf");
    tf_pcf *pcf;
    tf_error err;
    assert_true(tf_pcf_read(path, &pcf, &err) < 0);
    char want[4200];
    snprintf(want, sizeof want, "%s: line 5: VALUES", path);
    assert_non_null(strstr(err.msg, want));
    unlink(path);
    free(path);
    /* Garbage: a control character, text before any section, nothing. */
    static const struct { const char *text, *says; } garbage[] = {
        {"STATES\n1 Run\x01ning\n", "line 2: byte 0x01 at column 6"},
        {"60000019=2\nEVENT_TYPE\n", "line 1: expected a section name"},
        {"", "empty: not a .pcf file"},
        {"\n\n", "no section"},
    };
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        path = write_temp(garbage[i].text, ".pcf");
        assert_true(tf_pcf_read(path, &pcf, &err) < 0);
        assert_null(pcf);
        if (!strstr(err.msg, garbage[i].says))
            fail_msg("garbage .pcf %zu: '%s', expected '%s'", i, err.msg, garbage[i].says);
        unlink(path);
        free(path);
    }
    path = write_temp("LEVEL THREAD SIZE 2\nTHREAD 1.1.1\n", ".row");
    tf_row row;
    assert_true(tf_row_read(path, &row, &err) < 0);
    assert_non_null(strstr(err.msg, "names short"));
    unlink(path);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_namd_records),
        cmocka_unit_test(test_namd_labels),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_lenient),
        cmocka_unit_test(test_gzip_and_values),
        cmocka_unit_test(test_pcf_errors),
    };
    return cmocka_run_group_tests(tests, tf_test_dir_setup, tf_test_dir_teardown);
}
