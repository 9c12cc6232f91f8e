/* SPDX-License-Identifier: BSD-3-Clause */
/* The source-line axis of the code panel (issue 31): one band per source
 * file with its own line range, lines holding a negligible share of the
 * samples not drawn but listed, the axis titled with the file when one is
 * drawn; and on a drawn page, the bands' titles, the note of lines not
 * drawn and a long C++ name shortened to its own name with its key, as
 * the layout record gives them. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "render/line_axis.h"
#include "render/render.h"
#include "report_fixture.h"

/* Samples of one routine on lines first .. first + nlines - 1, in turn. */
typedef struct run {
    uint32_t routine, first, nlines;
    size_t   samples;
} run;

/* A report of one page of routines (name and file) and code points from
 * runs. */
static tf_report_page *page_from(tf_report *r, size_t nroutines, const char *const *names,
                                 const char *const *files, const run *runs, size_t nruns)
{
    tf_report_page *p;
    tf_error err = {0};
    memset(r, 0, sizeof *r);
    assert_int_equal(tf_report_add_page(r, &p, &err), 0);
    p->nroutines = nroutines;
    p->routines = calloc(nroutines, sizeof *p->routines);
    p->routine_files = calloc(nroutines, sizeof *p->routine_files);
    assert_non_null(p->routines);
    assert_non_null(p->routine_files);
    for (size_t i = 0; i < nroutines; i++) {
        p->routines[i] = tf_report_strdup("%s", names[i]);
        p->routine_files[i] = tf_report_strdup("%s", files[i]);
    }
    for (size_t k = 0; k < nruns; k++)
        p->ncode += runs[k].samples;
    p->code = malloc(p->ncode * sizeof *p->code);
    assert_non_null(p->code);
    size_t n = 0;
    for (size_t k = 0; k < nruns; k++)
        for (size_t i = 0; i < runs[k].samples; i++, n++)
            p->code[n] = (tf_report_code_point){(float)n / (float)p->ncode, runs[k].routine,
                                                runs[k].first + (uint32_t)(i % runs[k].nlines)};
    return p;
}

/* page_from's page and its line axis, built. */
static tf_report_page *axis_from(tf_report *r, tf_line_axis *a, size_t nroutines,
                                 const char *const *names, const char *const *files,
                                 const run *runs, size_t nruns)
{
    tf_report_page *p = page_from(r, nroutines, names, files, runs, nruns);
    tf_error err = {0};
    if (tf_line_axis_build(p, a, &err) != 0)
        fail_msg("%s", err.msg);
    return p;
}

/* Three files and two negligible lines: a library's, and one of the main
 * file far from the rest. */
static const char *const three_names[] = {"stream_copy", "stencil_apply", "ns::Kernel::apply",
                                          "sqrt"};
static const char *const three_files[] = {"/src/stream.c", "/src/stencil.c", "/src/kernel.h",
                                          "/lib/libm.so"};
static const run three_runs[] = {
    {0, 210, 7, 1000}, {1, 55, 6, 800}, {2, 300, 11, 600}, {3, 4410, 1, 3}, {0, 5000, 1, 2},
};

static void test_band_per_file(void **state)
{
    (void)state;
    tf_report r;
    tf_line_axis a;
    tf_report_page *p = axis_from(&r, &a, 4, three_names, three_files, three_runs, 5);
    /* Busiest file on top, each band one segment over exactly its lines. */
    static const char *const want_file[] = {"stream.c", "stencil.c", "kernel.h"};
    static const uint32_t want_first[] = {210, 55, 300}, want_last[] = {216, 60, 310};
    assert_int_equal(a.nbands, 3);
    assert_int_equal(a.n, 3);
    for (size_t b = 0; b < 3; b++) {
        assert_string_equal(a.band[b].file, want_file[b]);
        assert_int_equal(a.band[b].nseg, 1);
        const tf_line_segment *s = &a.seg[a.band[b].seg0];
        assert_int_equal(s->first, want_first[b]);
        assert_int_equal(s->last, want_last[b]);
        assert_true(s->lo < s->first && s->hi > s->last);
        if (b > 0)
            assert_true(a.band[b].y1 < a.band[b - 1].y0);
    }
    /* Every point of a band inside it, the negligible ones not drawn. */
    for (size_t i = 0; i < p->ncode; i++) {
        double y = tf_line_axis_place(&a, &p->code[i]);
        if (p->code[i].routine == 3 || p->code[i].line == 5000) {
            assert_true(y < 0);
            continue;
        }
        const tf_line_band *b = &a.band[a.routine_band[p->code[i].routine]];
        assert_true(y >= b->y0 && y <= b->y1);
    }
    char buf[512];
    tf_line_axis_title(&a, buf, sizeof buf);
    assert_string_equal(buf, "source line");
    assert_true(tf_line_axis_dropped_note(&a, buf, sizeof buf));
    assert_string_equal(buf, "not drawn (samples): libm.so:4410 (3); stream.c:5000 (2)");
    tf_line_axis_free(&a);
    tf_report_free(&r);
}

