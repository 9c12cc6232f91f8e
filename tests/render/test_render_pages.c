/* SPDX-License-Identifier: BSD-3-Clause */
/* The cairo pages, checked for structure rather than pixels: the PDF's text
 * holds the labels and axis titles, PNG size follows the dpi, every panel
 * has drawn content inside its box, SVG is well-formed XML, a panel without
 * data says so, an unwritable output fails and leaves no file, a huge cloud
 * stays compact.  Also the helpers the pages rely on: label claims,
 * address bands, tables. */
#include "config.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <libxml/parser.h>

#include "render/address_bands.h"
#include "render/cairo_page.h"
#include "render/render.h"
#include "report_fixture.h"
#include "render/time_units.h"

static char tmpdir[] = "/tmp/tf-render-test-XXXXXX";

static void path_in_tmp(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", tmpdir, name);
}

static void render_fixture(size_t npoints, unsigned flags, const char *name,
                           enum tf_render_format format, double dpi)
{
    tf_report r;
    tf_error err = {0};
    char path[512];
    path_in_tmp(path, sizeof path, name);
    assert_int_equal(tf_fixture_stream(&r, npoints, flags, &err), 0);
    int rc = tf_render_cairo(&r, path, format, dpi, &err);
    if (rc != 0)
        fail_msg("%s", err.msg);
    tf_report_free(&r);
}

/* The text of a PDF through pdftotext; NULL (test skipped) without it. */
static char *pdf_text(const char *name)
{
    char cmd[1024], path[512];
    path_in_tmp(path, sizeof path, name);
    snprintf(cmd, sizeof cmd, "pdftotext -layout '%s' - 2>/dev/null", path);
    FILE *f = popen(cmd, "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap)
            buf = realloc(buf, cap *= 2);
    }
    int st = pclose(f);
    if (!buf || st != 0 || n == 0) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

static void test_pdf_text(void **state)
{
    render_fixture(3000, 0, "text.pdf", TF_FORMAT_PDF, 150);
    char *text = pdf_text("text.pdf");
    if (!text)
        skip();
    static const char *const expected[] = {
        "region stream_iteration", "Copy[311]", "Scale[321]", "Add[331]", "Triad[341]",
        "a | 152 MiB", "b | 152 MiB", "c | 152 MiB", "0x601040", "source line",
        "time in the synthetic iteration [ms]", "misses per instruction", "MIPS", "address",
        "load cost [cycles]", "stores", "L1D misses", "Phases", "Memory hierarchy (loads)",
        "Top data objects", "Access streams", "Instance durations", "instance duration [ms]", "DRAM",
    };
    for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++)
        if (!strstr(text, expected[i]))
            fail_msg("'%s' missing from the PDF text", expected[i]);
    free(text);
}

static cairo_surface_t *load_png(const char *name)
{
    char path[512];
    path_in_tmp(path, sizeof path, name);
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
    return s;
}

static void test_png_size_follows_dpi(void **state)
{
    static const double dpis[] = {72, 150, 300};
    for (size_t i = 0; i < 3; i++) {
        char name[64];
        snprintf(name, sizeof name, "size%.0f.png", dpis[i]);
        render_fixture(500, 0, name, TF_FORMAT_PNG, dpis[i]);
        cairo_surface_t *s = load_png(name);
        assert_int_equal(cairo_image_surface_get_width(s), lround(TF_PAGE_WIDTH * dpis[i] / 72));
        assert_int_equal(cairo_image_surface_get_height(s), lround(TF_PAGE_HEIGHT * dpis[i] / 72));
        cairo_surface_destroy(s);
    }
    /* The tables page is the second file. */
    char path[512];
    path_in_tmp(path, sizeof path, "size150-2.png");
    assert_int_equal(access(path, F_OK), 0);
}

/* Share of non-white pixels inside a page rectangle (inset by 2 px so the
 * frame does not count). */
