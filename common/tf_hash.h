/* SPDX-License-Identifier: BSD-3-Clause */
/* FNV-1a, 64 bits (Fowler, Noll, Vo): the hash of the string tables, the
 * recorder's name interning, its maps check and the fold's trace
 * fingerprint.  Short keys, no adversary: a good enough spread for the
 * price of one multiply a byte.  And the SplitMix64 finaliser, the hash of
 * one 64-bit word.  Inline and free of state, so the recorder may call
 * them anywhere, signal handlers included. */
#ifndef TF_HASH_H
#define TF_HASH_H

#include <stdbool.h>
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

/* A uniform choice of about max of n items that depends on each item's
 * index alone, not on who holds the item (the folded samples the analysis
 * rests on, those the report draws): the threshold is UINT64_MAX, every
 * item, when n is at most max (or max is 0); else item i is chosen when
 * the i-th draw of SplitMix64 falls under it. */
static inline uint64_t tf_choice_threshold(size_t n, size_t max)
{
    if (max == 0 || n <= max)
        return UINT64_MAX;
    double t = (double)max / (double)n * 0x1p64;
    return t >= 0x1p64 ? UINT64_MAX : (uint64_t)t;
}

static inline bool tf_chosen(size_t i, uint64_t threshold)
{
    return threshold == UINT64_MAX ||
           tf_mix64((uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull) < threshold;
}

#endif
