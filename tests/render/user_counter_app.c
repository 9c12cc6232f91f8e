/* SPDX-License-Identifier: BSD-3-Clause */
/* A time-step loop with a user counter added once per iteration, after
 * the loop body, as docs/recorder.md shows: the counter of
 * tests/render/user_counter.sh.  Argument: the number of steps. */
#include <stdio.h>
#include <stdlib.h>

#include "tracefold.h"

enum { N = 200000 };
static double grid[N];

static void relax(void)
{
    for (int i = 1; i < N; i++)
        grid[i] = 0.5 * (grid[i] + grid[i - 1]) + 1e-9;
}

int main(int argc, char **argv)
{
    long steps = argc > 1 ? strtol(argv[1], NULL, 10) : 300;
    int cells = tracefold_counter_define("cells");
    for (long s = 0; s < steps; s++) {
        tracefold_region_begin("step");
        relax();
        tracefold_counter_add(cells, N - 1);
        tracefold_region_end("step");
    }
    printf("%g\n", grid[N - 1]);
    return 0;
}
