/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include "tf_output.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The marker's first line; the entries follow, one a line. */
#define MARKER_HEADER "# written by tracefold; --force replaces this folder while it holds only:"

static bool same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* The input that is the file st, or NULL. */
static const char *input_at(const struct stat *st, const tf_output_rule *r)
{
    for (size_t k = 0; k < r->ninputs; k++) {
        struct stat in;
        if (stat(r->inputs[k], &in) == 0 && same_file(&in, st))
            return r->inputs[k];
    }
    return NULL;
}

/* The input that is the folder st or lies inside it (its real path's
 * folders compared by inode, so that links lead to where it really is). */
static const char *input_inside(const struct stat *st, const tf_output_rule *r)
{
    for (size_t k = 0; k < r->ninputs; k++) {
        char real[PATH_MAX];
        if (!realpath(r->inputs[k], real))
            continue;
        for (char *end = real + strlen(real); end > real;) {
            *end = '\0';
            struct stat up;
            if (stat(*real ? real : "/", &up) == 0 && same_file(&up, st))
                return r->inputs[k];
            end = strrchr(real, '/');
            if (!end)
                break;
        }
    }
    return NULL;
}

/* What tf_output_check_file let through at each path: nothing there, or
 * the file (device and inode) that --force may replace, so that the
 * output's commit replaces that file and nothing created since.  Kept for
 * the process's life: a command checks a handful of outputs. */
typedef struct checked {
    char *path;
    bool  existed;
    dev_t dev;
    ino_t ino;
} checked;

static struct {
    pthread_mutex_t lock;
    checked *e;
    size_t   n, cap;
} checks = { .lock = PTHREAD_MUTEX_INITIALIZER };

static checked *find_check(const char *path)
{
    for (size_t i = 0; i < checks.n; i++)
        if (!strcmp(checks.e[i].path, path))
            return &checks.e[i];
    return NULL;
}

/* Remembers the check's finding at path (st NULL: nothing there). */
static int remember(const char *path, const struct stat *st, tf_error *err)
{
    pthread_mutex_lock(&checks.lock);
    checked *c = find_check(path);
    if (!c && checks.n == checks.cap) {
        size_t cap = checks.cap ? 2 * checks.cap : 8;
        checked *e = realloc(checks.e, cap * sizeof *e);
        if (e) {
            checks.e = e;
            checks.cap = cap;
        }
    }
    if (!c && checks.n < checks.cap && (checks.e[checks.n].path = strdup(path)))
        c = &checks.e[checks.n++];
    if (c)
        *c = (checked){ .path = c->path, .existed = st != NULL, .dev = st ? st->st_dev : 0,
                        .ino = st ? st->st_ino : 0 };
    pthread_mutex_unlock(&checks.lock);
    return c ? 0 : tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", path);
}

/* What the check found at path: -1 it never looked, 0 nothing, 1 a file
 * that may be replaced (its device and inode then in *dev, *ino). */
static int recall(const char *path, dev_t *dev, ino_t *ino)
{
    pthread_mutex_lock(&checks.lock);
    checked *c = find_check(path);
    int found = !c ? -1 : c->existed;
    if (found == 1) {
        *dev = c->dev;
        *ino = c->ino;
    }
    pthread_mutex_unlock(&checks.lock);
    return found;
}

int tf_output_check_file(const char *path, const tf_output_rule *r, tf_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno != ENOENT && errno != ENOTDIR)
            return tf_fail(err, TF_ERR_IO, "%s: %s", path, strerror(errno));
        /* A link to nothing: writing through it would create a file where
         * the link points, which need not be where the user looks (or,
         * in a shared folder, where someone else wants it). */
        char target[PATH_MAX];
        ssize_t len = readlink(path, target, sizeof target - 1);
        if (len >= 0)
            return tf_fail(err, TF_ERR_EXISTS, "%s: a link to %.*s, which does not exist; "
                           "not followed, even with --force: choose another output", path,
                           (int)len, target);
        return remember(path, NULL, err);
    }
    const char *in = input_at(&st, r);
    if (in)
        return tf_fail(err, TF_ERR_USAGE, "%s: the output is the input %s; choose another output",
                       path, in);
    if (!r->force)
        return tf_fail(err, TF_ERR_EXISTS, "%s: exists (use --force to replace it)", path);
    if (!S_ISREG(st.st_mode))
        return tf_fail(err, TF_ERR_EXISTS, "%s: exists and is not a regular file; not replaced, "
                       "even with --force", path);
    if (r->ours && !r->ours(path))
        return tf_fail(err, TF_ERR_EXISTS, "%s: exists and is not %s; not replaced, even with "
                       "--force", path, r->kind);
    return remember(path, &st, err);
}

