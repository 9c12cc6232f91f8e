/* SPDX-License-Identifier: BSD-3-Clause */
#include "trace_input.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>


static bool lenient;
static tf_input_hooks hooks;

void tf_input_set_lenient(bool on) { lenient = on; }

void tf_input_set_hooks(const tf_input_hooks *h)
{
    hooks = h ? *h : (tf_input_hooks){0};
}

bool tf_input_is_paraver(const char *path)
{
    size_t n = strlen(path);
    return (n > 4 && !strcmp(path + n - 4, ".prv")) || (n > 7 && !strcmp(path + n - 7, ".prv.gz"));
}

/* Traces converted from Paraver live in a temporary folder each, removed
 * when the trace is closed, and by the handler below when the command is
 * interrupted.  Fixed slots of fixed paths, so that the handler touches
 * nothing but async-signal-safe calls and memory that stays put. */
#define MAX_CONVERSIONS 8

typedef struct conversion {
    volatile sig_atomic_t used;
    tf_trace *tr;
    char      source[4096];    /* the .prv as the user named it */
    char      dir[4096];
    char      file[4400];
    char      partial[4480];   /* the trace output's name while it writes */
} conversion;

static conversion conversions[MAX_CONVERSIONS];

static void remove_conversion(conversion *c)
{
    unlink(c->partial);
    unlink(c->file);
    rmdir(c->dir);
}

/* The signals that end a command and remove its conversions first. */
static const int watched[] = {SIGINT, SIGTERM, SIGHUP};

