/* SPDX-License-Identifier: BSD-3-Clause */
/* The loader on real fold files: a synthetic trace folded by the built
 * `tracefold` ($TRACEFOLD) fills every part of the page, from the fold's
 * analysis or, without one, from the trace; a trace without memory
 * samples, a fold whose trace has moved away, and a fold file of another
 * format version each give the documented outcome; the fold result and
 * analysis given in memory fill the same pages as those read back.  Skipped when
 * run outside `make check` (no $TRACEFOLD). */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <hdf5.h>

#include "tests/paraver/test_dir.h"

#include "analysis/analysis_run.h"
#include "fold/fold_result.h"
#include "formats/fold_h5.h"
#include "formats/trace.h"
#include "render/report_load.h"
#include "report_fixture.h"

static char tmpdir[] = "/tmp/tf-render-load-XXXXXX";
static bool have_folds;

static void fold_path(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s.fold/fold.h5", tmpdir, name);
}

static void test_page_from_fold(void **state)
{
    if (!have_folds)
        skip();
    char path[512];
    fold_path(path, sizeof path, "mem");
    tf_report r;
    tf_error err = {0};
    if (tf_report_load(path, &r, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(r.npages, 1);
    const tf_report_page *p = &r.pages[0];
    assert_string_equal(p->title, "region iteration");
    assert_true(p->duration_ns > 1e6);
    /* Code lines from the trace's symbols, phases labelled from them. */
    assert_true(p->ncode > 100);
    assert_null(p->code_missing);
    assert_true(p->nroutines >= 2);
    assert_true(p->nphases >= 2);
    for (size_t i = 0; i < p->nphases; i++) {
        assert_true(p->phases[i].x0 < p->phases[i].x1);
        if (i)
            assert_true(p->phases[i].x0 == p->phases[i - 1].x1);
    }
    size_t labelled = 0;
    for (size_t i = 0; i < p->nphases; i++)
        labelled += p->phases[i].routine < p->nroutines && p->phases[i].line > 0;
    assert_true(labelled >= 2);
    /* Memory references mapped to the trace's objects. */
    assert_true(p->nmem > 100);
    assert_true(p->nobjects > 0);
    size_t in_object = 0;
    for (size_t i = 0; i < p->nmem; i++)
        in_object += p->mem[i].object < p->nobjects;
    assert_true(in_object > p->nmem / 2);
    /* MIPS and the miss ratios. */
    assert_non_null(p->mips);
    assert_true(p->nrates >= 1);
    for (size_t i = 0; i < p->nrates; i++)
        assert_non_null(strcasestr(p->rates[i].name, "miss"));
    assert_int_equal(p->ninstances, 80);
    assert_int_equal(p->tables[TF_REPORT_TABLE_PHASES].nrows, p->nphases);
    assert_true(p->tables[TF_REPORT_TABLE_OBJECTS].nrows > 0);
    /* The analysis's access streams, labelled with its phase numbers. */
    const tf_report_table *st = &p->tables[TF_REPORT_TABLE_STREAMS];
    assert_true(st->nrows > 0);
    assert_null(st->note);
    for (size_t i = 0; i < st->nrows; i++)
        assert_true(strcmp(st->cells[i * st->ncols + 2], "sparse") != 0);
    tf_report_free(&r);
}

/* Reports a and b have the same pages: points, phases, objects and
 * tables. */
static void assert_same_pages(const tf_report *a, const tf_report *b)
{
    assert_int_equal(a->npages, b->npages);
    for (size_t k = 0; k < a->npages; k++) {
        const tf_report_page *p = &a->pages[k], *q = &b->pages[k];
        assert_string_equal(p->title, q->title);
        assert_string_equal(p->subtitle, q->subtitle);
        assert_int_equal(p->ncode, q->ncode);
        assert_int_equal(p->nmem, q->nmem);
        assert_int_equal(p->nphases, q->nphases);
        assert_int_equal(p->nobjects, q->nobjects);
        assert_int_equal(p->ninstances, q->ninstances);
        /* not empty: code points, and memory points unless the trace has none */
        assert_true(p->ncode > 0 && (p->nmem > 0 || p->mem_missing));
        assert_memory_equal(p->code, q->code, p->ncode * sizeof *p->code);
        assert_memory_equal(p->mem, q->mem, p->nmem * sizeof *p->mem);
        for (size_t i = 0; i < p->nphases; i++) {
            assert_true(p->phases[i].x0 == q->phases[i].x0 && p->phases[i].x1 == q->phases[i].x1);
            assert_int_equal(p->phases[i].routine, q->phases[i].routine);
            assert_int_equal(p->phases[i].line, q->phases[i].line);
            assert_string_equal(p->phases[i].label, q->phases[i].label);
        }
        assert_int_equal(p->nroutines, q->nroutines);
        for (size_t i = 0; i < p->nroutines; i++)
            assert_string_equal(p->routines[i], q->routines[i]);
        assert_int_equal(p->nwaiting, q->nwaiting);
        assert_true(p->waiting_share == q->waiting_share);
        for (size_t t = 0; t < TF_REPORT_NTABLES; t++) {
            const tf_report_table *x = &p->tables[t], *y = &q->tables[t];
            assert_int_equal(x->nrows, y->nrows);
            assert_int_equal(x->ncols, y->ncols);
            for (size_t c = 0; c < x->nrows * x->ncols; c++)
                assert_string_equal(x->cells[c], y->cells[c]);
        }
    }
}

/* tracefold fold draws its report from the fold result and the analysis it
 * has in memory: the pages must be those read back from fold.h5. */
static void test_result_in_memory(void **state)
{
    if (!have_folds)
        skip();
    char path[512], trace[512];
    fold_path(path, sizeof path, "mem");
    snprintf(trace, sizeof trace, "%s/mem.h5", tmpdir);
    tf_fold_result *fr;
    tf_trace *tr;
    tf_analysis_set set;
    tf_error err = {0};
    if (tf_fold_result_load(path, &fr, &err) < 0 || tf_trace_open(&tr, trace, &err) < 0 ||
        tf_analysis_run_groups(tr, fr, NULL, NULL, &set, &err) < 0)
        fail_msg("%s", err.msg);
    /* as tracefold fold does once the analysis is saved */
    tf_analysis_set_drop_samples(&set);
    tf_report a, b;
    if (tf_report_load(path, &a, &err) < 0 ||
        tf_report_load_analysed(fr, &set, NULL, path, &b, &err) < 0)
        fail_msg("%s", err.msg);
    assert_same_pages(&a, &b);
    tf_analysis_set_free(&set);
    tf_trace_close(tr);
    tf_fold_result_free(fr);
    tf_report_free(&a);
    tf_report_free(&b);
}

static void test_no_memory_samples(void **state)
{
    if (!have_folds)
        skip();
    char path[512];
    fold_path(path, sizeof path, "nomem");
    tf_report r;
    tf_error err = {0};
    if (tf_report_load(path, &r, &err) < 0)
        fail_msg("%s", err.msg);
    const tf_report_page *p = &r.pages[0];
    assert_int_equal(p->nmem, 0);
    assert_non_null(p->mem_missing);
    assert_non_null(strstr(p->mem_missing, "no memory samples"));
    assert_true(p->ncode > 0);
    assert_non_null(p->tables[TF_REPORT_TABLE_LEVELS].note);
    tf_report_free(&r);
}

/* A copy NAME of the fold of trace `of`, opened for writing (the caller
 * changes it and closes it); its path in copy. */
static hid_t fold_copy(const char *of, const char *name, char *copy, size_t len)
{
    char path[512];
    fold_path(path, sizeof path, of);
    snprintf(copy, len, "%s/%s", tmpdir, name);
    assert_int_equal(tf_test_sh("cp '%s' '%s'", path, copy), 0);
    hid_t f = H5Fopen(copy, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    return f;
}

/* The same of the mem fold. */
static hid_t mem_fold_copy(const char *name, char *copy, size_t len)
{
    return fold_copy("mem", name, copy, len);
}

/* The path of dataset `name` of region 0, group 0 (below: NULL, or a
 * group inside it such as TF_FOLD_H5_ANALYSIS), as fold.h5's schema
 * spells it. */
static const char *group_dataset(char buf[TF_FOLD_H5_PATH * 2], const char *below,
                                 const char *name)
{
    char group[TF_FOLD_H5_PATH];
    snprintf(buf, TF_FOLD_H5_PATH * 2, "%s%s%s", tf_fold_h5_group_path(group, 0, 0, below),
             name ? "/" : "", name ? name : "");
    return buf;
}

/* A copy of the mem fold without its analysis group (as written by a fold
 * without the analysis step): the report then has analysis/ analyse the
 * trace, which gives the report of the fold with its analysis. */
static void fold_without_analysis(char *copy, size_t len)
{
    hid_t f = mem_fold_copy("noanalysis.h5", copy, len);
    char path[TF_FOLD_H5_PATH * 2];
    assert_true(H5Ldelete(f, group_dataset(path, TF_FOLD_H5_ANALYSIS, NULL), H5P_DEFAULT) >= 0);
    H5Fclose(f);
}

static void test_from_trace_without_analysis(void **state)
{
    if (!have_folds)
        skip();
    char path[512], stored[512];
    fold_without_analysis(path, sizeof path);
    fold_path(stored, sizeof stored, "mem");
    tf_report r, s;
    tf_error err = {0};
    if (tf_report_load(path, &r, &err) < 0 || tf_report_load(stored, &s, &err) < 0)
        fail_msg("%s", err.msg);
    const tf_report_page *p = &r.pages[0];
    assert_true(p->ncode > 100);
    assert_true(p->nroutines >= 2);
    assert_true(p->nphases >= 2);
    assert_true(p->nobjects > 0);
    assert_same_pages(&r, &s);
    tf_report_free(&r);
    tf_report_free(&s);
}

/* The same for a fold of a Paraver trace (Extrae's 444.namd): the trace
 * it names is converted again and analysed, as `tracefold fold` did (it
 * was reported as not an HDF5 file, the pages without code lines). */
static void test_paraver_source_without_analysis(void **state)
{
    (void)state;
    const char *tf = getenv("TRACEFOLD"), *top = getenv("top_srcdir");
    if (!tf || !top)
        skip();
    assert_int_equal(tf_test_sh("'%s' fold -q '%s/tests/data/extrae/444.namd.prv.gz' -o '%s/namd.fold'",
                        tf, top, tmpdir), 0);
    char path[512], stored[512], name[TF_FOLD_H5_PATH * 2];
    hid_t f = fold_copy("namd", "namd-noanalysis.h5", path, sizeof path);
    assert_true(H5Ldelete(f, group_dataset(name, TF_FOLD_H5_ANALYSIS, NULL), H5P_DEFAULT) >= 0);
    H5Fclose(f);
    fold_path(stored, sizeof stored, "namd");
    tf_report r, s;
    tf_error err = {0};
    if (tf_report_load(path, &r, &err) < 0 || tf_report_load(stored, &s, &err) < 0)
        fail_msg("%s", err.msg);
    if (r.pages[0].code_missing)
        fail_msg("no code lines: %s", r.pages[0].code_missing);
    assert_true(r.pages[0].ncode > 0);
    assert_same_pages(&r, &s);
    tf_report_free(&r);
    tf_report_free(&s);
}

static void test_trace_moved_away(void **state)
{
    if (!have_folds)
        skip();
    char path[512];
    fold_without_analysis(path, sizeof path);
    assert_int_equal(tf_test_sh("mv '%s/mem.h5' '%s/elsewhere.h5'", tmpdir, tmpdir), 0);
    tf_report r;
    tf_error err = {0};
    int rc = tf_report_load(path, &r, &err);
    assert_int_equal(tf_test_sh("mv '%s/elsewhere.h5' '%s/mem.h5'", tmpdir, tmpdir), 0);
    if (rc < 0)
        fail_msg("%s", err.msg);
    const tf_report_page *p = &r.pages[0];
    /* The code panel says why it is empty; the memory panel still has
     * the references, without objects. */
    assert_int_equal(p->ncode, 0);
    assert_non_null(p->code_missing);
    assert_non_null(strstr(p->code_missing, "mem.h5"));
    assert_true(p->nmem > 0);
    assert_int_equal(p->nobjects, 0);
    tf_report_free(&r);
}

/* A fold whose counters have no rate (a machine without a PMU, whose
 * software counters do not change within an iteration): the performance
 * panel shows each phase's bandwidth from the analysis's linear streams,
 * steps over the phases drawn, with gaps where a phase has none. */
static void test_bandwidth_without_rates(void **state)
{
    if (!have_folds)
        skip();
    char copy[512];
    hid_t f = mem_fold_copy("norates.h5", copy, sizeof copy);
    char path[TF_FOLD_H5_PATH * 2];
    hid_t d = H5Dopen2(f, group_dataset(path, NULL, tf_fold_h5_curve_names[TF_FOLD_H5_RATE]),
                       H5P_DEFAULT);
    assert_true(d >= 0);
    hid_t space = H5Dget_space(d);
    hssize_t n = H5Sget_simple_extent_npoints(space);
    double *nan = malloc((size_t)n * sizeof *nan);
    assert_non_null(nan);
    for (hssize_t i = 0; i < n; i++)
        nan[i] = NAN;
    assert_true(H5Dwrite(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, nan) >= 0);
    free(nan);
    H5Sclose(space);
    H5Dclose(d);
    H5Fclose(f);
    tf_report r;
    tf_error err = {0};
    if (tf_report_load(copy, &r, &err) < 0)
        fail_msg("%s", err.msg);
    const tf_report_page *p = &r.pages[0];
    assert_null(p->mips);
    assert_null(p->rates_missing);
    assert_int_equal(p->nrates, 1);
    assert_non_null(strstr(p->rates[0].name, "bandwidth"));
    /* In the SI unit that makes the largest bandwidth read from 1 to 999. */
    const tf_report_series *bw = &p->rates[0];
    double top = 0;
    for (size_t i = 0; i < bw->n; i++)
        top = isfinite(bw->y[i]) && bw->y[i] > top ? bw->y[i] : top;
    char prefix[8] = "";
    if (sscanf(p->rates_unit, "bandwidth [%7[kMGT]B/s]", prefix) != 1)
        assert_string_equal(p->rates_unit, "bandwidth [B/s]");
    if (top < 1 || top >= 1000)
        fail_msg("largest bandwidth %g in %s", top, p->rates_unit);
    assert_int_equal(bw->n, 2 * p->nphases);
    size_t measured = 0;
    for (size_t i = 0; i < p->nphases; i++) {
        assert_true(bw->x[2 * i] == p->phases[i].x0 && bw->x[2 * i + 1] == p->phases[i].x1);
        assert_true(bw->y[2 * i] == bw->y[2 * i + 1] || (isnan(bw->y[2 * i]) && isnan(bw->y[2 * i + 1])));
        if (isfinite(bw->y[2 * i])) {
            assert_true(bw->y[2 * i] > 0);
            measured++;
        }
    }
    assert_true(measured >= 1);
    tf_report_free(&r);
}

/* Two processes with different address layouts: references are drawn as
 * offsets within their objects, and the objects' bands span [0, size). */
static void test_processes_by_offset(void **state)
{
    if (!have_folds)
        skip();
    char path[512];
    fold_path(path, sizeof path, "aslr");
    tf_report r;
    tf_error err = {0};
    if (tf_report_load(path, &r, &err) < 0)
        fail_msg("%s", err.msg);
    const tf_report_page *p = &r.pages[0];
    size_t offsets = 0, attributed = 0;
    for (size_t i = 0; i < p->nmem; i++) {
        const tf_report_mem_point *m = &p->mem[i];
        if (m->object >= p->nobjects)
            continue;
        attributed++;
        if (m->flags & TF_REPORT_MEM_OFFSET) {
            offsets++;
            assert_true(m->addr < p->objects[m->object].size);
            assert_int_equal(p->objects[m->object].start, 0);
        }
    }
    assert_true(attributed > 0);
    assert_int_equal(offsets, attributed);
    tf_report_free(&r);
}

static void test_other_version_refused(void **state)
{
    if (!have_folds)
        skip();
    char copy[512];
    hid_t f = mem_fold_copy("v99.h5", copy, sizeof copy);
    hid_t a = H5Aopen(f, "version", H5P_DEFAULT);
    assert_true(a >= 0);
    long long v = 99;
    assert_true(H5Awrite(a, H5T_NATIVE_LLONG, &v) >= 0);
    H5Aclose(a);
    H5Fclose(f);
    tf_report r;
    tf_error err = {0};
    assert_true(tf_report_load(copy, &r, &err) < 0);
    assert_int_equal(err.code, TF_ERR_VERSION);
    assert_non_null(strstr(err.msg, copy));
    /* A trace is not a fold file either. */
    snprintf(copy, sizeof copy, "%s/mem.h5", tmpdir);
    assert_true(tf_report_load(copy, &r, &err) < 0);
    assert_non_null(strstr(err.msg, copy));
}

static void test_malformed_analysis_refused(void **state)
{
    if (!have_folds)
        skip();
    char copy[512];
    /* points/routine replaced by a column of the wrong length. */
    hid_t f = mem_fold_copy("badanalysis.h5", copy, sizeof copy);
    char routine[TF_FOLD_H5_PATH * 2], object_path[TF_FOLD_H5_PATH * 2];
    group_dataset(routine, TF_FOLD_H5_ANALYSIS, TF_FOLD_H5_POINTS "/routine");
    group_dataset(object_path, TF_FOLD_H5_ANALYSIS, TF_FOLD_H5_POINTS "/object");
    assert_true(H5Ldelete(f, routine, H5P_DEFAULT) >= 0);
    hsize_t dims[1] = {3};
    long long rows[3] = {0, 0, 0};
    hid_t space = H5Screate_simple(1, dims, NULL);
    hid_t d = H5Dcreate2(f, routine, H5T_STD_I64LE, space,
                         H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(d >= 0);
    assert_true(H5Dwrite(d, H5T_NATIVE_LLONG, H5S_ALL, H5S_ALL, H5P_DEFAULT, rows) >= 0);
    H5Dclose(d);
    H5Sclose(space);
    H5Fclose(f);
    tf_report r;
    tf_error err = {0};
    assert_true(tf_report_load(copy, &r, &err) < 0);
    assert_int_equal(err.code, TF_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "badanalysis.h5"));
    if (!strstr(err.msg, "points"))
        fail_msg("message does not name the dataset: %s", err.msg);

    /* The last point's object out of the table: found as the columns are
     * read a slab at a time, naming the row. */
    f = mem_fold_copy("badobject.h5", copy, sizeof copy);
    d = H5Dopen2(f, object_path, H5P_DEFAULT);
    assert_true(d >= 0);
    space = H5Dget_space(d);
    hsize_t n;
    H5Sget_simple_extent_dims(space, &n, NULL);
    int *object = malloc(n * sizeof *object);
    assert_true(H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, object) >= 0);
    object[n - 1] = 9999;
    assert_true(H5Dwrite(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, object) >= 0);
    free(object);
    H5Sclose(space);
    H5Dclose(d);
    H5Fclose(f);
    assert_true(tf_report_load(copy, &r, &err) < 0);
    assert_int_equal(err.code, TF_ERR_FORMAT);
    char want[64];
    snprintf(want, sizeof want, "row %llu: routine", (unsigned long long)(n - 1));
    if (!strstr(err.msg, "badobject.h5") || !strstr(err.msg, want) ||
        !strstr(err.msg, "object 9999 out of range"))
        fail_msg("message: %s", err.msg);
}

static int setup(void **state)
{
    const char *tf = getenv("TRACEFOLD");
    if (tf_fixture_tmpdir_make(tmpdir))
        return -1;
    have_folds = tf &&
        tf_test_sh("'%s' synth -q -o '%s/mem.h5' --iterations 80 --seed 3 && "
           "'%s' fold -q '%s/mem.h5' -o '%s/mem.fold' && "
           "'%s' synth -q -o '%s/nomem.h5' --iterations 40 --no-memory && "
           "'%s' fold -q '%s/nomem.h5' -o '%s/nomem.fold' && "
           "'%s' synth -q -o '%s/aslr.h5' --iterations 40 --processes 2 --aslr && "
           "'%s' fold -q '%s/aslr.h5' -o '%s/aslr.fold'",
           tf, tmpdir, tf, tmpdir, tmpdir, tf, tmpdir, tf, tmpdir, tmpdir,
           tf, tmpdir, tf, tmpdir, tmpdir) == 0;
    return 0;
}

static int teardown(void **state)
{
    return tf_fixture_tmpdir_remove(tmpdir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page_from_fold),
        cmocka_unit_test(test_result_in_memory),
        cmocka_unit_test(test_no_memory_samples),
        cmocka_unit_test(test_from_trace_without_analysis),
        cmocka_unit_test(test_paraver_source_without_analysis),
        cmocka_unit_test(test_trace_moved_away),
        cmocka_unit_test(test_bandwidth_without_rates),
        cmocka_unit_test(test_processes_by_offset),
        cmocka_unit_test(test_other_version_refused),
        cmocka_unit_test(test_malformed_analysis_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
