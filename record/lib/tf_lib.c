/* SPDX-License-Identifier: BSD-3-Clause */
/* The recorder's life in a process: start (constructor or tracefold_init),
 * the session's control file, the writer helper when no `tracefold record`
 * parent drains the session, fork (the child gets its own control file, or
 * stops recording), exec (the trace is closed first), and the end (atexit,
 * destructor or tracefold_fini). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/tf_launcher.h"
#include "tf_rec.h"
#include "tracefold.h"

#ifndef TF_BINDIR
#define TF_BINDIR "/usr/local/bin"
#endif

extern char **environ;

tf_rec tf_rec_g;

static bool atfork_registered;

void tf_rec_disable(const char *why)
{
    fprintf(stderr, "tracefold: %s; the program runs on without recording\n", why);
    atomic_store(&tf_rec_g.state, TF_REC_DISABLED);
}

void tf_rec_say(bool asked, const char *fmt, ...)
{
    if (tf_rec_g.quiet && !asked)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "tracefold: %s\n", line);
}

static void read_text_file(const char *path, char *buf, size_t size, char sep)
{
    buf[0] = '\0';
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, buf, size - 1);
    close(fd);
    if (n <= 0)
        return;
    buf[n] = '\0';
    for (ssize_t i = 0; i < n; i++)
        if (buf[i] == '\0')
            buf[i] = sep;
    while (n > 0 && buf[n - 1] == sep)
        buf[--n] = '\0';
}

static void describe_process(tf_shm_process *p)
{
    p->pid = getpid();
    p->ppid = getppid();
    p->rank = tf_launcher_rank();
    p->nranks = p->rank >= 0 ? tf_launcher_size() : 0;
    ssize_t n = readlink("/proc/self/exe", p->exe, sizeof p->exe - 1);
    p->exe[n > 0 ? n : 0] = '\0';
    read_text_file("/proc/self/cmdline", p->cmdline, sizeof p->cmdline, ' ');
    if (gethostname(p->host, sizeof p->host))
        p->host[0] = '\0';
    p->host[sizeof p->host - 1] = '\0';
}

static const char *writer_program(void)
{
    const char *prog = getenv("TRACEFOLD_PROGRAM");
    return prog && *prog ? prog : TF_BINDIR "/tracefold";
}

/* Starts `tracefold ARGS` with stdin from /dev/null and stdout to out_fd
 * (or /dev/null), without LD_PRELOAD: the tracefold process must not
 * record itself. */
static int spawn_tracefold(char *const argv[], int out_fd, pid_t *pid)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 1, sizeof *env);
    if (!env)
        return ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LD_PRELOAD=", 11))
            env[k++] = environ[i];
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (out_fd >= 0)
        posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    else
        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    int rc = posix_spawn(pid, writer_program(), &fa, NULL, argv, env);
    posix_spawn_file_actions_destroy(&fa);
    free(env);
    return rc;
}

/* Creates the session directory and starts `tracefold record --writer` on
 * it, for a program linked with the library and run without
 * `tracefold record`.  The helper outlives the program to close its trace;
 * it is never waited for. */
static int start_helper(void)
{
    snprintf(tf_rec_g.session, sizeof tf_rec_g.session, "/dev/shm/tracefold-%d-%llx",
             (int)getpid(), (unsigned long long)tf_now());
    if (mkdir(tf_rec_g.session, 0700))
        return -1;
    char *argv[] = {"tracefold", "record", "--writer", tf_rec_g.session, NULL};
    pid_t pid;
    int rc = spawn_tracefold(argv, -1, &pid);
    if (rc) {
        errno = rc;
        rmdir(tf_rec_g.session);
        return -1;
    }
    /* Under Yama's ptrace_scope 1 a child may not attach to its parent
     * unless named (prctl(2) PR_SET_PTRACER): the helper takes the kernel
     * capture rings with pidfd_getfd(2).  Without Yama this fails with
     * EINVAL, which changes nothing. */
    (void)prctl(PR_SET_PTRACER, (unsigned long)pid, 0, 0, 0);
    return 0;
}

/* TRACEFOLD_CONFIG given to a program started without `tracefold record`:
 * `tracefold record --print-env` reads the XML file (libxml2 stays out of
 * this process) and prints every resolved option, which becomes our
 * environment.  A bad file: tracefold has printed why, with the line. */
