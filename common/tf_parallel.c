/* SPDX-License-Identifier: BSD-3-Clause */
#include "config.h"

#include "tf_parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

struct job {
    unsigned         n;
    tf_parallel_task task;
    void            *arg;
    atomic_uint      next;
};

struct worker {
    struct job *job;
    unsigned    slot;
};

static void *work(void *arg)
{
    const struct worker *w = arg;
    struct job *j = w->job;
    for (unsigned k; (k = atomic_fetch_add_explicit(&j->next, 1, memory_order_relaxed)) < j->n;)
        j->task(j->arg, k, w->slot);
    return NULL;
}

void tf_parallel_for(unsigned n, unsigned threads, tf_parallel_task task, void *arg)
{
    if (threads > n)
        threads = n;
    pthread_t *tid = threads > 1 ? calloc(threads, sizeof *tid) : NULL;
    struct worker *w = threads > 1 ? calloc(threads, sizeof *w) : NULL;
    if (!tid || !w) {   /* one thread, or no room for more */
        free(tid);
        free(w);
        for (unsigned k = 0; k < n; k++)
            task(arg, k, 0);
        return;
    }
    struct job j = { .n = n, .task = task, .arg = arg };
    atomic_init(&j.next, 0);
    unsigned started = 1;
    for (unsigned t = 1; t < threads; t++) {
        w[started] = (struct worker){ .job = &j, .slot = started };
        if (pthread_create(&tid[started], NULL, work, &w[started]) == 0)
            started++;
    }
    w[0] = (struct worker){ .job = &j, .slot = 0 };
    work(&w[0]);
    for (unsigned t = 1; t < started; t++)
        pthread_join(tid[t], NULL);
    free(tid);
    free(w);
}

unsigned tf_parallel_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return 1;
    int n = CPU_COUNT(&set);
    return n > 0 ? (unsigned)n : 1;
}
