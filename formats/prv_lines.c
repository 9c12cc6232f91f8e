/* SPDX-License-Identifier: BSD-3-Clause */
#include "prv_lines.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prv_reader.h"
#include "common/tf_array.h"

int tf_prv_lines_open(const char *path, FILE **out, tf_error *err)
{
    *out = NULL;
    /* O_NONBLOCK: opening a FIFO without a writer must not hang. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return tf_fail(err, errno == ENOENT ? TF_ERR_NOTFOUND : TF_ERR_IO, "%s: cannot open: %s",
                       path, strerror(errno));
    struct stat st;
    int rc = 0;
    if (fstat(fd, &st) != 0)
        rc = tf_fail(err, TF_ERR_IO, "%s: cannot read its status: %s", path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = tf_fail(err, TF_ERR_FORMAT, "%s: not a regular file", path);
    else if (!(*out = fdopen(fd, "r")))
        rc = tf_fail(err, TF_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (rc < 0)
        close(fd);
    return rc;
}

int tf_prv_lines_next(FILE *f, const char *path, char **buf, size_t *cap, size_t *len,
                      unsigned long *line, tf_error *err)
{
    size_t n = 0;
    int c;
    /* Byte by byte: these files are small, and NUL bytes stay countable. */
    while ((c = getc_unlocked(f)) != EOF && c != '\n') {
        if (n == TF_PRV_MAX_LINE)
            return tf_fail(err, TF_ERR_FORMAT, "%s: line %lu: no end of line within %u MiB: "
                           "not a Paraver text file", path, *line + 1, TF_PRV_MAX_LINE >> 20);
        char *nb = tf_array_room(*buf, n, cap, 1, 256);
        if (!nb)
            return tf_fail(err, TF_ERR_NOMEM, "%s: line %lu: out of memory", path, *line + 1);
        *buf = nb;
        (*buf)[n++] = (char)c;
    }
    if (ferror(f))
        return tf_fail(err, TF_ERR_IO, "%s: line %lu: read error: %s", path, *line + 1,
                       strerror(errno));
    if (c == EOF && n == 0)
        return 0;
    char *nb = tf_array_room(*buf, n, cap, 1, 256);
    if (!nb)
        return tf_fail(err, TF_ERR_NOMEM, "%s: line %lu: out of memory", path, *line + 1);
    *buf = nb;
    (*buf)[n] = '\0';
    *len = n;
    ++*line;
    return 1;
}
