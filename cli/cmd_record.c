/* SPDX-License-Identifier: BSD-3-Clause */
/* `tracefold record`: runs a program with libtracefold preloaded and writes
 * its trace.  This process is the writer: it resolves the options (flag >
 * environment > configuration file > default), hands them to the program
 * through TRACEFOLD_* variables (so libxml2 never enters the program's
 * process), creates the shared-memory session and drains it into one HDF5
 * trace per traced process until the program and its children are done. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "instances.h"
#include "msg.h"
#include "sampling_advice.h"
#include "tf_config.h"
#include "tf_launcher.h"
#include "tf_options.h"
#include "tf_output.h"
#include "tf_session.h"
#include "tf_trace_name.h"
#include "tf_writer.h"

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: tracefold record [OPTIONS] [--] PROGRAM [ARGS...]\n"
            "Runs PROGRAM with the tracefold recorder preloaded and writes one HDF5 trace\n"
            "per process: regions and counters at every tracefold_region_begin/end,\n"
            "timer samples with instruction address, call stack and counters.\n\n"
            "Options (each also an environment variable and a <NAME> element of the\n"
            "configuration file; precedence: option > environment > file > default):\n"
            "  -c, --config FILE\n"
            "          XML configuration file [TRACEFOLD_CONFIG]\n"
            "  -o FILE  same as --output FILE\n");
    for (unsigned i = 0; i < tf_option_count; i++) {
        const tf_option_desc *d = &tf_option_table[i];
        if (!strcmp(d->name, "force")) {
            /* a flag, as in the other commands; --force=no undoes it */
            fprintf(out, "      --force\n          %s\n          [%s=yes; default no]\n",
                    d->help, d->env);
            continue;
        }
        fprintf(out, "      --%s VALUE\n          %s\n          [%s; default %s]\n", d->name,
                d->help, d->env, d->deflt);
    }
    fprintf(out,
            "      --library FILE\n"
            "          the libtracefold.so to preload [TRACEFOLD_LIBRARY]\n"
            "      --print-env\n"
            "          print the resolved options as TRACEFOLD_* variables and exit\n"
            "          (used by a linked program given a configuration file)\n"
            "      --writer DIR\n"
            "          internal: drain the session DIR (the helper a program linked with\n"
            "          libtracefold starts)\n"
            "  -q, --quiet  no message but errors, in this process and the program's\n"
            "          [TRACEFOLD_QUIET]\n"
            "  -h, --help   show this help and exit\n\n"
            "Exit status: the program's (128+N when killed by signal N); 1 when recording\n"
            "could not start (bad configuration, missing library, an output refused), or\n"
            "when a trace could not be written and the program exited 0; 2 wrong command\n"
            "line.\n"
            "See docs/recorder.md for the API, the mechanisms and their overhead.\n");
}

/* The library `name` next to this binary: the build tree, then the
 * installed layout. */
static int find_library(const char *name, char *buf, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    static const char *const rel[] = {"record/.libs", "../lib", "../lib64"};
    for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
        if (snprintf(buf, size, "%s/%s/%s", exe, rel[i], name) < (int)size && !access(buf, R_OK))
            return 0;
    }
    return -1;
}

/* The recorder library: the one given, else libtracefold.so found. */
static int find_recorder(const char *given, char *buf, size_t size)
{
    if (given && *given) {
        snprintf(buf, size, "%s", given);
        return access(buf, R_OK);
    }
    return find_library("libtracefold.so", buf, size);
}

static int make_session(char *dir, size_t size)
{
    const char *bases[] = {"/dev/shm", getenv("TMPDIR"), "/tmp"};
    for (size_t i = 0; i < sizeof bases / sizeof bases[0]; i++) {
        if (!bases[i])
            continue;
        snprintf(dir, size, "%s/tracefold-XXXXXX", bases[i]);
        if (mkdtemp(dir))
            return 0;
    }
    return -1;
}

static int export_options(const tf_options *o)
{
    for (unsigned i = 0; i < tf_option_count; i++) {
        char v[1100];
        tf_option_format(o, &tf_option_table[i], v, sizeof v);
        if (setenv(tf_option_table[i].env, v, 1))
            return -1;
    }
    return unsetenv("TRACEFOLD_CONFIG");
}

