/* SPDX-License-Identifier: BSD-3-Clause */
/* The Paraver output: write -> read round trip with identical records (on
 * the real Extrae trace and on a generated one, plain and gzip), refusal of
 * unsorted records and of unlabelled types, no files left behind on abort,
 * and the decimal fields against printf's at every digit count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/prv_reader.h"
#include "formats/prv_out.h"
#include "test_dir.h"

static bool same_record(const tf_prv_record *a, const tf_prv_record *b)
{
    if (a->kind != b->kind || memcmp(&a->obj, &b->obj, sizeof a->obj) || a->time != b->time)
        return false;
    switch (a->kind) {
    case TF_PRV_STATE:
        return a->end == b->end && a->state == b->state;
    case TF_PRV_EVENT:
        if (a->npairs != b->npairs)
            return false;
        for (size_t i = 0; i < a->npairs; i++)
            if (a->pairs[i].type != b->pairs[i].type || a->pairs[i].value != b->pairs[i].value)
                return false;
        return true;
    default:
        return a->psend == b->psend && !memcmp(&a->partner, &b->partner, sizeof a->partner) &&
               a->lrecv == b->lrecv && a->precv == b->precv && a->size == b->size &&
               a->tag == b->tag;
    }
}

/* Copies every record of src into out, labelling each type it meets, then
 * reads both again and compares record by record. */
static void round_trip(const char *src, const char *out)
{
    tf_error err;
    tf_prv_reader *r;
    assert_int_equal(tf_prv_open(&r, src, false, &err), 0);
    tf_prv_out *w;
    assert_int_equal(tf_prv_out_create(&w, out, tf_prv_get_header(r), &err), 0);
    tf_prv_record rec;
    int rc;
    size_t n = 0;
    while ((rc = tf_prv_next(r, &rec, &err)) == 1) {
        for (size_t i = 0; rec.kind == TF_PRV_EVENT && i < rec.npairs; i++) {
            char label[32];
            snprintf(label, sizeof label, "type %u", rec.pairs[i].type);
            assert_int_equal(tf_pcf_add_type(tf_prv_out_pcf(w), rec.pairs[i].type, 0, label, &err), 0);
        }
        if (tf_prv_write(w, &rec, &err) < 0)
            fail_msg("%s", err.msg);
        n++;
    }
    assert_int_equal(rc, 0);
    assert_int_equal(tf_row_add(tf_prv_out_row(w), TF_ROW_THREAD, "THREAD 1.1.1", &err), 0);
    if (tf_prv_out_close(w, &err) < 0)
        fail_msg("%s", err.msg);
    tf_prv_close(r);

    tf_prv_reader *a, *b;
    assert_int_equal(tf_prv_open(&a, src, false, &err), 0);
    if (tf_prv_open(&b, out, false, &err) < 0)
        fail_msg("%s", err.msg);
    const tf_prv_header *ha = tf_prv_get_header(a), *hb = tf_prv_get_header(b);
    assert_int_equal(ha->end_time, hb->end_time);
    assert_int_equal(ha->unit_ns, hb->unit_ns);
    assert_int_equal(ha->nappls, hb->nappls);
    assert_int_equal(ha->ncpus, hb->ncpus);
    assert_int_equal(ha->ncomms, hb->ncomms);
    assert_int_equal(tf_prv_nthreads(ha), tf_prv_nthreads(hb));
    tf_prv_record ra, rb;
    size_t m = 0;
    for (;;) {
        int ka = tf_prv_next(a, &ra, &err);
        assert_true(ka >= 0);
        int kb = tf_prv_next(b, &rb, &err);
        assert_true(kb >= 0);
        assert_int_equal(ka, kb);
        if (!ka)
            break;
        /* Pairs live in each reader's buffer until its next call. */
        if (!same_record(&ra, &rb))
            fail_msg("record %zu differs after the round trip", m + 1);
        m++;
    }
    assert_int_equal(m, n);
    tf_prv_close(a);
    tf_prv_close(b);
}

static void test_namd_round_trip(void **state)
{
    (void)state;
    char *plain = tf_test_namd_plain(), *gz = tf_test_namd_gz();
    assert_non_null(plain);
    assert_non_null(gz);
    char out[4200];
    snprintf(out, sizeof out, "%s/namd.prv", tf_test_dir);
    round_trip(plain, out);
    snprintf(out, sizeof out, "%s/namd-gz.prv.gz", tf_test_dir);
    round_trip(gz, out);
    free(plain);
    free(gz);
}

static void test_generated_round_trip(void **state)
{
    (void)state;
    char src[4200], out[4200];
    snprintf(src, sizeof src, "%s/gen.prv", tf_test_dir);
    snprintf(out, sizeof out, "%s/gen-copy.prv", tf_test_dir);
    FILE *f = fopen(src, "w");
    assert_non_null(f);
    fputs("#Paraver (01/02/2025 at 10:00):900_us:2(2,1):2:2(1:1,2:2):1(1:1),2\n"
          "c:1:1:2:1:2\nc:2:1:1:1\n", f);
    unsigned long t = 0;
    for (int i = 0; i < 200; i++, t += 3) {
        fprintf(f, "1:%d:1:%d:1:%lu:%lu:1\n", i % 2 ? 3 : 1, 1 + i % 2, t, t + 2);
        fprintf(f, "2:3:1:2:2:%lu:32000000:%lld:42000050:%d\n", t, -1LL - i, i * 1000);
        fprintf(f, "3:1:1:1:1:%lu:%lu:0:2:1:1:%lu:%lu:%d:%d\n", t + 1, t + 1, t + 2, t + 2, 64 * i, i);
    }
    fclose(f);
    round_trip(src, out);
}