bool tf_output_may_replace(const char *path)
{
    dev_t dev;
    ino_t ino;
    struct stat st;
    int found = recall(path, &dev, &ino);
    return found < 0 ||
           (found == 1 && stat(path, &st) == 0 && st.st_dev == dev && st.st_ino == ino);
}

int tf_output_commit(const char *tmp, const char *path, tf_error *err)
{
    if (tf_output_may_replace(path)) {
        if (rename(tmp, path) == 0)
            return 0;
        return tf_fail(err, TF_ERR_IO, "%s: cannot rename %s into place: %s", path, tmp,
                       strerror(errno));
    }
    /* Nothing was there when checked (or what was has gone): whatever is
     * there now appeared meanwhile and is not replaced.  RENAME_NOREPLACE
     * (Linux 3.15) makes the test and the rename one step; where the file
     * system lacks it, link(2) fails the same way on an existing name. */
    int rc = renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE);
    if (rc != 0 && (errno == EINVAL || errno == ENOSYS) && (rc = link(tmp, path)) == 0)
        unlink(tmp);
    if (rc == 0)
        return 0;
    if (errno == EEXIST)
        return tf_fail(err, TF_ERR_EXISTS, "%s: appeared while tracefold was writing it; "
                       "not replaced", path);
    return tf_fail(err, TF_ERR_IO, "%s: cannot rename %s into place: %s", path, tmp,
                   strerror(errno));
}

/* Whether name is one of the lines after the header of the marker text. */
static bool listed(const char *text, const char *name)
{
    size_t len = strlen(name);
    for (const char *line = strchr(text, '\n'); line; line = strchr(line, '\n')) {
        line++;
        if (!strncmp(line, name, len) && line[len] == '\n')
            return true;
    }
    return false;
}

/* The marker's text (NUL-terminated, to free), or NULL when dir holds no
 * marker that tracefold wrote. */
static char *read_marker(const char *dir, const char *marker)
{
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, marker) >= sizeof path)
        return NULL;
    FILE *f = fopen(path, "re");
    if (!f)
        return NULL;
    size_t cap = 4096, len = 0;
    char *text = malloc(cap + 1);
    while (text) {
        size_t got = fread(text + len, 1, cap - len, f);
        len += got;
        if (len < cap)
            break;
        char *more = cap < (1u << 20) ? realloc(text, 2 * cap + 1) : NULL;
        if (!more) {
            free(text);
            text = NULL;
            break;
        }
        text = more;
        cap *= 2;
    }
    fclose(f);
    if (!text)
        return NULL;
    text[len] = '\0';
    if (strncmp(text, MARKER_HEADER "\n", strlen(MARKER_HEADER) + 1) != 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* 0 when the existing folder path may be replaced: empty, or holding the
 * marker and nothing the marker does not list. */
static int check_entries(const char *path, const char *marker, tf_error *err)
{
    DIR *d = opendir(path);
    if (!d)
        return tf_fail(err, TF_ERR_IO, "%s: %s", path, strerror(errno));
    char *text = NULL;
    bool read = false;
    int rc = 0;
    for (struct dirent *e; rc == 0 && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, marker))
            continue;
        if (!read) {
            text = read_marker(path, marker);
            read = true;
        }
        if (!text)
            rc = tf_fail(err, TF_ERR_EXISTS, "%s: a folder tracefold did not write (no %s in "
                         "it); not replaced, even with --force: choose another output",
                         path, marker);
        else if (!listed(text, e->d_name))
            rc = tf_fail(err, TF_ERR_EXISTS, "%s: holds %s, which tracefold did not write; not "
                         "replaced, even with --force: move it out or choose another output",
                         path, e->d_name);
    }
    closedir(d);
    free(text);
    return rc;
}

