/* SPDX-License-Identifier: BSD-3-Clause */
/* An unmodified program for `record --region` (region.sh): nothing of
 * tracefold in it.  region_app NTHREADS N:
 *   - worker k (1..NTHREADS) calls work() k*N times;
 *   - the main thread calls step() N times, each calling work() twice
 *     (nested regions of two functions), then fib(12) N times (recursion:
 *     N instances), then leap() N times, which leaves by longjmp (ends not
 *     seen), each followed by one more work(). */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;
static jmp_buf back;

__attribute__((noinline)) void work(int n)
{
    double s = 0;
    for (int i = 0; i < 2000 + n; i++)
        s += (double)i * 0.5;
    sink += s;
}

__attribute__((noinline)) void step(int n)
{
    work(n);
    work(n + 1);
    sink += 1;
}

__attribute__((noinline)) int fib(int n)
{
    return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) void leap(int n)
{
    sink += n;
    longjmp(back, 1);
}

struct job {
    int calls;
};

static void *worker(void *p)
{
    const struct job *j = p;
    for (int i = 0; i < j->calls; i++)
        work(i);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    int nthreads = (int)strtol(argv[1], NULL, 10), n = (int)strtol(argv[2], NULL, 10);
    if (nthreads < 0 || nthreads > 16 || n < 1)
        return 2;
    pthread_t tid[16];
    struct job jobs[16];
    for (int k = 0; k < nthreads; k++) {
        jobs[k].calls = (k + 1) * n;
        if (pthread_create(&tid[k], NULL, worker, &jobs[k]))
            return 1;
    }
    for (int i = 0; i < n; i++)
        step(i);
    int f = 0;
    for (int i = 0; i < n; i++)
        f += fib(12);
    for (int i = 0; i < n; i++) {
        if (!setjmp(back))
            leap(i);
        work(i);
    }
    for (int k = 0; k < nthreads; k++)
        pthread_join(tid[k], NULL);
    printf("region_app: %d\n", f);
    return 0;
}
