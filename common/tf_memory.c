/* SPDX-License-Identifier: BSD-3-Clause */
#include "tf_memory.h"

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

/* The x86-64 huge page: only whole ones inside a block can be advised. */
#define HUGE_PAGE ((uintptr_t)2 << 20)

void *tf_malloc_large(size_t bytes)
{
    void *p = malloc(bytes);
    if (!p || bytes < 4 * HUGE_PAGE)
        return p;
    uintptr_t first = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uintptr_t end = ((uintptr_t)p + bytes) & ~(HUGE_PAGE - 1);
    /* Advice only: a kernel without THP answers EINVAL, and the block
     * works the same in small pages. */
    if (end > first)
        (void)madvise((void *)first, end - first, MADV_HUGEPAGE);
    return p;
}
