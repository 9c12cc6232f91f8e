/* SPDX-License-Identifier: BSD-3-Clause */
/* `tracefold fold`: folds the instances of one region into one synthetic
 * iteration and writes OUTDIR/fold.h5 with its CSV files.  Everything goes
 * to a temporary sibling directory that is renamed to OUTDIR only once every
 * file is complete, so a failed run leaves nothing that looks finished. */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/analysis.h"
#include "args.h"
#include "commands.h"
#include "fold/fold_csv.h"
#include "fold/fold_engine.h"
#include "fold/fold_group_by.h"
#include "fold/fold_team_start.h"
#include "msg.h"
#include "formats/trace_input.h"
#include "outputs/fold_job.h"
#include "outputs/fold_outputs.h"
#include "common/tf_launcher.h"
#include "common/tf_output.h"
#include "common/tf_parallel.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: tracefold fold [OPTIONS] TRACE...\n"
            "Folds the instances of a region into one synthetic iteration: filters\n"
            "outlier instances, fits a monotone curve to every counter with bootstrap\n"
            "bands, derives rates and per-instruction ratios, finds abrupt changes.\n"
            "Writes OUTDIR/report.pdf (the report: open it first), folded.prv with\n"
            ".pcf and .row (the folded iteration as a Paraver trace), fold.h5,\n"
            "instances.csv, curves.csv, totals.csv and ratios.csv, and the phases, code\n"
            "lines and address space: phases.csv, objects.csv, streams.csv, levels.csv\n"
            "and summary.md.\n\n"
            "Options:\n"
            "  -r, --region NAME     region to fold (default: the repeated region that\n"
            "                        covers the most time); for Paraver traces also TYPE=VALUE\n"
            "      --region-scope S  threads an instance covers: thread (those that\n"
            "                        marked it), process (every thread of its process:\n"
            "                        OpenMP and thread pools), auto (default: process\n"
            "                        where other threads are busy inside the instances)\n"
            "  -o, --output OUTDIR   output directory (default: TRACE without its\n"
            "                        extension, plus .fold)\n"
            "      --force           replace OUTDIR when it holds an earlier fold and nothing\n"
            "                        else (never a folder holding a trace folded)\n"
            "      --filter RULE     outlier rule: robust (default), mad15, none\n"
            "      --filter-k K      robust rule: duration threshold in scaled MADs (3.5)\n"
            "      --shape-k K       robust rule: curve-shape threshold in scaled MADs (6)\n"
            "      --preempted HOW   instances that lost the CPU to another process:\n"
            "                        exclude (default) or cpu-time (fold them in CPU time)\n"
            "      --groups N|auto   split instances into N duration groups, or where\n"
            "                        durations are clearly multi-modal (default 1)\n"
            "      --group-by KEY    one group per MPI rank (rank) or per host (host)\n"
            "                        instead of duration groups (default duration)\n"
            "      --grid N          points of the fitted curves (1000)\n"
            "      --bootstrap N     bootstrap replicates for the bands (100; 0: none)\n"
            "      --confidence C    coverage of the bands (0.95)\n"
            "      --seed N          seed of the bootstrap (1)\n"
            "      --min-change F    smallest relative rate change reported as a\n"
            "                        change point and splitting a phase (0.25)\n"
            "      --phase-level L   the call-stack level that names phases: innermost\n"
            "                        (default), caller, 'depth N' (N calls below main or\n"
            "                        a thread's start routine), 'under FUNC' (the\n"
            "                        routine FUNC called)\n"
            "      --debug-dir DIR   where binaries and debug files are found by\n"
            "                        build-id (DIR/.build-id/xx/rest), for code lines\n"
            "      --alloc-wrapper NAME  a routine of the program that allocates for\n"
            "                        its callers: heap objects are named by its caller\n"
            "                        (repeatable; with those named by record's)\n"
            "      --machine PROFILE machine profile from 'tracefold calibrate': its cache\n"
            "                        sizes kept in fold.h5, drawn in the report and\n"
            "                        used by the advice\n"
            "      --analysis-samples N  folded samples the phases, code lines and\n"
            "                        address space rest on at most, a uniform choice\n"
            "                        beyond (1048576; 0: all of them)\n"
            "  -j, --threads N       threads to fold with (default: one per CPU this\n"
            "                        process may use; 1 under mpirun); the outputs do\n"
            "                        not depend on it\n"
            "  -q, --quiet           no notes and no progress\n"
            "  -h, --help            show this help and exit\n\n"
            "TRACE is a tracefold HDF5 trace or a Paraver trace (.prv, .prv.gz).  Several\n"
            "tracefold traces, or a directory of them (one per MPI rank), are folded\n"
            "together: every instance of every rank and thread (give -o OUTDIR).\n"
            "Under mpirun -np N (a build with MPI) the ranks share the reading (of a\n"
            "Paraver trace, rank 0 reads alone) and the fits, and rank 0 writes the\n"
            "same outputs as alone.\n"
            "Exit status: 0 success, 1 bad input or output error, 2 wrong command line.\n"
            "Manual: docs/commands/fold.md; file layout: docs/fold-format.md.\n");
}

