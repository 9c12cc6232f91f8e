/* SPDX-License-Identifier: BSD-3-Clause */
/* Independent tasks 0..n-1 run on up to `threads` threads, the calling one
 * among them: each thread takes the next task from a shared atomic index
 * until none is left, so a long task does not hold the others up.  slot
 * (0 to threads - 1) names the calling thread, for per-thread buffers.  A
 * thread that cannot be started leaves its share to the others; with one
 * thread the tasks run in order on the caller. */
#ifndef TF_PARALLEL_H
#define TF_PARALLEL_H

typedef void (*tf_parallel_task)(void *arg, unsigned task, unsigned slot);

void tf_parallel_for(unsigned n, unsigned threads, tf_parallel_task task, void *arg);

/* The CPUs this process may run on (its affinity mask; 1 when unknown). */
unsigned tf_parallel_cpus(void);

#endif
