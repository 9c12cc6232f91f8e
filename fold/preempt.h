/* SPDX-License-Identifier: BSD-3-Clause */
/* Instances that lost the CPU to another process (docs/algorithms.md,
 * "Interference"): a thread's CPU time (the task-clock or cpu-clock
 * counter) over its wall time is its CPU share; an instance whose share is
 * clearly below the others' waited for the CPU, and its wall-clock
 * duration and the time of its samples measure the other process as much
 * as the program. */
#ifndef TF_FOLD_PREEMPT_H
#define TF_FOLD_PREEMPT_H

#include <stdbool.h>
#include <stddef.h>
#include <strings.h>

#include "fold_result.h"

/* An instance is preempted when its CPU share is below (1 - TF_PREEMPT_LOSS)
 * times the reference share, the 90th percentile of the used instances'
 * shares (the share an undisturbed instance gets, whatever part of the
 * instances was disturbed): it lost more than a tenth of its wall time.
 * Needs TF_PREEMPT_MIN_INSTANCES instances with a CPU time.  Per process
 * (the folds grouped by process), the reference is that of the process's
 * own instances, when it has that many. */
#define TF_PREEMPT_LOSS 0.1
#define TF_PREEMPT_REFERENCE 0.9
#define TF_PREEMPT_MIN_INSTANCES 5

/* Whether a counter of that name counts the thread's CPU time in ns
 * (task-clock, cpu-clock). */
bool tf_fold_is_cpu_time(const char *name);
/* The preference of a CPU-time counter of that name: 0 for task-clock (the
 * kernel's own count of the thread's time), 1 for cpu-clock (a timer's),
 * -1 for any other counter.  Inline: analysis/ says the same CPU share
 * without linking the fold's library. */
static inline int tf_fold_cpu_time_rank(const char *name)
{
    if (!strcasecmp(name, "task-clock"))
        return 0;
    return strcasecmp(name, "cpu-clock") ? -1 : 1;
}
/* The counter of r that counts the thread's CPU time in ns (task-clock,
 * else cpu-clock), -1 when none. */
int tf_fold_cpu_time_counter(const tf_fold_region *r);

/* Marks r's used preempted instances with reason TF_FOLD_REASON_PREEMPTED:
 * excluded (TF_PREEMPTED_EXCLUDE), or (TF_PREEMPTED_CPU_TIME) kept and
 * folded in CPU time: the instance's duration becomes its CPU time and its
 * points held here (first[i]..first[i+1] of instance i, y rows pts->n
 * apart) take their CPU-time position, the CPU-time counter's own folded
 * value, as x.  Returns 0 or a negative error. */
int tf_fold_preempted(tf_fold_region *r, enum tf_fold_preempted mode, bool per_process,
                      const size_t *first, tf_fold_points *pts, tf_error *err);

#endif
