/* SPDX-License-Identifier: BSD-3-Clause */
/* A stream-like program for the memory-sampling and data-object tests
 * (tests/record/memory.sh, checked by `check_trace memory`).  Each loop is
 * a region, one instance per pass:
 *   "static"  reads static_array (a .bss array)
 *   "heap"    reads the heap array allocated by make_heap_array (malloc)
 *   "write"   writes the array allocated by make_out_array (aligned_alloc)
 *   "reuse1", "reuse2"  (one instance each) read a 64 KiB block, freed
 *             between the two, and a block of the same size that the
 *             allocator places at the same address (the program fails when
 *             it does not)
 * and objects without samples: a realloc that moves a block (made in
 * grow_block), an anonymous mmap, a user region "grid", allocations below
 * the threshold.  Prints nothing; exit status 0 when it ran as expected. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "tracefold.h"

#define N      (1u << 20)      /* doubles per array: 8 MiB */
#define SMALL  (64u * 1024)    /* the reused block */

double static_array[N];
volatile double sink;

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Not tail calls (the allocating function must be on the call stack). */
static __attribute__((noinline)) double *make_heap_array(void)
{
    double *a = malloc(N * sizeof(double));
    if (a)
        a[0] = 0;
    return a;
}

static __attribute__((noinline)) double *make_out_array(void)
{
    double *a = aligned_alloc(64, N * sizeof(double));
    if (a)
        a[0] = 0;
    return a;
}

static __attribute__((noinline)) double read_pass(const double *a, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i];
    return s;
}

static __attribute__((noinline)) void write_pass(double *a, size_t n, double v)
{
    for (size_t i = 0; i < n; i++)
        a[i] = v;
}

/* Short passes between two looks at the clock: a look is a system call
 * (the process's CPU clock has no vDSO path) of about a microsecond, as
 * long as a tenth of a 64 KiB pass, and a memory sample taken in it is
 * not in the array; with one look per pass, 3 to 5 % of a short loop's
 * samples were outside its object, at the check's 95 % bar. */
#define SHORT_PASSES 64

/* Passes over a until `seconds` of CPU time have gone, each a region
 * instance of name, or all of them one instance (short passes). */
static void read_loop(const char *name, const double *a, size_t n, double seconds, bool each)
{
    double end = cpu_seconds() + seconds;
    if (!each)
        tracefold_region_begin(name);
    do {
        if (each)
            tracefold_region_begin(name);
        for (int i = 0; i < (each ? 1 : SHORT_PASSES); i++)
            sink = read_pass(a, n);
        if (each)
            tracefold_region_end(name);
    } while (cpu_seconds() < end);
    if (!each)
        tracefold_region_end(name);
}

static __attribute__((noinline)) char *grow_block(void)
{
    char *p = malloc(48 * 1024);
    char *guard = malloc(48 * 1024);   /* keeps p from growing in place */
    memset(p, 1, 48 * 1024);
    char *q = realloc(p, 64u << 20);
    free(guard);
    return q != p ? q : NULL;
}

int main(void)
{
    double *heap = make_heap_array(), *out = make_out_array();
    if (!heap || !out)
        return 1;
    for (size_t i = 0; i < N; i++)
        static_array[i] = heap[i] = (double)i;
    read_loop("static", static_array, N, 0.25, true);
    read_loop("heap", heap, N, 0.25, true);
    double end = cpu_seconds() + 0.25;
    do {
        tracefold_region_begin("write");
        write_pass(out, N, sink);
        tracefold_region_end("write");
    } while (cpu_seconds() < end);

    double *first = malloc(SMALL);
    if (!first)
        return 1;
    write_pass(first, SMALL / sizeof(double), 1.0);
    read_loop("reuse1", first, SMALL / sizeof(double), 0.15, false);
    free(first);
    double *second = malloc(SMALL);
    if (second != first) {
        fprintf(stderr, "stream_app: the allocator did not reuse the freed block\n");
        return 1;
    }
    write_pass(second, SMALL / sizeof(double), 2.0);
    read_loop("reuse2", second, SMALL / sizeof(double), 0.15, false);
    free(second);

    char *moved = grow_block();
    if (!moved) {
        fprintf(stderr, "stream_app: realloc did not move the block\n");
        return 1;
    }
    free(moved);
    void *m = mmap(NULL, 4u << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return 1;
    munmap(m, 4u << 20);
    /* Small blocks: below the threshold, not objects; named together as
     * one user region. */
    char *cells[100], *lo = NULL, *hi = NULL;
    for (int i = 0; i < 100; i++) {
        if (!(cells[i] = malloc(1000)))
            return 1;
        lo = !lo || cells[i] < lo ? cells[i] : lo;
        hi = !hi || cells[i] + 1000 > hi ? cells[i] + 1000 : hi;
    }
    tracefold_memory_region("grid", lo, hi);
    for (int i = 0; i < 100; i++)
        free(cells[i]);
    free(heap);
    free(out);
    return 0;
}
