/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include "locate.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Folders relative to the binary's: first the build tree's (where the
 * Makefile fragments build each part), then the installed layout's. */
static const char *const library_dirs[] = {"record/.libs", "../lib", "../lib64", NULL};
static const char *const module_dirs[] = {"record/.libs", "../lib/tracefold",
                                          "../lib64/tracefold", NULL};
static const char *const program_dirs[] = {"cli", "../libexec/tracefold", NULL};

static int found(char *buf, size_t size, const char *dir, const char *name, int mode)
{
    return snprintf(buf, size, "%s/%s", dir, name) < (int)size && !access(buf, mode);
}

int tf_locate(enum tf_part kind, const char *name, char *buf, size_t size)
{
    const char *const *rel = kind == TF_PART_LIBRARY ? library_dirs
                           : kind == TF_PART_MODULE  ? module_dirs : program_dirs;
    const char *configured = kind == TF_PART_LIBRARY ? TF_LIBDIR
                           : kind == TF_PART_MODULE  ? TF_PKGLIBDIR : TF_PKGLIBEXECDIR;
    int mode = kind == TF_PART_PROGRAM ? X_OK : R_OK;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = '\0';
        for (size_t i = 0; rel[i]; i++) {
            char dir[PATH_MAX];
            if (snprintf(dir, sizeof dir, "%s/%s", exe, rel[i]) < (int)sizeof dir &&
                found(buf, size, dir, name, mode))
                return 0;
        }
    }
    return found(buf, size, configured, name, mode) ? 0 : -1;
}
