/* SPDX-License-Identifier: BSD-3-Clause */
/* Time a thread spends waiting for others: in the barriers and idle loops
 * of the OpenMP runtimes and in MPI's progress engines.  Under process
 * scope (extract/region_scope.h) every thread of a team is folded, and a
 * thread that finishes its share of a parallel loop first spins at the
 * loop's barrier; those samples say how long it waited, not what the
 * iteration computes, so they are kept out of the code-line progression
 * and the phases and counted apart, as each phase's waiting share. */
#include "analysis_steps.h"

#include <fnmatch.h>
#include <stdlib.h>

/* Routines that wait (shell patterns).  libgomp: gomp_team_barrier_wait*,
 * gomp_barrier_wait* and their spin (do_spin, do_wait, futex_wait) in
 * config/linux/bar.c and wait.h; libomp (LLVM, Intel): __kmp_*wait*,
 * __kmp_*barrier*, __kmp_suspend*; MPI: the wait and barrier calls and the
 * progress engines of Open MPI (opal_progress) and MPICH (MPIDI_*). */
static const char *const waiting_routines[] = {
    "gomp_team_barrier_wait*", "gomp_barrier_wait*", "gomp_simple_barrier_wait*",
    "gomp_team_barrier_wait_final", "GOMP_barrier*", "do_spin", "do_wait", "futex_wait",
    "__kmp_*wait*", "__kmp_*barrier*", "__kmp_suspend*", "__kmpc_barrier",
    "MPI_Wait*", "PMPI_Wait*", "MPI_Barrier", "PMPI_Barrier", "ompi_request_*wait*",
    "opal_progress*", "MPIDI_*progress*", "MPID_Progress*",
    /* A runtime known only by its module: its unnamed code is its hidden
     * team machinery (Debian's libgomp keeps only its exported names),
     * where the threads that sample there wait at barriers. */
    "\\[libgomp.so*]", "\\[libomp.so*]", "\\[libiomp5.so*]",
};

bool tf_analysis_is_waiting_routine(const char *function)
{
    for (size_t k = 0; k < sizeof waiting_routines / sizeof waiting_routines[0]; k++)
        if (fnmatch(waiting_routines[k], function, 0) == 0)
            return true;
    return false;
}

/* Whether sample s counts in the waiting shares: a routine is known and,
 * as for code samples, it is a timer sample when the trace has them. */
static bool counts(const tf_analysis_sample *s, bool timer_only)
{
    return s->routine != TF_ANALYSIS_NONE && (!timer_only || s->kind == TF_SAMPLE_TIMER);
}

void tf_analysis_waiting_shares(tf_analysis *a, bool timer_only)
{
    size_t all = 0, waiting = 0;
    for (size_t i = 0; i < a->nsamples; i++) {
        const tf_analysis_sample *s = &a->samples[i];
        all += counts(s, timer_only);
        waiting += counts(s, timer_only) && s->waiting;
    }
    a->waiting = all ? (double)waiting / (double)all : 0;
    for (size_t k = 0; k < a->nphases; k++) {
        tf_analysis_phase *ph = &a->phases[k];
        size_t n = 0, w = 0;
        for (size_t i = tf_analysis_lower_index(a, ph->x0); i < tf_analysis_end_index(a, ph->x1); i++) {
            n += counts(&a->samples[i], timer_only);
            w += counts(&a->samples[i], timer_only) && a->samples[i].waiting;
        }
        ph->waiting = n ? (double)w / (double)n : 0;
    }
}
