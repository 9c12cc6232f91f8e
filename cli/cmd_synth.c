/* SPDX-License-Identifier: BSD-3-Clause */
/* `tracefold synth`: the command line of the synthetic trace generator. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "formats/h5_probe.h"
#include "msg.h"
#include "synth/synth.h"
#include "common/tf_output.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: tracefold synth -o TRACE.h5 [OPTIONS]\n"
            "Writes a synthetic trace whose ground truth is stored in its /truth group\n"
            "(docs/commands/synth.md).\n\n"
            "Options:\n"
            "  -o, --output FILE              trace to write (required)\n"
            "      --force                    replace FILE if it is a tracefold trace\n"
            "      --seed N                   seed of the random draws (default 1)\n"
            "      --scenario NAME            phases (default), twokinds, sharp, many or flat\n"
            "      --processes P              processes (default 1)\n"
            "      --threads T                threads per process (default 1)\n"
            "      --iterations I             instances per thread (default 300)\n"
            "      --region NAME              repeated region (default iteration)\n"
            "      --nested                   also a sub-region per phase\n"
            "      --duration TIME            nominal instance duration (default 10ms)\n"
            "      --samples-per-iteration S  timer samples per instance (default 13)\n"
            "      --period TIME              mean sampling period instead\n"
            "      --poisson                  exponential sampling intervals\n"
            "      --sample-cost TIME         each sample stops the program this long (0)\n"
            "      --outliers FRACTION        instances with a stall (default 0.05)\n"
            "      --jitter FRACTION          duration deviation (default 0.02)\n"
            "      --boundary-shift FRACTION  phase boundary shift (default 0.01)\n"
            "      --rate-noise FRACTION      rate deviation (default 0.03)\n"
            "      --counters N               counters, 1 to 64 (default 8)\n"
            "      --memory, --no-memory      memory samples and objects (default on)\n"
            "      --memory-samples N         memory samples per --duration (default 40)\n"
            "      --aslr                     a different address layout per process\n"
            "      --grid N                   points of the truth curves (default 1001)\n"
            "  -q, --quiet                    no notes and no progress\n"
            "  -h, --help                     show this help and exit\n\n"
            "TIME takes a unit: ns, us, ms or s (a bare number is ns).\n"
            "Exit status: 0 written, 1 output error, 2 wrong command line.\n");
}

enum {
    OPT_FORCE = 256, OPT_SEED, OPT_SCENARIO, OPT_PROCESSES, OPT_THREADS, OPT_ITERATIONS,
    OPT_REGION, OPT_NESTED, OPT_DURATION, OPT_SPI, OPT_PERIOD, OPT_POISSON, OPT_OUTLIERS,
    OPT_JITTER, OPT_SHIFT, OPT_NOISE, OPT_COUNTERS, OPT_MEMORY, OPT_NO_MEMORY,
    OPT_MEMORY_SAMPLES, OPT_ASLR, OPT_GRID, OPT_SAMPLE_COST,
};

static const struct option long_options[] = {
    {"output", required_argument, NULL, 'o'},
    {"force", no_argument, NULL, OPT_FORCE},
    {"seed", required_argument, NULL, OPT_SEED},
    {"scenario", required_argument, NULL, OPT_SCENARIO},
    {"processes", required_argument, NULL, OPT_PROCESSES},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"iterations", required_argument, NULL, OPT_ITERATIONS},
    {"region", required_argument, NULL, OPT_REGION},
    {"nested", no_argument, NULL, OPT_NESTED},
    {"duration", required_argument, NULL, OPT_DURATION},
    {"samples-per-iteration", required_argument, NULL, OPT_SPI},
    {"period", required_argument, NULL, OPT_PERIOD},
    {"poisson", no_argument, NULL, OPT_POISSON},
    {"sample-cost", required_argument, NULL, OPT_SAMPLE_COST},
    {"outliers", required_argument, NULL, OPT_OUTLIERS},
    {"jitter", required_argument, NULL, OPT_JITTER},
    {"boundary-shift", required_argument, NULL, OPT_SHIFT},
    {"rate-noise", required_argument, NULL, OPT_NOISE},
    {"counters", required_argument, NULL, OPT_COUNTERS},
    {"memory", no_argument, NULL, OPT_MEMORY},
    {"no-memory", no_argument, NULL, OPT_NO_MEMORY},
    {"memory-samples", required_argument, NULL, OPT_MEMORY_SAMPLES},
    {"aslr", no_argument, NULL, OPT_ASLR},
    {"grid", required_argument, NULL, OPT_GRID},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* "10ms", "770us", "2s", "1500" (ns) to nanoseconds. */
static bool parse_time(const char *s, uint64_t *ns)
{
    static const struct { const char *unit; double scale; } units[] = {
        {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"", 1},
    };
    char *end;
    errno = 0;
    double x = strtod(s, &end);
    if (errno || end == s || !(x >= 0))
        return false;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        if (strcmp(end, units[i].unit))
            continue;
        double v = x * units[i].scale;
        if (v >= 1.8e19)
            return false;
        *ns = (uint64_t)(v + 0.5);
        return true;
    }
    return false;
}

