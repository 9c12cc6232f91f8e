/* SPDX-License-Identifier: BSD-3-Clause */
/* Where the symbolisation test binary (symbolize_target) would be mapped,
 * read from its ELF headers, for the tests that fake its modules table. */
#ifndef TF_TESTS_TARGET_LAYOUT_H
#define TF_TESTS_TARGET_LAYOUT_H

#include <stdint.h>

typedef struct fx_target_layout {
    uint64_t base;          /* load bias: pie_base for a PIE, 0 for ET_EXEC */
    uint64_t start, end;    /* one mapping of the whole file: first PT_LOAD page to last byte */
    uint64_t outer;         /* tf_target_outer's address, 0 when the symbol table lacks it */
    uint64_t outer_size;
} fx_target_layout;

/* 0, or -1 when path is not a readable ELF file. */
int fx_target_layout_read(const char *path, uint64_t pie_base, fx_target_layout *l);

#endif
