/* SPDX-License-Identifier: BSD-3-Clause */
/* Kernel capture of timer samples (docs/recorder.md, "Kernel capture"): the
 * thread's perf task-clock event, in its counter group 0, is opened with
 * sample_type IP | TIME | READ | REGS_USER | STACK_USER and no O_ASYNC, so
 * at each overflow the kernel writes the instruction address, the time
 * (use_clockid CLOCK_MONOTONIC: the base of tf_now), the group's counter
 * values, the user registers and a copy of the top of the user stack into
 * the event's mmap ring (perf_event_open(2), "MMAP layout",
 * PERF_RECORD_SAMPLE) and no signal is sent: the application runs no code
 * of ours per sample.  The writer process takes a duplicate of the
 * descriptor with pidfd_getfd(2) (which needs ptrace-mode attach access:
 * the same user, a dumpable process, and under Yama a tracer that is an
 * ancestor or named with PR_SET_PTRACER), maps the same ring, and does
 * offline what the handler would have done: counters, call stack (DWARF
 * CFI from the copied registers and stack), software memory decoding.
 *
 * What the kernel cannot capture keeps the signal path (tf_sample.c):
 * counter groups beyond the first (read(2) in the handler), PEBS/IBS
 * draining, and user counters.  A thread's user counters only change in
 * tracefold_counter_add called by that thread, so a thread that never calls
 * it has all of them at 0 and its kernel samples say so exactly; at its
 * first call the thread switches itself to the signal path
 * (tf_kcapture_switch): the kernel event is disabled, the shared header
 * marked TF_KCAP_RETIRED (the writer then drains the kernel ring before the
 * sample ring, so times stay in order), and the perf signal back end is
 * started on the thread.
 *
 * A descriptor is closed only once the writer holds its duplicate
 * (tf_shm_thread.kernel_ack): closing the last one would free the ring
 * with the samples in it.  A thread that ends before that leaves its
 * descriptor on a short pending list, closed later; the process's end
 * waits (at most a second) for the writer.  Nothing here runs in signal
 * context. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "record/mem/ea_decode.h"
#include "tf_rec.h"

/* perf_regs.h of x86-64 (arch/x86/include/uapi/asm/perf_regs.h): AX BX CX
 * DX SI DI BP SP IP (bits 0-8) and R8-R15 (bits 16-23); the segment
 * registers are refused for 64-bit tasks and FLAGS is not needed. */
#define KREGS_X86_64 0xff01ffull

#define PENDING_MAX 64

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
/* The kernel events of the live threads, by thread slot (-1: none), so
 * that the process's end can disable them all. */
static int live_fd[TF_SESSION_MAX_THREADS];
static bool table_ready;
/* Events of threads that ended or switched before the writer took them. */
static struct pending {
    int      fd;
    uint32_t slot;
    void    *ring;
    size_t   ring_size;
} pending[PENDING_MAX];
static uint32_t npending;

static void table_init(void)
{
    if (table_ready)
        return;
    for (uint32_t i = 0; i < TF_SESSION_MAX_THREADS; i++)
        live_fd[i] = -1;
    table_ready = true;
}

static uint32_t ack_of(uint32_t slot)
{
    return atomic_load_explicit(&tf_rec_g.proc->threads[slot].kernel_ack, memory_order_acquire);
}

/* With table_lock held: closes the pending events the writer now holds
 * (all of them with force). */
static void reap(bool force)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < npending; i++) {
        struct pending *e = &pending[i];
        if (force || ack_of(e->slot) != TF_KACK_NONE) {
            munmap(e->ring, e->ring_size);
            close(e->fd);
        } else {
            pending[k++] = *e;
        }
    }
    npending = k;
}

/* Data pages of a ring: a power of two (perf_event_open(2), "MMAP
 * layout") holding kernel-ring bytes, and at least four records (a record
 * larger than the ring could never be written). */
static size_t ring_pages(void)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), pages = 1;
    uint64_t want = tf_rec_g.opt.kernel_ring, four = 4 * (tf_rec_g.opt.kernel_stack + 512);
    if (want < four)
        want = four;
    while (pages * page < want)
        pages *= 2;
    return pages;
}

