/* SPDX-License-Identifier: BSD-3-Clause */
#include "prv_row.h"
#include "prv_lines.h"
#include "prv_reader.h"
#include "common/tf_escape.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static const char *const level_names[TF_ROW_NLEVELS] = {
    "CPU", "NODE", "THREAD", "TASK", "APPL", "WORKLOAD", "SYSTEM",
};

const char *tf_row_level_name(enum tf_row_level level) { return level_names[level]; }

int tf_row_add(tf_row *row, enum tf_row_level level, const char *name, tf_error *err)
{
    size_t n = row->n[level];
    /* Grow in powers of two: the capacity is implied by the count. */
    if ((n & (n - 1)) == 0) {
        char **nn = realloc(row->names[level], (n ? 2 * n : 1) * sizeof *nn);
        if (!nn)
            return tf_fail(err, TF_ERR_NOMEM, "out of memory");
        row->names[level] = nn;
    }
    if (!(row->names[level][n] = strdup(name)))
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    row->n[level] = n + 1;
    return 0;
}

const char *tf_row_name(const tf_row *row, enum tf_row_level level, size_t i)
{
    return i < row->n[level] ? row->names[level][i] : NULL;
}

void tf_row_free(tf_row *row)
{
    for (int l = 0; l < TF_ROW_NLEVELS; l++) {
        for (size_t i = 0; i < row->n[l]; i++)
            free(row->names[l][i]);
        free(row->names[l]);
    }
    memset(row, 0, sizeof *row);
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

int tf_row_read(const char *path, tf_row *row, tf_error *err)
{
    memset(row, 0, sizeof *row);
    FILE *f;
    int rc = tf_prv_lines_open(path, &f, err);
    if (rc < 0)
        return rc;
    char *buf = NULL;
    size_t cap = 0, len;
    unsigned long line = 0;
    int level = -1;
    unsigned long left = 0;    /* names still expected in the current section */
    while (rc == 0 && (rc = tf_prv_lines_next(f, path, &buf, &cap, &len, &line, err)) == 1) {
        rc = 0;
        char *p = trim(buf);
        if (left == 0) {
            if (!*p)
                continue;
            char word[16];
            int used = 0;
            if (sscanf(p, "LEVEL %15s SIZE %lu%n", word, &left, &used) != 2 || p[used]) {
                rc = tf_fail(err, TF_ERR_FORMAT, "%s: line %lu: expected 'LEVEL NAME SIZE N'",
                             path, line);
                break;
            }
            level = -1;
            for (int l = 0; l < TF_ROW_NLEVELS; l++)
                if (!strcmp(word, level_names[l]))
                    level = l;
            if (level < 0)
                rc = tf_fail(err, TF_ERR_FORMAT,
                             "%s: line %lu: unknown level '%s' (CPU, NODE, THREAD, TASK, APPL, WORKLOAD, SYSTEM)",
                             path, line, word);
            else if (row->line[level])
                rc = tf_fail(err, TF_ERR_FORMAT, "%s: line %lu: level %s given twice", path,
                             line, word);
            else
                row->line[level] = line;
            continue;
        }
        rc = tf_row_add(row, (enum tf_row_level)level, p, err);
        left--;
    }
    if (rc == 0 && left)
        rc = tf_fail(err, TF_ERR_FORMAT, "%s: line %lu: level %s ends %lu names short of its SIZE",
                     path, line, level_names[level], left);
    /* The label tables' own messages ("out of memory") get the place. */
    if (rc < 0 && err && strncmp(err->msg, path, strlen(path)) != 0)
        tf_error_prefix(err, "%s: line %lu: ", path, line);
    free(buf);
    fclose(f);
    if (rc < 0)
        tf_row_free(row);
    return rc;
}

int tf_row_check_counts(const tf_row *row, const char *path, const tf_prv_header *h,
                        tf_error *err)
{
    const struct { enum tf_row_level level; uint64_t want; bool given; } levels[] = {
        {TF_ROW_THREAD, tf_prv_nthreads(h), true},
        {TF_ROW_CPU, h->ncpus, h->nnodes > 0},
        {TF_ROW_NODE, h->nnodes, h->nnodes > 0},
        {TF_ROW_APPL, h->nappls, true},
    };
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        enum tf_row_level l = levels[i].level;
        if (levels[i].given && row->line[l] && row->n[l] != levels[i].want)
            return tf_fail(err, TF_ERR_FORMAT, "%s: line %lu: level %s has %zu names, the .prv "
                           "header %" PRIu64, path, row->line[l], level_names[l], row->n[l],
                           levels[i].want);
    }
    return 0;
}

int tf_row_write(const tf_row *row, FILE *f)
{
    bool first = true;
    for (int l = 0; l < TF_ROW_NLEVELS; l++) {
        if (!row->n[l])
            continue;
        fprintf(f, "%sLEVEL %s SIZE %zu\n", first ? "" : "\n", level_names[l], row->n[l]);
        first = false;
        /* Escaped (tf_escape.h): a name from a trace with a line break
         * would shift every name after it. */
        for (size_t i = 0; i < row->n[l]; i++) {
            tf_escape_put(f, row->names[l][i]);
            fputc('\n', f);
        }
    }
    return ferror(f) ? -1 : 0;
}