/* One file drawn (the library's line dropped): the axis names it. */
static void test_one_file_titled(void **state)
{
    (void)state;
    tf_report r;
    static const run runs[] = {{0, 210, 7, 1000}, {3, 4410, 1, 3}};
    tf_line_axis a;
    axis_from(&r, &a, 4, three_names, three_files, runs, 2);
    assert_int_equal(a.nbands, 1);
    char buf[256];
    tf_line_axis_title(&a, buf, sizeof buf);
    assert_string_equal(buf, "source line in stream.c");
    tf_line_axis_free(&a);
    tf_report_free(&r);
    /* No file known: no name, every line drawn. */
    axis_from(&r, &a, 1, three_names, (const char *const[]){""}, runs, 1);
    tf_line_axis_title(&a, buf, sizeof buf);
    assert_string_equal(buf, "source line");
    assert_false(tf_line_axis_dropped_note(&a, buf, sizeof buf));
    tf_line_axis_free(&a);
    tf_report_free(&r);
}

/* Two headers of one name in different directories: two bands, told
 * apart by their paths. */
static void test_same_name_files(void **state)
{
    (void)state;
    static const char *const names[] = {"a", "b"};
    static const char *const files[] = {"/usr/include/vector.h", "/src/vector.h"};
    static const run runs[] = {{0, 10, 3, 500}, {1, 10, 3, 400}};
    tf_report r;
    tf_line_axis a;
    axis_from(&r, &a, 2, names, files, runs, 2);
    assert_int_equal(a.nbands, 2);
    assert_string_equal(a.band[0].file, "/usr/include/vector.h");
    assert_string_equal(a.band[1].file, "/src/vector.h");
    tf_line_axis_free(&a);
    tf_report_free(&r);
}

/* Many small files: under 1 % each, but no more than 5 % of the samples
 * go undrawn by that rule; beyond the band limit the smallest files are
 * not drawn either, and the note counts what it does not name. */
static void test_many_files_bounded(void **state)
{
    (void)state;
    enum { NFILES = 41 };
    const char *names[NFILES], *files[NFILES];
    char file_buf[NFILES][32];
    run runs[NFILES];
    for (size_t i = 0; i < NFILES; i++) {
        snprintf(file_buf[i], sizeof file_buf[i], "/src/f%02zu.c", i);
        names[i] = "r";
        files[i] = file_buf[i];
        runs[i] = (run){(uint32_t)i, 10, 3, i == 0 ? 1000 : 8};
    }
    tf_report r;
    tf_line_axis a;
    axis_from(&r, &a, NFILES, names, files, runs, NFILES);
    assert_int_equal(a.nbands, TF_LINE_BANDS_MAX);
    assert_string_equal(a.band[0].file, "f00.c");
    assert_int_equal(a.ndropped, NFILES - TF_LINE_BANDS_MAX);
    assert_int_equal(a.dropped_samples, 8 * (NFILES - TF_LINE_BANDS_MAX));
    char buf[1024];
    assert_true(tf_line_axis_dropped_note(&a, buf, sizeof buf));
    const char *tail = strstr(buf, "; 33 other files (264)");
    assert_non_null(tail);
    assert_int_equal(tail[strlen("; 33 other files (264)")], '\0');
    tf_line_axis_free(&a);
    tf_report_free(&r);
}

/* Clusters of one file far apart: cut into segments (no more than the
 * axis holds), every line drawn. */
