/* SPDX-License-Identifier: BSD-3-Clause */
/* exec closes the trace first: the interposed exec family stops recording,
 * marks the process closed and waits (bounded) for the writer to close the
 * trace file, so the new image starts a trace of its own (when it is
 * recorded too: LD_PRELOAD is inherited).  If exec then fails, the process
 * runs on untraced.  Only these entry points are interposed; glibc's
 * internal calls (system, popen, posix_spawn) need nothing: they exec in a
 * child process. */
#include "config.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <unistd.h>

#include "tf_rec.h"

#define EXEC_WAIT_NS 5000000000ull

static void close_before_exec(void)
{
    /* A vfork child shares our memory and ran no atfork handler: it must
     * leave the parent's recording alone (its exec image records itself). */
    if (atomic_load(&tf_rec_g.state) != TF_REC_ON || getpid() != tf_rec_g.proc->pid)
        return;
    tf_process_stop();
    tf_rec_await(tf_rec_trace_closed, NULL, EXEC_WAIT_NS, "closing the trace before exec");
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execvpe_fn)(const char *, char *const[], char *const[]);

int execve(const char *path, char *const argv[], char *const envp[])
{
    static execve_fn real;
    if (!real)
        real = (execve_fn)dlsym(RTLD_NEXT, "execve");
    close_before_exec();
    return real(path, argv, envp);
}

int execvpe(const char *file, char *const argv[], char *const envp[])
{
    static execvpe_fn real;
    if (!real)
        real = (execvpe_fn)dlsym(RTLD_NEXT, "execvpe");
    close_before_exec();
    return real(file, argv, envp);
}

extern char **environ;

int execv(const char *path, char *const argv[])
{
    return execve(path, argv, environ);
}

int execvp(const char *file, char *const argv[])
{
    return execvpe(file, argv, environ);
}

/* The list forms: count the arguments, then build the vector on the stack
 * (no allocation: exec may follow a fork of a multi-threaded program). */
#define COLLECT_ARGS(first, ap, argv)                         \
    size_t n_ = 1;                                            \
    va_start(ap, first);                                      \
    while (va_arg(ap, const char *))                          \
        n_++;                                                 \
    va_end(ap);                                               \
    char *argv[n_ + 1];                                       \
    argv[0] = (char *)(first);                                \
    va_start(ap, first);                                      \
    for (size_t i_ = 1; i_ <= n_; i_++)                       \
        argv[i_] = va_arg(ap, char *);

int execl(const char *path, const char *arg, ...)
{
    va_list ap;
    COLLECT_ARGS(arg, ap, argv)
    va_end(ap);
    return execve(path, argv, environ);
}

int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    COLLECT_ARGS(arg, ap, argv)
    va_end(ap);
    return execvpe(file, argv, environ);
}

int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    COLLECT_ARGS(arg, ap, argv)
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    return execve(path, argv, envp);
}
