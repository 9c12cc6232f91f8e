/* SPDX-License-Identifier: BSD-3-Clause */
/* The files `tracefold` runs or loads (docs/manual.md, "Programs and
 * files"): found beside the running binary, in the build tree or in the
 * installed layout relative to it (so a staged DESTDIR install works),
 * else in the directories configured at build time. */
#ifndef TF_CLI_LOCATE_H
#define TF_CLI_LOCATE_H

#include <stddef.h>

enum tf_part {
    TF_PART_LIBRARY,   /* a library the recorded program preloads: libdir */
    TF_PART_MODULE,    /* a module tracefold loads itself: pkglibdir */
    TF_PART_PROGRAM,   /* an internal program: pkglibexecdir */
};

/* 0 and the path of name in buf, or -1 when it is nowhere. */
int tf_locate(enum tf_part kind, const char *name, char *buf, size_t size);

#endif