static int apply_config_file(void)
{
    const char *file = getenv("TRACEFOLD_CONFIG");
    if (!file || !*file)
        return 0;
    int fds[2];
    if (pipe2(fds, O_CLOEXEC))
        return -1;
    char *argv[] = {"tracefold", "record", "--print-env", NULL};
    pid_t pid;
    int rc = spawn_tracefold(argv, fds[1], &pid);
    close(fds[1]);
    if (rc) {
        close(fds[0]);
        errno = rc;
        return -1;
    }
    char out[16384];
    size_t used = 0;
    ssize_t got;
    while (used < sizeof out - 1 &&
           ((got = read(fds[0], out + used, sizeof out - 1 - used)) > 0 || (got < 0 && errno == EINTR)))
        used += got > 0 ? (size_t)got : 0;
    out[used] = '\0';
    close(fds[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        errno = EINVAL;
        return -1;
    }
    char *save = NULL;
    for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '=');
        if (eq && !strncmp(line, "TRACEFOLD_", 10)) {
            *eq = '\0';
            setenv(line, eq + 1, 1);
        }
    }
    return 0;
}

/* Time 0 on both clocks at once: the trace's start_time (real) is what
 * aligns the traces of several processes, whose times count from mono0.
 * A preemption between two plain reads would shift every time of this
 * process against the others' by its length (a CI run under load showed
 * an MPI message received 12 ms before it was sent), so the real clock is
 * read between two monotonic reads, again until they are at most 20 us
 * apart (16 tries at most), and the tightest pair is kept, mono0 at its
 * middle. */
static void clock_zero(uint64_t *mono0, uint64_t *real0)
{
    uint64_t spread = UINT64_MAX;
    for (int k = 0; k < 16 && spread > 20000; k++) {
        struct timespec rt;
        uint64_t before = tf_now();
        clock_gettime(CLOCK_REALTIME, &rt);
        uint64_t after = tf_now();
        if (after - before < spread) {
            spread = after - before;
            *mono0 = before + spread / 2;
            *real0 = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec;
        }
    }
}

static int create_control(void)
{
    /* the file work below can take milliseconds on a loaded machine */
    uint64_t mono0 = 0, real0 = 0;
    clock_zero(&mono0, &real0);
    snprintf(tf_rec_g.proc_path, sizeof tf_rec_g.proc_path, "%.4000s/" TF_SESSION_PROC_PREFIX "%d-%llx",
             tf_rec_g.session, (int)getpid(), (unsigned long long)mono0);
    snprintf(tf_rec_g.wake_path, sizeof tf_rec_g.wake_path, "%.4000s/" TF_SESSION_WAKE,
             tf_rec_g.session);
    size_t size = (sizeof(tf_shm_process) + 4095) & ~(size_t)4095;
    int fd = open(tf_rec_g.proc_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    void *m = MAP_FAILED;
    if (!ftruncate(fd, (off_t)size))
        m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) {
        unlink(tf_rec_g.proc_path);
        return -1;
    }
    tf_shm_process *p = m;
    p->size = size;
    p->mono0 = mono0;
    p->real0 = real0;
    p->buffer_bytes = (uint32_t)tf_rec_g.opt.buffer_size;
    p->stack_depth = tf_rec_g.opt.stack_depth;
    atomic_store(&p->state, TF_PROC_RUNNING);
    describe_process(p);
    tf_rec_g.proc = p;
    tf_rec_g.proc_size = size;
    return 0;
}

void tf_maps_snapshot(void)
{
    tf_shm_process *p = tf_rec_g.proc;
    int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    atomic_fetch_add(&p->maps_seq, 1);
    size_t len = 0;
    ssize_t n;
    while (len < sizeof p->maps && (n = read(fd, p->maps + len, sizeof p->maps - len)) > 0)
        len += (size_t)n;
    close(fd);
    /* A full area ends mid-line: keep whole lines only. */
    while (len == sizeof p->maps && len && p->maps[len - 1] != '\n')
        len--;
    p->maps_len = (uint32_t)len;
    atomic_fetch_add(&p->maps_seq, 1);
}

/* The writer ignores a control file until its magic is set. */
static void publish_control(void)
{
    atomic_thread_fence(memory_order_release);
    tf_rec_g.proc->magic = TF_SESSION_MAGIC;
    tf_session_poke(tf_rec_g.session);
}

static void on_fork_child(void);

