/* SPDX-License-Identifier: BSD-3-Clause */
/* Sampling back end: a perf software task-clock event per thread that
 * overflows every period of the thread's CPU time and raises a signal
 * directed at that thread.  perf_event_open(2): with O_ASYNC, F_SETSIG and
 * F_SETOWN_EX(F_OWNER_TID), each overflow sends the chosen signal with
 * si_code POLL_IN and si_fd = the event.  The task clock is driven by an
 * hrtimer, so unlike POSIX CPU-time timers it is not rounded to the kernel
 * tick (HZ).
 *
 * With --overflow, the event is that counter instead (every N events,
 * where a PMU exists); if it cannot be opened, sampling falls back to the
 * task clock with one message.
 *
 * The event joins the thread's counter group 0 with PERF_SAMPLE_READ and
 * PERF_FORMAT_GROUP, so the kernel reads the whole group into the event's
 * ring buffer at the overflow: the handler takes the values from memory
 * instead of paying a read(2) (about a microsecond under virtualisation). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tf_rec.h"

#define RING_DATA_PAGES 2   /* power of two (perf_event_open(2), "MMAP layout") */

static int perf_start(tf_rec_thread *t, int sig, uint64_t period, tf_error *err)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    if (tf_rec_g.overflow) {
        a = tf_rec_g.overflow_attr;      /* counter-overflow sampling */
    } else {
        a.type = PERF_TYPE_SOFTWARE;
        a.config = PERF_COUNT_SW_TASK_CLOCK;
    }
    a.size = sizeof a;
    a.sample_period = period;
    a.sample_type = PERF_SAMPLE_READ;
    a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                    PERF_FORMAT_TOTAL_TIME_RUNNING;
    a.wakeup_events = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.disabled = 1;
    /* The clock of the group's other events (tf_counters.c). */
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    int group = tf_counters_group0_fd(t);
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && group >= 0) {
        a.sample_type = 0;          /* alone: counters are then read by read(2) */
        fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    }
    if (fd < 0)
        return tf_fail(err, TF_ERR_UNSUPPORTED, "perf_event_open(%s): %s",
                       tf_rec_g.overflow ? tf_rec_g.opt.overflow : "task-clock", strerror(errno));
    size_t page = (size_t)sysconf(_SC_PAGESIZE), size = (1 + RING_DATA_PAGES) * page;
    void *ring = a.sample_type ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                               : MAP_FAILED;
    struct f_owner_ex owner = {F_OWNER_TID, (pid_t)t->tid};
    if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) || fcntl(fd, F_SETSIG, sig) ||
        fcntl(fd, F_SETOWN_EX, &owner) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
        int e = errno;
        if (ring != MAP_FAILED)
            munmap(ring, size);
        close(fd);
        return tf_fail(err, TF_ERR_UNSUPPORTED, "perf event signal setup: %s", strerror(e));
    }
    t->sample_fd = fd;
    t->sample_ring = ring == MAP_FAILED ? NULL : ring;
    t->sample_ring_size = size;
    t->sample_tail = 0;
    return 0;
}

/* Copies n bytes at ring offset pos, wrapping at the end of the data area
 * (whose size is a power of two).  Records and their positions are
 * multiples of 8 bytes (perf_event_open(2), "MMAP layout"), so it copies
 * words; the volatile loads of the kernel's buffer also keep the compiler
 * from calling memcpy, a cold page of libc at every sample. */
TF_HANDLER_CODE static void ring_copy(const char *data, uint64_t size, uint64_t pos,
                                      uint64_t *dst, size_t n)
{
    for (size_t i = 0; i < n / 8; i++)
        dst[i] = *(const volatile uint64_t *)(data + ((pos + 8 * i) & (size - 1)));
}

TF_HANDLER_CODE static const uint64_t *perf_group_read(tf_rec_thread *t, uint64_t *scratch,
                                                       size_t words)
{
    struct perf_event_mmap_page *pg = t->sample_ring;
    if (!pg)
        return NULL;
    /* data_head: load-acquire pairs with the kernel's store (the "MMAP
     * layout" section of perf_event_open(2)). */
    uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = pg->data_tail;
    const char *data = (const char *)pg + pg->data_offset;
    uint64_t size = pg->data_size;
    const uint64_t *last = NULL;
    while (tail < head) {
        union {
            struct perf_event_header h;
            uint64_t word;
        } u;
        ring_copy(data, size, tail, &u.word, sizeof u.word);
        struct perf_event_header h = u.h;
        if (h.size < sizeof h)
            break;
        size_t body = h.size - sizeof h;
        if (h.type == PERF_RECORD_SAMPLE && body <= words * sizeof *scratch) {
            ring_copy(data, size, tail + sizeof h, scratch, body);
            last = scratch;
        }
        tail += h.size;
    }
    /* Everything is consumed: the kernel may reuse the space. */
    __atomic_store_n(&pg->data_tail, head, __ATOMIC_RELEASE);
    t->sample_tail = head;
    return last;
}

TF_HANDLER_CODE static void perf_prefetch(const tf_rec_thread *t)
{
    const char *pg = t->sample_ring;
    if (!pg)
        return;
    /* The header's data_head, and the next record, which starts where the
     * last read ended: the handler need not wait for the header to know. */
    size_t page = t->sample_ring_size / (1 + RING_DATA_PAGES);
    __builtin_prefetch(&((const struct perf_event_mmap_page *)pg)->data_head);
    __builtin_prefetch(pg + page + (t->sample_tail & (RING_DATA_PAGES * page - 1)));
}

TF_HANDLER_CODE static void perf_rearm(tf_rec_thread *t, uint64_t period)
{
    /* Takes effect at the next overflow (for the task clock, the next
     * hrtimer expiry: kernel perf_swevent_hrtimer). */
    ioctl(t->sample_fd, PERF_EVENT_IOC_PERIOD, &period);
}

TF_HANDLER_CODE static bool perf_owns(const tf_rec_thread *t, const siginfo_t *si)
{
    return t->sample_fd >= 0 && si->si_fd == t->sample_fd;
}

static void perf_stop(tf_rec_thread *t)
{
    if (t->sample_fd < 0)
        return;
    ioctl(t->sample_fd, PERF_EVENT_IOC_DISABLE, 0);
    if (t->sample_ring)
        munmap(t->sample_ring, t->sample_ring_size);
    t->sample_ring = NULL;
    close(t->sample_fd);
    t->sample_fd = -1;
}

const tf_sampler_ops tf_sampler_perf = {
    .name = "perf",
    .start = perf_start,
    .rearm = perf_rearm,
    .prefetch = perf_prefetch,
    .owns = perf_owns,
    .group_read = perf_group_read,
    .stop = perf_stop,
};
