/* SPDX-License-Identifier: BSD-3-Clause */
/* FNV-1a, 64 bits (Fowler, Noll, Vo): the hash of the string tables, the
 * recorder's name interning, its maps check and the fold's trace
 * fingerprint.  Short keys, no adversary: a good enough spread for the
 * price of one multiply a byte.  And the SplitMix64 finaliser, the hash of
 * one 64-bit word.  Inline and free of state, so the recorder may call
 * them anywhere, signal handlers included. */
#ifndef TF_HASH_H
#define TF_HASH_H

#include <stddef.h>
#include <stdint.h>

#define TF_FNV_OFFSET 14695981039346656037ull
#define TF_FNV_PRIME  1099511628211ull

/* One step: a byte, or (the fingerprint's use) a whole 64-bit word. */
static inline uint64_t tf_fnv_step(uint64_t h, uint64_t v)
{
    return (h ^ v) * TF_FNV_PRIME;
}

/* The bytes of a NUL-terminated string, continuing from h. */
static inline uint64_t tf_fnv_string(uint64_t h, const char *s)
{
    for (const unsigned char *c = (const unsigned char *)s; *c; c++)
        h = tf_fnv_step(h, *c);
    return h;
}

/* len bytes, continuing from h. */
static inline uint64_t tf_fnv_bytes(uint64_t h, const void *data, size_t len)
{
    const unsigned char *c = data;
    for (size_t i = 0; i < len; i++)
        h = tf_fnv_step(h, c[i]);
    return h;
}

/* The finaliser of SplitMix64 (Steele, Lea and Flood 2014): every bit of
 * z moves every bit of the result.  The synthetic traces' generator (a
 * Weyl sequence through it), the bootstrap's weights and the analysis's
 * choice of samples hash with it. */
static inline uint64_t tf_mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

#endif
