/* SPDX-License-Identifier: BSD-3-Clause */
/* Allocation of the large arrays (millions of folded samples). */
#ifndef TF_MEMORY_H
#define TF_MEMORY_H

#include <stddef.h>

/* malloc for an array of megabytes that is about to be filled: the same
 * block, freed with free(), with the kernel asked to back it with
 * transparent huge pages (madvise MADV_HUGEPAGE, where THP is in its
 * "madvise" mode, the default of Debian's kernels).  A fresh 4 KiB page
 * costs a page fault at its first touch: touching a gigabyte of them took
 * 0.75 to 1.0 s on this project's virtual machines, in 2 MiB pages 0.15 s
 * (bench/RESULTS.md, "Fold"), and fewer TLB misses follow.  Smaller
 * blocks, and kernels without THP, get plain malloc. */
void *tf_malloc_large(size_t bytes);

#endif
