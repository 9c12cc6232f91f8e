/* SPDX-License-Identifier: BSD-3-Clause */
/* `tracefold paraver`: traces for Paraver.  A tracefold trace becomes a raw
 * Paraver trace; a fold result (OUTDIR/fold.h5) becomes the synthetic trace
 * of its folded iterations; a Paraver trace can be converted into a
 * tracefold trace (--import) or checked (--check).  Event types and
 * conventions: docs/paraver.md. */
#include "config.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "fold/fold_result.h"
#include "formats/h5_probe.h"
#include "msg.h"
#include "formats/trace_input.h"
#include "input_report.h"
#include "paraver/symbols.h"
#include "paraver/synthetic.h"
#include "common/tf_parallel.h"
#include "formats/prv_check.h"
#include "formats/prv_export.h"
#include "formats/prv_import.h"
#include "formats/prv_out.h"
#include "common/tf_output.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: tracefold paraver [OPTIONS] INPUT... -o NAME.prv\n"
            "       tracefold paraver --import TRACE.prv -o TRACE.h5\n"
            "       tracefold paraver --check NAME.prv\n"
            "Writes traces for the Paraver viewer: NAME.prv (or NAME.prv.gz, compressed),\n"
            "NAME.pcf (labels of every event type and value used) and NAME.row (names),\n"
            "globally time-sorted.\n\n"
            "INPUT is either\n"
            "  a tracefold trace (.h5): the raw trace, with regions as user functions,\n"
            "    samples with their callers and lines, counters, memory samples, objects;\n"
            "    several traces or a directory of them (the ranks of an MPI run): one\n"
            "    Paraver task per process, by rank, and the world communicator; MPI\n"
            "    calls (record --mpi-calls yes) as MPI states and events, and their\n"
            "    messages as communication records;\n"
            "  a fold result (OUTDIR/fold.h5): the synthetic trace, one thread per folded\n"
            "    region and group over one iteration of mean duration, with the folded\n"
            "    samples, the fitted counters, the rates and the phases.\n\n"
            "Options:\n"
            "  -o, --output NAME   the trace to write (.prv, .prv.gz; .h5 with --import)\n"
            "      --import        convert an Extrae/Paraver trace into a tracefold trace\n"
            "      --check         check a Paraver trace: well-formed records, global time\n"
            "                      order, header against .row and records, complete labels\n"
            "      --lenient       with Paraver input: skip malformed records (and say how\n"
            "                      many) instead of stopping at the first\n"
            "      --force         replace existing outputs (with --import, only a tracefold\n"
            "                      trace); an output is never one of the inputs\n"
            "      --alloc-wrapper NAME  a routine of the program that allocates for\n"
            "                      its callers: objects are named by its caller\n"
            "                      (repeatable; with those named by record's)\n"
            "  -q, --quiet         no progress or notes\n"
            "  -h, --help          show this help and exit\n\n"
            "Views for the synthetic trace (folded_*.cfg) and the raw trace (raw_*.cfg) are\n"
            "installed with tracefold (share/tracefold/cfg).\n"
            "Exit status: 0 success, 1 unreadable input or unwritable output, 2 wrong command line.\n");
}

/* ---- the command -------------------------------------------------------------------- */

static bool is_fold_result(const char *path)
{
    return tf_h5_file_has_format(path, TF_FOLD_FORMAT);
}

/* The rule for existing outputs (common/tf_output.h), before any work.  A
 * Paraver trace NAME.prv comes with NAME.pcf and NAME.row: they are the
 * outputs of an export, inputs of an import, whose output --force replaces
 * only when it is a tracefold trace. */
static int check_outputs(const char *out, bool import, char *const *in, size_t nin, bool force)
{
    const char *prv = import ? in[0] : out;
    char *pcf = tf_prv_sibling(prv, ".pcf"), *row = tf_prv_sibling(prv, ".row");
    const char *import_inputs[] = {in[0], pcf, row};
    tf_output_rule rule = {
        .inputs = import ? import_inputs : (const char *const *)in,
        .ninputs = import ? 3 : nin,
        .force = force,
        .ours = import ? tf_h5_is_trace : NULL,
        .kind = "a tracefold trace",
    };
    tf_error err;
    int rc = pcf && row ? tf_output_check_file(out, &rule, &err)
                        : tf_fail(&err, TF_ERR_NOMEM, "out of memory");
    if (rc == 0 && !import && (rc = tf_output_check_file(pcf, &rule, &err)) == 0)
        rc = tf_output_check_file(row, &rule, &err);
    free(pcf);
    free(row);
    if (rc < 0)
        tf_msg_error("%s", err.msg);
    return rc;
}

static int run_check(const char *path)
{
    tf_prv_check_report rep;
    tf_error err;
    if (tf_prv_check(path, &rep, &err) < 0)
        return tf_msg_fail(&err);
    printf("%s: ok: %" PRIu64 " records, %" PRIu32 " threads, time-sorted, header consistent, "
           "%" PRIu64 " event types and %" PRIu64 " labelled values all labelled\n",
           path, rep.records, rep.threads, rep.types, rep.values);
    return TF_EXIT_OK;
}

static void import_progress(void *arg, uint64_t done, uint64_t total)
{
    (void)arg;
    tf_progress("reading the Paraver trace", done, total);
}

static int run_import(const char *in, const char *out, bool lenient)
{
    tf_prv_import_stats st;
    tf_error err;
    int rc = tf_prv_import(in, out, lenient, import_progress, NULL, &st, &err);
    tf_progress_done();
    if (rc < 0)
        return tf_msg_fail(&err);
    tf_cli_report_import(in, &st);
    tf_msg_note("wrote %s: %" PRIu64 " events, %" PRIu64 " samples, %" PRIu64 " objects, %" PRIu32
                " counters, %" PRIu64 " regions", out, st.events, st.samples, st.objects,
                st.counters, st.regions);
    return TF_EXIT_OK;
}