static void test_refusals(void **state)
{
    (void)state;
    char out[4200];
    snprintf(out, sizeof out, "%s/bad.prv", tf_test_dir);
    size_t before = tf_test_dir_entries();
    tf_prv_task task = {1, 1};
    tf_prv_appl appl = {1, &task};
    uint32_t cpus = 1;
    tf_prv_header h = {.nnodes = 1, .node_cpus = &cpus, .ncpus = 1, .nappls = 1, .appls = &appl};
    tf_error err;
    tf_prv_out *w;
    assert_int_equal(tf_prv_out_create(&w, out, &h, &err), 0);
    tf_prv_pair pair = {100, 1};
    tf_prv_record rec = {.kind = TF_PRV_EVENT, .obj = {1, 1, 1, 1}, .time = 10, .npairs = 1,
                         .pairs = &pair};
    assert_int_equal(tf_prv_write(w, &rec, &err), 0);
    rec.time = 9;
    assert_true(tf_prv_write(w, &rec, &err) < 0);
    assert_non_null(strstr(err.msg, "time-sorted"));
    rec.time = 11;
    rec.obj.thread = 2;
    assert_true(tf_prv_write(w, &rec, &err) < 0);
    assert_non_null(strstr(err.msg, "not in the header"));
    /* Type 100 was never labelled: closing must fail and leave nothing. */
    assert_true(tf_prv_out_close(w, &err) < 0);
    assert_non_null(strstr(err.msg, "event type 100 has no label"));
    assert_int_equal(tf_test_dir_entries(), before);
}

/* Every field the output formats itself, at each number of digits (10^k - 1
 * and 10^k), at the extremes, and values above 2^63 as negatives; the
 * object and the types change between records so that none of their
 * cached texts is reused wrongly. */
static void test_number_fields(void **state)
{
    (void)state;
    char out[4200];
    snprintf(out, sizeof out, "%s/numbers.prv", tf_test_dir);
    tf_prv_task tasks[2] = {{2, 1}, {1, 1}};
    tf_prv_appl appl = {2, tasks};
    uint32_t cpus = 12;
    tf_prv_header h = {.nnodes = 1, .node_cpus = &cpus, .ncpus = 12, .nappls = 1,
                       .appls = &appl, .end_time = 1, .date = "01/02/2025 at 10:00"};
    uint64_t v[64];
    size_t nv = 0;
    v[nv++] = 0;
    for (uint64_t p = 10; nv < 40; p *= 10) {
        v[nv++] = p - 1;
        v[nv++] = p;
        if (p > UINT64_MAX / 10)
            break;
    }
    v[nv++] = (uint64_t)INT64_MAX;
    v[nv++] = (uint64_t)INT64_MAX + 1;
    v[nv++] = UINT64_MAX;
    /* times must not decrease: 10^19 - 1 and 10^19 pass INT64_MAX */
    for (size_t i = 1; i < nv; i++)
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            uint64_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    tf_error err;
    tf_prv_out *w;
    assert_int_equal(tf_prv_out_create(&w, out, &h, &err), 0);
    char (*expect)[160] = calloc(nv, sizeof *expect);
    assert_non_null(expect);
    for (size_t i = 0; i < nv; i++) {
        uint32_t type = i % 3 ? (uint32_t)(v[i] % 4000000000u) + 1 : 0;
        tf_prv_pair pairs[2] = {{type, v[i]}, {7, v[nv - 1 - i]}};
        tf_prv_object obj = {(uint32_t)(i % 12) + 1, 1, i % 4 == 3 ? 2 : 1, i % 2 + 1};
        if (obj.task == 2)
            obj.thread = 1;
        tf_prv_record rec = {.kind = TF_PRV_EVENT, .obj = obj, .time = v[i], .npairs = 2,
                             .pairs = pairs};
        assert_int_equal(tf_prv_write(w, &rec, &err), 0);
        char label[32];
        snprintf(label, sizeof label, "type %" PRIu32, type);
        assert_int_equal(tf_pcf_add_type(tf_prv_out_pcf(w), type, 0, label, &err), 0);
        snprintf(expect[i], sizeof expect[i],
                 "2:%" PRIu32 ":1:%" PRIu32 ":%" PRIu32 ":%" PRIu64 ":%" PRIu32 ":%" PRId64
                 ":7:%" PRId64, obj.cpu, obj.task, obj.thread, v[i], type, (int64_t)v[i],
                 (int64_t)v[nv - 1 - i]);
    }
    assert_int_equal(tf_pcf_add_type(tf_prv_out_pcf(w), 7, 0, "seven", &err), 0);
    assert_int_equal(tf_prv_out_close(w, &err), 0);
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    char line[256];
    assert_non_null(fgets(line, sizeof line, f)); /* the header */
    for (size_t i = 0; i < nv; i++) {
        assert_non_null(fgets(line, sizeof line, f));
        line[strcspn(line, "\n")] = 0;
        assert_string_equal(line, expect[i]);
    }
    assert_null(fgets(line, sizeof line, f));
    fclose(f);
    free(expect);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_namd_round_trip),
        cmocka_unit_test(test_generated_round_trip),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_number_fields),
    };
    return cmocka_run_group_tests(tests, tf_test_dir_setup, tf_test_dir_teardown);
}
