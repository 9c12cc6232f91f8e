/* SPDX-License-Identifier: BSD-3-Clause */
/* The sampling signal handler and the choice of back end and signal.
 *
 * Signal: a real-time signal the application does not handle (searched from
 * SIGRTMAX-1 down, or TRACEFOLD_SIGNAL), so that applications keep SIGPROF,
 * SIGALRM and SIGIO for themselves.  A signal that reaches the handler but
 * was not raised by our back end is passed to the handler that was installed
 * before ours.
 *
 * The handler only does async-signal-safe work (signal-safety(7)):
 * clock_gettime, read(2) of the counter groups, ioctl/timer_settime for the
 * next period, a walk of the stack (tf_unwind.c), and stores into the
 * thread's own shared-memory ring.  The memory-sampling back end
 * (tf_memsample.c) adds its samples around the timer sample: hardware
 * samples drained before it, decoded ones after. */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "tf_rec.h"

static struct sigaction previous;     /* the application's, for chaining */
static pthread_mutex_t previous_lock = PTHREAD_MUTEX_INITIALIZER;

TF_HANDLER_CODE static void on_sample(int sig, siginfo_t *si, void *ucv)
{
    int saved_errno = errno;
    tf_rec_thread *t = tf_self;
    if (!t || !tf_rec_g.sampler || !tf_rec_g.sampler->owns(t, si)) {
        /* Not ours: give it to whoever had the signal before us. */
        if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction)
            previous.sa_sigaction(sig, si, ucv);
        else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN &&
                 previous.sa_handler)
            previous.sa_handler(sig);
        errno = saved_errno;
        return;
    }
    if (t->sampling && tf_rec_active()) {
        /* One clock read: the sample's time, and with TRACEFOLD_STATS the
         * start of the handler's timing of itself. */
        uint64_t now = tf_now();
        ucontext_t *uc = ucv;
        const tf_sampler_ops *sampler = tf_rec_g.sampler;
        tf_shm_ring *r = &t->buf->samples;
        /* At coarse periods what follows is cold (bench/RESULTS.md,
         * "Recorder"): asking for it all now lets the page walks and cache
         * misses of the ring, the counter values, the user counters and
         * the stack overlap rather than follow one another. */
        tf_ring_prefetch(r);
        if (t->slot_hint) {
            __builtin_prefetch(t->slot_hint, 1);
            __builtin_prefetch(tf_sample_frames(t->slot_hint, tf_rec_g.nbase), 1);
        }
        if (sampler->prefetch)
            sampler->prefetch(t);
        __builtin_prefetch(&tf_rec_g.proc->user_word);
        tf_unwind_prefetch(t, uc);
        const tf_memsampler_ops *mem = t->mem ? tf_rec_g.memsampler : NULL;
        if (mem && mem->drain)
            mem->drain(t);
        tf_sample_slot *s = tf_ring_reserve(r);
        if (s) {
            uint32_t nbase = tf_rec_g.nbase;
            s->time = now;
            s->ip = tf_context_ip(uc);
            s->addr = 0;
            s->data_source = 0;
            s->weight = 0;
            s->kind = 0;                /* TF_SAMPLE_TIMER */
            s->level = 255;             /* TF_LEVEL_UNKNOWN */
            s->flags = 0;
            uint64_t group0[TF_GROUP_READ_WORDS];
            tf_counters_read(t, s->ctr, sampler->group_read(t, group0, TF_GROUP_READ_WORDS));
            uint32_t nuser = TF_USER_COUNT(
                atomic_load_explicit(&tf_rec_g.proc->user_word, memory_order_relaxed));
            if (nuser)     /* else no call into libc's memcpy, one more page */
                memcpy(s->ctr + nbase, t->user, nuser * sizeof t->user[0]);
            s->nuser = (uint8_t)nuser;
            s->nframes = (uint16_t)tf_unwind_sample(t, uc, tf_sample_frames(s, nbase),
                                                    tf_rec_g.opt.stack_depth);
            if (tf_ring_commit(r))
                tf_rec_wake();
            t->slot_hint = tf_ring_slot(r, atomic_load_explicit(&r->head, memory_order_relaxed));
            if (mem && mem->decode)
                mem->decode(t, uc, s);
        }
        if (tf_rec_g.opt.jitter_pct && ++t->nsamples % TF_REDRAW_EVERY == 0)
            sampler->rearm(t, tf_jittered_period(t));
        if (tf_rec_g.opt.stats)
            tf_stats_add(t, tf_now() - now);
    }
    errno = saved_errno;
}

/* An application that installs a handler for our signal after we chose
 * it would silence the sampling and receive signals it does not expect:
 * its handler is kept as the one signals that are not ours are passed to
 * (sigaction(2) semantics otherwise unchanged for it). */
typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    static sigaction_fn real;
    if (!real)
        real = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
    if (tf_regions_keep_handler(sig, act, old))
        return 0;
    if (!sig || sig != tf_rec_g.signal || !tf_rec_g.sampler)
        return real(sig, act, old);
    pthread_mutex_lock(&previous_lock);
    if (old)
        *old = previous;
    if (act)
        previous = *act;
    pthread_mutex_unlock(&previous_lock);
    return 0;
}

sighandler_t signal(int sig, sighandler_t handler)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    return sigaction(sig, &sa, &old) ? SIG_ERR : old.sa_handler;
}

static int choose_signal(void)
{
    if (tf_rec_g.opt.signal)
        return tf_rec_g.opt.signal;
    for (int sig = SIGRTMAX - 1; sig > SIGRTMIN; sig--) {
        struct sigaction cur;
        if (!sigaction(sig, NULL, &cur) && !(cur.sa_flags & SA_SIGINFO) &&
            cur.sa_handler == SIG_DFL)
            return sig;
    }
    return 0;
}

