/* SPDX-License-Identifier: BSD-3-Clause */
/* `tracefold diff A/fold.h5 B/fold.h5 -o OUT`: two folds compared phase by
 * phase (render/report_diff.h), written as OUT/diff.csv, OUT/diff.md and
 * OUT/diff.pdf (or .svg, .png) into a temporary sibling of OUT renamed
 * when complete. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "fold/fold_result.h"
#include "msg.h"
#include "render/render.h"
#include "render/report_diff.h"
#include "render/report_load.h"
#include "common/tf_output.h"

/* The file diff writes into OUT last, listing what it wrote there: an
 * existing OUT is replaced (with --force) only while it holds this and
 * nothing else it did not write (common/tf_output.h). */
#define DIFF_MARKER ".tracefold-diff"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: tracefold diff [OPTIONS] A/fold.h5 B/fold.h5 -o OUT\n"
            "Compares two folds phase by phase (A before, B after a change; two machines;\n"
            "two inputs; two variants of a kernel): phases aligned by routine and line\n"
            "where they match, by order otherwise; per phase the time, MIPS, bandwidth\n"
            "and memory-level shares in each, their ratio or difference and whether it\n"
            "lies outside the bands (else it is noise).  Writes OUT/diff.csv, OUT/diff.md\n"
            "and OUT/diff.pdf (both iterations on one time scale, B over A).\n\n"
            "Options:\n"
            "  -o, --output OUT      output directory (required)\n"
            "  -r, --region NAME     the region compared (default: the fold's only one)\n"
            "      --region-b NAME   B's region, when it differs from A's (two variants)\n"
            "  -g, --group N         the duration group compared, 1-based (default: the\n"
            "                        only one)\n"
            "      --confidence C    coverage of the bands, in (0, 1) (default 0.95)\n"
            "  -f, --format FMT      the page: pdf (default), svg or png\n"
            "      --layout-json FILE  write every text box and panel box of the page\n"
            "      --force           replace an OUT that diff wrote before\n"
            "  -q, --quiet           no notes\n"
            "  -h, --help            show this help and exit\n\n"
            "Exit status: 0 success, 1 unreadable fold file, no such region or group,\n"
            "or unwritable output, 2 wrong command line.\n");
}

struct diff_options {
    const char *output, *region, *region_b, *layout_json;
    uint32_t group;            /* 1-based, 0: the only one */
    double confidence;
    enum tf_render_format format;
    bool force;
};

/* One fold, loaded, and the page of the region and group compared. */
struct side {
    const char *path;
    tf_fold_result *fr;
    tf_report report;
    const tf_report_page *page;
    const char *region;
};

static int pick(struct side *s, const char *region, uint32_t group, tf_error *err)
{
    tf_fold_result *fr = s->fr;
    uint32_t r = 0;
    if (region) {
        while (r < fr->nregions && strcmp(fr->regions[r].name, region))
            r++;
        if (r == fr->nregions)
            return tf_fail(err, TF_ERR_DATA, "%s: no folded region '%s' (it has %s%s)", s->path,
                           region, fr->regions[0].name, fr->nregions > 1 ? ", ..." : "");
    } else if (fr->nregions != 1) {
        return tf_fail(err, TF_ERR_USAGE, "%s: %u folded regions ('%s', ...): choose one with "
                       "--region", s->path, fr->nregions, fr->regions[0].name);
    }
    const tf_fold_region *reg = &fr->regions[r];
    if (group == 0 && reg->ngroups != 1)
        return tf_fail(err, TF_ERR_USAGE, "%s: region '%s' has %u groups: choose one with --group",
                       s->path, reg->name, reg->ngroups);
    uint32_t g = group ? group - 1 : 0;
    if (g >= reg->ngroups)
        return tf_fail(err, TF_ERR_DATA, "%s: region '%s' has no group %u (it has %u)", s->path,
                       reg->name, group, reg->ngroups);
    size_t page = g;
    for (uint32_t k = 0; k < r; k++)
        page += fr->regions[k].ngroups;
    if (page >= s->report.npages)
        return tf_fail(err, TF_ERR_INTERNAL, "%s: no report page for region '%s'", s->path,
                       reg->name);
    s->page = &s->report.pages[page];
    s->region = reg->name;
    return 0;
}

static int load(struct side *s, const char *region, uint32_t group, tf_error *err)
{
    int rc = tf_fold_result_load(s->path, &s->fr, err);
    if (rc == 0 && s->fr->nregions == 0)
        rc = tf_fail(err, TF_ERR_DATA, "%s: no folded region in this file", s->path);
    if (rc == 0)
        rc = tf_report_load_result(s->fr, s->path, &s->report, err);
    return rc == 0 ? pick(s, region, group, err) : rc;
}

