/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include "h5_probe.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "h5util.h"
#include "trace.h"

bool tf_h5_file_has_format(const char *path, const char *format)
{
    if (!tf_h5_has_signature(path))
        return false;
    int64_t f;
    tf_error err;
    if (tf_h5_file_open(path, false, &f, &err) < 0)
        return false;
    char *value = NULL;
    bool yes = tf_h5_attr_read_string(f, "format", &value, &err) == 0 && !strcmp(value, format);
    free(value);
    tf_h5_close(f);
    return yes;
}

bool tf_h5_is_trace(const char *path)
{
    return tf_h5_file_has_format(path, TF_TRACE_FORMAT);
}
