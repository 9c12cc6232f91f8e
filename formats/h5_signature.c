/* SPDX-License-Identifier: BSD-3-Clause */
/* The HDF5 signature test of h5_probe.h, apart: it needs no libhdf5, and
 * the `tracefold` binary, which does not link it, uses it alone. */
#include "config.h"

#include "h5_probe.h"

#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* HDF5 format specification, "Format Signature": 8 bytes at offset 0, 512,
 * 1024, 2048, ... (a user block may come first). */
static const unsigned char signature[8] = {0x89, 'H', 'D', 'F', '\r', '\n', 0x1a, '\n'};

bool tf_h5_has_signature(const char *path)
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
