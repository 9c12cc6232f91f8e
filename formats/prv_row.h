/* SPDX-License-Identifier: BSD-3-Clause */
/* Paraver .row files: the names of CPUs, nodes, threads, tasks and
 * applications, one section per level. */
#ifndef TF_PRV_ROW_H
#define TF_PRV_ROW_H

#include <stddef.h>
#include <stdio.h>

#include "common/tf_error.h"

enum tf_row_level {
    TF_ROW_CPU, TF_ROW_NODE, TF_ROW_THREAD, TF_ROW_TASK, TF_ROW_APPL,
    TF_ROW_WORKLOAD, TF_ROW_SYSTEM, TF_ROW_NLEVELS,
};

typedef struct tf_row {
    size_t n[TF_ROW_NLEVELS];
    char **names[TF_ROW_NLEVELS];
    unsigned long line[TF_ROW_NLEVELS];   /* of the level's LEVEL line; 0: not read */
} tf_row;

struct tf_prv_header;

/* Parses path into row (zeroed first); a missing file is TF_ERR_NOTFOUND. */
int  tf_row_read(const char *path, tf_row *row, tf_error *err);
/* Checks the counts of a .row read from path against the .prv header it
 * goes with (threads, applications, and CPUs and nodes when the header
 * names them): a level given with another count fails, naming path and the
 * level's line.  Levels left out are not checked. */
int  tf_row_check_counts(const tf_row *row, const char *path, const struct tf_prv_header *h,
                         tf_error *err);
/* Appends a name to a level. */
int  tf_row_add(tf_row *row, enum tf_row_level level, const char *name, tf_error *err);
/* Name of object i (0-based) of a level, or NULL. */
const char *tf_row_name(const tf_row *row, enum tf_row_level level, size_t i);
/* The keyword of a level in .row files ("THREAD"). */
const char *tf_row_level_name(enum tf_row_level level);
int  tf_row_write(const tf_row *row, FILE *f);
void tf_row_free(tf_row *row);

#endif