static int preload(const char *lib)
{
    const char *old = getenv("LD_PRELOAD");
    size_t size = strlen(lib) + (old ? strlen(old) : 0) + 2;
    char *v = malloc(size);
    if (!v)
        return -1;
    snprintf(v, size, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "");
    int rc = setenv("LD_PRELOAD", v, 1);
    free(v);
    return rc;
}

/* Started by an MPI launcher (Open MPI, or a PMI one such as MPICH's hydra),
 * or asked to record MPI calls: libtracefold-mpi joins the preload when it
 * was built (docs/recorder.md, "MPI").  Other programs never load libmpi. */
static int preload_mpi_layer(const tf_options *o)
{
    if (!o->mpi_calls && !tf_launcher_is_mpi())
        return 0;
    char lib[PATH_MAX];
    if (find_library("libtracefold-mpi.so", lib, sizeof lib)) {
        if (o->mpi_calls)
            tf_msg_warn("--mpi-calls: libtracefold-mpi.so was not built (no MPI at configure "
                        "time); MPI calls are not recorded");
        return 0;
    }
    return preload(lib);
}

static pid_t child_pid;

static void forward_signal(int sig)
{
    if (child_pid > 0)
        kill(child_pid, sig);
}

/* The writer outlives the program to close its trace: terminal interrupts
 * reach the program directly; termination requests are passed on.  A file
 * size limit (SIGXFSZ) must fail the write, not kill the writer. */
static void writer_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGQUIT, &sa, NULL);
    sigaction(SIGXFSZ, &sa, NULL);
    sa.sa_handler = forward_signal;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
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

/* Before the program starts, so that no run is wasted, what is known of
 * the trace's name already: the whole name when the pattern uses neither
 * %p nor %e (its folders are made, an existing file is refused as the
 * writer would refuse it), else its folders when their names use neither
 * (made, with a placeholder for the file). */
static int prepare_output(const tf_options *o)
{
    char pattern[sizeof o->output];
    snprintf(pattern, sizeof pattern, "%s", o->output);
    bool whole = tf_trace_name_known(pattern);
    char *slash = strrchr(pattern, '/');
    if (!whole && !slash)
        return 0;
    if (!whole) {
        snprintf(slash + 1, sizeof pattern - (size_t)(slash + 1 - pattern), "f");
        if (!tf_trace_name_known(pattern))
            return 0;
    }
    char host[256] = "", path[1024];
    if (gethostname(host, sizeof host))
        host[0] = '\0';
    host[sizeof host - 1] = '\0';
    int rank = tf_launcher_rank();
    tf_trace_name_vars v = { .pid = getpid(), .rank = rank,
                             .nranks = rank >= 0 ? tf_launcher_size() : 0, .host = host,
                             .exe = "" };
    tf_trace_name_expand(pattern, &v, path, sizeof path);
    tf_error err;
    int rc = whole ? tf_trace_name_prepare(path, o->force, &err)
                   : tf_output_make_parents(path, &err);
    if (rc == 0)
        return 0;
    tf_msg_error("%s", err.msg);
    tf_msg_error("not starting: the trace cannot be written");
    return -1;
}