static double ink_share(cairo_surface_t *s, tf_rect r, double dpi)
{
    double k = dpi / 72;
    int x0 = (int)(r.x * k) + 2, y0 = (int)(r.y * k) + 2;
    int x1 = (int)((r.x + r.w) * k) - 2, y1 = (int)((r.y + r.h) * k) - 2;
    const unsigned char *data = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    size_t ink = 0, all = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            uint32_t px;
            memcpy(&px, data + (size_t)y * (size_t)stride + (size_t)x * 4, 4);
            ink += (px & 0xffffff) != 0xffffff;
            all++;
        }
    return all ? (double)ink / (double)all : 0;
}

static void test_panels_hold_content(void **state)
{
    tf_timeline_layout l;
    tf_timeline_layout_get(&l, (tf_page_size){TF_PAGE_WIDTH, TF_PAGE_HEIGHT});
    render_fixture(4000, 0, "panels.png", TF_FORMAT_PNG, 100);
    cairo_surface_t *s = load_png("panels.png");
    for (int i = 0; i < TF_NPANELS; i++)
        if (ink_share(s, l.plot[i], 100) < 0.02)
            fail_msg("panel %d is almost empty", i);
    /* Outside the panels, the right margin below the title holds only
     * labels: far less ink than a panel. */
    cairo_surface_destroy(s);
}

static void test_missing_memory_says_so(void **state)
{
    render_fixture(2000, TF_FIXTURE_NO_MEMORY, "nomem.pdf", TF_FORMAT_PDF, 150);
    char *text = pdf_text("nomem.pdf");
    if (!text)
        skip();
    assert_non_null(strstr(text, "no memory samples in this trace"));
    assert_null(strstr(text, "a | 152 MiB"));
    free(text);
    /* And the panel is not blank: the note is drawn inside it. */
    tf_timeline_layout l;
    tf_timeline_layout_get(&l, (tf_page_size){TF_PAGE_WIDTH, TF_PAGE_HEIGHT});
    render_fixture(2000, TF_FIXTURE_NO_MEMORY, "nomem.png", TF_FORMAT_PNG, 100);
    cairo_surface_t *s = load_png("nomem.png");
    double share = ink_share(s, l.plot[TF_PANEL_MEMORY], 100);
    assert_true(share > 0.001 && share < 0.05);
    cairo_surface_destroy(s);
}

static void test_rates_without_instructions(void **state)
{
    render_fixture(1000, TF_FIXTURE_NO_INSTRUCTIONS | TF_FIXTURE_SOFTWARE, "rates.pdf",
                   TF_FORMAT_PDF, 150);
    char *text = pdf_text("rates.pdf");
    if (!text)
        skip();
    assert_non_null(strstr(text, "rate [M events/s]"));
    assert_null(strstr(text, "MIPS (right axis)"));
    /* Software-decoded loads have no cost: their own legend entry. */
    assert_non_null(strstr(text, "no cost (decoded)"));
    free(text);
}

static void test_svg_well_formed(void **state)
{
    render_fixture(2000, 0, "page.svg", TF_FORMAT_SVG, 150);
    for (int k = 0; k < 2; k++) {
        char path[512];
        path_in_tmp(path, sizeof path, k ? "page-2.svg" : "page.svg");
        xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_HUGE);
        assert_non_null(doc);
        xmlNodePtr root = xmlDocGetRootElement(doc);
        assert_non_null(root);
        assert_string_equal((const char *)root->name, "svg");
        xmlFreeDoc(doc);
    }
}

static void test_unwritable_output_leaves_nothing(void **state)
{
    tf_report r;
    tf_error err = {0};
    assert_int_equal(tf_fixture_stream(&r, 100, 0, &err), 0);
    assert_true(tf_render_cairo(&r, "/nonexistent-dir/report.pdf", TF_FORMAT_PDF, 150, &err) < 0);
    assert_int_equal(err.code, TF_ERR_IO);
    assert_non_null(strstr(err.msg, "/nonexistent-dir/report.pdf"));
    /* A page file that cannot be created after the first one: the first
     * must not stay behind either. */
    char path[512], blocker[512];
    path_in_tmp(path, sizeof path, "multi.png");
    path_in_tmp(blocker, sizeof blocker, "multi-2.png.tmp-");
    snprintf(blocker + strlen(blocker), sizeof blocker - strlen(blocker), "%ld", (long)getpid());
    assert_int_equal(mkdir(blocker, 0700), 0);
    assert_true(tf_render_cairo(&r, path, TF_FORMAT_PNG, 72, &err) < 0);
    assert_int_not_equal(access(path, F_OK), 0);
    rmdir(blocker);
    tf_report_free(&r);
}

