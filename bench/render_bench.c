/* SPDX-License-Identifier: BSD-3-Clause */
/* Render benchmark: times the cairo report of a page with N folded points
 * (default 1 million code points and as many memory points) to PDF and to
 * PNG, and, given a fold file, the load and render of its report.  Prints
 * one line per measurement; the median of --repeat runs. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render.h"
#include "report_fixture.h"
#include "report_load.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median seconds of `repeat` renders of r into path. */
static int time_render(const tf_report *r, const char *path, enum tf_render_format f, int repeat,
                       double *median, tf_error *err)
{
    double t[16];
    for (int i = 0; i < repeat; i++) {
        double t0 = now();
        if (tf_render_cairo(r, path, f, 150, err) < 0)
            return -err->code;
        t[i] = now() - t0;
    }
    qsort(t, (size_t)repeat, sizeof t[0], cmp_double);
    *median = t[repeat / 2];
    return 0;
}

int main(int argc, char **argv)
{
    size_t n = 1000000;
    int repeat = 3;
    const char *fold = NULL, *dir = "/tmp";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--points") && i + 1 < argc)
            n = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = (int)strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--fold") && i + 1 < argc)
            fold = argv[++i];
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            dir = argv[++i];
        else {
            fprintf(stderr, "usage: render_bench [--points N] [--repeat R] [--fold FOLD.h5] "
                            "[--dir DIR]\n");
            return 2;
        }
    }
    repeat = repeat < 1 ? 1 : repeat > 16 ? 16 : repeat;
    tf_error err = {0};
    tf_report r;
    char pdf[1024], png[1024];
    snprintf(pdf, sizeof pdf, "%s/render_bench.pdf", dir);
    snprintf(png, sizeof png, "%s/render_bench.png", dir);
    double t_pdf, t_png;
    if (tf_fixture_stream(&r, n, 0, &err) < 0
        || time_render(&r, pdf, TF_FORMAT_PDF, repeat, &t_pdf, &err) < 0
        || time_render(&r, png, TF_FORMAT_PNG, repeat, &t_png, &err) < 0) {
        fprintf(stderr, "render_bench: %s\n", err.msg);
        return 1;
    }
    printf("model  points=%zu code + %zu memory  pdf=%.3f s  png(150 dpi)=%.3f s\n", n, n, t_pdf,
           t_png);
    tf_report_free(&r);
    if (!fold)
        return 0;
    double t0 = now();
    if (tf_report_load(fold, &r, &err) < 0) {
        fprintf(stderr, "render_bench: %s\n", err.msg);
        return 1;
    }
    double t_load = now() - t0;
    size_t pts = 0;
    for (size_t i = 0; i < r.npages; i++)
        pts += r.pages[i].ncode + r.pages[i].nmem;
    if (time_render(&r, pdf, TF_FORMAT_PDF, repeat, &t_pdf, &err) < 0
        || time_render(&r, png, TF_FORMAT_PNG, repeat, &t_png, &err) < 0) {
        fprintf(stderr, "render_bench: %s\n", err.msg);
        return 1;
    }
    printf("fold   %s  points=%zu  load=%.3f s  pdf=%.3f s  png(150 dpi)=%.3f s\n", fold, pts,
           t_load, t_pdf, t_png);
    tf_report_free(&r);
    return 0;
}
