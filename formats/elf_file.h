/* SPDX-License-Identifier: BSD-3-Clause */
/* A binary of the traced process, read after the run: the two questions
 * every reader of the program's ELF files asks first (the symboliser, the
 * search for the recorder's code), answered once here. */
#ifndef TF_FORMATS_ELF_FILE_H
#define TF_FORMATS_ELF_FILE_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

/* True when elf's GNU build-id note is the lowercase hex `want`. */
bool tf_elf_build_id_is(Elf *elf, const char *want);

/* The load bias of elf mapped at [start, end) from file offset `offset`:
 * for the first PT_LOAD segment in the mapping, where it was put minus
 * where the file asked for it.  0 for ET_EXEC, or when no segment is in
 * the mapping. */
uint64_t tf_elf_load_bias(Elf *elf, uint64_t start, uint64_t end, uint64_t offset);

#endif
