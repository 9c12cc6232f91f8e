/* SPDX-License-Identifier: BSD-3-Clause */
/* A burst of small allocations from one call site, far faster than the
 * recorder's writer takes them from the thread's small-block ring (16 Ki
 * entries, record/tf_small_log.h): the recorder waits for the writer
 * rather than lose blocks, a bounded time.  Keeps every block until the
 * end, so no address is reused.  Usage: small_burst_app BLOCKS [stop];
 * with "stop" the writer (this process's parent under `tracefold
 * record`) is stopped during the burst, as a starved or hung writer would
 * be: the recorder must then count the blocks it refuses, neither block
 * the program nor grow.  Prints the number of blocks allocated. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 200000;
    int stop = argc > 2 && !strcmp(argv[2], "stop");
    char **block = malloc((size_t)n * sizeof *block);   /* above the heap threshold */
    if (!block)
        return 1;
    if (stop)
        kill(getppid(), SIGSTOP);
    for (long i = 0; i < n; i++) {
        block[i] = malloc(24);   /* burst-site */
        if (!block[i])
            return 1;
        block[i][0] = (char)i;
    }
    if (stop)
        kill(getppid(), SIGCONT);
    long sum = 0;
    for (long i = 0; i < n; i++) {
        sum += block[i][0];
        free(block[i]);
    }
    free(block);
    printf("%ld\n", n + (sum & 0));
    return 0;
}
