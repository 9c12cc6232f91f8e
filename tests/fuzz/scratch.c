/* SPDX-License-Identifier: BSD-3-Clause */
/* The harnesses' scratch directory: one per process, in memory when
 * /dev/shm is there (HDF5 and the Paraver reader need real files), removed
 * with what is left in it when the process ends normally. */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

static char scratch[256];

static void remove_scratch(void)
{
    DIR *d = opendir(scratch);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            unlinkat(dirfd(d), e->d_name, 0);
    closedir(d);
    rmdir(scratch);
}

static const char *scratch_dir(void)
{
    if (scratch[0])
        return scratch;
    const char *tmp = getenv("TMPDIR");
    const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : tmp && *tmp ? tmp : "/tmp";
    snprintf(scratch, sizeof scratch, "%s/tracefold-fuzz-XXXXXX", base);
    if (!mkdtemp(scratch)) {
        perror(scratch);
        abort();
    }
    atexit(remove_scratch);
    return scratch;
}

void tf_fuzz_path(const char *name, char *path, size_t pathsize)
{
    snprintf(path, pathsize, "%s/%s", scratch_dir(), name);
}

void tf_fuzz_file(const char *name, const uint8_t *data, size_t size, char *path,
                  size_t pathsize)
{
    tf_fuzz_path(name, path, pathsize);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    size_t done = 0;
    while (fd >= 0 && done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    if (fd < 0 || done < size || close(fd) < 0) {
        perror(path);
        abort();
    }
}
