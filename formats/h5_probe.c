/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include "h5_probe.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "h5util.h"
#include "trace.h"

/* HDF5 format specification, "Format Signature": 8 bytes at offset 0, 512,
 * 1024, 2048, ... (a user block may come first). */
static const unsigned char signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

static bool has_signature(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    struct stat st;
    bool found = false;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        for (off_t at = 0; !found && at + (off_t)sizeof signature <= st.st_size;
             at = at ? 2 * at : 512) {
            unsigned char head[sizeof signature];
            found = pread(fd, head, sizeof head, at) == (ssize_t)sizeof head &&
                    !memcmp(head, signature, sizeof signature);
        }
    }
    close(fd);
    return found;
}

bool tf_h5_file_has_format(const char *path, const char *format)
{
    if (!has_signature(path))
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
