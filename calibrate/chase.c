/* SPDX-License-Identifier: BSD-3-Clause */
#include "chase.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define HUGE_PAGE (2u << 20)
/* Skewed offsets wrap at 4 KiB, the span of an L1's set index: with an odd
 * number of lines between nodes, consecutive nodes visit every set. */
#define SKEW_WRAP 4096u

int tf_chase_arena_init(tf_chase_arena *a, size_t bytes, bool huge_pages, tf_error *err)
{
    memset(a, 0, sizeof *a);
    size_t mapped = bytes + HUGE_PAGE;
    unsigned char *p = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                            -1, 0);
    if (p == MAP_FAILED)
        return tf_fail(err, TF_ERR_NOMEM, "calibrate: cannot map %zu bytes: %s", bytes,
                       strerror(errno));
    /* Keep only a 2 MiB aligned window so huge pages can back all of it. */
    uintptr_t start = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    size_t head = start - (uintptr_t)p;
    if (head)
        munmap(p, head);
    size_t tail = mapped - head - bytes;
    if (tail)
        munmap((unsigned char *)start + bytes, tail);
    a->base = (unsigned char *)start;
    a->bytes = bytes;
    madvise(a->base, bytes, huge_pages ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    /* Fault everything in now, so page faults never land inside a timing. */
    memset(a->base, 1, bytes);
    a->rng = 0x9e3779b97f4a7c15ull;
    return 0;
}

void tf_chase_arena_free(tf_chase_arena *a)
{
    if (a->base)
        munmap(a->base, a->bytes);
    free(a->order);
    memset(a, 0, sizeof *a);
}

static uint64_t next_random(tf_chase_arena *a)
{
    a->rng ^= a->rng << 13;
    a->rng ^= a->rng >> 7;
    a->rng ^= a->rng << 17;
    return a->rng;
}

/* A random permutation of 0..n-1 in a->order (Fisher–Yates). */
static size_t *random_order(tf_chase_arena *a, size_t n)
{
    if (n > a->order_cap) {
        size_t *o = realloc(a->order, n * sizeof *o);
        if (!o)
            return NULL;
        a->order = o;
        a->order_cap = n;
    }
    for (size_t i = 0; i < n; i++)
        a->order[i] = i;
    for (size_t i = n - 1; i > 0; i--) {
        size_t j = next_random(a) % (i + 1);
        size_t t = a->order[i];
        a->order[i] = a->order[j];
        a->order[j] = t;
    }
    return a->order;
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

/* Follows the chain from `start`; the returned pointer keeps the loop live. */
/* Not instrumented in sanitizer builds: a checked load is not the load
 * being measured. */
static void *__attribute__((noinline, no_sanitize_address, no_sanitize_undefined))
follow(void *start, size_t loads)
{
    void **p = start;
    for (size_t i = 0; i < loads; i++)
        p = *p;
    return p;
}

/* Best time per load over repeats, after a warming pass over the cycle.
 * The chain is a cycle, so `follow` never returns NULL: testing it only
 * keeps the compiler from dropping the loads. */
static double time_chain(void *start, size_t cycle_loads, size_t loads, int repeats)
{
    if (!follow(start, cycle_loads))
        return -1;
    double best = 1e300;
    for (int r = 0; r < repeats; r++) {
        double t0 = now_ns();
        void *end = follow(start, loads);
        double dt = (now_ns() - t0) / (double)loads;
        if (!end)
            return -1;
        if (dt < best)
            best = dt;
    }
    return best;
}

double tf_chase_nodes(tf_chase_arena *a, size_t nodes, size_t spacing, size_t skew,
                      size_t loads, int repeats)
{
    if (nodes < 2 || nodes * spacing + (skew ? SKEW_WRAP : 0) > a->bytes)
        return -1;
    size_t *o = random_order(a, nodes);
    if (!o)
        return -1;
#define NODE(k) ((void **)(a->base + (k) * spacing + (skew ? ((k) * skew) % SKEW_WRAP : 0)))
    for (size_t i = 0; i < nodes; i++)
        *NODE(o[i]) = NODE(o[(i + 1) % nodes]);
    void *start = NODE(o[0]);
#undef NODE
    return time_chain(start, nodes, loads, repeats);
}

double tf_chase_pairs(tf_chase_arena *a, size_t blocks, size_t block, size_t s, size_t loads,
                      int repeats)
{
    if (blocks < 2 || s >= block || blocks * block > a->bytes)
        return -1;
    size_t *o = random_order(a, blocks);
    if (!o)
        return -1;
    size_t word = sizeof(void *);
#define FIRST(k) ((void **)(a->base + (k) * block + block - word))
#define SECOND(k) ((void **)(a->base + (k) * block + block - word - s))
    for (size_t i = 0; i < blocks; i++) {
        *FIRST(o[i]) = SECOND(o[i]);
        *SECOND(o[i]) = FIRST(o[(i + 1) % blocks]);
    }
    void *start = FIRST(o[0]);
#undef FIRST
#undef SECOND
    return 2 * time_chain(start, 2 * blocks, loads, repeats);
}