static void test_large_cloud_is_binned(void **state)
{
    render_fixture(300000, 0, "large.pdf", TF_FORMAT_PDF, 150);
    char path[512];
    struct stat st;
    path_in_tmp(path, sizeof path, "large.pdf");
    assert_int_equal(stat(path, &st), 0);
    /* 600,000 vector dots would take tens of MB. */
    assert_true(st.st_size < 3 * 1024 * 1024);
}

static void test_claims_refuse_overlap(void **state)
{
    tf_claims c = {0};
    assert_true(tf_claims_take(&c, (tf_rect){0, 0, 20, 10}));
    assert_false(tf_claims_take(&c, (tf_rect){15, 5, 20, 10}));
    assert_true(tf_claims_take(&c, (tf_rect){30, 0, 20, 10}));
    assert_false(tf_claims_take(&c, (tf_rect){0, 9.5, 10, 10}));
    tf_claims_free(&c);
}

static void test_bands_by_address(void **state)
{
    tf_report r;
    tf_error err = {0};
    assert_int_equal(tf_fixture_stream(&r, 3000, 0, &err), 0);
    const tf_report_page *p = &r.pages[0];
    tf_bands b;
    assert_int_equal(tf_bands_build(p, &b, &err), 0);
    assert_int_equal(b.n, 3);
    /* a (0x601040) lowest, then c (static), then b (heap) at the top. */
    assert_string_equal(p->objects[b.band[0].object].name, "a");
    assert_string_equal(p->objects[b.band[1].object].name, "c");
    assert_string_equal(p->objects[b.band[2].object].name, "b");
    for (size_t i = 0; i < b.n; i++) {
        assert_true(b.band[i].y0 >= 0 && b.band[i].y1 <= 1 && b.band[i].y0 < b.band[i].y1);
        if (i)
            assert_true(b.band[i].y0 > b.band[i - 1].y1);
    }
    /* A point at an object's end is at its band's top. */
    tf_report_mem_point m = {.addr = p->objects[1].start + p->objects[1].size, .object = 1};
    double y;
    assert_true(tf_bands_place(&b, p, &m, &y));
    assert_true(fabs(y - b.band[b.band_of_object[1]].y1) < 1e-9);
    char label[64];
    tf_bands_label(&b, p, 1, label, sizeof label);
    assert_string_equal(label, "c | 152 MiB");
    tf_bands_free(&b);
    tf_report_free(&r);
}

/* Legend entries of routines named alike are told apart by their files'
 * names, numbered only where the file does not tell (issue 31). */
static void test_routine_labels_tell_alike_apart(void **state)
{
    (void)state;
    char *names[] = {"solve", "solve", "solve", "solve", "init"};
    char *files[] = {"/src/cg.c", "/src/mg.c", "", "/src/mg.c", "/src/init.c"};
    tf_report_page p = {.nroutines = 5, .routines = names, .routine_files = files};
    static const char *const expected[] = {"solve (cg.c)", "solve (mg.c, 1)", "solve (3)",
                                           "solve (mg.c, 2)", "init"};
    char buf[128];
    for (size_t i = 0; i < 5; i++) {
        tf_report_routine_label(&p, i, buf, sizeof buf);
        assert_string_equal(buf, expected[i]);
    }
    /* No file known (a fold without the column, or symbols from the trace). */
    p.routine_files = NULL;
    tf_report_routine_label(&p, 1, buf, sizeof buf);
    assert_string_equal(buf, "solve (2)");
    tf_report_routine_label(&p, 4, buf, sizeof buf);
    assert_string_equal(buf, "init");
}

/* One function shortens every text (legends, phase labels, tables): a
 * C++ name keeps its own name and what follows it, its namespaces go
 * first, then entirely; other names keep their start and end; a text that
 * fits is left whole (issue 31). */
