/* SPDX-License-Identifier: BSD-3-Clause */
/* libtracefold-read's errors: the public codes are the project's own
 * (common/tf_error.h), so a code never needs translating; the assertions
 * keep the two lists from drifting apart. */
#include "read_error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define SAME(pub, internal) ((int)(pub) == (int)(internal))
_Static_assert(SAME(TRACEFOLD_OK, TF_OK) && SAME(TRACEFOLD_ERR_USAGE, TF_ERR_USAGE) &&
               SAME(TRACEFOLD_ERR_IO, TF_ERR_IO) && SAME(TRACEFOLD_ERR_NOMEM, TF_ERR_NOMEM) &&
               SAME(TRACEFOLD_ERR_FORMAT, TF_ERR_FORMAT) &&
               SAME(TRACEFOLD_ERR_VERSION, TF_ERR_VERSION) &&
               SAME(TRACEFOLD_ERR_NOTFOUND, TF_ERR_NOTFOUND) &&
               SAME(TRACEFOLD_ERR_EXISTS, TF_ERR_EXISTS) && SAME(TRACEFOLD_ERR_DATA, TF_ERR_DATA) &&
               SAME(TRACEFOLD_ERR_UNSUPPORTED, TF_ERR_UNSUPPORTED) &&
               SAME(TRACEFOLD_ERR_INTERNAL, TF_ERR_INTERNAL) &&
               SAME(TRACEFOLD_ERR_CANCELED, TF_ERR_CANCELED),
               "enum tracefold_status differs from common/tf_error.h");
_Static_assert(TRACEFOLD_ERROR_MAX >= TF_ERROR_MSG_MAX,
               "a tracefold_error cannot hold every tf_error message");

const char *tracefold_status_text(int code)
{
    return tf_error_text(code);
}

int tf_read_error(tracefold_error *out, const tf_error *e)
{
    if (out) {
        out->code = e->code;
        snprintf(out->message, sizeof out->message, "%s", e->msg);
    }
    return -e->code;
}

int tf_read_fail(tracefold_error *out, int code, const char *fmt, ...)
{
    tf_error e;
    va_list ap;
    va_start(ap, fmt);
    tf_vfail(&e, code, fmt, ap);
    va_end(ap);
    return tf_read_error(out, &e);
}
