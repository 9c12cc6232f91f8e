/* SPDX-License-Identifier: BSD-3-Clause */
/* The modules map of a traced process: its file mappings from
 * /proc/PID/maps (proc(5)) with the GNU build-id of each file (read with
 * libelf/libdw's dwelf_elf_gnu_build_id), so that sampled addresses can be
 * symbolised offline against the right binaries. */
#include "config.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tf_writer.h"

typedef struct known_module {
    uint64_t start, end, offset;
    char *path;
    char build_id[96];
} known_module;

struct tf_module_set {
    size_t n, cap;
    known_module *m;
};

void tf_build_id(const char *path, char *buf, size_t size)
{
    buf[0] = '\0';
    elf_version(EV_CURRENT);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    const void *id = NULL;
    ssize_t len = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
    for (ssize_t i = 0; i < len && (size_t)(2 * i + 2) < size; i++)
        snprintf(buf + 2 * i, 3, "%02x", ((const unsigned char *)id)[i]);
    if (elf)
        elf_end(elf);
    close(fd);
}

static bool known(const tf_module_set *set, uint64_t start, uint64_t end, uint64_t off,
                  const char *path)
{
    for (size_t i = 0; i < set->n; i++)
        if (set->m[i].start == start && set->m[i].end == end && set->m[i].offset == off &&
            !strcmp(set->m[i].path, path))
            return true;
    return false;
}

/* A file is mapped several times (text, data, ...): read its id once.
 * Returns whether the file was new. */
static bool cached_build_id(const tf_module_set *set, const char *path, char *buf, size_t size)
{
    for (size_t i = 0; i < set->n; i++)
        if (!strcmp(set->m[i].path, path)) {
            snprintf(buf, size, "%s", set->m[i].build_id);
            return false;
        }
    tf_build_id(path, buf, size);
    return true;
}

static int remember(tf_module_set *set, uint64_t start, uint64_t end, uint64_t off,
                    const char *path, const char *build_id)
{
    if (set->n == set->cap) {
        size_t cap = set->cap ? 2 * set->cap : 64;
        known_module *m = realloc(set->m, cap * sizeof *m);
        if (!m)
            return -1;
        set->m = m;
        set->cap = cap;
    }
    char *copy = strdup(path);
    if (!copy)
        return -1;
    known_module *k = &set->m[set->n++];
    *k = (known_module){start, end, off, copy, ""};
    snprintf(k->build_id, sizeof k->build_id, "%s", build_id);
    return 0;
}

/* Appends the unknown file mappings listed in f; *seen counts the lines. */
static int add_mappings(tf_trace_out *w, uint32_t proc, int64_t pid, FILE *f, const char *skip,
                        tf_module_set *set, tf_wobjects *objs, size_t *seen, tf_error *err)
{
    char line[4096 + 256];
    int rc = 0;
    while (!rc && fgets(line, sizeof line, f)) {
        unsigned long long start, end, off;
        char perms[8];
        int path_at = 0;
        (*seen)++;
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &start, &end, perms, &off,
                   &path_at) < 4 || !path_at || line[path_at] != '/')
            continue;
        char *path = line + path_at;
        path[strcspn(path, "\n")] = '\0';
        if (skip && !strncmp(path, skip, strlen(skip)))
            continue;   /* the recorder's own buffers */
        /* Only code is looked up by sampled instruction addresses, but data
         * mappings of the same file help place static variables. */
        if (known(set, start, end, off, path))
            continue;
        char build_id[96];
        /* The first mapping of a file is its lowest (the map is sorted),
         * the one the load bias is computed from. */
        bool first = cached_build_id(set, path, build_id, sizeof build_id);
        tf_module m = {.start = start, .end = end, .offset = off};
        if ((first && (rc = tf_wobjects_static_file(objs, w, proc, path, start, err))) ||
            (rc = tf_trace_out_intern(w, path, &m.path, err)) ||
            (rc = tf_trace_out_intern(w, build_id, &m.build_id, err)) ||
            (rc = tf_trace_out_append_modules(w, proc, &m, 1, err)))
            break;
        if (remember(set, start, end, off, path, build_id))
            rc = tf_fail(err, TF_ERR_NOMEM, "modules of process %" PRId64, pid);
    }
    return rc;
}

int tf_modules_update(tf_trace_out *w, uint32_t proc, int64_t pid, const char *saved, size_t len,
                      const char *skip, tf_module_set **knownp, tf_wobjects *objs,
                      tf_error *err)
{
    if (!*knownp && !(*knownp = calloc(1, sizeof **knownp)))
        return tf_fail(err, TF_ERR_NOMEM, "modules of process %" PRId64, pid);
    char maps[64];
    snprintf(maps, sizeof maps, "/proc/%" PRId64 "/maps", pid);
    size_t seen = 0;
    int rc = 0;
    FILE *f = fopen(maps, "re");
    if (f) {
        rc = add_mappings(w, proc, pid, f, skip, *knownp, objs, &seen, err);
        fclose(f);
    }
    /* Gone, or a zombie (whose maps file is empty): the saved copy. */
    if (!rc && !seen && saved && len && (f = fmemopen((void *)saved, len, "r"))) {
        rc = add_mappings(w, proc, pid, f, skip, *knownp, objs, &seen, err);
        fclose(f);
    }
    return rc;
}

void tf_modules_free(tf_module_set *set)
{
    if (!set)
        return;
    for (size_t i = 0; i < set->n; i++)
        free(set->m[i].path);
    free(set->m);
    free(set);
}