/* Whether the process may create files of the recorder's sizes: growing a
 * file past RLIMIT_FSIZE (ulimit -f) raises SIGXFSZ, which would kill the
 * application (setrlimit(2)), tmpfs included. */
static bool sizes_within_file_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_FSIZE, &rl) || rl.rlim_cur == RLIM_INFINITY)
        return true;
    uint64_t need = sizeof(tf_shm_process) + 4096;
    if (tf_rec_g.opt.buffer_size > need)
        need = tf_rec_g.opt.buffer_size;
    return need <= rl.rlim_cur;
}

int tf_process_start(bool forked_child)
{
    tf_shm_process *parent = forked_child ? tf_rec_g.proc : NULL;
    if (!sizes_within_file_limit()) {
        tf_rec_disable("the file size limit (ulimit -f) is below the recorder's buffers "
                       "(--buffer-size)");
        return -1;
    }
    if (!forked_child) {
        /* Before the control file: a process whose named functions
         * cannot be found leaves no trace behind.  It stops rather than
         * run for hours unrecorded: the user asked for those regions. */
        tf_error err;
        tf_error_clear(&err);
        if (tf_regions_setup(tf_rec_g.opt.region, &err)) {
            fprintf(stderr, "tracefold: %s\ntracefold: the program stops here (exit status 1)\n",
                    err.msg);
            _exit(1);
        }
    }
    if (create_control()) {
        tf_rec_disable("cannot create the recording buffers in the session directory");
        return -1;
    }
    tf_shm_process *p = tf_rec_g.proc;
    tf_regions_intern();
    if (parent) {
        /* Same counters as the parent: no second probe, no second message. */
        p->nbase = parent->nbase;
        memcpy(p->base_kind, parent->base_kind, sizeof p->base_kind);
        memcpy(p->base_name, parent->base_name, sizeof p->base_name);
        memcpy(p->base_unit, parent->base_unit, sizeof p->base_unit);
        memcpy(p->counters_missing, parent->counters_missing, sizeof p->counters_missing);
    } else {
        tf_counters_setup(tf_rec_g.opt.counters, p, &tf_rec_g.nbase);
        tf_error err;
        tf_error_clear(&err);
        if (tf_sampling_setup(&err) && tf_rec_g.opt.sampler != TF_SAMPLER_NONE)
            tf_rec_say(true, "no sampling (%s); regions and counters are still recorded",
                       err.msg);
        tf_memsampling_setup();
        tf_kcapture_setup();
    }
    tf_heap_setup();
    tf_maps_snapshot();
    publish_control();
    atomic_store(&tf_rec_g.state, TF_REC_ON);
    if (!atfork_registered) {
        pthread_atfork(NULL, NULL, on_fork_child);
        atfork_registered = true;
    }
    tf_thread_attach();
    tf_counters_release_probes();
    return 0;
}

static void on_fork_child(void)
{
    if (atomic_load(&tf_rec_g.state) != TF_REC_ON)
        return;
    tf_thread_forget_all();
    tf_intern_reset();
    tf_regions_forked();
    tf_shm_process *parent = tf_rec_g.proc;
    atomic_store(&tf_rec_g.state, TF_REC_OFF);
    if (tf_rec_g.opt.fork == TF_FORK_NONE)
        return;
    tf_process_start(true);
    munmap(parent, tf_rec_g.proc_size);
}

void tf_process_stop(void)
{
    int was = TF_REC_ON;
    if (!atomic_compare_exchange_strong(&tf_rec_g.state, &was, TF_REC_OFF))
        return;
    tf_heap_stop();
    tf_regions_stop();
    tf_rec_thread *t = tf_self;
    if (t) {
        tf_sampling_thread_stop(t);
        tf_stats_merge(t);
    }
    tf_kcapture_process_stop();
    if (tf_rec_g.opt.stats)
        tf_stats_report();
    tf_maps_snapshot();
    atomic_store_explicit(&tf_rec_g.proc->state, TF_PROC_CLOSED, memory_order_release);
    tf_session_poke(tf_rec_g.session);
}

void tf_rec_wake(void)
{
    /* Opened each time, never held: a program that closes every
     * descriptor it did not open (daemons, closefrom) could otherwise get
     * our byte written into one of its own files.  open and write are
     * async-signal-safe (signal-safety(7)); errno is the interrupted
     * code's.  No writer yet (ENXIO): its first pass drains anyway. */
    int saved = errno;
    int fd = open(tf_rec_g.wake_path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
        char byte = 1;
        (void)!write(fd, &byte, 1);
        close(fd);
    }
    errno = saved;
}

