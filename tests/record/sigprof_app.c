/* SPDX-License-Identifier: BSD-3-Clause */
/* A program with its own profiling signal: a SIGPROF handler driven by
 * ITIMER_PROF, and SIGALRM blocked throughout.  Recording must leave both
 * alone.  Prints the number of SIGPROF it received; exits 1 if none. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static volatile sig_atomic_t profs;
static volatile double sink;

static void on_prof(int sig)
{
    (void)sig;
    profs++;
}

/* Stores its result: a side effect, so the compiler cannot treat it as a
 * pure function and hoist the call out of the caller's loop. */
__attribute__((noinline)) static void sigprof_work(long n)
{
    double x = 0;
    for (long i = 0; i < n; i++)
        x += (double)i * 1e-9;
    sink += x;
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_prof;
    sigaction(SIGPROF, &sa, NULL);
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGALRM);
    sigprocmask(SIG_BLOCK, &block, NULL);
    struct itimerval it = {{0, 2000}, {0, 2000}};
    setitimer(ITIMER_PROF, &it, NULL);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        sigprof_work(100000);
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < 400);
    printf("sigprof=%d\n", (int)profs);
    return profs > 0 ? 0 : 1;
}