/* Several traces (an MPI run's ranks) or a directory of them give one
 * Paraver task per process. */
static int run_raw(char *const *in, size_t nin, const char *out, const tf_alloc_rules *rules)
{
    tf_trace *tr;
    tf_error err;
    if (tf_input_open_set(in, nin, &tr, &err) < 0)
        return tf_msg_fail(&err);
    tf_prv_export_stats st;
    tf_trace_names *tn;
    char ***names = NULL;
    int rc = tf_trace_names_create(&tn, tr, NULL, rules, &err);
    if (rc == 0)
        rc = tf_prv_symbols_object_names(tn, &names, &err);
    if (rc == 0)
        rc = tf_prv_export_raw(tr, out, tf_prv_symbols_resolve, tn, names, &st, &err);
    free(names);
    tf_trace_names_free(tn);
    tf_input_close(tr);
    if (rc < 0)
        return tf_msg_fail(&err);
    if (st.unmatched_sends || st.unmatched_recvs)
        tf_msg_warn("%" PRIu64 " MPI sends and %" PRIu64 " receives have no other side in these "
                    "traces (a rank's trace not given, a call before the recording began, or a "
                    "receive from any source on a communicator other than MPI_COMM_WORLD): they "
                    "have no communication record", st.unmatched_sends, st.unmatched_recvs);
    tf_msg_note("wrote %s (%" PRIu64 " records: %" PRIu64 " events, %" PRIu64 " samples, %" PRIu64
                " messages; %" PRIu32 " threads) with its .pcf and .row", out, st.records,
                st.events, st.samples, st.messages, st.threads);
    return TF_EXIT_OK;
}

static bool ends_with(const char *s, const char *sfx)
{
    size_t n = strlen(s), k = strlen(sfx);
    return n > k && !strcmp(s + n - k, sfx);
}

/* The command once its options are read. */
static int run(int argc, char **argv, const char *out, bool import, bool check, bool lenient,
               bool force, const tf_alloc_rules *rules)
{
    if (optind >= argc)
        return tf_msg_usage("missing INPUT");
    const char *in = argv[optind];
    size_t nin = (size_t)(argc - optind);
    if (nin > 1 && (import || check || is_fold_result(in)))
        return tf_msg_usage("one INPUT expected (several only for the raw trace of tracefold traces)");
    if (import && check)
        return tf_msg_usage("--import and --check exclude each other");
    if (check) {
        if (out || force)
            return tf_msg_usage("--check writes nothing: no -o, no --force");
        return run_check(in);
    }
    if (!out)
        return tf_msg_usage("missing -o NAME");
    if (import) {
        if (!tf_input_is_paraver(in))
            return tf_msg_usage("--import reads a Paraver trace (.prv, .prv.gz): '%s'", in);
        if (check_outputs(out, true, argv + optind, nin, force) < 0)
            return TF_EXIT_FAILURE;
        return run_import(in, out, lenient);
    }
    if (!ends_with(out, ".prv") && !ends_with(out, ".prv.gz"))
        return tf_msg_usage("the output must end in .prv or .prv.gz: '%s'", out);
    if (tf_input_is_paraver(in))
        return tf_msg_usage("'%s' is already a Paraver trace (--check checks it, --import converts it)", in);
    if (check_outputs(out, false, argv + optind, nin, force) < 0)
        return TF_EXIT_FAILURE;
    tf_input_set_lenient(lenient);
    if (is_fold_result(in)) {
        tf_error err;
        tf_prv_synthetic *sy;
        if (tf_prv_synthetic_begin(in, NULL, NULL, NULL, rules, out, &sy, &err) < 0)
            return tf_msg_fail(&err);
        if (tf_prv_synthetic_unnamed(sy))
            tf_msg_warn("%s: routines and objects left unnamed: %s", in,
                        tf_prv_synthetic_unnamed(sy));
        if (tf_prv_synthetic_end(sy, NULL, tf_parallel_cpus(), &err) < 0)
            return tf_msg_fail(&err);
        tf_msg_note("wrote the synthetic trace %s with its .pcf and .row", out);
        return TF_EXIT_OK;
    }
    return run_raw(argv + optind, nin, out, rules);
}

int tf_cmd_paraver(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, NULL, 'o'}, {"import", no_argument, NULL, 'I'},
        {"check", no_argument, NULL, 'C'},        {"lenient", no_argument, NULL, 'L'},
        {"quiet", no_argument, NULL, 'q'},        {"help", no_argument, NULL, 'h'},
        {"force", no_argument, NULL, 'F'},        {"alloc-wrapper", required_argument, NULL, 'w'},
        {NULL, 0, NULL, 0},
    };
    tf_alloc_rules rules = { 0 };
    const char *out = NULL;
    bool import = false, check = false, lenient = false, force = false;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'I': import = true; break;
        case 'C': check = true; break;
        case 'L': lenient = true; break;
        case 'F': force = true; break;
        case 'q': tf_msg_set_quiet(true); break;
        case 'h': usage(stdout); free(rules.wrappers); return TF_EXIT_OK;
        case 'w':
            if (!tf_arg_alloc_wrapper(&rules, argc, optarg)) {
                free(rules.wrappers);
                return TF_EXIT_USAGE;
            }
            break;
        default: free(rules.wrappers); return tf_msg_usage("unknown option");
        }
    }
    int rc = run(argc, argv, out, import, check, lenient, force, &rules);
    free(rules.wrappers);
    return rc;
}
