/* SPDX-License-Identifier: BSD-3-Clause */
/* Sampling back end: a POSIX per-thread CPU-time timer
 * (CLOCK_THREAD_CPUTIME_ID, SIGEV_THREAD_ID: timer_create(2)) delivering the
 * signal to its thread.  CPU-time timers are checked at the kernel tick, so
 * periods shorter than 1/HZ (4 ms at HZ=250) are rounded up to it; this is
 * the fallback when perf events are not permitted.  The timer is periodic;
 * the handler redraws the period now and then (timer_settime is
 * async-signal-safe, signal-safety(7)).  Counters are read by read(2). */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "tf_rec.h"

TF_HANDLER_CODE static void set_period(tf_rec_thread *t, uint64_t period_ns)
{
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    its.it_value.tv_sec = (time_t)(period_ns / 1000000000u);
    its.it_value.tv_nsec = (long)(period_ns % 1000000000u);
    its.it_interval = its.it_value;
    timer_settime(t->timer, 0, &its, NULL);
}

static int posix_start(tf_rec_thread *t, int sig, uint64_t period_ns, tf_error *err)
{
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = sig;
    sev._sigev_un._tid = (pid_t)t->tid;
    sev.sigev_value.sival_ptr = t;
    if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t->timer))
        return tf_fail(err, TF_ERR_UNSUPPORTED, "timer_create: %s", strerror(errno));
    t->has_timer = true;
    set_period(t, period_ns);
    return 0;
}

TF_HANDLER_CODE static bool posix_owns(const tf_rec_thread *t, const siginfo_t *si)
{
    return t->has_timer && si->si_code == SI_TIMER && si->si_value.sival_ptr == t;
}

TF_HANDLER_CODE static const uint64_t *posix_group_read(tf_rec_thread *t, uint64_t *scratch,
                                                        size_t words)
{
    return NULL;
}

static void posix_stop(tf_rec_thread *t)
{
    if (!t->has_timer)
        return;
    timer_delete(t->timer);
    t->has_timer = false;
}

const tf_sampler_ops tf_sampler_posix = {
    .name = "posix",
    .start = posix_start,
    .rearm = set_period,
    .owns = posix_owns,
    .group_read = posix_group_read,
    .stop = posix_stop,
};