/* Whether back end ops can sample the calling thread (started and stopped
 * at once); overflow: on tf_rec_g.overflow_attr. */
static int probe_sampler(const tf_sampler_ops *ops, int sig, uint64_t period, bool overflow,
                         tf_error *err)
{
    tf_rec_thread probe;
    memset(&probe, 0, sizeof probe);
    probe.sample_fd = -1;
    for (uint32_t k = 0; k < TF_SESSION_MAX_BASE; k++)
        probe.ctr_fd[k] = -1;
    probe.tid = (uint64_t)gettid();
    tf_rec_g.overflow = overflow;
    int rc = ops->start(&probe, sig, period, err);
    if (rc == 0) {
        ops->stop(&probe);
        tf_error_clear(err);
    }
    tf_rec_g.overflow = overflow && rc == 0;
    return rc;
}

int tf_sampling_setup(tf_error *err)
{
    tf_rec_g.sampler = NULL;
    tf_rec_g.signal = 0;
    int choice = tf_rec_g.opt.sampler;
    if (choice == TF_SAMPLER_NONE)
        return 0;
    int sig = choose_signal();
    if (!sig)
        return tf_fail(err, TF_ERR_UNSUPPORTED, "no free real-time signal for sampling");
    if (sig < SIGRTMIN || sig > SIGRTMAX)
        return tf_fail(err, TF_ERR_USAGE, "TRACEFOLD_SIGNAL %d is not a real-time signal (%d to %d)",
                       sig, SIGRTMIN, SIGRTMAX);
    tf_unwind_setup();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sample;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(sig, &sa, &previous))   /* tf_rec_g.signal is not set yet: the real one */
        return tf_fail(err, TF_ERR_UNSUPPORTED, "sigaction(%d): %s", sig, strerror(errno));
    tf_rec_g.signal = sig;
    tf_rec_g.sample_period = tf_rec_g.opt.period_ns;
    tf_rec_g.overflow = false;
    if (strcmp(tf_rec_g.opt.overflow, "none") && choice != TF_SAMPLER_POSIX) {
        if (tf_counters_encode(tf_rec_g.opt.overflow, &tf_rec_g.overflow_attr) == 0 &&
            probe_sampler(&tf_sampler_perf, sig, tf_rec_g.opt.overflow_period, true, err) == 0) {
            tf_rec_g.sampler = &tf_sampler_perf;
            tf_rec_g.sample_period = tf_rec_g.opt.overflow_period;
            return 0;
        }
        tf_rec_say(true, "overflow sampling on %s unavailable on this machine; sampling every %llu"
                   " ns of CPU time instead", tf_rec_g.opt.overflow,
                   (unsigned long long)tf_rec_g.opt.period_ns);
    }
    /* auto: the perf clock (precise at any rate); POSIX timers when perf
     * events are refused (perf_event_paranoid 3, seccomp). */
    const tf_sampler_ops *order[2] = {&tf_sampler_perf, &tf_sampler_posix};
    if (choice == TF_SAMPLER_POSIX)
        order[0] = &tf_sampler_posix;
    for (int i = 0; i < (choice == TF_SAMPLER_AUTO ? 2 : 1); i++) {
        if (probe_sampler(order[i], sig, tf_rec_g.opt.period_ns, false, err) == 0) {
            tf_rec_g.sampler = order[i];
            return 0;
        }
    }
    sigaction(sig, &previous, NULL);
    tf_rec_g.signal = 0;
    return -TF_ERR_UNSUPPORTED;
}

void tf_sampling_thread_start(tf_rec_thread *t)
{
    t->sample_fd = -1;
    t->kfd = -1;
    t->rng = t->tid * 0x9e3779b97f4a7c15ull ^ tf_now();
    if (!t->rng)
        t->rng = 1;
    if (!tf_rec_g.sampler)
        return;
    if (tf_rec_g.kernel_capture) {
        tf_error err;
        tf_error_clear(&err);
        if (tf_kcapture_thread_start(t, &err) == 0)
            return;
        /* This thread only (the ring did not fit the locked-memory limit,
         * say); the probe at the start worked. */
        static _Atomic bool said;
        if (!atomic_exchange(&said, true))
            tf_rec_say(tf_rec_g.opt.capture == TF_CAPTURE_KERNEL, "kernel capture refused for a"
                       " thread (%s); its samples are taken by the signal handler", err.msg);
        tf_memsampling_thread_handler(t);
    }
    tf_sampling_thread_handler(t);
}

void tf_sampling_thread_handler(tf_rec_thread *t)
{
    /* With kernel capture the writer unwinds the thread's samples: the
     * unwinder's first call and the rules of the frames below this one
     * (tf_unwind_thread_start, a sixth of a recorded /bin/true's start
     * in the program) and the sample ring's pages are only for a thread
     * whose samples the handler takes, made ready before it starts. */
    tf_unwind_thread_start(t);
    tf_thread_prefault_samples(t);
    tf_error err;
    tf_error_clear(&err);
    t->sampling = true;
    if (tf_rec_g.sampler->start(t, tf_rec_g.signal, tf_jittered_period(t), &err))
        t->sampling = false;
}

void tf_sampling_thread_stop(tf_rec_thread *t)
{
    t->sampling = false;
    tf_kcapture_thread_stop(t);
    if (tf_rec_g.sampler)
        tf_rec_g.sampler->stop(t);
}
