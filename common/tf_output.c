/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include "tf_output.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
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

int tf_output_check_file(const char *path, const tf_output_rule *r, tf_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;   /* nothing there, or a dangling link: created anew (or
                           refused by the creation, naming the cause) */
        return tf_fail(err, TF_ERR_IO, "%s: %s", path, strerror(errno));
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
    return 0;
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
