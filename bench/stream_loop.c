/* SPDX-License-Identifier: BSD-3-Clause */
/* The memory-sampling benchmark's workload (protocol in bench/README.md,
 * "Memory sampling and heap tracking"): passes that read one 8 MiB array
 * and write another, so that most timer samples land on memory
 * references and the software back end decodes one at nearly every sample.
 *   stream_loop --calibrate SECONDS   prints the passes for SECONDS of CPU
 *   stream_loop PASSES                prints cpu=SECONDS (the loop's process
 *                                     CPU time) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N (1u << 20)

static double a[N], b[N];
static volatile double sink;

static double cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void run(long passes)
{
    for (long p = 0; p < passes; p++) {
        double s = 0;
        for (size_t i = 0; i < N; i++)
            s += a[i];
        for (size_t i = 0; i < N; i++)
            b[i] = s;
        sink = s + b[p % N];
    }
}

int main(int argc, char **argv)
{
    for (size_t i = 0; i < N; i++)
        a[i] = (double)i;
    if (argc == 3 && !strcmp(argv[1], "--calibrate")) {
        double want = strtod(argv[2], NULL), t0 = cpu_seconds();
        run(20);
        printf("%ld\n", (long)(20 * want / (cpu_seconds() - t0)));
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: stream_loop [--calibrate SECONDS] PASSES\n");
        return 2;
    }
    double t0 = cpu_seconds();
    run(strtol(argv[1], NULL, 10));
    printf("cpu=%.6f\n", cpu_seconds() - t0);
    return 0;
}