enum {
    OPT_FORCE = 256, OPT_FILTER, OPT_FILTER_K, OPT_SHAPE_K, OPT_GROUPS, OPT_GRID, OPT_BOOTSTRAP,
    OPT_CONFIDENCE, OPT_SEED, OPT_MIN_CHANGE, OPT_DEBUG_DIR, OPT_MACHINE, OPT_GROUP_BY,
    OPT_ANALYSIS_SAMPLES, OPT_ALLOC_WRAPPER, OPT_REGION_SCOPE, OPT_PREEMPTED, OPT_PHASE_LEVEL,
};

static const struct option long_options[] = {
    {"region", required_argument, NULL, 'r'},
    {"region-scope", required_argument, NULL, OPT_REGION_SCOPE},
    {"output", required_argument, NULL, 'o'},
    {"force", no_argument, NULL, OPT_FORCE},
    {"filter", required_argument, NULL, OPT_FILTER},
    {"filter-k", required_argument, NULL, OPT_FILTER_K},
    {"shape-k", required_argument, NULL, OPT_SHAPE_K},
    {"preempted", required_argument, NULL, OPT_PREEMPTED},
    {"groups", required_argument, NULL, OPT_GROUPS},
    {"group-by", required_argument, NULL, OPT_GROUP_BY},
    {"grid", required_argument, NULL, OPT_GRID},
    {"bootstrap", required_argument, NULL, OPT_BOOTSTRAP},
    {"confidence", required_argument, NULL, OPT_CONFIDENCE},
    {"seed", required_argument, NULL, OPT_SEED},
    {"min-change", required_argument, NULL, OPT_MIN_CHANGE},
    {"phase-level", required_argument, NULL, OPT_PHASE_LEVEL},
    {"debug-dir", required_argument, NULL, OPT_DEBUG_DIR},
    {"alloc-wrapper", required_argument, NULL, OPT_ALLOC_WRAPPER},
    {"machine", required_argument, NULL, OPT_MACHINE},
    {"analysis-samples", required_argument, NULL, OPT_ANALYSIS_SAMPLES},
    {"threads", required_argument, NULL, 'j'},
    {"quiet", no_argument, NULL, 'q'},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

/* The options that are not the fold engine's (NULL or false: not given). */
struct fold_options {
    const char  *region, *outdir, *debug_dir, *machine;
    bool         force;
    tf_analysis_params analysis;
    tf_phase_level phase_level;
};

/* Parses the options into p and o (o->analysis: the defaults unless
 * given); returns -1 on a usage error (reported), 1 for --help. */
static int parse_options(int argc, char **argv, tf_fold_params *p, struct fold_options *o)
{
    *o = (struct fold_options){ 0 };
    tf_analysis_params_default(&o->analysis);
    int opt;
    uint64_t u;
    while ((opt = getopt_long(argc, argv, "r:o:j:qh", long_options, NULL)) != -1) {
        switch (opt) {
        case 'r': o->region = optarg; break;
        case 'o': o->outdir = optarg; break;
        case 'q': tf_msg_set_quiet(true); break;
        case OPT_FORCE: o->force = true; break;
        case OPT_DEBUG_DIR: o->debug_dir = optarg; break;
        case OPT_ALLOC_WRAPPER:
            if (!tf_arg_alloc_wrapper(&o->analysis.alloc_rules, argc, optarg))
                return -1;
            break;
        case OPT_MACHINE: o->machine = optarg; break;
        case OPT_ANALYSIS_SAMPLES:
            if (!tf_arg_uint(optarg, 0, SIZE_MAX, &u))
                return tf_msg_usage("--analysis-samples: expected a non-negative integer, "
                                    "got '%s'", optarg), -1;
            o->analysis.max_samples = (size_t)u;
            break;
        case OPT_REGION_SCOPE: {
            int scope = tf_region_scope_parse(optarg);
            if (scope < 0)
                return tf_msg_usage("--region-scope: '%s' is not auto, thread or process",
                                    optarg), -1;
            p->region_scope = (enum tf_region_scope)scope;
            break;
        }
        case OPT_FILTER: {
            int f = tf_fold_filter_parse(optarg);
            if (f < 0)
                return tf_msg_usage("--filter: '%s' is not robust, mad15 or none", optarg), -1;
            p->filter = (enum tf_fold_filter)f;
            break;
        }
        case OPT_FILTER_K:
            if (!tf_arg_double(optarg, 0.1, 1e6, &p->filter_k))
                return tf_msg_usage("--filter-k: expected a number >= 0.1, got '%s'", optarg), -1;
            break;
        case OPT_SHAPE_K:
            if (!tf_arg_double(optarg, 0.1, INFINITY, &p->shape_k))
                return tf_msg_usage("--shape-k: expected a number >= 0.1, got '%s'", optarg), -1;
            break;
        case OPT_PREEMPTED:
            if (!strcmp(optarg, "exclude"))
                p->preempted = TF_PREEMPTED_EXCLUDE;
            else if (!strcmp(optarg, "cpu-time"))
                p->preempted = TF_PREEMPTED_CPU_TIME;
            else
                return tf_msg_usage("--preempted: '%s' is not exclude or cpu-time", optarg), -1;
            break;
        case OPT_GROUPS:
            if (!strcmp(optarg, "auto"))
                p->groups = 0;
            else if (tf_arg_uint(optarg, 1, 64, &u))
                p->groups = (uint32_t)u;
            else
                return tf_msg_usage("--groups: expected 1 to 64 or 'auto', got '%s'", optarg), -1;
            break;
        case OPT_GROUP_BY: {
            int by = tf_fold_group_by_parse(optarg);
            if (by < 0)
                return tf_msg_usage("--group-by: '%s' is not duration, rank or host", optarg), -1;
            p->group_by = (enum tf_fold_group_by)by;
            break;
        }
        case OPT_GRID:
            if (!tf_arg_uint(optarg, 2, 1000000, &u))
                return tf_msg_usage("--grid: expected 2 to 1000000, got '%s'", optarg), -1;
            p->grid = (uint32_t)u;
            break;
        case OPT_BOOTSTRAP:
            if (!tf_arg_uint(optarg, 0, 100000, &u))
                return tf_msg_usage("--bootstrap: expected 0 to 100000, got '%s'", optarg), -1;
            p->bootstrap = (uint32_t)u;
            break;
        case OPT_CONFIDENCE:
            if (!tf_arg_double(optarg, 0.5, 0.999, &p->confidence))
                return tf_msg_usage("--confidence: expected 0.5 to 0.999, got '%s'", optarg), -1;
            break;
        case OPT_SEED:
            if (!tf_arg_uint(optarg, 0, UINT64_MAX, &u))
                return tf_msg_usage("--seed: expected a non-negative integer, got '%s'", optarg), -1;
            p->seed = u;
            break;
        case OPT_PHASE_LEVEL:
            if (!tf_phase_level_parse(optarg, &o->phase_level))
                return tf_msg_usage("--phase-level: '%s' is not innermost, caller, 'depth N' "
                                    "or 'under FUNC'", optarg), -1;
            break;
        case OPT_MIN_CHANGE:
            if (!tf_arg_double(optarg, 0.01, 1, &p->min_change))
                return tf_msg_usage("--min-change: expected 0.01 to 1, got '%s'", optarg), -1;
            break;
        case 'j':
            if (!tf_arg_uint(optarg, 1, 1024, &u))
                return tf_msg_usage("--threads: expected 1 to 1024, got '%s'", optarg), -1;
            p->threads = (uint32_t)u;
            break;
        case 'h': return 1;
        default: return tf_msg_usage("unknown or incomplete option"), -1;
        }
    }
    if (optind >= argc)
        return tf_msg_usage("missing TRACE"), -1;
    /* the phases split where rates change by as much as a change point */
    o->analysis.min_change = p->min_change;
    if (p->group_by != TF_GROUP_BY_DURATION && p->groups != 1)
        return tf_msg_usage("--group-by rank or host replaces the duration groups: no --groups"),
               -1;
    return 0;
}

/* TRACE without its extension (.h5, .prv, .prv.gz), or a directory of
 * traces without its trailing slashes, plus .fold. */
static char *default_outdir(const char *trace)
{
    static const char *const exts[] = { ".prv.gz", ".h5", ".hdf5", ".prv" };
    size_t len = strlen(trace);
    while (len > 1 && trace[len - 1] == '/')
        len--;
    for (size_t k = 0; k < sizeof exts / sizeof exts[0]; k++) {
        size_t el = strlen(exts[k]);
        if (len > el && !strcmp(trace + len - el, exts[k])) {
            len -= el;
            break;
        }
    }
    char *out = malloc(len + 6);
    if (out)
        snprintf(out, len + 6, "%.*s.fold", (int)len, trace);
    return out;
}

/* OUTDIR against the rule for existing outputs, before the work: the
 * traces, the machine profile and the debug folder are the inputs. */
static int check_outdir(const char *outdir, char *const *traces, size_t ntraces,
                        const struct fold_options *o, bool *exists, tf_error *err)
{
    const char **inputs = malloc((ntraces + 2) * sizeof *inputs);
    if (!inputs)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    size_t n = 0;
    for (size_t k = 0; k < ntraces; k++)
        inputs[n++] = traces[k];
    if (o->machine)
        inputs[n++] = o->machine;
    if (o->debug_dir)
        inputs[n++] = o->debug_dir;
    tf_output_rule rule = { .inputs = inputs, .ninputs = n, .force = o->force };
    int rc = tf_output_check_folder(outdir, TF_FOLD_OUTPUTS_MARKER, &rule, exists, err);
    free(inputs);
    return rc;
}

/* What the outputs' writer has to say (outputs/fold_outputs.h). */
static void say_warning(void *arg, const char *msg)
{
    (void)arg;
    tf_msg_warn("%s", msg);
}

static void say_note(void *arg, const char *msg)
{
    (void)arg;
    tf_msg_note("%s", msg);
}

static void show_progress(void *arg, const char *what, uint64_t done, uint64_t total)
{
    tf_progress(what, done, total);
}

static void report(const tf_fold_result *res, const char *outdir)
{
    const tf_fold_region *r = &res->regions[0];
    tf_msg_note("region '%s': %zu instances: %zu used, %zu excluded, %zu incomplete; "
                "%u group%s", r->name, r->ninstances, r->used, r->excluded, r->incomplete,
                r->ngroups, r->ngroups == 1 ? "" : "s");
    uint32_t covered = 0;
    for (size_t i = 0; i < r->ninstances; i++)
        covered = r->instances[i].threads > covered ? r->instances[i].threads : covered;
    if (covered > 1)
        tf_msg_note("region '%s': an instance covers up to %u threads: those of its process "
                    "busy inside it (--region-scope; instances.csv, threads; waiting at "
                    "barriers is shown apart in phases.csv)", r->name, covered);
    if (r->observer_ns > 0)
        tf_msg_note("region '%s': each sample cost the program %.1f us, taken out of the "
                    "sampled instances' durations, counts and times (docs/algorithms.md, "
                    "\"The recording's cost per sample\")", r->name, r->observer_ns / 1e3);
    size_t preempted = 0;
    for (size_t i = 0; i < r->ninstances; i++)
        preempted += r->instances[i].reason == TF_FOLD_REASON_PREEMPTED;
    if (preempted)
        tf_msg_note("region '%s': %zu instance%s lost more than a tenth of %s wall time to "
                    "other processes (instances.csv, reason preempted): %s", r->name,
                    preempted, preempted == 1 ? "" : "s", preempted == 1 ? "its" : "their",
                    res->params.preempted == TF_PREEMPTED_EXCLUDE
                        ? "excluded (--preempted cpu-time folds them in CPU time)"
                        : "folded in CPU time");
    /* An instance without samples gives a curve no point: in a region
     * shorter than the sampling period, most of them.  Counted per group in
     * one pass (a fold by rank has a group per rank). */
    uint32_t *with_samples = calloc(r->ngroups + 1, sizeof *with_samples);
    for (size_t i = 0; with_samples && i < r->ninstances; i++) {
        const tf_fold_instance *in = &r->instances[i];
        if (in->status == TF_FOLD_USED && in->samples > 0 && in->group >= 0 &&
            (uint32_t)in->group < r->ngroups)
            with_samples[in->group]++;
    }
    for (uint32_t g = 0; g < r->ngroups; g++) {
        const tf_fold_group *grp = &r->groups[g];
        if (grp->instances < 2)
            tf_msg_warn("group %u: %u usable instance%s: its curves are empty", g,
                        grp->instances, grp->instances == 1 ? "" : "s");
        /* out of memory for the counts: no note about them */
        uint32_t sampled = with_samples ? with_samples[g] : grp->instances;
        tf_sampling_density density;
        tf_fold_sampling_density(r, g, &density);
        bool coarse = tf_sampling_coarse(&density);
        if (r->ncounters > 0 && sampled < grp->instances)
            tf_msg_note("group %u: %u of its %u instances hold no sample (shorter than the "
                        "sampling period): the counters' curves rest on the other %u", g,
                        grp->instances - sampled, grp->instances, sampled);
        else if (coarse)
            tf_msg_note("group %u: %zu of its %zu instances hold no sample", g,
                        density.unsampled, density.instances);
        if (coarse) {
            char advice[512];
            tf_sampling_advice(&density, advice, sizeof advice);
            tf_msg_note("group %u: %s", g, advice);
        }
        for (uint32_t c = 0; grp->rate_dropped && c < r->ncounters; c++)
            if (grp->rate_dropped[c])
                tf_msg_warn("group %u: counter '%s': rate dropped at %u of the %u grid points, "
                            "where it exceeded what a thread can do (fold.h5 rate_dropped; "
                            "docs/algorithms.md, \"Impossible rates\")", g, r->counter_names[c],
                            grp->rate_dropped[c], grp->grid);
        /* A scheduler's counter that changed in no instance says that
         * nothing was switched or migrated inside them: no caveat. */
        for (uint32_t c = 0; c < r->ncounters; c++)
            if (grp->counter_instances[c] < sampled &&
                !(grp->counter_instances[c] == 0 && tf_analysis_is_scheduling(r->counter_names[c])))
                tf_msg_note("group %u: counter '%s' rests on %u of the %u instances with "
                            "samples (in the others it was not read at a boundary, did not "
                            "change, or no sample read it)", g, r->counter_names[c],
                            grp->counter_instances[c], sampled);
    }
    free(with_samples);
    /* The report and the synthetic trace only warn when they fail: the
     * line names them where they were written, first, as what to open. */
    char pdf[4200], prv[4200];
    snprintf(pdf, sizeof pdf, "%s/report.pdf", outdir);
    snprintf(prv, sizeof prv, "%s/folded.prv", outdir);
    bool has_pdf = access(pdf, F_OK) == 0, has_prv = access(prv, F_OK) == 0;
    tf_msg_note("wrote %s/: %s%sfold.h5, instances.csv, curves.csv, totals.csv%s, phases.csv, objects.csv, "
                "streams.csv, levels.csv, advice.csv, summary.md", outdir,
                has_pdf ? "report.pdf (the report), " : "",
                has_prv ? "folded.prv with .pcf and .row (Paraver), " : "",
                tf_fold_has_ratios(res) ? ", ratios.csv" : "");
}

/* Threads for the outputs: those asked for, else one per CPU, under mpirun
 * too: the other ranks mostly wait, asleep (fold_team_mpi.c), while rank 0
 * writes, so its CPUs are free unless the launcher bound it to fewer.  One
 * when the team's messages cannot come from several threads (an MPI
 * without MPI_THREAD_SERIALIZED): the outputs fetch the members' points. */
static unsigned output_threads(const tf_fold_params *p, const tf_fold_team *team)
{
    if (team && !team->lock)
        return 1;
    return p->threads ? p->threads : tf_parallel_cpus();
}

/* Whether the ranks share the reading of these traces: not of a Paraver
 * trace, which every rank would convert on its own (its disk, memory and
 * time, once per rank of a node); rank 0 then reads it alone. */
static bool ranks_share_reading(char *const *traces, size_t n)
{
    return !(n == 1 && tf_input_is_paraver(traces[0]));
}

/* A fold's command line, parsed. */
struct fold_command {
    tf_fold_params p;
    struct fold_options o;
    int parsed;                 /* parse_options' return */
    char *const *traces;
    size_t ntraces;
};

/* The candidates of an iteration looked for; `folded` marks the chosen. */
static void candidate_notes(const tf_iteration_found *f, bool folded)
{
    for (size_t k = 0; k < f->ncandidates; k++)
        tf_msg_note("candidate %zu%s: --region %s (after %s): %zu instances, period %.3f ms, "
                    "regular %.0f %%", k + 1, folded && k == f->chosen ? " (folded)" : "",
                    f->candidates[k].function, f->candidates[k].after,
                    f->candidates[k].instances, f->candidates[k].period_ns / 1e6,
                    100 * f->candidates[k].regular);
}

/* What was found without a region, and the other candidates. */
static void found_notes(const tf_iteration_found *f)
{
    const tf_iteration_candidate *c = &f->candidates[f->chosen];
    tf_msg_note("no region marked: the iteration found from the samples of process %u, thread "
                "%u begins where routine '%s' follows '%s': %zu instances in %zu process%s, "
                "period %.3f ms, %.0f %% of them within 10 %% of it (docs/algorithms.md, \"An "
                "iteration found without marks\")", f->proc, f->thread, c->function, c->after,
                f->ninstances, f->processes, f->processes == 1 ? "" : "es", c->period_ns / 1e6,
                100 * c->regular);
    candidate_notes(f, true);
}

/* The opening's result (opened now when no thread did it), and the note
 * of a region chosen for the user, said only now that the fold goes on. */
static int opening_wait(tf_fold_opening *op, tf_error *err)
{
    int rc = tf_fold_opening_wait(op, err);
    if (rc < 0 && op->found.ncandidates)
        candidate_notes(&op->found, false);
    else if (rc == 0 && op->found.instances)
        found_notes(&op->found);
    else if (rc == 0 && op->chosen)
        tf_msg_note("folding region '%s' (%zu instances): the repeated region that covers "
                    "the most time; choose another with --region",
                    tf_trace_string(op->tr, op->region), op->chosen);
    return rc;
}

/* The fold, led by this process when team is not NULL. */
static int fold(const struct fold_command *c, tf_fold_opening *op, tf_fold_team *team)
{
    if (c->parsed > 0)
        usage(stdout);
    if (c->parsed != 0)
        return c->parsed < 0 ? TF_EXIT_USAGE : TF_EXIT_OK;
    const tf_fold_params *p = &c->p;
    const struct fold_options *o = &c->o;
    const char *trace = c->traces[0];
    if (c->ntraces > 1 && !o->outdir)
        return tf_msg_usage("several traces: name the output with -o OUTDIR");
    char *outdir = o->outdir ? strdup(o->outdir) : default_outdir(trace);
    if (!outdir) {
        tf_msg_error("out of memory");
        return TF_EXIT_FAILURE;
    }
    tf_error err;
    tf_error_clear(&err);
    tf_fold_result *res = NULL;
    bool exists;
    if (team)
        team->read_alone = !ranks_share_reading(c->traces, c->ntraces);
    int rc = check_outdir(outdir, c->traces, c->ntraces, o, &exists, &err);
    if (rc == 0)
        rc = opening_wait(op, &err);
    if (rc == 0)
        rc = tf_fold_job_run(op, p, team,
                             (tf_fold_outputs){
                                 .outdir = outdir, .replace = exists,
                                 .threads = output_threads(p, team), .analysis = &o->analysis,
                                 .debug_dir = o->debug_dir, .machine = o->machine,
                                 .warn = say_warning, .note = say_note},
                             show_progress, &res, &err);
    tf_progress_done();
    int status = TF_EXIT_OK;
    if (rc < 0)
        status = tf_msg_fail(&err);
    else
        report(res, outdir);
    tf_fold_result_free(res);
    free(outdir);
    return status;
}

/* A member of the team (a rank other than 0): its share, without a word
 * (rank 0 speaks for the team) until it serves rank 0 (tf_fold_job_serve). */
static int serve(const struct fold_command *c, tf_fold_opening *op, bool wanted,
                 tf_fold_team *team)
{
    tf_error parse_err, err;
    tf_error_clear(&parse_err);
    tf_error_clear(&err);
    int failed = c->parsed == 0 ? 0 : tf_fail(&parse_err, TF_ERR_USAGE, "no fold asked for");
    tf_msg_set_silent(false);
    int status = tf_fold_job_serve(wanted ? op : NULL, &c->p, team, failed, &parse_err, &err);
    if (status < 0) {
        tf_msg_error("rank %d: %s", team->rank, err.msg);
        tf_fold_team_abort(team);
        return TF_EXIT_FAILURE;
    }
    return status;
}

/* Under mpirun every rank reads its share of the samples; rank 0 folds
 * and writes everything, the other ranks serve its fits and write
 * nothing; all exit with rank 0's status.  Which rank this process is the
 * launcher says (tf_launcher.h) before MPI starts, and MPI confirms. */
int tf_cmd_fold(int argc, char **argv)
{
    bool ranks = tf_launcher_size() >= 2, member = ranks && tf_launcher_rank() > 0;
    struct fold_command c;
    tf_fold_params_default(&c.p);
    if (member)
        tf_msg_set_silent(true);
    c.parsed = parse_options(argc, argv, &c.p, &c.o);
    c.traces = argv + optind;
    c.ntraces = c.parsed == 0 ? (size_t)(argc - optind) : 0;
    /* A member reads nothing of a Paraver trace (rank 0 converts it). */
    bool wanted = c.parsed == 0 && (!member || ranks_share_reading(c.traces, c.ntraces));
    tf_fold_job_input in = { .traces = c.traces, .ntraces = c.ntraces, .region = c.o.region,
                             .debug_dir = c.o.debug_dir, .phase_level = c.o.phase_level };
    tf_fold_opening op;
    tf_fold_opening_start(&op, &in, ranks && wanted);
    tf_fold_team *team;
    tf_error err;
    tf_error_clear(&err);
    int status;
    if (tf_fold_team_start(&team, &err) < 0) {
        status = err.msg[0] ? tf_msg_fail(&err) : TF_EXIT_FAILURE;
    } else if (team && team->rank != tf_launcher_rank()) {
        /* no launcher known to tracefold gives another rank than MPI's */
        tf_error_clear(&err);
        tf_fail(&err, TF_ERR_UNSUPPORTED, "the launcher says rank %d, MPI says rank %d",
                tf_launcher_rank(), team->rank);
        status = team->rank == 0 ? tf_msg_fail(&err) : TF_EXIT_FAILURE;
        tf_fold_team_abort(team);
    } else if (member) {
        status = serve(&c, &op, wanted, team);
    } else {
        status = fold(&c, &op, team);
        if (team && tf_fold_team_end(team, status) < 0 && status == TF_EXIT_OK)
            status = TF_EXIT_FAILURE;
    }
    tf_fold_opening_end(&op);
    tf_fold_team_stop(team);
    free(c.o.analysis.alloc_rules.wrappers);
    return status;
}
