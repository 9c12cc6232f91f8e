/* SPDX-License-Identifier: BSD-3-Clause */
/* Layout helpers of the shared-memory session (tf_session.h), used by both
 * the library and the writer. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tf_session.h"

void tf_shm_buffer_layout(tf_shm_buffer *b, size_t size, uint32_t nbase, uint32_t depth)
{
    memset(b, 0, sizeof *b);
    b->magic = TF_SESSION_MAGIC;
    b->size = size;
    size_t ev = tf_event_slot_size(nbase), sm = tf_sample_slot_size(nbase, depth);
    size_t room = size - sizeof *b;
    /* Events get a quarter: region marks are far rarer than samples in a
     * coarse-sampled run, but every one of them matters to folding. */
    size_t ev_bytes = room / 4;
    b->events.slot_size = (uint32_t)ev;
    b->events.nslots = (uint32_t)(ev_bytes / ev);
    b->events.offset = sizeof *b - offsetof(tf_shm_buffer, events);
    b->samples.slot_size = (uint32_t)sm;
    b->samples.nslots = (uint32_t)((room - ev_bytes) / sm);
    b->samples.offset = sizeof *b + (size_t)b->events.nslots * ev - offsetof(tf_shm_buffer, samples);
}

int tf_session_buffer_name(char *buf, size_t size, const char *proc_file, uint32_t slot)
{
    int n = snprintf(buf, size, "%s.t%u", proc_file, slot);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

bool tf_session_quiet_env(void)
{
    const char *v = getenv(TF_QUIET_ENV);
    return v && *v && strcmp(v, "0") && strcmp(v, "no");
}

void tf_session_poke(const char *dir)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/" TF_SESSION_WAKE, dir) >= (int)sizeof path)
        return;
    /* O_NONBLOCK: open fails with ENXIO rather than waiting for a reader. */
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return;
    char byte = 1;
    (void)!write(fd, &byte, 1);
    close(fd);
}

bool tf_session_writer_started(const char *dir)
{
    char path[PATH_MAX];
    return snprintf(path, sizeof path, "%s/" TF_SESSION_WAKE, dir) < (int)sizeof path &&
           access(path, F_OK) == 0;
}

bool tf_session_writer_gone(const char *dir)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/" TF_SESSION_WAKE, dir) >= (int)sizeof path)
        return false;
    /* A FIFO with no reader refuses a non-blocking writer with ENXIO
     * (fifo(7)); the writer holds its FIFO open from its start to its
     * end, and nothing else keeps it open. */
    int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
        close(fd);
        return false;
    }
    return errno == ENXIO;
}

void tf_session_answered(tf_shm_process *p)
{
    atomic_fetch_add_explicit(&p->answer_seq, 1, memory_order_release);
    syscall(SYS_futex, &p->answer_seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

bool tf_session_await(tf_shm_process *p, bool (*done)(const tf_shm_process *p, void *ctx),
                      void *ctx, uint64_t timeout_ns)
{
    uint64_t deadline = mono_ns() + timeout_ns;
    for (;;) {
        /* The sequence before the condition: an answer stored after the
         * check changes it, and the futex then returns at once. */
        uint32_t seq = atomic_load_explicit(&p->answer_seq, memory_order_acquire);
        if (done(p, ctx))
            return true;
        uint64_t now = mono_ns();
        if (now >= deadline)
            return false;
        uint64_t left = deadline - now;
        struct timespec ts = {(time_t)(left / 1000000000u), (long)(left % 1000000000u)};
        syscall(SYS_futex, &p->answer_seq, FUTEX_WAIT, seq, &ts, NULL, 0);
    }
}