/* The command line, stored in the trace so it says how it was made. */
static char *join_args(int argc, char **argv)
{
    size_t len = sizeof "tracefold";
    for (int i = 0; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *s = malloc(len);
    if (!s)
        return NULL;
    size_t at = (size_t)snprintf(s, len, "tracefold");
    for (int i = 0; i < argc; i++)
        at += (size_t)snprintf(s + at, len - at, " %s", argv[i]);
    return s;
}

static void show_progress(uint64_t done, uint64_t total, void *arg)
{
    tf_progress("synth: instances", done, total);
}

int tf_cmd_synth(int argc, char **argv)
{
    tf_synth_options o;
    tf_synth_defaults(&o);
    const char *output = NULL;
    bool force = false, quiet = false;
    bool ok = true;
    int c, li;

    optind = 1;
    opterr = 0;
    while ((li = -1, c = getopt_long(argc, argv, ":o:qh", long_options, &li)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case OPT_FORCE: force = true; break;
        case OPT_SEED: ok = tf_arg_uint(optarg, 0, UINT64_MAX, &o.seed); break;
        case OPT_SCENARIO: o.scenario = optarg; break;
        case OPT_PROCESSES: ok = tf_arg_u32(optarg, &o.processes); break;
        case OPT_THREADS: ok = tf_arg_u32(optarg, &o.threads); break;
        case OPT_ITERATIONS: ok = tf_arg_u32(optarg, &o.iterations); break;
        case OPT_REGION: o.region = optarg; break;
        case OPT_NESTED: o.nested = true; break;
        case OPT_DURATION: ok = parse_time(optarg, &o.duration_ns); break;
        case OPT_SPI:
            ok = tf_arg_double(optarg, -INFINITY, INFINITY, &o.samples_per_iteration);
            o.period_ns = 0;
            break;
        case OPT_PERIOD: ok = parse_time(optarg, &o.period_ns) && o.period_ns > 0; break;
        case OPT_POISSON: o.poisson = true; break;
        case OPT_SAMPLE_COST: ok = parse_time(optarg, &o.sample_cost_ns); break;
        case OPT_OUTLIERS: ok = tf_arg_double(optarg, -INFINITY, INFINITY, &o.outliers); break;
        case OPT_JITTER: ok = tf_arg_double(optarg, -INFINITY, INFINITY, &o.jitter); break;
        case OPT_SHIFT: ok = tf_arg_double(optarg, -INFINITY, INFINITY, &o.boundary_shift); break;
        case OPT_NOISE: ok = tf_arg_double(optarg, -INFINITY, INFINITY, &o.rate_noise); break;
        case OPT_COUNTERS: ok = tf_arg_u32(optarg, &o.counters); break;
        case OPT_MEMORY: o.memory = true; break;
        case OPT_NO_MEMORY: o.memory = false; break;
        case OPT_MEMORY_SAMPLES: ok = tf_arg_double(optarg, -INFINITY, INFINITY, &o.memory_samples); break;
        case OPT_ASLR: o.aslr = true; break;
        case OPT_GRID: ok = tf_arg_u32(optarg, &o.grid); break;
        case 'q': quiet = true; break;
        case 'h': usage(stdout); return TF_EXIT_OK;
        case ':': return tf_msg_usage("option '%s' needs a value", argv[optind - 1]);
        default: return tf_msg_usage("unknown option '%s'", argv[optind - 1]);
        }
        if (!ok)
            return tf_msg_usage("--%s: invalid value '%s'", long_options[li].name, optarg);
    }
    if (optind < argc)
        return tf_msg_usage("unexpected argument '%s'", argv[optind]);
    if (!output)
        return tf_msg_usage("no output file: give -o TRACE.h5");
    tf_msg_set_quiet(quiet);

    tf_error err;
    tf_error_clear(&err);
    if (tf_synth_check(&o, &err) < 0)
        return tf_msg_usage("%s", err.msg);

    /* The rule for existing outputs (common/tf_output.h): --force replaces
     * a tracefold trace only. */
    tf_output_rule rule = { .force = force, .ours = tf_h5_is_trace, .kind = "a tracefold trace" };
    if (tf_output_check_file(output, &rule, &err) < 0)
        return tf_msg_fail(&err);
    char *cmdline = join_args(argc, argv);
    o.command_line = cmdline;
    int rc = tf_synth_write(&o, output, true, show_progress, NULL, &err);
    tf_progress_done();
    free(cmdline);
    if (rc < 0)
        return tf_msg_fail(&err);
    tf_msg_note("wrote %s: %u process(es) x %u thread(s) x %u iterations of '%s'", output,
                o.processes, o.threads, o.iterations, o.region);
    return TF_EXIT_OK;
}