int tf_output_check_folder(const char *path, const char *marker, const tf_output_rule *r,
                           bool *exists, tf_error *err)
{
    struct stat st;
    *exists = false;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        return tf_fail(err, TF_ERR_IO, "%s: %s", path, strerror(errno));
    }
    *exists = true;
    if (!S_ISDIR(st.st_mode))
        return tf_fail(err, TF_ERR_EXISTS, "%s: exists and is not a folder", path);
    const char *in = marker ? input_inside(&st, r) : NULL;
    if (in)
        return tf_fail(err, TF_ERR_USAGE, "%s: the output folder holds the input %s; choose "
                       "another output", path, in);
    if (!r->force)
        return tf_fail(err, TF_ERR_EXISTS, "%s: exists (use --force to replace it)", path);
    return marker ? check_entries(path, marker, err) : 0;
}

int tf_output_mark_folder(const char *dir, const char *marker, tf_error *err)
{
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, marker) >= sizeof path)
        return tf_fail(err, TF_ERR_IO, "%s/%s: name too long", dir, marker);
    DIR *d = opendir(dir);
    FILE *f = d ? fopen(path, "we") : NULL;
    if (!f) {
        int e = errno;
        if (d)
            closedir(d);
        return tf_fail(err, TF_ERR_IO, "%s: cannot create: %s", path, strerror(e));
    }
    fprintf(f, "%s\n", MARKER_HEADER);
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, marker))
            fprintf(f, "%s\n", e->d_name);
    closedir(d);
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad)
        return tf_fail(err, TF_ERR_IO, "%s: write error: %s", path, strerror(errno));
    return 0;
}

int tf_output_make_parents(const char *path, tf_error *err)
{
    char dir[PATH_MAX];
    if ((size_t)snprintf(dir, sizeof dir, "%s", path) >= sizeof dir)
        return tf_fail(err, TF_ERR_IO, "%s: name too long", path);
    for (char *slash = strchr(dir + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
        *slash = '\0';
        struct stat st;
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            return tf_fail(err, TF_ERR_IO, "%s: cannot create the folder %s: %s", path, dir,
                           strerror(errno));
        int e = stat(dir, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
        if (e)
            return tf_fail(err, TF_ERR_IO, "%s: cannot create the folder %s: %s", path, dir,
                           strerror(e));
        *slash = '/';
    }
    return 0;
}

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    (void)sb;
    (void)type;
    (void)ftw;
    return remove(path);
}

void tf_output_remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int tf_output_begin_folder(const char *path, char *tmp, size_t len, tf_error *err)
{
    snprintf(tmp, len, "%s.tmp-%ld", path, (long)getpid());
    if (mkdir(tmp, 0777) != 0)
        return tf_fail(err, TF_ERR_IO, "%s: cannot create the output directory: %s", tmp,
                       strerror(errno));
    return 0;
}

int tf_output_finish_folder(const char *tmp, const char *path, const char *marker, bool replace,
                            int rc, tf_error *err)
{
    char old[PATH_MAX + 32];
    snprintf(old, sizeof old, "%s.old-%ld", path, (long)getpid());
    if (rc == 0)
        rc = tf_output_mark_folder(tmp, marker, err);
    if (rc == 0 && replace && rename(path, old) != 0)
        rc = tf_fail(err, TF_ERR_IO, "%s: cannot move the earlier output aside: %s", path,
                     strerror(errno));
    if (rc == 0 && rename(tmp, path) != 0) {
        rc = tf_fail(err, TF_ERR_IO, "%s: cannot rename %s to it: %s", path, tmp,
                     strerror(errno));
        if (replace)
            rename(old, path);
    }
    if (rc < 0)
        tf_output_remove_tree(tmp);
    else if (replace)
        tf_output_remove_tree(old);
    return rc;
}
