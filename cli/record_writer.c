/* SPDX-License-Identifier: BSD-3-Clause */
/* tracefold-writer: the second half of `tracefold record`.  The record
 * command (cmd_record.c) resolves the options, exports them as TRACEFOLD_*
 * variables, starts the program and then becomes this program (execve
 * keeps its pid, its child and its subreaper role), so that loading HDF5
 * and libdw overlaps the program's start instead of delaying it.  It drains
 * the shared-memory session into one HDF5 trace per traced process until
 * the program and its descendants are done, and exits with the program's
 * status.  The helper that a linked program starts (`tracefold record
 * --writer DIR`) is this program too, without a program to wait for.
 *
 * Usage (internal): tracefold-writer --session DIR [--program PID] [--quiet] */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "formats/h5util.h"
#include "extract/instances.h"
#include "msg.h"
#include "extract/sampling_advice.h"
#include "record/tf_options.h"
#include "record/writer/tf_writer.h"

static pid_t child_pid;

static void forward_signal(int sig)
{
    if (child_pid > 0)
        kill(child_pid, sig);
}

/* The writer outlives the program to close its trace: terminal interrupts
 * reach the program directly; termination requests are passed on (the
 * record command blocked them before it became this program, so none
 * was lost in between).  A file size limit (SIGXFSZ) must fail the write,
 * not kill the writer.  The helper of a linked program outlives it and
 * ignores them all. */
static void writer_signals(bool helper)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
    sigaction(SIGXFSZ, &sa, NULL);
    if (!helper) {
        sa.sa_handler = forward_signal;
        sa.sa_flags = SA_RESTART;
    }
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
}

/* --stats: this process's whole CPU time (the writer: its start, set-up,
 * drains, HDF5 writes, modules, flushes) per sample written, against the
 * drains' alone that the per-process line gives. */
static void writer_cost(const tf_rec_summary *sum, size_t n)
{
    uint64_t samples = 0;
    for (size_t i = 0; i < n; i++)
        samples += sum[i].samples;
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru))
        return;
    double cpu_us = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
                    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    fprintf(stderr, "tracefold record: stats: writer %.1f ms CPU in all, %llu samples written,"
                    " %.2f us per sample\n", cpu_us / 1e3, (unsigned long long)samples,
            samples ? cpu_us / (double)samples : 0.0);
}

/* When the program marked regions: whether the period was coarse for the
 * instances of the region a fold would take, read back from the trace,
 * and what to record with instead (sampling_advice.h).  Not with
 * counter-overflow sampling, whose period is in events; not when the
 * period advised is no shorter (the instances then held no sample for
 * another reason: the period counts CPU time, and they were off the
 * CPU).  A trace that cannot be read back says nothing more here. */
static void advise_period(const char *path, const tf_options *o)
{
    tf_trace *tr;
    tf_error err;
    if (strcmp(o->overflow, "none") || tf_trace_open(&tr, path, &err) < 0)
        return;
    tf_region_stats *st = NULL;
    size_t n;
    const tf_region_stats *main_region = NULL;
    tf_sampling_density d;
    if (tf_region_stats_compute(tr, &st, &n, &err) == 0 &&
        (main_region = tf_region_stats_main(st, n)) &&
        tf_sampling_density_of(tr, main_region->region, &d, &err) == 0 &&
        tf_sampling_coarse(&d) && tf_sampling_period_for(d.duration_ns) < o->period_ns) {
        char advice[512];
        tf_sampling_advice(&d, advice, sizeof advice);
        tf_msg_note("%s: %zu of the %zu instances of region '%s' hold no sample: %s", path,
                    d.unsampled, d.instances, tf_trace_string(tr, main_region->region), advice);
    }
    free(st);
    tf_trace_close(tr);
}