int tf_cmd_record(int argc, char **argv)
{
    tf_options opt, flags;
    tf_options_defaults(&opt);
    bool set[64] = {false};
    const char *config = getenv("TRACEFOLD_CONFIG"), *library = getenv("TRACEFOLD_LIBRARY");
    const char *writer_dir = NULL;
    bool print_env = false, quiet = tf_session_quiet_env();
    tf_error err;
    memset(&flags, 0, sizeof flags);
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return TF_EXIT_OK;
        }
        if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
            quiet = true;
            continue;
        }
        if (!strcmp(a, "--print-env")) {
            print_env = true;
            continue;
        }
        if (!strcmp(a, "--force")) {
            /* a flag without a value, as in the other commands */
            const tf_option_desc *force = tf_option_find("force");
            tf_option_set(&flags, force, "yes", NULL);
            set[force - tf_option_table] = true;
            continue;
        }
        /* Options with a value: --name VALUE or --name=VALUE. */
        const char *name = a[1] == '-' ? a + 2 : a + 1;
        const char *eq = strchr(name, '=');
        char key[64];
        snprintf(key, sizeof key, "%.*s", eq ? (int)(eq - name) : (int)strlen(name), name);
        const char *value = eq ? eq + 1 : (i + 1 < argc ? argv[i + 1] : NULL);
        const tf_option_desc *d = tf_option_find(key);
        bool known = d || !strcmp(key, "c") || !strcmp(key, "config") || !strcmp(key, "o") ||
                     !strcmp(key, "library") || !strcmp(key, "writer");
        if (!known || (a[1] != '-' && strlen(key) != 1))
            return tf_msg_usage("unknown option '%s'", a);
        if (!value)
            return tf_msg_usage("option '%s' needs a value", a);
        if (!eq)
            i++;
        if (!strcmp(key, "c") || !strcmp(key, "config"))
            config = value;
        else if (!strcmp(key, "library"))
            library = value;
        else if (!strcmp(key, "writer"))
            writer_dir = value;
        else {
            if (!d)
                d = tf_option_find("output");
            if (tf_option_set(&flags, d, value, &err))
                return tf_msg_usage("option --%s", err.msg);
            set[d - tf_option_table] = true;
        }
    }
    /* Precedence: file, then environment, then the flags. */
    if (config && *config && tf_config_load(config, &opt, &err)) {
        tf_msg_error("%s", err.msg);
        /* --print-env: a linked program asked, and it says what it does
         * next (runs on without recording). */
        if (!print_env)
            tf_msg_error("not starting: fix the configuration file");
        return TF_EXIT_FAILURE;
    }
    if (tf_options_from_env(&opt, &err))
        return tf_msg_fail(&err);
    for (unsigned k = 0; k < tf_option_count; k++) {
        if (!set[k])
            continue;
        char v[1100];
        tf_option_format(&flags, &tf_option_table[k], v, sizeof v);
        tf_option_set(&opt, &tf_option_table[k], v, NULL);
    }
    tf_msg_set_quiet(quiet);
    if (print_env) {
        for (unsigned k = 0; k < tf_option_count; k++) {
            char v[1100];
            tf_option_format(&opt, &tf_option_table[k], v, sizeof v);
            printf("%s=%s\n", tf_option_table[k].env, v);
        }
        return TF_EXIT_OK;
    }
    if (writer_dir) {
        /* The helper of a linked program: only problems are worth a line. */
        tf_msg_set_quiet(true);
        writer_signals();
        signal(SIGTERM, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
        return run_writer(writer_dir, &opt, true, 0, NULL);
    }
    if (i >= argc)
        return tf_msg_usage("no program to run (tracefold record [OPTIONS] -- PROGRAM ARGS)");
    char lib[PATH_MAX];
    if (find_recorder(library, lib, sizeof lib)) {
        tf_msg_error("cannot find the recorder library %s (give --library or TRACEFOLD_LIBRARY)",
                     library && *library ? library : "libtracefold.so");
        return TF_EXIT_FAILURE;
    }
    if (prepare_output(&opt))
        return TF_EXIT_FAILURE;
    char dir[PATH_MAX];
    if (make_session(dir, sizeof dir)) {
        tf_msg_error("cannot create a session directory in /dev/shm or /tmp: %s", strerror(errno));
        return TF_EXIT_FAILURE;
    }
    if (export_options(&opt) || setenv(TF_SESSION_ENV, dir, 1) ||
        (quiet && setenv(TF_QUIET_ENV, "1", 1)) || preload(lib) ||
        preload_mpi_layer(&opt)) {
        rmdir(dir);
        tf_msg_error("cannot set up the program's environment: %s", strerror(errno));
        return TF_EXIT_FAILURE;
    }
    /* The program's orphaned descendants become ours: the writer then
     * knows when none is left, with no wait for stragglers (tf_writer.c). */
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    fflush(NULL);
    child_pid = fork();
    if (child_pid < 0) {
        rmdir(dir);
        tf_msg_error("cannot start %s: %s", argv[i], strerror(errno));
        return TF_EXIT_FAILURE;
    }
    if (child_pid == 0) {
        execvp(argv[i], argv + i);
        fprintf(stderr, "tracefold record: error: cannot run %s: %s\n", argv[i], strerror(errno));
        _exit(127);
    }
    writer_signals();
    int status = 0;
    int rc = run_writer(dir, &opt, quiet, child_pid, &status);
    /* The program's status first: a failed trace makes only a success fail. */
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    int program = WIFEXITED(status) ? WEXITSTATUS(status) : TF_EXIT_FAILURE;
    return program ? program : rc;
}
