/* SPDX-License-Identifier: BSD-3-Clause */
/* An unmodified program for `record --region kernel` (region.sh): THREADS
 * threads released together by a barrier, each calling kernel() N times
 * from one call site, so that they reach its first entry and its return
 * address at once, while the recorder writes its jumps there.  The
 * return address is followed by floating-point instructions using the
 * value kernel() returns in xmm0: a register the trampolines did not keep
 * changes the sums.  Prints each thread's sum, in thread order.
 * region_race_app THREADS N */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define MAX_THREADS 64

__attribute__((noinline)) double kernel(int i)
{
    double s = 0;
    for (int k = 0; k < 200; k++)
        s += (double)(i ^ k) * 0.5;
    return s;
}

static pthread_barrier_t start;
static double sums[MAX_THREADS];

struct job {
    long n;
    int index;
};

static void *run(void *arg)
{
    const struct job *j = arg;
    double acc = 0;
    pthread_barrier_wait(&start);
    for (long i = 0; i < j->n; i++) {
        acc += kernel((int)i + j->index);
        acc *= 0.999;
    }
    sums[j->index] = acc;
    return NULL;
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? (int)strtol(argv[1], NULL, 10) : 8;
    long n = argc > 2 ? strtol(argv[2], NULL, 10) : 1000;
    if (threads < 1 || threads > MAX_THREADS || n < 1) {
        fprintf(stderr, "usage: region_race_app THREADS(1-%d) N\n", MAX_THREADS);
        return 2;
    }
    pthread_t th[MAX_THREADS];
    struct job jobs[MAX_THREADS];
    pthread_barrier_init(&start, NULL, (unsigned)threads);
    for (int i = 0; i < threads; i++) {
        jobs[i] = (struct job){n, i};
        if (pthread_create(&th[i], NULL, run, &jobs[i]))
            return 1;
    }
    for (int i = 0; i < threads; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < threads; i++)
        printf("thread %d: %.17g\n", i, sums[i]);
    return 0;
}