static void on_signal(int sig)
{
    for (size_t i = 0; i < MAX_CONVERSIONS; i++)
        if (conversions[i].used)
            remove_conversion(&conversions[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Installed once, and only over the default action of each signal. */
static void watch_signals(void)
{
    static bool done;
    if (done)
        return;
    done = true;
    for (size_t i = 0; i < sizeof watched / sizeof watched[0]; i++) {
        struct sigaction old;
        if (sigaction(watched[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL) {
            struct sigaction sa = {.sa_handler = on_signal};
            sigemptyset(&sa.sa_mask);
            sigaction(watched[i], &sa, NULL);
        }
    }
}

/* A message about the temporary conversion names the user's .prv instead:
 * the temporary folder is gone when the message is read. */
static void name_source(const conversion *c, tf_error *err)
{
    if (!err)
        return;
    const char *const temp[] = {c->partial, c->file};   /* the longer first: it starts with the other */
    for (size_t i = 0; i < sizeof temp / sizeof temp[0]; i++) {
        char *at = strstr(err->msg, temp[i]);
        if (!at)
            continue;
        char rest[TF_ERROR_MSG_MAX];
        snprintf(rest, sizeof rest, "%s", at + strlen(temp[i]));
        *at = '\0';
        size_t used = strlen(err->msg);
        snprintf(err->msg + used, sizeof err->msg - used, "%s (its conversion)%s", c->source,
                 rest);
        return;
    }
}

static int open_paraver(const char *path, tf_trace **tr, tf_error *err)
{
    conversion *c = NULL;
    for (size_t i = 0; i < MAX_CONVERSIONS && !c; i++)
        if (!conversions[i].used)
            c = &conversions[i];
    if (!c)
        return tf_fail(err, TF_ERR_UNSUPPORTED, "%s: more than %d Paraver traces open at once",
                       path, MAX_CONVERSIONS);
    const char *tmp = getenv("TMPDIR");
    /* Named after the .prv, so messages about the conversion point at it. */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if ((size_t)snprintf(c->dir, sizeof c->dir, "%s/tracefold-prv-XXXXXX",
                         tmp && *tmp ? tmp : "/tmp") >= sizeof c->dir ||
        strlen(base) > 255 || strlen(path) >= sizeof c->source)
        return tf_fail(err, TF_ERR_USAGE, "%s: name too long for a temporary conversion", path);
    /* Held back until the folder is on the list the signal handler empties. */
    sigset_t hold, was;
    sigemptyset(&hold);
    for (size_t i = 0; i < sizeof watched / sizeof watched[0]; i++)
        sigaddset(&hold, watched[i]);
    sigprocmask(SIG_BLOCK, &hold, &was);
    if (!mkdtemp(c->dir)) {
        int saved = errno;
        sigprocmask(SIG_SETMASK, &was, NULL);
        return tf_fail(err, TF_ERR_IO, "%s: cannot create a folder for the conversion of %s: %s",
                       c->dir, path, strerror(saved));
    }
    snprintf(c->file, sizeof c->file, "%s/%s.h5", c->dir, base);
    snprintf(c->source, sizeof c->source, "%s", path);
    snprintf(c->partial, sizeof c->partial, "%s.tmp-%ld", c->file, (long)getpid());
    watch_signals();
    c->used = 1;
    sigprocmask(SIG_SETMASK, &was, NULL);
    tf_prv_import_stats st;
    int rc = tf_prv_import(path, c->file, lenient, hooks.progress, hooks.arg, &st, err);
    if (hooks.done)
        hooks.done(hooks.arg);
    if (rc == 0 && hooks.imported)
        hooks.imported(hooks.arg, path, &st);
    if (rc == 0)
        rc = tf_trace_open(tr, c->file, err);
    if (rc < 0) {
        name_source(c, err);
        remove_conversion(c);
        c->used = 0;
        return rc;
    }
    c->tr = *tr;
    return 0;
}

int tf_input_open(const char *path, tf_trace **tr, tf_error *err)
{
    *tr = NULL;
    if (tf_input_is_paraver(path))
        return open_paraver(path, tr, err);
    return tf_trace_open(tr, path, err);
}

/* The *.h5 files of a directory, by name. */
static int list_traces(const char *dir, char ***paths, size_t *n, tf_error *err)
{
    struct dirent **ents;
    int k = scandir(dir, &ents, NULL, alphasort);
    if (k < 0)
        return tf_fail(err, TF_ERR_IO, "%s: cannot list the directory: %s", dir, strerror(errno));
    char **list = calloc((size_t)k + 1, sizeof *list);
    size_t m = 0;
    for (int i = 0; i < k; i++) {
        size_t len = strlen(ents[i]->d_name);
        if (list && len > 3 && !strcmp(ents[i]->d_name + len - 3, ".h5") &&
            asprintf(&list[m], "%s/%s", dir, ents[i]->d_name) > 0)
            m++;
        free(ents[i]);
    }
    free(ents);
    if (!list)
        return tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", dir);
    if (m == 0) {
        free(list);
        return tf_fail(err, TF_ERR_USAGE, "%s: no trace (*.h5) in the directory", dir);
    }
    *paths = list;
    *n = m;
    return 0;
}

/* A reader of a set may hold every member file open at once (the Paraver
 * export merges all threads' samples in time order): allow as many
 * descriptors as the hard limit does (1024 by default would stop near a
 * thousand ranks). */
static void raise_file_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

int tf_input_open_set(char *const *paths, size_t n, tf_trace **tr, tf_error *err)
{
    *tr = NULL;
    raise_file_limit();
    struct stat st;
    if (n == 1 && stat(paths[0], &st) == 0 && S_ISDIR(st.st_mode)) {
        char **list = NULL;
        size_t m = 0;
        int rc = list_traces(paths[0], &list, &m, err);
        if (rc < 0)
            return rc;
        rc = tf_trace_open_set(tr, (const char *const *)list, m, err);
        for (size_t i = 0; i < m; i++)
            free(list[i]);
        free(list);
        return rc;
    }
    if (n == 1)
        return tf_input_open(paths[0], tr, err);
    for (size_t i = 0; i < n; i++)
        if (tf_input_is_paraver(paths[i]))
            return tf_fail(err, TF_ERR_USAGE, "%s: Paraver traces are read one at a time "
                           "(several traces must be tracefold HDF5 traces)", paths[i]);
    return tf_trace_open_set(tr, (const char *const *)paths, n, err);
}

const char *tf_input_source(const tf_trace *tr)
{
    for (size_t i = 0; i < MAX_CONVERSIONS; i++)
        if (conversions[i].used && conversions[i].tr == tr)
            return conversions[i].source;
    return tf_trace_path(tr);
}

void tf_input_close(tf_trace *tr)
{
    if (!tr)
        return;
    tf_trace_close(tr);
    for (size_t i = 0; i < MAX_CONVERSIONS; i++)
        if (conversions[i].used && conversions[i].tr == tr) {
            remove_conversion(&conversions[i]);
            conversions[i].used = 0;
            break;
        }
}

int tf_input_region_name(const tf_trace *tr, const char *spec, char **name, tf_error *err)
{
    *name = NULL;
    if (strchr(spec, '=')) {
        int rc = tf_prv_region_resolve(tr, spec, name, err);
        uint32_t id;
        /* A region whose own name contains '=' is taken as it is. */
        if (rc == 0 || !tf_trace_find_string(tr, spec, &id))
            return rc;
        tf_error_clear(err);
    }
    *name = strdup(spec);
    return *name ? 0 : tf_fail(err, TF_ERR_NOMEM, "out of memory");
}
