/* SPDX-License-Identifier: BSD-3-Clause */
/* Static data objects (global and file-local variables) from the ELF symbol
 * tables of the executable and its shared libraries: STT_OBJECT symbols that
 * are defined, with their run-time address (symbol value + load bias; the
 * bias is 0 for non-PIE executables) and size.  .symtab is used when the
 * file has one, else .dynsym (stripped libraries still export their
 * globals there).  Thread-local variables (STT_TLS) are per-thread and not
 * included.  Separate debug files (.gnu_debuglink) are not followed.
 * Not for signal context (allocates, opens files). */
#ifndef TF_ELF_OBJECTS_H
#define TF_ELF_OBJECTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/tf_error.h"

typedef struct tf_elf_object {
    uint64_t start;     /* run-time address */
    uint64_t size;
    const char *name;   /* owned by the list */
    uint32_t module;    /* index in the list's modules */
} tf_elf_object;

typedef struct tf_elf_module {
    char    *path;
    uint64_t bias;
    size_t   nobjects;  /* objects found in it */
} tf_elf_module;

typedef struct tf_elf_objects {
    tf_elf_object *objects;   /* sorted by start after each read */
    size_t nobjects, cap;
    tf_elf_module *modules;
    size_t nmodules, modcap;
    uint64_t min_size;        /* objects smaller than this are skipped (>= 1) */
} tf_elf_objects;

void tf_elf_objects_init(tf_elf_objects *o, uint64_t min_size);
void tf_elf_objects_free(tf_elf_objects *o);

/* Adds the objects of one ELF file loaded with the given bias. */
int  tf_elf_objects_read_file(tf_elf_objects *o, const char *path, uint64_t bias,
                              tf_error *err) __attribute__((warn_unused_result));

/* Adds the objects of every module loaded in this process
 * (dl_iterate_phdr; the executable through /proc/self/exe), skipping the
 * modules already read: call it at start and again after dlopen.  A
 * library that cannot be read is skipped and counted in *skipped (may be
 * NULL); the executable must be readable. */
int  tf_elf_objects_read_self(tf_elf_objects *o, size_t *skipped, tf_error *err)
    __attribute__((warn_unused_result));

/* The load bias of an ELF file from /proc/PID/maps: map_start is the
 * lowest start address among the file's mappings, which maps its first
 * PT_LOAD segment (segments are in ascending address order, ELF gABI), so
 * bias = map_start - that segment's page-aligned p_vaddr.  (Any other
 * mapping is ambiguous: two segments may share a file page.)  For the
 * writer process, which sees the modules map but not the application's
 * dl_iterate_phdr. */
int  tf_elf_load_bias(const char *path, uint64_t map_start, uint64_t *bias, tf_error *err)
    __attribute__((warn_unused_result));

/* The object containing addr, or NULL. */
const tf_elf_object *tf_elf_objects_find(const tf_elf_objects *o, uint64_t addr);

#endif
