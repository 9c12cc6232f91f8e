/* SPDX-License-Identifier: BSD-3-Clause */
/* An uninstrumented program (no tracefold API, not linked with the
 * recorder): recorded by preloading only.
 * Usage: plain_app MILLISECONDS [EXIT_STATUS] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile double sink;

/* Stores its result: a side effect, so the compiler cannot treat it as a
 * pure function and hoist the call out of the caller's loop. */
__attribute__((noinline)) static void plain_hot_loop(long n)
{
    double x = 0;
    for (long i = 0; i < n; i++)
        x += (double)(i & 1023) * 1e-9;
    sink += x;
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    double ms = argc > 1 ? atof(argv[1]) : 300;
    double start = cpu_ms();
    while (cpu_ms() - start < ms)
        plain_hot_loop(100000);
    printf("plain_app done\n");
    return argc > 2 ? (int)strtol(argv[2], NULL, 10) : 0;
}
