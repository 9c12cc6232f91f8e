/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include "tf_trace_name.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common/tf_output.h"

static bool several_ranks(const tf_trace_name_vars *v)
{
    return v->rank >= 0 && (v->nranks >= 2 || v->rank > 0);
}

/* Whether the pattern uses %c (a %% is a percent sign, not a field). */
static bool uses(const char *pattern, char c)
{
    for (const char *s = pattern; *s; s++)
        if (*s == '%' && s[1] && *++s == c)
            return true;
    return false;
}

void tf_trace_name_expand(const char *pattern, const tf_trace_name_vars *v, char *buf,
                          size_t size)
{
    char out[1024];
    size_t k = 0;
    const char *base = strrchr(v->exe, '/');
    base = base ? base + 1 : v->exe;
    for (const char *c = pattern; *c && k + 1 < sizeof out; c++) {
        char piece[300];
        if (*c != '%' || !c[1]) {
            out[k++] = *c;
            continue;
        }
        switch (*++c) {
        case 'p': snprintf(piece, sizeof piece, "%" PRId64, v->pid); break;
        case 'r': snprintf(piece, sizeof piece, "%" PRId32, v->rank < 0 ? 0 : v->rank); break;
        case 'h': snprintf(piece, sizeof piece, "%.299s", v->host); break;
        case 'e': snprintf(piece, sizeof piece, "%.299s", *base ? base : "program"); break;
        case '%': snprintf(piece, sizeof piece, "%%"); break;
        default: snprintf(piece, sizeof piece, "%%%c", *c); break;
        }
        size_t len = strlen(piece);
        if (k + len >= sizeof out)
            break;
        memcpy(out + k, piece, len);
        k += len;
    }
    out[k] = '\0';
    if (!several_ranks(v) || uses(pattern, 'r')) {
        snprintf(buf, size, "%s", out);
        return;
    }
    const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    int stem = dot && dot > out && (!slash || dot > slash + 1) ? (int)(dot - out) : (int)k;
    snprintf(buf, size, "%.*s.%04" PRId32 "%s", stem, out, v->rank, out + stem);
}

bool tf_trace_name_known(const char *pattern)
{
    return !uses(pattern, 'p') && !uses(pattern, 'e');
}

int tf_trace_name_prepare(const char *path, bool force, bool (*ours)(const char *path),
                          tf_error *err)
{
    tf_output_rule rule = { .force = force, .ours = ours, .kind = "a tracefold trace" };
    int rc = tf_output_make_parents(path, err);
    return rc ? rc : tf_output_check_file(path, &rule, err);
}