static void test_segments_within_file(void **state)
{
    (void)state;
    run runs[10];
    for (uint32_t i = 0; i < 10; i++)
        runs[i] = (run){i, 100 + 500 * i, 4, 100};
    const char *names[10] = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"};
    const char *files[10];
    for (size_t i = 0; i < 10; i++)
        files[i] = "/src/big.c";
    tf_report r;
    tf_line_axis a;
    tf_report_page *p = axis_from(&r, &a, 10, names, files, runs, 10);
    assert_int_equal(a.nbands, 1);
    assert_int_equal(a.n, TF_LINE_SEGMENTS_MAX);
    assert_int_equal(a.ndropped, 0);
    for (size_t i = 0; i < p->ncode; i++) {
        double y = tf_line_axis_place(&a, &p->code[i]);
        assert_true(y >= 0 && y <= 1);
    }
    /* Top of the file at the top. */
    assert_true(tf_line_axis_place(&a, &p->code[0]) > tf_line_axis_place(&a, &p->code[950]));
    tf_line_axis_free(&a);
    tf_report_free(&r);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

#define LONG_NAME                                                                              \
    "namd_reference_implementation::nonbonded_interactions::detail::"                         \
    "ComputeNonbondedUtilWithAVeryLongClassNameIndeed<double, 3>::"                            \
    "SelfEnergyKernelSpecialisationForTheFullElectrostaticsCase::calc_self_energy_fullelect"

/* The fixture's routines in three files, one line of a library with 3
 * samples, and a C++ name too long for any place: the page draws a
 * titled band per file, lists the library line, and shortens the name
 * to its own name with the whole name in the key. */
static void test_drawn_bands(void **state)
{
    (void)state;
    char dir[] = "/tmp/tf-line-axis-XXXXXX";
    assert_int_equal(tf_fixture_tmpdir_make(dir), 0);
    tf_report r;
    tf_error err = {0};
    assert_int_equal(tf_fixture_stream(&r, 3000, 0, &err), 0);
    tf_report_page *p = &r.pages[0];
    static const char *const files[] = {"/src/stream.c", "/src/stream.c", "/src/add.c",
                                        "/src/triad.cpp"};
    p->routine_files = calloc(p->nroutines, sizeof *p->routine_files);
    assert_non_null(p->routine_files);
    for (size_t i = 0; i < p->nroutines; i++)
        p->routine_files[i] = tf_report_strdup("%s", files[i]);
    free(p->routines[3]);
    p->routines[3] = tf_report_strdup("%s", LONG_NAME);
    /* Three samples of Add on a libm line: Add's file becomes the
     * library for them through a routine of its own. */
    char **rn = realloc(p->routines, (p->nroutines + 1) * sizeof *rn);
    assert_non_null(rn);
    p->routines = rn;
    char **rf = realloc(p->routine_files, (p->nroutines + 1) * sizeof *rf);
    assert_non_null(rf);
    p->routine_files = rf;
    p->routines[p->nroutines] = tf_report_strdup("sqrt");
    p->routine_files[p->nroutines] = tf_report_strdup("/lib/libm.so");
    for (size_t i = 0; i < 3; i++)
        p->code[i * 7] = (tf_report_code_point){p->code[i * 7].x, (uint32_t)p->nroutines, 4410};
    p->nroutines++;
    char pdf[512], json[512];
    snprintf(pdf, sizeof pdf, "%s/bands.pdf", dir);
    snprintf(json, sizeof json, "%s/bands.json", dir);
    tf_render_options o = {.dpi = 72, .layout_json = json};
    if (tf_render_cairo_with(&r, pdf, TF_FORMAT_PDF, &o, &err) != 0)
        fail_msg("%s", err.msg);
    char *text = slurp(json);
    static const char *const expected[] = {
        "\"role\": \"band title\", \"text\": \"stream.c\"",
        "\"role\": \"band title\", \"text\": \"add.c\"",
        "\"role\": \"band title\", \"text\": \"triad.cpp\"",
        "\"role\": \"not drawn\", \"text\": \"not drawn (samples): libm.so:4410 (3)\"",
        "…::calc_self_energy_fullelect",
        "\"full\": \"" LONG_NAME "\"",
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        if (!strstr(text, expected[i]))
            fail_msg("'%s' missing from the layout record", expected[i]);
    /* The library gets no band; its name is on the page in the note only. */
    assert_null(strstr(text, "\"role\": \"band title\", \"text\": \"libm.so\""));
    /* Shortened, never cut: the namespace is what goes. */
    assert_null(strstr(text, "\"text\": \"namd_reference_implementation::nonbonded_interactions::"
                             "detail::ComputeNonbondedUtilWithAVeryLongClassNameIndeed<double, 3>::"
                             "SelfEnergyKernelSpecialisationForTheFullElectrostaticsCase::calc_self\""));
    free(text);
    tf_report_free(&r);
    tf_fixture_tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_band_per_file),
        cmocka_unit_test(test_one_file_titled),
        cmocka_unit_test(test_same_name_files),
        cmocka_unit_test(test_many_files_bounded),
        cmocka_unit_test(test_segments_within_file),
        cmocka_unit_test(test_drawn_bands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
