/* SPDX-License-Identifier: BSD-3-Clause */
/* `tracefold render`: the report of a fold (OUTDIR/fold.h5) as PDF, SVG or
 * PNG pages drawn with cairo, or as gnuplot scripts with their data. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "msg.h"
#include "render/render.h"
#include "render/report_load.h"
#include "common/tf_output.h"

#define DPI_MIN 20
#define DPI_MAX 2400
#define MAX_PHASE_LABELS 1000

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: tracefold render [OPTIONS] FOLD.h5\n"
            "Draws the report of a fold: per folded region (and group) the triple\n"
            "timeline (code line, address space, counters per instruction and MIPS on one\n"
            "time axis) and a page of tables (phases, memory levels, data objects,\n"
            "instance durations).\n\n"
            "Options:\n"
            "  -f, --format FMT      pdf (default), svg or png\n"
            "  -o, --output PATH     output file (cairo) or directory (gnuplot);\n"
            "                        default: report.FMT or gnuplot/ beside FOLD.h5\n"
            "      --dpi N           resolution of PNG output (default 150)\n"
            "  -b, --backend NAME    cairo (default) or gnuplot (scripts and data)\n"
            "      --run             with the gnuplot back end: run gnuplot on the scripts\n"
            "      --layout-json FILE  write every text box and panel box drawn (cairo)\n"
            "      --max-phase-labels N  at most N phase labels (default: as many as fit)\n"
            "      --size SIZE       page size: single-column (88x150 mm), double-column\n"
            "                        (180x160 mm), slide (10x5.625 in, 16:9) or WxH in mm\n"
            "                        (120x150) or inches (3.5x4.5in); fonts keep their size\n"
            "                        (default: 180x254 mm)\n"
            "      --grayscale       grey levels and dashed lines instead of colours\n"
            "      --counters LIST   counters of the performance panel, comma-separated\n"
            "                        (instructions draws MIPS; a time counter, CPU utilisation)\n"
            "      --force           replace existing outputs (a report fold drew, say)\n"
            "  -q, --quiet           no notes\n"
            "  -h, --help            show this help and exit\n\n"
            "PDF holds every page; SVG and PNG write one file per page: PATH, then\n"
            "PATH-2, PATH-3, ... before the extension.\n"
            "Exit status: 0 success, 1 unreadable fold file or unwritable output,\n"
            "2 wrong command line.\n");
}

/* OUTDIR/name for a fold file OUTDIR/fold.h5 (or ./name). */
static char *beside(const char *fold, const char *name)
{
    const char *slash = strrchr(fold, '/');
    int dir = slash ? (int)(slash - fold) : 1;
    return tf_report_strdup("%.*s/%s", dir, slash ? fold : ".", name);
}

/* The rule for existing outputs (common/tf_output.h): the page files, or
 * the gnuplot folder, whose files are replaced one by one. */
static int check_outputs(size_t npages, const char *path, enum tf_render_format format,
                         bool gnuplot, const char *fold, bool force, tf_error *err)
{
    tf_output_rule rule = { .inputs = &fold, .ninputs = 1, .force = force };
    bool exists;
    if (gnuplot)
        return tf_output_check_folder(path, NULL, &rule, &exists, err);
    size_t n = format == TF_FORMAT_PDF ? 1 : npages;
    int rc = 0;
    for (size_t k = 0; rc == 0 && k < n; k++) {
        char page[4200];
        rc = tf_render_page_path(path, k, page, sizeof page, err);
        if (rc == 0)
            rc = tf_output_check_file(page, &rule, err);
    }
    return rc;
}

