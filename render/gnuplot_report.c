/* SPDX-License-Identifier: BSD-3-Clause */
/* The gnuplot back end: fills a temporary directory with every page's
 * scripts and data, optionally runs gnuplot on the page scripts there, and
 * moves the result to the directory asked for only when all succeeded. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gnuplot_script.h"
#include "common/tf_output.h"

#define LOG_NAME "gnuplot.log"

/* Runs gnuplot on script inside d->tmp, its messages into gnuplot.log. */
static int run_gnuplot(const tf_gp_dir *d, const char *script, tf_error *err)
{
    char log[4096 + 32];
    snprintf(log, sizeof log, "%s/%s", d->tmp, LOG_NAME);
    pid_t pid = fork();
    if (pid < 0)
        return tf_fail(err, TF_ERR_IO, "cannot start %s: %s", TF_GNUPLOT, strerror(errno));
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (fd < 0 || chdir(d->tmp) != 0)
            _exit(126);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        execlp(TF_GNUPLOT, TF_GNUPLOT, script, (char *)NULL);
        _exit(127);
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return tf_fail(err, TF_ERR_IO, "waiting for %s: %s", TF_GNUPLOT, strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return tf_fail(err, TF_ERR_UNSUPPORTED, "%s: gnuplot not found (%s)", d->final, TF_GNUPLOT);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        /* The first line gnuplot complained with names the script and line. */
        char first[512] = "";
        FILE *f = fopen(log, "r");
        if (f) {
            while (fgets(first, sizeof first, f) && (first[0] == '\n' || first[0] == ' '))
                ;
            fclose(f);
        }
        first[strcspn(first, "\n")] = '\0';
        return tf_fail(err, TF_ERR_IO, "%s/%s: gnuplot failed: %s", d->final, script,
                       *first ? first : "no message");
    }
    return 0;
}

/* Moves the finished files into place: the whole directory when the
 * target does not exist, else file by file. */
static int publish(const tf_gp_dir *d, tf_error *err)
{
    if (rename(d->tmp, d->final) == 0)
        return 0;
    if (errno != EEXIST && errno != ENOTEMPTY)
        return tf_fail(err, TF_ERR_IO, "%s: cannot create: %s", d->final, strerror(errno));
    DIR *dh = opendir(d->tmp);
    if (!dh)
        return tf_fail(err, TF_ERR_IO, "%s: %s", d->tmp, strerror(errno));
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(dh))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char from[4096 + 256], to[4096 + 256];
        snprintf(from, sizeof from, "%s/%s", d->tmp, e->d_name);
        snprintf(to, sizeof to, "%s/%s", d->final, e->d_name);
        if (rename(from, to) != 0)
            rc = tf_fail(err, TF_ERR_IO, "%s: cannot write: %s", to, strerror(errno));
    }
    closedir(dh);
    if (rc == 0)
        rmdir(d->tmp);
    return rc;
}

int tf_render_gnuplot(const tf_report *r, const char *dir, enum tf_render_format format,
                      double dpi, bool run, tf_error *err)
{
    tf_render_options o = {.dpi = dpi};
    return tf_render_gnuplot_with(r, dir, format, &o, run, err);
}

int tf_render_gnuplot_with(const tf_report *r, const char *dir, enum tf_render_format format,
                           const tf_render_options *o, bool run, tf_error *err)
{
    if (r->npages == 0)
        return tf_fail(err, TF_ERR_DATA, "%s: no folded region to draw", r->source ? r->source : "report");
    struct stat st;
    if (stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
        return tf_fail(err, TF_ERR_IO, "%s: exists and is not a directory", dir);
    tf_gp_dir d = {.final = dir, .format = format, .dpi = o->dpi, .grayscale = o->grayscale,
                   .size = o->size.w > 0 ? o->size : (tf_page_size){TF_PAGE_WIDTH, TF_PAGE_HEIGHT}};
    tf_palette_use(o->grayscale ? TF_PALETTE_GRAY : TF_PALETTE_COLOUR);
    size_t len = strlen(dir);
    while (len > 1 && dir[len - 1] == '/')
        len--;
    snprintf(d.tmp, sizeof d.tmp, "%.*s.tmp-%ld", (int)len, dir, (long)getpid());
    if (mkdir(d.tmp, 0777) != 0)
        return tf_fail(err, TF_ERR_IO, "%s: cannot create: %s", dir, strerror(errno));
    int rc = tf_gp_style(&d, err);
    for (size_t k = 0; k < r->npages && rc == 0; k++) {
        char prefix[32] = "";
        if (k > 0)
            snprintf(prefix, sizeof prefix, "page%zu-", k + 1);
        rc = tf_gp_timeline(&d, &r->pages[k], prefix, err);
        if (rc == 0)
            rc = tf_gp_tables(&d, &r->pages[k], prefix, err);
        for (int s = 0; s < 2 && rc == 0 && run; s++) {
            char script[64];
            snprintf(script, sizeof script, "%s%s.gp", prefix, s ? "tables" : "timeline");
            rc = run_gnuplot(&d, script, err);
        }
    }
    if (rc == 0)
        rc = publish(&d, err);
    if (rc < 0)
        tf_output_remove_tree(d.tmp);
    tf_palette_use(TF_PALETTE_COLOUR);
    return rc;
}