static int write_all(const tf_diff *d, const struct side *a, const struct side *b,
                     const struct diff_options *o, bool replace, tf_error *err)
{
    char tmp[4096], page[4200], title[512];
    if (tf_output_begin_folder(o->output, tmp, sizeof tmp, err) < 0)
        return -err->code;
    int rc = tf_diff_write_tables(d, a->path, b->path, tmp, err);
    snprintf(page, sizeof page, "%s/diff.%s", tmp, tf_render_format_name(o->format));
    if (strcmp(a->region, b->region))
        snprintf(title, sizeof title, "diff: region %s (A) and %s (B)", a->region, b->region);
    else
        snprintf(title, sizeof title, "diff: region %s", a->region);
    if (rc == 0)
        rc = tf_render_diff(d, title, page, o->format, 150, o->layout_json, err);
    return tf_output_finish_folder(tmp, o->output, DIFF_MARKER, replace, rc, err);
}

static int parse(int argc, char **argv, struct diff_options *o)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'},  {"region", required_argument, NULL, 'r'},
        {"region-b", required_argument, NULL, 'R'}, {"group", required_argument, NULL, 'g'},
        {"confidence", required_argument, NULL, 'c'}, {"format", required_argument, NULL, 'f'},
        {"force", no_argument, NULL, 'F'},         {"quiet", no_argument, NULL, 'q'},
        {"layout-json", required_argument, NULL, 'L'},
        {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
    };
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:r:g:f:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'o': o->output = optarg; break;
        case 'r': o->region = optarg; break;
        case 'R': o->region_b = optarg; break;
        case 'g':
            if (!tf_arg_u32(optarg, &o->group) || o->group == 0)
                return tf_msg_usage("--group: '%s' is not a group number (1, 2, ...)", optarg);
            break;
        case 'c':
            if (!tf_arg_double(optarg, 0, 1, &o->confidence) || o->confidence <= 0 ||
                o->confidence >= 1)
                return tf_msg_usage("--confidence: '%s' is not a number between 0 and 1", optarg);
            break;
        case 'f':
            if (!tf_render_format_parse(optarg, &o->format))
                return tf_msg_usage("--format: '%s' is not pdf, svg or png", optarg);
            break;
        case 'F': o->force = true; break;
        case 'L': o->layout_json = optarg; break;
        case 'q': tf_msg_set_quiet(true); break;
        case 'h': usage(stdout); return -1;
        case ':': return tf_msg_usage("option '%s' needs a value", argv[optind - 1]);
        default: return tf_msg_usage("unknown option '%s'", argv[optind - 1]);
        }
    }
    if (argc - optind != 2)
        return tf_msg_usage(argc - optind < 2 ? "two fold files are needed, A (before) and B (after)"
                                              : "more than two fold files given");
    if (!o->output)
        return tf_msg_usage("no output directory: give one with -o OUT");
    if (o->region_b && !o->region)
        return tf_msg_usage("--region-b goes with --region (A's region)");
    return 0;
}

int tf_cmd_diff(int argc, char **argv)
{
    struct diff_options o = { .confidence = 0.95, .format = TF_FORMAT_PDF };
    int prc = parse(argc, argv, &o);
    if (prc != 0)
        return prc < 0 ? TF_EXIT_OK : prc;
    struct side a = { .path = argv[optind] }, b = { .path = argv[optind + 1] };
    tf_error err = {0};
    const char *inputs[] = { a.path, b.path };
    tf_output_rule rule = { .inputs = inputs, .ninputs = 2, .force = o.force };
    bool exists = false;
    int rc = tf_output_check_folder(o.output, DIFF_MARKER, &rule, &exists, &err);
    if (rc == 0)
        rc = load(&a, o.region, o.group, &err);
    if (rc == 0)
        rc = load(&b, o.region_b ? o.region_b : o.region, o.group, &err);
    /* Two regions are compared only when the user names both. */
    if (rc == 0 && strcmp(a.region, b.region) && !o.region_b)
        rc = tf_fail(&err, TF_ERR_DATA, "the folds are of different regions, '%s' in %s and '%s' "
                     "in %s: name them with --region and --region-b to compare them", a.region,
                     a.path, b.region, b.path);
    tf_diff d = {0};
    if (rc == 0)
        rc = tf_diff_compute(a.page, b.page, o.confidence, &d, &err);
    if (rc == 0)
        rc = write_all(&d, &a, &b, &o, exists, &err);
    if (rc == 0) {
        const tf_diff_row *t = &d.rows[d.nrows - 1];
        size_t changed = 0;
        for (size_t k = 0; k + 1 < d.nrows; k++)
            changed += d.rows[k].significant;
        tf_msg_note("iteration B/A = %.3g (band %.3g - %.3g, %s); %zu of %zu aligned phases "
                    "changed beyond their bands; wrote %s/", t->ratio, t->ratio_lo, t->ratio_hi,
                    t->significant ? "significant" : "noise", changed, d.nrows - 1, o.output);
    }
    tf_diff_free(&d);
    tf_report_free(&a.report);
    tf_report_free(&b.report);
    tf_fold_result_free(a.fr);
    tf_fold_result_free(b.fr);
    return rc == 0 ? TF_EXIT_OK : tf_msg_fail(&err);
}
