/* SPDX-License-Identifier: BSD-3-Clause */
/* `tracefold calibrate`: measure this machine's caches and TLB (Saavedra &
 * Smith's method) and save the profile for `tracefold fold --machine`. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "commands.h"
#include "calibrate/hierarchy.h"
#include "msg.h"
#include "render/render.h"
#include "common/tf_output.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: tracefold calibrate [OPTIONS]\n"
            "Measure the cache and TLB hierarchy of this machine with dependent-load\n"
            "chases (Saavedra-Smith): size, line size, associativity and miss penalty of\n"
            "each cache level, the page size and TLB reach.  Prints a table and saves the\n"
            "profile for 'tracefold fold --machine', and draws the Saavedra-Smith figure.\n\n"
            "Options:\n"
            "  -o, --output FILE    profile to write (default: machine.h5)\n"
            "      --figure FILE    the figure, .pdf, .png or .svg (default: the profile's\n"
            "                       name with .pdf)\n"
            "      --from PROFILE   measure nothing: print PROFILE and draw its figure\n"
            "      --force          overwrite an existing profile or figure\n"
            "      --max-size BYTES largest array measured (default 536870912; suffixes\n"
            "                       K, M, G); above the last cache, to see memory\n"
            "      --quick          fewer repetitions and strides (about 4x faster)\n"
            "  -q, --quiet          no progress, no table; only errors\n"
            "  -h, --help           show this help and exit\n\n"
            "Exit status: 0 success, 1 measurement or output error, 2 wrong command line.\n");
}

/* The figure's format from its name's extension. */
static bool figure_format(const char *path, enum tf_render_format *format)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    return dot && (!slash || dot > slash) && tf_render_format_parse(dot + 1, format);
}

/* The profile's name with .pdf in place of its extension. */
static int default_figure(const char *profile, char *buf, size_t len)
{
    const char *dot = strrchr(profile, '.'), *slash = strrchr(profile, '/');
    int base = dot && (!slash || dot > slash) ? (int)(dot - profile) : (int)strlen(profile);
    int n = snprintf(buf, len, "%.*s.pdf", base, profile);
    return n < 0 || (size_t)n >= len ? -1 : 0;
}

/* Checked before measuring, so a bad output costs no minutes of work: the
 * rule for existing outputs (common/tf_output.h; the input is the profile
 * read --from) and a folder that can be written. */
static bool refuse_output(const char *path, bool force, const char *from)
{
    tf_output_rule rule = { .inputs = &from, .ninputs = from ? 1 : 0, .force = force };
    tf_error err;
    if (tf_output_check_file(path, &rule, &err) < 0) {
        tf_msg_error("%s", err.msg);
        return true;
    }
    const char *slash = strrchr(path, '/');
    char dir[4096];
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
    if (access(dir, W_OK) != 0) {
        tf_msg_error("%s: cannot write in %s: %s", path, dir, strerror(errno));
        return true;
    }
    return false;
}

static void progress(void *ctx, const char *what, size_t done, size_t total)
{
    tf_progress(what, done, total);
}

static void human(double bytes, char *buf, size_t size)
{
    if (bytes >= 1 << 20)
        snprintf(buf, size, "%.2f MiB", bytes / (1 << 20));
    else
        snprintf(buf, size, "%.1f KiB", bytes / 1024);
}

static void print_profile(const tf_cal_profile *p)
{
    char size[32];
    printf("%-6s %12s %10s %16s %14s\n", "level", "size", "hit_ns", "miss_penalty_ns",
           "associativity");
    for (int k = 0; k < p->nlevels; k++) {
        const tf_cal_level *lv = &p->levels[k];
        human(lv->size_bytes, size, sizeof size);
        char assoc[16];
        if (lv->associativity)
            snprintf(assoc, sizeof assoc, "%d", lv->associativity);
        else
            snprintf(assoc, sizeof assoc, "-");
        printf("L%-5d %12s %10.2f %16.2f %14s\n", k + 1, size, lv->hit_ns, lv->miss_penalty_ns,
               assoc);
    }
    printf("memory latency: %.1f ns\n", p->memory_ns);
    printf("line size: %d bytes\n", p->line_bytes);
    printf("page size: %d bytes\n", p->page_bytes);
    if (p->tlb_reach_bytes > 0) {
        human(p->tlb_reach_bytes, size, sizeof size);
        printf("TLB reach: %s (a miss costs %.1f ns)\n", size, p->tlb_miss_ns);
    } else {
        printf("TLB reach: not found\n");
    }
}

int tf_cmd_calibrate(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, NULL, 'o'}, {"force", no_argument, NULL, 'f'},
        {"max-size", required_argument, NULL, 'M'}, {"quick", no_argument, NULL, 'Q'},
        {"quiet", no_argument, NULL, 'q'}, {"help", no_argument, NULL, 'h'},
        {"figure", required_argument, NULL, 'F'}, {"from", required_argument, NULL, 'R'}, {0}};
    tf_cal_options o;
    tf_cal_default_options(&o);
    const char *output = NULL, *figure = NULL, *from = NULL;
    bool force = false, quiet = false, measuring = false;
    int opt;
    optind = 1;
    while ((opt = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
        switch (opt) {
        case 'o': output = optarg; break;
        case 'F': figure = optarg; break;
        case 'R': from = optarg; break;
        case 'f': force = true; break;
        case 'Q': o.quick = measuring = true; break;
        case 'q': quiet = true; break;
        case 'M':
            if (!tf_arg_bytes(optarg, &o.max_bytes) || o.max_bytes < ((size_t)1 << 20))
                return tf_msg_usage("--max-size: expected at least 1M, got '%s'", optarg);
            measuring = true;
            break;
        case 'h': usage(stdout); return TF_EXIT_OK;
        default: return tf_msg_usage("unknown option");
        }
    }
    if (optind < argc)
        return tf_msg_usage("unexpected argument '%s'", argv[optind]);
    if (from && (output || measuring))
        return tf_msg_usage("--from measures nothing: --output, --quick and --max-size do not "
                            "apply");
    if (!output)
        output = "machine.h5";
    char figure_buf[4096];
    if (!figure) {
        if (default_figure(from ? from : output, figure_buf, sizeof figure_buf))
            return tf_msg_usage("%s: name too long", from ? from : output);
        figure = figure_buf;
    }
    enum tf_render_format format;
    if (!figure_format(figure, &format))
        return tf_msg_usage("--figure: '%s' does not end in .pdf, .png or .svg", figure);
    if ((!from && refuse_output(output, force, from)) || refuse_output(figure, force, from))
        return TF_EXIT_FAILURE;
    if (o.quick) {
        o.repeats = 3;
        o.loads = 100000;
    }
    tf_msg_set_quiet(quiet);
    o.progress = progress;
    tf_cal_profile *p = malloc(sizeof *p);
    if (!p) {
        tf_msg_error("out of memory");
        return TF_EXIT_FAILURE;
    }
    tf_error err;
    int rc = from ? tf_cal_profile_load(p, from, &err)
                  : tf_cal_measure(&o, p, &err) || tf_cal_profile_save(p, output, &err);
    tf_progress_done();
    if (rc == 0)
        rc = tf_render_calibrate(p, NULL, figure, format, 150, &err);
    if (rc) {
        free(p);
        return tf_msg_fail(&err);
    }
    if (!quiet) {
        print_profile(p);
        if (!from)
            printf("profile: %s\n", output);
        printf("figure: %s\n", figure);
    }
    free(p);
    return TF_EXIT_OK;
}