static void test_shorten_keeps_own_name(void **state)
{
    (void)state;
    cairo_surface_t *surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 10, 10);
    cairo_t *cr = cairo_create(surface);
    tf_text t;
    tf_error err = {0};
    assert_int_equal(tf_text_init(&t, cr, &err), 0);
    unsigned key;
    const char *qualified = "ComputeNonbondedUtil::calc_self_energy_fullelect";
    double own_w = tf_text_box(&t, TF_FONT_LABEL, "Co…::calc_self_energy_fullelect¹", 0, 0, 0, 0, 0).w;
    char *shown = tf_text_shorten(&t, TF_FONT_LABEL, qualified, own_w + 8, &key);
    assert_int_equal(key, 1);
    size_t len = strlen(shown), tail = strlen("…::calc_self_energy_fullelect¹");
    assert_true(len > tail && !strcmp(shown + len - tail, "…::calc_self_energy_fullelect¹"));
    assert_true(!strncmp(shown, "Co", 2));
    assert_true(tf_text_box(&t, TF_FONT_LABEL, shown, 0, 0, 0, 0, 0).w <= own_w + 8);
    free(shown);
    /* No room for the namespace: the own name, what follows it shortened. */
    const char *told = "ComputeNonbondedUtil::calc_self_energy (ComputeNonbondedBase2.h)";
    double w = tf_text_box(&t, TF_FONT_LABEL, "…::calc_self_energy (Compu…e2.h)¹", 0, 0, 0, 0, 0).w;
    shown = tf_text_shorten(&t, TF_FONT_LABEL, told, w, &key);
    assert_true(!strncmp(shown, "…::calc_self_energy (C", strlen("…::calc_self_energy (C")));
    assert_non_null(strstr(shown + strlen("…"), "…"));
    assert_true(!strcmp(shown + strlen(shown) - strlen("h)¹"), "h)¹"));
    free(shown);
    /* Not qualified: a third from the start, the rest from the end. */
    const char *plain = "a_routine_name_far_too_long_for_its_room_in_the_legend";
    w = tf_text_box(&t, TF_FONT_LABEL, plain, 0, 0, 0, 0, 0).w;
    shown = tf_text_shorten(&t, TF_FONT_LABEL, plain, w / 2, &key);
    assert_true(!strncmp(shown, "a_rout", 6));
    assert_non_null(strstr(shown, "legend¹"));
    free(shown);
    /* A text that fits is itself, with no key. */
    assert_ptr_equal(tf_text_shorten(&t, TF_FONT_LABEL, plain, w + 1, &key), plain);
    assert_int_equal(key, 0);
    tf_text_fini(&t);
    cairo_destroy(cr);
    cairo_surface_destroy(surface);
}

/* Twenty phases of 16 points each: the labels
 * that collide on both rows are given as key marks, every label is on
 * the page, in full or in the key (issue 31). */
static void test_colliding_phase_labels_kept(void **state)
{
    (void)state;
    tf_report r;
    tf_error err = {0};
    assert_int_equal(tf_fixture_stream(&r, 2000, 0, &err), 0);
    tf_report_page *p = &r.pages[0];
    enum { N = 20 };
    tf_report_phase *ph = realloc(p->phases, N * sizeof *ph);
    assert_non_null(ph);
    p->phases = ph;
    p->nphases = N;
    for (size_t i = 0; i < N; i++)
        ph[i] = (tf_report_phase){.x0 = 0.05 * (double)i, .x1 = 0.05 * (double)(i + 1),
                                  .routine = (uint32_t)(i % p->nroutines), .line = 500 + (uint32_t)i};
    ph[N - 1].x1 = 1;
    char pdf[512], json[512];
    path_in_tmp(pdf, sizeof pdf, "phases.pdf");
    path_in_tmp(json, sizeof json, "phases.json");
    tf_render_options o = {.dpi = 72, .layout_json = json};
    if (tf_render_cairo_with(&r, pdf, TF_FORMAT_PDF, &o, &err) != 0)
        fail_msg("%s", err.msg);
    FILE *f = fopen(json, "r");
    assert_non_null(f);
    static char doc[1 << 20];
    size_t n = fread(doc, 1, sizeof doc - 1, f);
    fclose(f);
    doc[n] = '\0';
    size_t marks = 0;
    for (size_t i = 0; i < N; i++) {
        char label[128];
        snprintf(label, sizeof label, "\"%s[%u]\"", p->routines[ph[i].routine], ph[i].line);
        if (!strstr(doc, label))
            fail_msg("phase label %s neither drawn nor in the key", label);
        char full[160];
        snprintf(full, sizeof full, "\"full\": %s", label);
        marks += strstr(doc, full) != NULL;
    }
    /* Twenty labels of about 40 points on two rows of 330 points: a
     * third fit at most, the others are marks. */
    assert_true(marks >= N / 2);
    tf_report_free(&r);
}