static void kernel_attr(struct perf_event_attr *a, uint64_t period, bool group)
{
    memset(a, 0, sizeof *a);
    if (tf_rec_g.overflow) {
        *a = tf_rec_g.overflow_attr;
    } else {
        a->type = PERF_TYPE_SOFTWARE;
        a->config = PERF_COUNT_SW_TASK_CLOCK;
    }
    a->size = sizeof *a;
    a->sample_period = period;
    a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TIME;
    if (group)
        a->sample_type |= PERF_SAMPLE_READ;
    a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                     PERF_FORMAT_TOTAL_TIME_RUNNING;
    bool stack = tf_rec_g.opt.unwind != TF_UNWIND_NONE && tf_rec_g.opt.stack_depth > 0;
    if (stack || tf_rec_g.memsampler == &tf_memsampler_software) {
        a->sample_type |= PERF_SAMPLE_REGS_USER;
        a->sample_regs_user = KREGS_X86_64;
    }
    if (stack) {
        a->sample_type |= PERF_SAMPLE_STACK_USER;
        a->sample_stack_user = (uint32_t)(tf_rec_g.opt.kernel_stack & ~7ull);
    }
    /* Times on the clock of every other record (tf_now). */
    a->use_clockid = 1;
    a->clockid = CLOCK_MONOTONIC;
    a->exclude_kernel = 1;
    a->exclude_hv = 1;
    a->disabled = 1;
}

