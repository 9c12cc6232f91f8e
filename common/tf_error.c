/* SPDX-License-Identifier: BSD-3-Clause */
#include "tf_error.h"

#include <stdio.h>
#include <string.h>

const char *tf_error_text(int code)
{
    switch (code) {
#define TF_ERROR_CASE(name, value, text) case value: return text;
        TF_ERROR_TABLE(TF_ERROR_CASE)
#undef TF_ERROR_CASE
    }
    return "unknown error";
}

int tf_vfail(tf_error *err, int code, const char *fmt, va_list ap)
{
    if (err) {
        err->code = code;
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    }
    return -code;
}

int tf_fail(tf_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = tf_vfail(err, code, fmt, ap);
    va_end(ap);
    return rc;
}

void tf_error_prefix(tf_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    char prefix[TF_ERROR_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    size_t plen = strlen(prefix);
    if (plen >= sizeof err->msg)
        plen = sizeof err->msg - 1;
    size_t mlen = strnlen(err->msg, sizeof err->msg - 1);
    if (plen + mlen >= sizeof err->msg)
        mlen = sizeof err->msg - 1 - plen;
    memmove(err->msg + plen, err->msg, mlen);
    memcpy(err->msg, prefix, plen);
    err->msg[plen + mlen] = '\0';
}