int tf_cmd_render(int argc, char **argv)
{
    static const struct option opts[] = {
        {"format", required_argument, NULL, 'f'}, {"output", required_argument, NULL, 'o'},
        {"dpi", required_argument, NULL, 'd'},    {"backend", required_argument, NULL, 'b'},
        {"run", no_argument, NULL, 'r'},          {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},         {"force", no_argument, NULL, 'F'},
        {"layout-json", required_argument, NULL, 'L'},
        {"max-phase-labels", required_argument, NULL, 'M'},
        {"counters", required_argument, NULL, 'C'},
        {"size", required_argument, NULL, 'S'},   {"grayscale", no_argument, NULL, 'G'},
        {NULL, 0, NULL, 0},
    };
    enum tf_render_format format = TF_FORMAT_PDF;
    const char *output = NULL, *counters = NULL;
    unsigned overflowed = 0;
    tf_render_options ro = {.dpi = 150, .overflowed = &overflowed};
    bool gnuplot = false, run = false, force = false;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":f:o:b:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'f':
            if (!tf_render_format_parse(optarg, &format))
                return tf_msg_usage("--format: '%s' is not pdf, svg or png", optarg);
            break;
        case 'o':
            output = optarg;
            break;
        case 'd': {
            char *end;
            errno = 0;
            long v = strtol(optarg, &end, 10);
            if (errno || *end || end == optarg || v < DPI_MIN || v > DPI_MAX)
                return tf_msg_usage("--dpi: '%s' is not a whole number from %d to %d", optarg,
                                    DPI_MIN, DPI_MAX);
            ro.dpi = (double)v;
            break;
        }
        case 'b':
            if (!strcmp(optarg, "gnuplot"))
                gnuplot = true;
            else if (!strcmp(optarg, "cairo"))
                gnuplot = false;
            else
                return tf_msg_usage("--backend: '%s' is not cairo or gnuplot", optarg);
            break;
        case 'r':
            run = true;
            break;
        case 'L':
            ro.layout_json = optarg;
            break;
        case 'M': {
            char *end;
            errno = 0;
            long v = strtol(optarg, &end, 10);
            if (errno || *end || end == optarg || v < 1 || v > MAX_PHASE_LABELS)
                return tf_msg_usage("--max-phase-labels: '%s' is not a whole number from 1 to %d",
                                    optarg, MAX_PHASE_LABELS);
            ro.max_phase_labels = (unsigned)v;
            break;
        }
        case 'C':
            if (!*optarg || optarg[strlen(optarg) - 1] == ',' || strstr(optarg, ",,") || *optarg == ',')
                return tf_msg_usage("--counters: '%s' is not a comma-separated list of counter names",
                                    optarg);
            counters = optarg;
            break;
        case 'S':
            if (!tf_page_size_parse(optarg, &ro.size))
                return tf_msg_usage("--size: '%s' is not single-column, double-column, slide or WxH "
                                    "in mm (120x150) or inches (3.5x4.5in), each side from %.0fx%.0f "
                                    "to %.0f mm",
                                    optarg, TF_PAGE_MIN_W_MM, TF_PAGE_MIN_H_MM, TF_PAGE_MAX_MM);
            break;
        case 'G':
            ro.grayscale = true;
            break;
        case 'F':
            force = true;
            break;
        case 'q':
            tf_msg_set_quiet(true);
            break;
        case 'h':
            usage(stdout);
            return TF_EXIT_OK;
        case ':':
            return tf_msg_usage("option '%s' needs a value", argv[optind - 1]);
        default:
            return tf_msg_usage("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return tf_msg_usage(optind == argc ? "no fold file given" : "more than one fold file given");
    if (run && !gnuplot)
        return tf_msg_usage("--run goes with --backend gnuplot");
    if ((ro.layout_json || ro.max_phase_labels) && gnuplot)
        return tf_msg_usage("%s goes with the cairo back end",
                            ro.layout_json ? "--layout-json" : "--max-phase-labels");
    const char *fold = argv[optind];

    tf_error err = {0};
    tf_report report = {0};
    char *path = NULL;
    int rc = tf_report_load_with(fold, counters, &report, &err);
    if (rc == 0) {
        char name[32];
        snprintf(name, sizeof name, "report.%s", tf_render_format_name(format));
        path = output ? tf_report_strdup("%s", output) : beside(fold, gnuplot ? "gnuplot" : name);
        if (!path)
            rc = tf_fail(&err, TF_ERR_NOMEM, "out of memory");
    }
    size_t npages = 0;
    if (rc == 0 && !gnuplot)
        rc = tf_render_cairo_pages(&report, &ro, &npages, &err);
    if (rc == 0)
        rc = check_outputs(npages, path, format, gnuplot, fold, force, &err);
    if (rc == 0 && ro.layout_json) {
        tf_output_rule rule = {.inputs = &fold, .ninputs = 1, .force = force};
        rc = tf_output_check_file(ro.layout_json, &rule, &err);
    }
    if (rc == 0)
        rc = gnuplot ? tf_render_gnuplot_with(&report, path, format, &ro, run, &err)
                     : tf_render_cairo_with(&report, path, format, &ro, &err);
    if (rc == 0 && overflowed)
        tf_msg_warn("%u page%s too small for the key of this report: it runs past the bottom; "
                    "choose a larger --size", overflowed, overflowed > 1 ? "s are" : " is");
    if (rc == 0) {
        if (gnuplot)
            tf_msg_note("wrote %s/ (gnuplot scripts and data%s)", path, run ? ", and their plots" : "");
        else
            tf_msg_note("wrote %s (%zu pages%s)", path, npages,
                        format != TF_FORMAT_PDF && npages > 1 ? ", one file each" : "");
    }
    free(path);
    tf_report_free(&report);
    return rc == 0 ? TF_EXIT_OK : tf_msg_fail(&err);
}
