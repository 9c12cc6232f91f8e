/* SPDX-License-Identifier: BSD-3-Clause */
/* The gnuplot back end: the scripts and data are written, gnuplot runs them
 * without an error and produces every page in the asked format (PNG at
 * the asked size), a failure leaves no directory behind; fonts and colours
 * change in style.gp alone, a larger font keeps the legends on the page,
 * and each panel script alone fills its page.  Skipped without gnuplot. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cairo.h>
#include <cmocka.h>

#include "render/cairo_page.h"
#include "render/render.h"
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

/* Runs `gnuplot -e SETTINGS SCRIPT` in dir. */
static void gnuplot_in(const char *dir, const char *settings, const char *script)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && %s -e \"%s\" %s >>gnuplot.log 2>&1", dir, TF_GNUPLOT,
             settings, script);
    if (system(cmd) != 0)
        fail_msg("failed: %s", cmd);
    clean_log(dir);
}

/* Where a PNG has ink: the rows of its first and last non-white pixels,
 * the rightmost column, and how many pixels are pure red. */
typedef struct ink {
    int w, h, top, bottom, right;
    size_t red;
} ink;

static ink png_ink(const char *dir, const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS)
        fail_msg("%s: not a PNG", path);
    ink k = {cairo_image_surface_get_width(s), cairo_image_surface_get_height(s), -1, -1, -1, 0};
    const unsigned char *data = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    for (int y = 0; y < k.h; y++)
        for (int x = 0; x < k.w; x++) {
            uint32_t p;
            memcpy(&p, data + (size_t)y * (size_t)stride + 4 * (size_t)x, sizeof p);
            unsigned a = p >> 24, r = p >> 16 & 0xff, g = p >> 8 & 0xff, b = p & 0xff;
            if (a < 128 || (r > 245 && g > 245 && b > 245))
                continue;
            k.top = k.top < 0 ? y : k.top;
            k.bottom = y;
            k.right = x > k.right ? x : k.right;
            k.red += r > 200 && g < 40 && b < 40;
        }
    cairo_surface_destroy(s);
    return k;
}

/* No script but style.gp names a font or a colour: restyling is one
 * place.  A colour changed there (here from the command line, which wins)
 * changes the page. */
static void test_style_in_one_place(void **state)
{
    char dir[512];
    render(0, "style", TF_FORMAT_PNG, false, dir, sizeof dir);
    static const char *const scripts[] = {"timeline.gp", "code.gp", "memory.gp", "rates.gp",
                                          "tables.gp"};
    for (size_t i = 0; i < sizeof scripts / sizeof scripts[0]; i++) {
        char path[1024], line[4096];
        snprintf(path, sizeof path, "%s/%s", dir, scripts[i]);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        for (int n = 1; fgets(line, sizeof line, f); n++)
            if (line[0] != '#' &&
                (strstr(line, "DejaVu") || strstr(line, "'#") || strstr(line, "\"#") ||
                 strstr(line, " 0x")))
                fail_msg("%s:%d names a font or colour: %s", scripts[i], n, line);
        fclose(f);
    }
    exists(dir, "style.gp");
    if (!have_gnuplot())
        skip();
    gnuplot_in(dir, "", "timeline.gp");
    assert_int_equal(png_ink(dir, "timeline.png").red, 0);
    gnuplot_in(dir, "colour_stores='#ff0000'", "timeline.gp");
    assert_true(png_ink(dir, "timeline.png").red > 50);
}

/* At the largest font size the layout is made for, every legend stays on
 * the page: nothing touches its right edge. */
static void test_larger_font_stays_on_page(void **state)
{
    if (!have_gnuplot())
        skip();
    char dir[512];
    render(0, "font", TF_FORMAT_PNG, false, dir, sizeof dir);
    gnuplot_in(dir, "font_size=9", "timeline.gp");
    ink k = png_ink(dir, "timeline.png");
    if (k.right >= k.w - 3)
        fail_msg("ink at column %d of %d: something runs off the page", k.right, k.w);
}

/* Each panel script run alone fills the terminal's page, top to bottom. */
static void test_panel_alone_fills_page(void **state)
{
    if (!have_gnuplot())
        skip();
    char dir[512];
    render(0, "alone", TF_FORMAT_PDF, false, dir, sizeof dir);
    static const char *const panels[] = {"code", "memory", "rates"};
    for (size_t i = 0; i < 3; i++) {
        char settings[256], png[64], script[64];
        snprintf(png, sizeof png, "%s-alone.png", panels[i]);
        snprintf(script, sizeof script, "%s.gp", panels[i]);
        snprintf(settings, sizeof settings,
                 "set terminal pngcairo size 800,400; set output '%s'", png);
        gnuplot_in(dir, settings, script);
        ink k = png_ink(dir, png);
        if (k.top < 0 || k.top > k.h / 10 || k.bottom < k.h * 85 / 100)
            fail_msg("%s alone draws rows %d to %d of %d", panels[i], k.top, k.bottom, k.h);
    }
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
        cmocka_unit_test(test_style_in_one_place),
        cmocka_unit_test(test_larger_font_stays_on_page),
        cmocka_unit_test(test_panel_alone_fills_page),
        cmocka_unit_test(test_failure_leaves_nothing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
