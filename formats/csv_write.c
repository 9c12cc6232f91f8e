/* SPDX-License-Identifier: BSD-3-Clause */
#include "csv_write.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "common/tf_escape.h"

int tf_out_open(const char *dir, const char *name, FILE **f, tf_error *err)
{
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
        return tf_fail(err, TF_ERR_USAGE, "%s/%s: path too long", dir, name);
    *f = fopen(path, "w");
    if (!*f)
        return tf_fail(err, TF_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    return 0;
}

int tf_out_close(FILE *f, const char *dir, const char *name, tf_error *err)
{
    bool bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return tf_fail(err, TF_ERR_IO, "%s/%s: write error: %s", dir, name, strerror(errno));
    return 0;
}

void tf_csv_text(FILE *f, const char *s)
{
    /* Escaped first (tf_escape.h), so no line break is left to quote. */
    bool quote = strpbrk(s, ",\"") != NULL;
    if (quote)
        fputc('"', f);
    tf_escape_put_marked(f, s, '"', '"');
    if (quote)
        fputc('"', f);
}

void tf_csv_number(FILE *f, double v, int digits)
{
    if (!isnan(v))
        fprintf(f, "%.*g", digits, v);
}
