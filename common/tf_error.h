/* SPDX-License-Identifier: BSD-3-Clause */
/* Error reporting shared by every stage: a code from one table plus a
 * message that carries the context (file, dataset, line, what was expected).
 * Library code fills a caller-owned tf_error and returns; only the CLI prints. */
#ifndef TF_ERROR_H
#define TF_ERROR_H

#include <stdarg.h>

/* Every error code, defined once: the enum and the messages come from here. */
#define TF_ERROR_TABLE(X)                                              \
    X(TF_OK,          0, "success")                                    \
    X(TF_ERR_USAGE,   1, "invalid argument")                           \
    X(TF_ERR_IO,      2, "input/output error")                         \
    X(TF_ERR_NOMEM,   3, "out of memory")                              \
    X(TF_ERR_FORMAT,  4, "malformed input")                            \
    X(TF_ERR_VERSION, 5, "unsupported format version")                 \
    X(TF_ERR_NOTFOUND,6, "not found")                                  \
    X(TF_ERR_EXISTS,  7, "already exists")                             \
    X(TF_ERR_DATA,    8, "not enough data")                            \
    X(TF_ERR_UNSUPPORTED, 9, "not supported on this system")           \
    X(TF_ERR_INTERNAL, 10, "internal error")                           \
    X(TF_ERR_CANCELED, 11, "canceled")

enum tf_error_code {
#define TF_ERROR_ENUM(name, value, text) name = value,
    TF_ERROR_TABLE(TF_ERROR_ENUM)
#undef TF_ERROR_ENUM
};

#define TF_ERROR_MSG_MAX 1024

typedef struct tf_error {
    int code;                     /* enum tf_error_code */
    char msg[TF_ERROR_MSG_MAX];   /* full message with context, no trailing newline */
} tf_error;

/* Text of a code, for messages ("malformed input"). */
const char *tf_error_text(int code);

/* Records code and a formatted message into err (err may be NULL) and
 * returns -code, so callers can write `return tf_fail(err, ...)`. */
int tf_fail(tf_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int tf_vfail(tf_error *err, int code, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* Prefixes err->msg with context ("trace.h5: "), keeping the code. */
void tf_error_prefix(tf_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static inline void tf_error_clear(tf_error *err)
{
    if (err) {
        err->code = TF_OK;
        err->msg[0] = '\0';
    }
}

#endif
