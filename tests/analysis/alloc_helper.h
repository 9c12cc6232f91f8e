/* SPDX-License-Identifier: BSD-3-Clause */
/* A header allocation helper as C++ proxy apps write them (LULESH's
 * Allocate<T>): it only passes the size on, so the objects it returns are
 * named by its callers (tests/analysis/alloc_sites.sh). */
#ifndef TF_TESTS_ALLOC_HELPER_H
#define TF_TESTS_ALLOC_HELPER_H

#include <cstddef>

template <typename T>
T *Allocate(std::size_t n)
{
    return static_cast<T *>(::operator new[](n * sizeof(T)));
}

template <typename T>
void Release(T *p)
{
    ::operator delete[](p);
}

#endif
