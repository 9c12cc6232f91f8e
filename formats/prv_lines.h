/* SPDX-License-Identifier: BSD-3-Clause */
/* Lines of the small Paraver text files (.pcf, .row): regular files only
 * (a link to a device or a pipe would never end), lines of at most
 * TF_PRV_MAX_LINE bytes, so that a file without newlines cannot make the
 * reader grow one line until memory runs out. */
#ifndef TF_PRV_LINES_H
#define TF_PRV_LINES_H

#include <stddef.h>
#include <stdio.h>

#include "common/tf_error.h"

/* Opens path for reading: TF_ERR_NOTFOUND when it does not exist,
 * TF_ERR_FORMAT when it is not a regular file. */
int tf_prv_lines_open(const char *path, FILE **f, tf_error *err);

/* The next line, without its newline, NUL-terminated in *buf (grown as
 * needed; *len excludes the NUL, and counts any NUL bytes inside the
 * line).  1 with a line, 0 at the end, < 0 on a read error or a line
 * longer than TF_PRV_MAX_LINE; *line is the number of the line read.
 * Messages name path and the line. */
int tf_prv_lines_next(FILE *f, const char *path, char **buf, size_t *cap, size_t *len,
                      unsigned long *line, tf_error *err);

#endif
