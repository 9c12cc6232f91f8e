/* SPDX-License-Identifier: BSD-3-Clause */
/* The gnuplot back end: the scripts and data are written, gnuplot runs them
 * without an error and produces every page in the asked format (PNG at
 * the asked size), a failure leaves no directory behind.  Skipped without
 * gnuplot. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cairo.h>
#include <cmocka.h>

#include "cairo_page.h"
#include "render.h"
#include "report_fixture.h"

static char tmpdir[] = "/tmp/tf-render-gp-XXXXXX";

static bool have_gnuplot(void)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "%s --version >/dev/null 2>&1", TF_GNUPLOT);
    return system(cmd) == 0;
}

static void exists(const char *dir, const char *name)
{
    char path[1024];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (stat(path, &st) != 0 || st.st_size == 0)
        fail_msg("%s missing or empty", path);
}

/* No line of gnuplot's messages reports an error or a warning. */
static void clean_log(const char *dir)
{
    char path[1024], line[1024];
    snprintf(path, sizeof path, "%s/gnuplot.log", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return;   /* gnuplot said nothing at all */
    while (fgets(line, sizeof line, f))
        if (strstr(line, "rror") || strstr(line, "arning"))
            fail_msg("gnuplot: %s", line);
    fclose(f);
}

static void render(unsigned flags, const char *name, enum tf_render_format format, bool run,
                   char *dir, size_t len)
{
    tf_report r;
    tf_error err = {0};
    snprintf(dir, len, "%s/%s", tmpdir, name);
    assert_int_equal(tf_fixture_stream(&r, 3000, flags, &err), 0);
    if (tf_render_gnuplot(&r, dir, format, 100, run, &err) < 0)
        fail_msg("%s", err.msg);
    tf_report_free(&r);
}

static void test_scripts_and_data(void **state)
{
    char dir[512];
    render(0, "scripts", TF_FORMAT_PDF, false, dir, sizeof dir);
    static const char *const files[] = {"timeline.gp", "code.gp", "memory.gp", "rates.gp",
                                        "tables.gp", "code.dat", "mem-loads.dat",
                                        "mem-stores.dat", "rates.dat", "hist.dat"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        exists(dir, files[i]);
    /* Scripts are commented for restyling. */
    char path[1024], line[256];
    snprintf(path, sizeof path, "%s/memory.gp", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_int_equal(line[0], '#');
    fclose(f);
}

static void test_gnuplot_runs_pdf(void **state)
{
    if (!have_gnuplot())
        skip();
    char dir[512];
    render(0, "pdf", TF_FORMAT_PDF, true, dir, sizeof dir);
    exists(dir, "timeline.pdf");
    exists(dir, "tables.pdf");
    clean_log(dir);
}

static void test_gnuplot_runs_png_without_memory(void **state)
{
    if (!have_gnuplot())
        skip();
    char dir[512];
    render(TF_FIXTURE_NO_MEMORY | TF_FIXTURE_NO_INSTRUCTIONS, "png", TF_FORMAT_PNG, true, dir,
           sizeof dir);
    exists(dir, "timeline.png");
    exists(dir, "tables.png");
    clean_log(dir);
    char path[1024];
    snprintf(path, sizeof path, "%s/timeline.png", dir);
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
    assert_int_equal(cairo_image_surface_get_width(s), (int)(TF_PAGE_WIDTH * 100 / 72 + 0.5));
    cairo_surface_destroy(s);
    /* The memory panel says why it is empty. */
    snprintf(path, sizeof path, "grep -q 'no memory samples in this trace' '%s/memory.gp'", dir);
    assert_int_equal(system(path), 0);
}

static void test_failure_leaves_nothing(void **state)
{
    tf_report r;
    tf_error err = {0};
    assert_int_equal(tf_fixture_stream(&r, 100, 0, &err), 0);
    assert_true(tf_render_gnuplot(&r, "/nonexistent-dir/gp", TF_FORMAT_PDF, 100, false, &err) < 0);
    assert_non_null(strstr(err.msg, "/nonexistent-dir/gp"));
    /* An output path that is a file is refused before anything is written. */
    char path[512];
    snprintf(path, sizeof path, "%s/plain-file", tmpdir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    assert_true(tf_render_gnuplot(&r, path, TF_FORMAT_PDF, 100, false, &err) < 0);
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid());
    assert_int_not_equal(access(tmp, F_OK), 0);
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
        cmocka_unit_test(test_scripts_and_data),
        cmocka_unit_test(test_gnuplot_runs_pdf),
        cmocka_unit_test(test_gnuplot_runs_png_without_memory),
        cmocka_unit_test(test_failure_leaves_nothing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