/* The closing notes; the number of traces that could not be written. */
static size_t summarise(tf_rec_session *s, const tf_options *o, bool quiet)
{
    const tf_rec_summary *sum;
    size_t n = tf_rec_session_summaries(s, &sum), failed = 0;
    if (o->stats)
        writer_cost(sum, n);
    for (size_t i = 0; i < n; i++) {
        if (sum[i].failed) {
            failed++;
            continue;
        }
        tf_msg_note("%s: process %lld, %u thread%s, %llu events, %llu samples", sum[i].path,
                    (long long)sum[i].pid, sum[i].threads, sum[i].threads == 1 ? "" : "s",
                    (unsigned long long)sum[i].events, (unsigned long long)sum[i].samples);
        if (sum[i].dropped)
            tf_msg_warn("%s: %llu records dropped because a buffer was full "
                        "(raise --buffer-size)", sum[i].path, (unsigned long long)sum[i].dropped);
        if (!quiet)
            advise_period(sum[i].path, o);
    }
    return failed;
}

static int run_writer(const char *dir, const tf_options *o, bool quiet, pid_t child,
                      int *status)
{
    tf_error err;
    tf_rec_session *s;
    char producer[64];
    snprintf(producer, sizeof producer, "tracefold record %s", PACKAGE_VERSION);
    if (tf_rec_session_create(&s, dir, o, producer, &err))
        return tf_msg_fail(&err);
    tf_rec_session_set_quiet(s, quiet);
    tf_rec_session_run(s, child, status);
    size_t failed = summarise(s, o, quiet);
    if (failed)
        tf_msg_error("%zu trace%s could not be written (see above)", failed,
                     failed == 1 ? "" : "s");
    tf_rec_session_destroy(s);
    return failed ? TF_EXIT_FAILURE : TF_EXIT_OK;
}

/* Every trace is closed by now (tf_rec_session_destroy): what exit(3)
 * would add is the destructors of the libraries HDF5 brings (OpenSSL,
 * GnuTLS, Kerberos, libcurl), 4 % of the writer's CPU in a profile of a
 * 2 s recording (bench/RESULTS.md, "CPU time on real-code patterns"),
 * freeing memory the kernel frees anyway. */
static _Noreturn void leave(int code)
{
    fflush(NULL);
    _exit(code);
}

int main(int argc, char **argv)
{
    /* Every trace is closed or aborted explicitly; HDF5's own clean-up at
     * exit would crash on one it could not close (tf_writer.c). */
    tf_h5_no_exit_cleanup();
    /* HDF5 initialises itself at its first call: here, while the program
     * starts, rather than in the creation of the first trace, which for a
     * short program comes after its end (a third of that creation's CPU). */
    tf_h5_silence();
    tf_msg_set_program("tracefold record");
    const char *dir = NULL;
    long program = 0;
    bool quiet = false;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--session") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--program") && i + 1 < argc)
            program = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--quiet"))
            quiet = true;
        else
            return tf_msg_usage("tracefold-writer is run by `tracefold record`: unknown "
                                "argument '%s'", argv[i]);
    }
    if (!dir || program < 0)
        return tf_msg_usage("tracefold-writer is run by `tracefold record` (--session DIR "
                            "[--program PID] [--quiet])");
    child_pid = (pid_t)program;
    /* The options were resolved by the record command and exported to the
     * environment, which the program's processes read too. */
    tf_options opt;
    tf_options_defaults(&opt);
    tf_error err;
    if (tf_options_from_env(&opt, &err))
        return tf_msg_fail(&err);
    bool helper = child_pid == 0;
    /* The helper of a linked program: only problems are worth a line. */
    tf_msg_set_quiet(quiet || helper);
    writer_signals(helper);
    if (helper)
        leave(run_writer(dir, &opt, true, 0, NULL));
    int status = 0;
    int rc = run_writer(dir, &opt, quiet, child_pid, &status);
    /* The program's status first: a failed trace makes only a success fail. */
    if (WIFSIGNALED(status))
        leave(128 + WTERMSIG(status));
    int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : TF_EXIT_FAILURE;
    leave(exit_code ? exit_code : rc);
}
