/* SPDX-License-Identifier: BSD-3-Clause */
/* The heap-tracking benchmark's workload (protocol in bench/README.md,
 * "Memory sampling and heap tracking"): malloc/free pairs of one size,
 * timed in blocks that alternate between the C library's own malloc and
 * free (looked up in libc.so.6 itself, so never the recorder's) and the
 * malloc and free the program links to (the recorder's interposed ones
 * when it is preloaded), in one run.
 *   alloc_bench SIZE PAIRS BLOCKS [PAUSE_MS]
 * prints: plain_ns=MEDIAN interposed_ns=MEDIAN diff_ns=MEDIAN
 * the medians over the blocks of the time per pair, and of the difference
 * between neighbouring blocks.  PAUSE_MS: a sleep after each block, and 4
 * warm-up blocks rather than 1, so that the recorder's writer takes the
 * small-block log's entries between blocks and the log's pages have all
 * been touched before the timed blocks (bench/README.md, "Small blocks"). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef void *(*malloc_fn)(size_t);
typedef void (*free_fn)(void *);

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, long n)
{
    qsort(v, (size_t)n, sizeof *v, by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The pointer is written through, so the pair cannot be elided. */
static volatile char *volatile sink;

static double block(malloc_fn m, free_fn f, size_t size, long pairs)
{
    double t0 = now_ns();
    for (long i = 0; i < pairs; i++) {
        char *p = m(size);
        if (!p)
            abort();
        p[0] = 1;
        sink = p;
        f(p);
    }
    return (now_ns() - t0) / (double)pairs;
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: alloc_bench SIZE PAIRS BLOCKS [PAUSE_MS]\n");
        return 2;
    }
    size_t size = strtoul(argv[1], NULL, 10);
    long pairs = strtol(argv[2], NULL, 10), blocks = strtol(argv[3], NULL, 10);
    long pause_ms = argc == 5 ? strtol(argv[4], NULL, 10) : 0;
    void *libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
    malloc_fn plain_malloc = libc ? (malloc_fn)dlsym(libc, "malloc") : NULL;
    free_fn plain_free = libc ? (free_fn)dlsym(libc, "free") : NULL;
    double *plain = calloc((size_t)blocks, sizeof *plain);
    double *mine = calloc((size_t)blocks, sizeof *mine);
    double *diff = calloc((size_t)blocks, sizeof *diff);
    if (!plain_malloc || !plain_free || blocks < 1 || pairs < 1 || !plain || !mine || !diff) {
        fprintf(stderr, "alloc_bench: no libc malloc, or bad arguments\n");
        return 1;
    }
    /* warm-up: lazy binding, first pages */
    for (int w = 0; w < (pause_ms > 0 ? 4 : 1); w++) {
        block(malloc, free, size, pairs);
        if (pause_ms > 0)
            usleep((useconds_t)pause_ms * 1000);
    }
    for (long b = 0; b < blocks; b++) {
        /* Alternate which goes first, so drifts favour neither. */
        if (b % 2) {
            mine[b] = block(malloc, free, size, pairs);
            plain[b] = block(plain_malloc, plain_free, size, pairs);
        } else {
            plain[b] = block(plain_malloc, plain_free, size, pairs);
            mine[b] = block(malloc, free, size, pairs);
        }
        diff[b] = mine[b] - plain[b];
        if (pause_ms > 0)
            usleep((useconds_t)pause_ms * 1000);
    }
    double d = median(diff, blocks);
    printf("plain_ns=%.2f interposed_ns=%.2f diff_ns=%.2f\n", median(plain, blocks),
           median(mine, blocks), d);
    free(plain);
    free(mine);
    free(diff);
    return 0;
}
