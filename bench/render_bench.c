/* SPDX-License-Identifier: BSD-3-Clause */
/* Render benchmark: times the cairo report of a page with N folded points
 * (default 1 million code points and as many memory points) to PDF and to
 * PNG; given a trace, folds it with `tracefold fold` (--tracefold PATH) for
 * scale, then times the load and the render of its report.  Prints one
 * line per measurement; renders are the median of --repeat runs. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render/render.h"
#include "tests/render/report_fixture.h"
#include "render/report_load.h"

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median wall-clock and CPU seconds of `repeat` renders of r into path. */
static int time_render(const tf_report *r, const char *path, enum tf_render_format f, int repeat,
                       double median[2], tf_error *err)
{
    double wall[16], cpu[16];
    for (int i = 0; i < repeat; i++) {
        double w0 = now(), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        if (tf_render_cairo(r, path, f, 150, err) < 0)
            return -err->code;
        wall[i] = now() - w0;
        cpu[i] = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    }
    qsort(wall, (size_t)repeat, sizeof wall[0], cmp_double);
    qsort(cpu, (size_t)repeat, sizeof cpu[0], cmp_double);
    median[0] = wall[repeat / 2];
    median[1] = cpu[repeat / 2];
    return 0;
}

int main(int argc, char **argv)
{
    size_t n = 1000000;
    int repeat = 3;
    const char *trace = NULL, *tracefold = "tracefold", *dir = "/tmp";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--points") && i + 1 < argc)
            n = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
            repeat = (int)strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--trace") && i + 1 < argc)
            trace = argv[++i];
        else if (!strcmp(argv[i], "--tracefold") && i + 1 < argc)
            tracefold = argv[++i];
        else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
            dir = argv[++i];
        else {
            fprintf(stderr, "usage: render_bench [--points N] [--repeat R] [--trace TRACE.h5 "
                            "[--tracefold PATH]] [--dir DIR]\n");
            return 2;
        }
    }
    repeat = repeat < 1 ? 1 : repeat > 16 ? 16 : repeat;
    tf_error err = {0};
    tf_report r;
    char pdf[1024], png[1024];
    snprintf(pdf, sizeof pdf, "%s/render_bench.pdf", dir);
    snprintf(png, sizeof png, "%s/render_bench.png", dir);
    double t_pdf[2], t_png[2];
    if (tf_fixture_stream(&r, n, 0, &err) < 0
        || time_render(&r, pdf, TF_FORMAT_PDF, repeat, t_pdf, &err) < 0
        || time_render(&r, png, TF_FORMAT_PNG, repeat, t_png, &err) < 0) {
        fprintf(stderr, "render_bench: %s\n", err.msg);
        return 1;
    }
    printf("model  points=%zu code + %zu memory  pdf=%.3f s (cpu %.3f)  png(150 dpi)=%.3f s (cpu %.3f)\n",
           n, n, t_pdf[0], t_pdf[1], t_png[0], t_png[1]);
    tf_report_free(&r);
    if (!trace)
        return 0;
    char fold[1024], cmd[4096];
    snprintf(fold, sizeof fold, "%s/render_bench.fold/fold.h5", dir);
    snprintf(cmd, sizeof cmd, "'%s' fold -q --force '%s' -o '%s/render_bench.fold'", tracefold,
             trace, dir);
    double t0 = now();
    if (system(cmd) != 0) {
        fprintf(stderr, "render_bench: %s failed\n", cmd);
        return 1;
    }
    double t_fold = now() - t0;
    t0 = now();
    if (tf_report_load(fold, &r, &err) < 0) {
        fprintf(stderr, "render_bench: %s\n", err.msg);
        return 1;
    }
    double t_load = now() - t0;
    size_t pts = 0;
    for (size_t i = 0; i < r.npages; i++)
        pts += r.pages[i].ncode + r.pages[i].nmem;
    if (time_render(&r, pdf, TF_FORMAT_PDF, repeat, t_pdf, &err) < 0
        || time_render(&r, png, TF_FORMAT_PNG, repeat, t_png, &err) < 0) {
        fprintf(stderr, "render_bench: %s\n", err.msg);
        return 1;
    }
    printf("trace  %s  folded points=%zu  fold (tracefold fold, with its report.pdf)=%.3f s  "
           "load=%.3f s  pdf=%.3f s (cpu %.3f)  png(150 dpi)=%.3f s (cpu %.3f)\n",
           trace, pts, t_fold, t_load, t_pdf[0], t_pdf[1], t_png[0], t_png[1]);
    tf_report_free(&r);
    return 0;
}