/* Opens, maps and enables the calling thread's kernel-capture event. */
static int open_event(uint64_t period, int group, struct perf_event_attr *a, void **ring,
                      size_t *ring_size, tf_error *err)
{
    kernel_attr(a, period, group >= 0);
    const char *refuse = getenv("TRACEFOLD_TEST_REFUSE_KERNEL");
    if (refuse && *refuse && strcmp(refuse, "0"))   /* tests: a kernel that refuses */
        return tf_fail(err, TF_ERR_UNSUPPORTED, "perf_event_open(REGS_USER|STACK_USER): %s"
                       " (TRACEFOLD_TEST_REFUSE_KERNEL)", strerror(EACCES));
    int fd = (int)syscall(SYS_perf_event_open, a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        return tf_fail(err, TF_ERR_UNSUPPORTED, "perf_event_open(REGS_USER|STACK_USER): %s",
                       strerror(errno));
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    *ring_size = (1 + ring_pages()) * page;
    /* Mapped here, not only by the writer: the ring exists from the first
     * sample on, before the writer has taken its duplicate. */
    *ring = mmap(NULL, *ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (*ring == MAP_FAILED) {
        int e = errno;
        close(fd);
        return tf_fail(err, TF_ERR_UNSUPPORTED,
                       "mmap of a %zu KiB perf ring: %s (perf_event_mlock_kb, ulimit -l; "
                       "see --kernel-ring)", *ring_size / 1024, strerror(e));
    }
    if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
        int e = errno;
        munmap(*ring, *ring_size);
        close(fd);
        return tf_fail(err, TF_ERR_UNSUPPORTED, "PERF_EVENT_IOC_ENABLE: %s", strerror(e));
    }
    return fd;
}

/* Whether a writer in another process may take our descriptors: the
 * system calls exist (proved on ourselves) and ptrace-mode access will be
 * granted (ptrace(2), "Ptrace access mode checking"). */
static int writer_access(tf_error *err)
{
    int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
    if (pidfd < 0)
        return tf_fail(err, TF_ERR_UNSUPPORTED, "pidfd_open: %s", strerror(errno));
    int dup = (int)syscall(SYS_pidfd_getfd, pidfd, pidfd, 0);
    int e = errno;
    close(pidfd);
    if (dup < 0)
        return tf_fail(err, TF_ERR_UNSUPPORTED, "pidfd_getfd: %s", strerror(e));
    close(dup);
    if (prctl(PR_GET_DUMPABLE) != 1)
        return tf_fail(err, TF_ERR_UNSUPPORTED, "the process is not dumpable (set-user-ID?)");
    /* Yama (Documentation/admin-guide/LSM/Yama.rst): 1 lets an ancestor
     * attach (`tracefold record` is the parent; the helper writer of a
     * linked program is named with PR_SET_PTRACER by tf_lib.c); 2 and 3
     * need CAP_SYS_PTRACE or forbid it. */
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
    int scope = 0;
    if (f) {
        if (fscanf(f, "%d", &scope) != 1)
            scope = 0;
        fclose(f);
    }
    if (scope >= 2)
        return tf_fail(err, TF_ERR_UNSUPPORTED, "Yama ptrace_scope is %d", scope);
    return 0;
}

/* The reason the signal handler is needed, or NULL. */
static const char *needs_handler(void)
{
    if (tf_rec_g.sampler != &tf_sampler_perf)
        return "the sampler is not perf";
    if (tf_rec_g.groups.ngroups > 1)
        return "more than one counter group (the others are read by read(2))";
    if (tf_rec_g.memsampler && tf_rec_g.memsampler != &tf_memsampler_software)
        return "the memory sampler drains its ring from the handler";
#if !defined(__x86_64__)
    return "x86-64 only";
#endif
    return NULL;
}

/* Whether auto should prefer the handler at this rate: the ring must hold
 * two of the writer's drain intervals of samples. */
static bool ring_too_small(void)
{
    uint64_t tick = tf_rec_g.opt.flush_ns / 20;
    if (tick > 50000000u)
        tick = 50000000u;
    uint64_t per_tick = tick / (tf_rec_g.sample_period ? tf_rec_g.sample_period : 1) + 1;
    uint64_t record = 512 + tf_rec_g.opt.kernel_stack;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return 2 * per_tick * record > ring_pages() * page;
}

void tf_kcapture_setup(void)
{
    tf_rec_g.kernel_capture = false;
    int choice = tf_rec_g.opt.capture;
    if (choice == TF_CAPTURE_SIGNAL || !tf_rec_g.sampler)
        return;
    const char *why = needs_handler();
    if (!why && choice == TF_CAPTURE_AUTO && tf_rec_g.overflow)
        why = "counter-overflow sampling";   /* no PMU to measure it on here */
    if (!why && choice == TF_CAPTURE_AUTO && ring_too_small())
        why = "the kernel ring would fill between two drains at this period";
    if (why) {
        if (choice == TF_CAPTURE_KERNEL)
            tf_rec_say(true, "kernel capture not possible (%s); samples are taken by the signal"
                       " handler", why);
        return;
    }
    tf_error err;
    tf_error_clear(&err);
    struct perf_event_attr a;
    void *ring;
    size_t size;
    tf_rec_thread probe;
    memset(&probe, 0, sizeof probe);
    (void)tf_counters_open(&probe);
    int fd = writer_access(&err) ? -1
                                 : open_event(tf_rec_g.sample_period, tf_counters_group0_fd(&probe),
                                              &a, &ring, &size, &err);
    tf_counters_close(&probe);
    if (fd < 0) {
        tf_rec_say(choice == TF_CAPTURE_KERNEL, "kernel capture refused (%s); samples are taken"
                   " by the signal handler", err.msg);
        return;
    }
    munmap(ring, size);
    close(fd);
    pthread_mutex_lock(&table_lock);
    table_init();
    pthread_mutex_unlock(&table_lock);
    tf_rec_g.kernel_capture = true;
}

int tf_kcapture_thread_start(tf_rec_thread *t, tf_error *err)
{
    struct perf_event_attr a;
    void *ring;
    size_t size;
    int group = tf_counters_group0_fd(t);
    int fd = open_event(tf_rec_g.sample_period, group, &a, &ring, &size, err);
    if (fd < 0)
        return fd;
    tf_shm_kcapture *k = &t->buf->kernel;
    uint64_t id = 0;
    ioctl(fd, PERF_EVENT_IOC_ID, &id);
    k->fd = fd;
    k->id = id;
    k->sample_type = a.sample_type;
    k->read_format = a.read_format;
    k->regs_mask = a.sample_regs_user;
    k->mmap_bytes = size;
    k->period_ns = tf_rec_g.sample_period;
    k->jitter_pct = tf_rec_g.opt.jitter_pct;
    k->ngroup0 = group >= 0 && tf_rec_g.groups.ngroups ? tf_rec_g.groups.count[0] : 0;
    k->unwind = (uint32_t)tf_rec_g.opt.unwind;
    k->memory = tf_rec_g.memsampler == &tf_memsampler_software;
    tf_error e2;
    if (tf_ea_thread_bases(&k->fs_base, &k->gs_base, &e2))
        k->fs_base = k->gs_base = 0;
    k->stack_lo = t->stack_lo;
    k->stack_hi = t->stack_hi;
    t->kfd = fd;
    t->kring = ring;
    t->kring_size = size;
    t->kernel = true;
    pthread_mutex_lock(&table_lock);
    reap(false);
    live_fd[t->slot] = fd;
    pthread_mutex_unlock(&table_lock);
    atomic_store_explicit(&k->state, TF_KCAP_ACTIVE, memory_order_release);
    tf_session_poke(tf_rec_g.session);
    return 0;
}

/* The event is disabled; closes it now if the writer holds it, else later. */
static void let_go(tf_rec_thread *t)
{
    pthread_mutex_lock(&table_lock);
    live_fd[t->slot] = -1;
    if (ack_of(t->slot) != TF_KACK_NONE || npending == PENDING_MAX) {
        /* A full list: the samples of this thread's ring may be lost if
         * the writer has not taken it yet (64 threads ended within one of
         * its drains). */
        munmap(t->kring, t->kring_size);
        close(t->kfd);
    } else {
        pending[npending++] = (struct pending){t->kfd, t->slot, t->kring, t->kring_size};
    }
    reap(false);
    pthread_mutex_unlock(&table_lock);
    t->kfd = -1;
    t->kring = NULL;
    t->kernel = false;
}

void tf_kcapture_thread_stop(tf_rec_thread *t)
{
    if (!t->kernel)
        return;
    ioctl(t->kfd, PERF_EVENT_IOC_DISABLE, 0);
    let_go(t);
}

void tf_kcapture_switch(tf_rec_thread *t)
{
    if (!t->kernel)
        return;
    /* Disabled first: after the release store below the kernel ring gets
     * no more records, and the writer drains it before the sample ring. */
    ioctl(t->kfd, PERF_EVENT_IOC_DISABLE, 0);
    atomic_store_explicit(&t->buf->kernel.state, TF_KCAP_RETIRED, memory_order_release);
    let_go(t);
    tf_memsampling_thread_handler(t);
    tf_sampling_thread_handler(t);
}

#define RINGS_WAIT_NS 5000000000ull

/* Every ring published has the writer's answer. */
static bool rings_taken(const tf_shm_process *p, void *ctx)
{
    (void)ctx;
    bool all = true;
    pthread_mutex_lock(&table_lock);
    for (uint32_t i = 0; all && i < TF_SESSION_MAX_THREADS; i++)
        all = live_fd[i] < 0 || ack_of(i) != TF_KACK_NONE;
    for (uint32_t i = 0; all && i < npending; i++)
        all = ack_of(pending[i].slot) != TF_KACK_NONE;
    pthread_mutex_unlock(&table_lock);
    return all || atomic_load(&p->writer) == TF_WRITER_FAILED;
}

void tf_kcapture_process_stop(void)
{
    if (!tf_rec_g.kernel_capture)
        return;
    /* No sample after the end: the other threads' events are disabled
     * (their descriptors are the process's). */
    pthread_mutex_lock(&table_lock);
    for (uint32_t i = 0; i < TF_SESSION_MAX_THREADS; i++)
        if (live_fd[i] >= 0)
            ioctl(live_fd[i], PERF_EVENT_IOC_DISABLE, 0);
    pthread_mutex_unlock(&table_lock);
    /* The writer takes every ring when poked (tf_session_poke): wait for
     * its answers, which closing (or exit) would otherwise free with
     * their samples; at most 5 s should the writer hang (a writer that
     * has gone ends the wait at once: tf_rec_await). */
    tf_session_poke(tf_rec_g.session);
    tf_rec_await(rings_taken, NULL, RINGS_WAIT_NS, "taking the kernel rings at the end");
    pthread_mutex_lock(&table_lock);
    reap(true);
    pthread_mutex_unlock(&table_lock);
}

void tf_kcapture_forget(tf_rec_thread *t)
{
    /* A forked child: our copies of the parent's descriptors (every
     * thread's: descriptors are the process's), closed without disabling
     * the parent's events.  The rings are not mapped here (perf maps them
     * VM_DONTCOPY), so the munmaps only drop nothing. */
    if (t && t->kernel) {
        munmap(t->kring, t->kring_size);
        t->kernel = false;
    }
    if (table_ready)
        for (uint32_t i = 0; i < TF_SESSION_MAX_THREADS; i++)
            if (live_fd[i] >= 0)
                close(live_fd[i]);
    for (uint32_t i = 0; i < npending; i++) {
        munmap(pending[i].ring, pending[i].ring_size);
        close(pending[i].fd);
    }
    npending = 0;
    pthread_mutex_init(&table_lock, NULL);
    table_ready = false;
    table_init();
}
