/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include "launch.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/tf_launcher.h"
#include "common/tf_output.h"
#include "formats/h5_probe.h"
#include "record/tf_session.h"
#include "record/tf_trace_name.h"

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

/* Becomes tracefold-writer (cli/record_writer.c) on the session dir;
 * program: the recorded program's pid, 0 for the helper of a linked
 * program.  Returns only when it could not. */
static int become_writer(const char *writer, const char *dir, pid_t program, bool quiet,
                         tf_error *err)
{
    char pid[32];
    snprintf(pid, sizeof pid, "%lld", (long long)program);
    char *argv[] = {"tracefold-writer", "--session", (char *)dir, "--program", pid,
                    quiet ? "--quiet" : NULL, NULL};
    execv(writer, argv);
    return tf_fail(err, TF_ERR_IO, "cannot run the trace writer %s: %s", writer, strerror(errno));
}

/* Between the program's start and the writer's handlers: terminal
 * interrupts are the program's (ignored here, which execve keeps), and a
 * termination request waits, blocked, for the writer to pass it on (a
 * pending signal survives execve too).  Only this process: the program
 * was forked with the dispositions it was given. */
static void hold_signals(void)
{
    signal(SIGINT, SIG_IGN);
    signal(SIGQUIT, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, NULL);
}

int tf_launch_prepare_output(const tf_options *o, tf_error *err)
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
    /* An HDF5 file is taken for a trace here (reading its format
     * attribute needs libhdf5); the writer checks that attribute before
     * it replaces the file. */
    int rc = whole ? tf_trace_name_prepare(path, o->force, tf_h5_has_signature, err)
                   : tf_output_make_parents(path, err);
    return rc ? -1 : 0;
}

int tf_launch_run(const tf_launch *l, tf_error *err)
{
    char dir[PATH_MAX];
    if (make_session(dir, sizeof dir))
        return tf_fail(err, TF_ERR_IO, "cannot create a session directory in /dev/shm or /tmp: %s",
                       strerror(errno));
    /* The LD_PRELOAD this command was given, which the writer keeps: it
     * must not load the recorder and record itself. */
    const char *given = getenv("LD_PRELOAD");
    char *given_preload = given ? strdup(given) : NULL;
    if ((given && !given_preload) || export_options(l->opt) || setenv(TF_SESSION_ENV, dir, 1) ||
        (l->quiet && setenv(TF_QUIET_ENV, "1", 1)) || preload(l->library) ||
        (l->mpi_layer && preload(l->mpi_layer))) {
        int e = errno;
        rmdir(dir);
        free(given_preload);
        return tf_fail(err, TF_ERR_IO, "cannot set up the program's environment: %s", strerror(e));
    }
    /* The program's orphaned descendants become ours (and the writer's,
     * which this process becomes): it then knows when none is left, with
     * no wait for stragglers (tf_writer.c). */
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    fflush(NULL);
    pid_t child = fork();
    if (child < 0) {
        int e = errno;
        rmdir(dir);
        free(given_preload);
        return tf_fail(err, TF_ERR_IO, "cannot start %s: %s", l->argv[0], strerror(e));
    }
    if (child == 0) {
        /* the child: nobody to return to */
        execvp(l->argv[0], l->argv);
        fprintf(stderr, "tracefold record: error: cannot run %s: %s\n", l->argv[0],
                strerror(errno));
        _exit(127);
    }
    hold_signals();
    if (given_preload ? setenv("LD_PRELOAD", given_preload, 1) : unsetenv("LD_PRELOAD"))
        tf_fail(err, TF_ERR_IO, "cannot restore LD_PRELOAD for the writer: %s", strerror(errno));
    else
        become_writer(l->writer, dir, child, l->quiet, err);
    free(given_preload);
    /* The writer could not start: the program must not run on unrecorded
     * with no one to reap it. */
    kill(child, SIGKILL);
    while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
        ;
    return -err->code;
}

int tf_launch_helper(const tf_options *o, const char *writer, const char *dir, tf_error *err)
{
    if (export_options(o))
        return tf_fail(err, TF_ERR_IO, "cannot set up the writer's environment: %s",
                       strerror(errno));
    return become_writer(writer, dir, 0, true, err);
}