/* How often a wait for the writer looks whether the writer is still there. */
#define AWAIT_SLICE_NS 100000000ull

void tf_rec_await(bool (*done)(const tf_shm_process *p, void *ctx), void *ctx,
                  uint64_t timeout_ns, const char *what)
{
    if (tf_rec_g.writer_late)
        return;
    /* A writer still starting gets the time to start on top of the bound. */
    if (!tf_session_writer_started(tf_rec_g.session))
        timeout_ns += TF_WRITER_START_NS;
    /* The bound is for a writer that lives but does not answer; one that
     * has gone is seen within a slice. */
    bool gone = false;
    for (uint64_t waited = 0; waited < timeout_ns && !gone;) {
        uint64_t slice = timeout_ns - waited < AWAIT_SLICE_NS ? timeout_ns - waited : AWAIT_SLICE_NS;
        if (tf_session_await(tf_rec_g.proc, done, ctx, slice))
            return;
        waited += slice;
        gone = tf_session_writer_gone(tf_rec_g.session);
    }
    tf_rec_g.writer_late = true;
    if (gone)
        fprintf(stderr, "tracefold: the trace writer has gone (%s); the program goes on without"
                        " it\n", what);
    else
        fprintf(stderr, "tracefold: the trace writer did not answer within %.1f s (%s); the"
                        " program goes on without waiting for it\n", (double)timeout_ns / 1e9, what);
}

bool tf_rec_trace_closed(const tf_shm_process *p, void *ctx)
{
    (void)ctx;
    uint32_t w = atomic_load(&p->writer);
    return w == TF_WRITER_DONE || w == TF_WRITER_FAILED;
}

/* A linked program's trace is written by its own helper: the program's end
 * waits (bounded) until the helper has closed it, so that a job's next step
 * finds the trace complete.  Under `tracefold record` the command waits for
 * every trace before it exits, and the program need not. */
#define EXIT_WAIT_NS 5000000000ull

static void at_exit(void)
{
    tracefold_fini();
    if (tf_rec_g.own_writer && getpid() == tf_rec_g.proc->pid)
        tf_rec_await(tf_rec_trace_closed, NULL, EXIT_WAIT_NS, "closing the trace at exit");
}

int tracefold_init(void)
{
    int state = atomic_load(&tf_rec_g.state);
    if (state == TF_REC_ON)
        return 0;
    if (state == TF_REC_DISABLED)
        return -1;
    tf_error err;
    const char *session = getenv(TF_SESSION_ENV);
    bool recorded = session && *session;   /* under `tracefold record`: options resolved */
    tf_rec_g.quiet = !recorded || tf_session_quiet_env();
    if (!recorded && apply_config_file()) {
        char why[PATH_MAX + 128];
        snprintf(why, sizeof why, "cannot use the configuration file %s (%s)",
                 getenv("TRACEFOLD_CONFIG"), errno == EINVAL ? "see above" : strerror(errno));
        tf_rec_disable(why);
        return -1;
    }
    tf_options_defaults(&tf_rec_g.opt);
    if (tf_options_from_env(&tf_rec_g.opt, &err)) {
        tf_rec_disable(err.msg);
        return -1;
    }
    if (recorded) {
        snprintf(tf_rec_g.session, sizeof tf_rec_g.session, "%s", session);
    } else if (start_helper()) {
        char why[PATH_MAX + 128];
        snprintf(why, sizeof why, "cannot start the trace writer %s: %s", writer_program(),
                 strerror(errno));
        tf_rec_disable(why);
        return -1;
    } else {
        tf_rec_g.own_writer = true;
    }
    if (tf_process_start(false))
        return -1;
    atexit(at_exit);
    return 0;
}

void tracefold_fini(void)
{
    tf_process_stop();
}

__attribute__((constructor)) static void tf_load(void)
{
    /* An unreadable value is left to tracefold_init, which reports it. */
    const char *v = getenv("TRACEFOLD_AUTOSTART");
    bool autostart = true;
    if (v && !tf_parse_bool(v, &autostart) && !autostart)
        return;
    tracefold_init();
}

__attribute__((destructor)) static void tf_unload(void)
{
    tracefold_fini();
}
