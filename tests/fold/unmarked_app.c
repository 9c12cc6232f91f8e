/* SPDX-License-Identifier: BSD-3-Clause */
/* Test program without any mark: fold must find its iteration from the
 * samples.  Usage: unmarked_app regular|irregular ITERATIONS WORK
 *   regular: each iteration runs stage_a, stage_b, stage_c, the same work
 *   every time (a regular main loop); prints "period_ns N", the mean wall
 *   time of an iteration, measured around the loop, and "cpu_period_ns N",
 *   its mean CPU time (the two differ when the machine is shared);
 *   irregular: each step runs one of the stages, chosen at random, for a
 *   random length (no iteration repeats). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile double sink;

__attribute__((noinline)) static void stage_a(long n)
{
    double x = 1;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    sink += x;
}

__attribute__((noinline)) static void stage_b(long n)
{
    double x = 0;
    for (long i = 0; i < n; i++)
        x += (double)i * 1e-9 + x * 1e-12;
    sink += x;
}

__attribute__((noinline)) static void stage_c(long n)
{
    double x = 2;
    for (long i = 0; i < n; i++)
        x = x * 0.9999999 - 1e-9;
    sink += x;
}

static double now_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "regular") && strcmp(argv[1], "irregular"))) {
        fprintf(stderr, "usage: unmarked_app regular|irregular ITERATIONS WORK\n");
        return 2;
    }
    int iterations = (int)strtol(argv[2], NULL, 10);
    long work = strtol(argv[3], NULL, 10);
    if (!strcmp(argv[1], "irregular")) {
        srand(7);
        for (int it = 0; it < iterations; it++) {
            long n = work / 8 + (long)(rand() % 16) * (work / 8);
            switch (rand() % 3) {
            case 0: stage_a(n); break;
            case 1: stage_b(n); break;
            default: stage_c(n); break;
            }
        }
        return 0;
    }
    double t0 = now_ns(CLOCK_MONOTONIC), c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
    for (int it = 0; it < iterations; it++) {
        stage_a(work);
        stage_b(work / 2);
        stage_c(work / 3);
    }
    printf("period_ns %.0f\n", (now_ns(CLOCK_MONOTONIC) - t0) / iterations);
    printf("cpu_period_ns %.0f\n", (now_ns(CLOCK_THREAD_CPUTIME_ID) - c0) / iterations);
    return 0;
}
