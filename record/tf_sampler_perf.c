/* SPDX-License-Identifier: BSD-3-Clause */
/* Sampling back end: a perf software task-clock event per thread that
 * overflows every period of the thread's CPU time and raises a signal
 * directed at that thread.  perf_event_open(2): with O_ASYNC, F_SETSIG and
 * F_SETOWN_EX(F_OWNER_TID), each overflow sends the chosen signal with
 * si_code POLL_IN and si_fd = the event; no ring buffer is needed for the
 * notification.  The task clock is driven by an hrtimer, so unlike POSIX
 * CPU-time timers it is not rounded to the kernel tick (HZ). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tf_rec.h"

static int perf_start(tf_rec_thread *t, int sig, uint64_t period_ns, tf_error *err)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = period_ns;
    a.wakeup_events = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.disabled = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return tf_fail(err, TF_ERR_UNSUPPORTED, "perf_event_open(task-clock): %s", strerror(errno));
    struct f_owner_ex owner = {F_OWNER_TID, (pid_t)t->tid};
    if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) || fcntl(fd, F_SETSIG, sig) ||
        fcntl(fd, F_SETOWN_EX, &owner) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
        int e = errno;
        close(fd);
        return tf_fail(err, TF_ERR_UNSUPPORTED, "perf event signal setup: %s", strerror(e));
    }
    t->sample_fd = fd;
    return 0;
}

static void perf_rearm(tf_rec_thread *t, uint64_t period_ns)
{
    /* Takes effect at the next hrtimer expiry (kernel perf_swevent_hrtimer). */
    ioctl(t->sample_fd, PERF_EVENT_IOC_PERIOD, &period_ns);
}

static bool perf_owns(const tf_rec_thread *t, const siginfo_t *si)
{
    return t->sample_fd >= 0 && si->si_fd == t->sample_fd;
}

static void perf_stop(tf_rec_thread *t)
{
    if (t->sample_fd < 0)
        return;
    ioctl(t->sample_fd, PERF_EVENT_IOC_DISABLE, 0);
    close(t->sample_fd);
    t->sample_fd = -1;
}

const tf_sampler_ops tf_sampler_perf = {
    .name = "perf",
    .start = perf_start,
    .rearm = perf_rearm,
    .owns = perf_owns,
    .stop = perf_stop,
};