/* Rates and bandwidths read from 1 to 999 in their SI unit. */
static void test_si_prefix(void **state)
{
    (void)state;
    static const struct { double max; const char *name; double factor; } cases[] = {
        {0, "", 1}, {0.5, "", 1}, {999, "", 1}, {1000, "k", 1e3}, {11.5e9, "G", 1e9},
        {2.4e6, "M", 1e6}, {3e15, "T", 1e12}, {NAN, "", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tf_si_prefix p = tf_si_prefix_for(cases[i].max);
        if (strcmp(p.name, cases[i].name) || p.factor != cases[i].factor)
            fail_msg("%g: prefix '%s' (%g), not '%s'", cases[i].max, p.name, p.factor, cases[i].name);
    }
}

static void test_tables_from_page(void **state)
{
    tf_report r;
    tf_error err = {0};
    assert_int_equal(tf_fixture_stream(&r, 5000, 0, &err), 0);
    const tf_report_page *p = &r.pages[0];
    const tf_report_table *ph = &p->tables[TF_REPORT_TABLE_PHASES];
    assert_int_equal(ph->nrows, 4);
    assert_string_equal(ph->cells[1 * ph->ncols + 2], "Scale[321]");
    assert_string_equal(ph->cells[1 * ph->ncols + 3], "800");   /* MIPS of Scale */
    const tf_report_table *lv = &p->tables[TF_REPORT_TABLE_LEVELS];
    assert_int_equal(lv->nrows, 3);                              /* L1, LFB, DRAM */
    assert_string_equal(lv->cells[2 * lv->ncols], "DRAM");
    double dram_cost = strtod(lv->cells[2 * lv->ncols + 3], NULL);
    assert_true(dram_cost > 250 && dram_cost < 750);
    const tf_report_table *ob = &p->tables[TF_REPORT_TABLE_OBJECTS];
    assert_int_equal(ob->nrows, 3);
    double total = 0;
    for (size_t i = 0; i < ob->nrows; i++)
        total += strtod(ob->cells[i * ob->ncols + 3], NULL);
    assert_true(fabs(total - 100) < 0.5);
    tf_report_free(&r);
}

static int setup(void **state)
{
    return tf_fixture_tmpdir_make(tmpdir);
}

static int teardown(void **state)
{
    return tf_fixture_tmpdir_remove(tmpdir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pdf_text),
        cmocka_unit_test(test_png_size_follows_dpi),
        cmocka_unit_test(test_panels_hold_content),
        cmocka_unit_test(test_missing_memory_says_so),
        cmocka_unit_test(test_rates_without_instructions),
        cmocka_unit_test(test_svg_well_formed),
        cmocka_unit_test(test_unwritable_output_leaves_nothing),
        cmocka_unit_test(test_large_cloud_is_binned),
        cmocka_unit_test(test_claims_refuse_overlap),
        cmocka_unit_test(test_bands_by_address),
        cmocka_unit_test(test_tables_from_page),
        cmocka_unit_test(test_routine_labels_tell_alike_apart),
        cmocka_unit_test(test_shorten_keeps_own_name),
        cmocka_unit_test(test_colliding_phase_labels_kept),
        cmocka_unit_test(test_si_prefix),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
