/* SPDX-License-Identifier: BSD-3-Clause */
/* Internals of libtracefold shared between its files.  Everything here runs
 * in the application's process: no HDF5, no libxml2. */
#ifndef TF_REC_H
#define TF_REC_H

#include <limits.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <ucontext.h>

#include "common/tf_error.h"
#include "record/tf_options.h"
#include "record/tf_session.h"

#define TF_MAX_GROUPS 4

/* Code the sampling handler runs.  At coarse periods every sample finds the
 * handler's pages cold, and under virtualisation each cold page costs a
 * two-dimensional page walk (bench/RESULTS.md, "Recorder"): GCC's hot
 * attribute puts these functions in .text.hot, which the linker's default
 * script gathers in one place, so that they share few pages; hidden ones are
 * called directly rather than through the PLT and GOT (two more pages). */
#define TF_HANDLER_CODE __attribute__((hot))
#define TF_HANDLER_API  __attribute__((hot, visibility("hidden")))
/* On the first of them in link order (tf_counters_read: tf_counters.c
 * comes first of the files with handler code in record/Makefile.inc.am):
 * a page boundary, so that all of them, under 4 KiB, lie on one page. */
#define TF_HANDLER_FIRST __attribute__((hot, aligned(4096)))
/* Handler cost histogram (TRACEFOLD_STATS): buckets of TF_COST_NS. */
#define TF_COST_BUCKETS 512
#define TF_COST_NS      25

/* Frame rules learned from libunwind, per thread (tf_unwind.c): a hash
 * table of 8 KiB. */
#define TF_FRAME_RULES_LOG2 9
/* Frames of the last walk whose rules and stack words the next sample
 * loads early (tf_unwind_prefetch). */
#define TF_RULE_HINTS       8
/* The stack-depth option's maximum (tf_options.c). */
#define TF_STACK_DEPTH_MAX  128
typedef struct tf_frame_rule {
    uint64_t ip;        /* interrupted address, or return address - 1 */
    int32_t  cfa_off;   /* CFA = rsp or rbp (kind) + cfa_off */
    int16_t  rbp_off;   /* the caller's rbp at CFA + rbp_off; 0: rbp unchanged */
    uint8_t  kind;      /* enum rule_kind of tf_unwind.c; 0: empty */
} tf_frame_rule;

/* Per-thread recorder state, reached through tf_self (initial-exec TLS, so
 * the signal handler can read it without calling into the dynamic loader).
 * The fields every sample reads come first, in the first cache lines; the
 * cost histogram, of which a sample touches one word and only with
 * TRACEFOLD_STATS, comes last. */
typedef struct tf_rec_thread {
    tf_shm_buffer *buf;
    void    *sample_ring;              /* perf back end: its mmap'ed ring buffer */
    size_t   sample_ring_size;
    uint64_t sample_tail;              /* perf back end: the ring's data_tail, as last written */
    struct tf_mem_thread *mem;         /* memory sampling state (tf_memsample.h), or NULL */
    struct tf_region_thread *regions;  /* open --region instances (tf_regions.c), or NULL */
    int      sample_fd;                /* perf back end: the sampling event */
    bool     sampling;                 /* the handler may record */
    bool     has_timer;
    volatile sig_atomic_t unwinding;   /* tf_heap.c is in libunwind: the handler stays out */
    /* What the next sample will probably touch, to load it early: its
     * slot of the sample ring, and the slots of t->rules and the stack
     * words the last walk used, which the next sample of the same stack
     * uses again (tf_unwind_prefetch). */
    void    *slot_hint;
    uint32_t nrule_hints, nstack_hints;
    uint16_t rule_hint[TF_RULE_HINTS];
    uint64_t stack_hint[TF_RULE_HINTS];
    uintptr_t stack_lo, stack_hi;      /* for frame-pointer walks */
    uint64_t nsamples;                 /* samples taken, for the period redraws */
    uint64_t rng;                      /* xorshift state for the period jitter */
    uint64_t ctr_last[TF_SESSION_MAX_BASE];/* last values read: they never go back */
    uint64_t user[TF_SESSION_MAX_USER];/* cumulative user counters */
    volatile sig_atomic_t busy;        /* inside an event write: a nested one drops */
    uint32_t slot;                     /* index in the process's thread table */
    uint64_t tid;
    size_t   buf_size;
    int      ctr_fd[TF_SESSION_MAX_BASE]; /* counter descriptors, -1 when closed */
    timer_t  timer;                    /* posix back end */
    /* Kernel capture (tf_capture_kernel.c): the event, its ring. */
    bool     kernel;                   /* samples are captured by the kernel */
    int      kfd;
    void    *kring;
    size_t   kring_size;
    tf_frame_rule rules[1u << TF_FRAME_RULES_LOG2];   /* written by the handler only */
    uint32_t cost[TF_COST_BUCKETS];    /* TRACEFOLD_STATS: handler durations */
} tf_rec_thread;

extern __thread tf_rec_thread *tf_self __attribute__((tls_model("initial-exec")));

enum tf_rec_state { TF_REC_OFF = 0, TF_REC_ON = 1, TF_REC_DISABLED = 2 };

/* The shape of the counter groups (tf_counters.c), read by the handler. */
typedef struct tf_counter_groups {
    uint32_t first[TF_MAX_GROUPS], count[TF_MAX_GROUPS];
    uint32_t ngroups;
} tf_counter_groups;

/* Process-wide recorder state.  What the sampling handler reads comes
 * first, ahead of opt (whose numbers come first too), so that it spans a
 * few cache lines of one page rather than five pages. */
typedef struct tf_rec {
    _Atomic int state;                 /* enum tf_rec_state */
    uint32_t nbase;                    /* base (hardware/software) counters */
    tf_shm_process *proc;
    const struct tf_sampler_ops *sampler;
    const struct tf_memsampler_ops *memsampler;   /* NULL: no memory sampling */
    tf_counter_groups groups;
    tf_options opt;
    int      signal;                   /* sampling signal, 0 when not sampling */
    uint64_t sample_period;            /* ns of CPU time, or events with overflow */
    bool     overflow;                 /* sample on overflow_attr instead of the task clock */
    bool     kernel_capture;           /* threads start with kernel capture (tf_capture_kernel.c) */
    bool     quiet;                    /* say nothing but errors (tf_rec_say) */
    bool     writer_late;              /* a wait for the writer timed out (tf_rec_await) */
    bool     own_writer;               /* the writer is our helper, not `tracefold record` */
    size_t   proc_size;
    char     session[PATH_MAX];
    char     proc_path[PATH_MAX];
    char     wake_path[PATH_MAX];      /* the session's wake FIFO (tf_rec_wake) */
    struct perf_event_attr overflow_attr;
    _Atomic uint64_t cost[TF_COST_BUCKETS];   /* merged from exited threads */
} __attribute__((aligned(64))) tf_rec;

extern tf_rec tf_rec_g;

/* ---- sampling back ends: one file each, chosen in tf_sample.c ---- */
typedef struct tf_sampler_ops {
    const char *name;
    /* Arms sampling of the calling thread with signal sig. */
    int  (*start)(tf_rec_thread *t, int sig, uint64_t period_ns, tf_error *err);
    /* From the handler: sets the next period (jitter).  Async-signal-safe. */
    void (*rearm)(tf_rec_thread *t, uint64_t period_ns);
    /* From the handler, before group_read: starts loading what it will
     * read.  May be NULL. */
    void (*prefetch)(const tf_rec_thread *t);
    /* From the handler: whether this signal came from our source. */
    bool (*owns)(const tf_rec_thread *t, const siginfo_t *si);
    /* From the handler: the counter group 0 values the kernel recorded with
     * this sample, in read(2)'s PERF_FORMAT_GROUP layout (nr, enabled,
     * running, values), copied into scratch; NULL when there are none. */
    const uint64_t *(*group_read)(tf_rec_thread *t, uint64_t *scratch, size_t words);
    void (*stop)(tf_rec_thread *t);
} tf_sampler_ops;

extern const tf_sampler_ops tf_sampler_perf;
extern const tf_sampler_ops tf_sampler_posix;

/* ---- memory-sampling back ends (docs/memory-sampling.md): one file each,
 * chosen in tf_memsample.c; they run inside the timer sample's handler ---- */
typedef struct tf_memsampler_ops {
    const char *name;
    /* Per thread, outside signal context: allocates t->mem. */
    int  (*thread_start)(tf_rec_thread *t, tf_error *err);
    /* From the handler, before the timer sample is stored: samples the
     * hardware has buffered (they are older).  May be NULL. */
    void (*drain)(tf_rec_thread *t);
    /* From the handler, after the timer sample (timer) is stored: samples
     * derived from it.  May be NULL. */
    void (*decode)(tf_rec_thread *t, const void *ucontext, const struct tf_sample_slot *timer);
    /* Thread end: releases t->mem; forked: the parent's events are left
     * enabled (only our copies are closed). */
    void (*thread_stop)(tf_rec_thread *t, bool forked);
} tf_memsampler_ops;

extern const tf_memsampler_ops tf_memsampler_software;
extern const tf_memsampler_ops tf_memsampler_perf;

/* tf_memsample.c: chooses the back end (option mem-sampler) after the timer
 * sampling is set up; says which on stderr when one was asked for and
 * cannot be used. */
void tf_memsampling_setup(void);
void tf_memsampling_thread_start(tf_rec_thread *t);
/* A thread's samples go to the signal handler (kernel capture refused or
 * retired): its back end's state, if tf_memsampling_thread_start left it
 * to the writer.  Not in a signal handler (dlopen, allocation). */
void tf_memsampling_thread_handler(tf_rec_thread *t);
void tf_memsampling_thread_stop(tf_rec_thread *t, bool forked);

/* tf_heap.c: heap, mmap and thread-stack objects (docs/recorder.md). */
void tf_heap_setup(void);                         /* at process start */
void tf_heap_stop(void);                          /* recording ends */
/* Records [lo, hi) as an object of kind TF_OBJECT_* (thread stacks). */
void tf_object_begin(tf_rec_thread *t, uint8_t kind, uint64_t lo, uint64_t hi);
void tf_object_end(tf_rec_thread *t, uint8_t kind, uint64_t lo);
/* The time small blocks allocated from now on take (tf_small_log.h): a
 * time just read by the caller (tf_now).  Async-signal-safe. */
void tf_heap_clock(uint64_t now);

/* tf_sample.c */
int  tf_sampling_setup(tf_error *err);            /* choose back end and signal */
void tf_sampling_thread_start(tf_rec_thread *t);
/* From now the signal handler takes t's samples (signal capture, or a
 * thread leaving kernel capture): the unwinder warmed up and the sample
 * ring faulted in first.  Not from a signal handler. */
void tf_sampling_thread_handler(tf_rec_thread *t);
void tf_sampling_thread_stop(tf_rec_thread *t);

/* Thread t's next sampling period, jittered (tf_session.h): here, inline,
 * for the signal handler of tf_sample.c and the kernel capture of
 * tf_capture_kernel.c alike, so that neither file calls into the other. */
static inline uint64_t tf_jittered_period(tf_rec_thread *t)
{
    return tf_jitter_draw(&t->rng, tf_rec_g.sample_period, tf_rec_g.opt.jitter_pct);
}

/* tf_capture_kernel.c: samples written by the kernel into a ring the
 * writer drains, no signal (option capture). */
void tf_kcapture_setup(void);                     /* after sampling and memory sampling */
int  tf_kcapture_thread_start(tf_rec_thread *t, tf_error *err);
void tf_kcapture_thread_stop(tf_rec_thread *t);
/* The calling thread from kernel capture to the signal handler (its user
 * counters are about to change, which only the handler can record). */
void tf_kcapture_switch(tf_rec_thread *t);
void tf_kcapture_process_stop(void);              /* disables all, waits for the writer */
void tf_kcapture_forget(tf_rec_thread *t);        /* in a forked child */

/* tf_unwind.c: call stacks (option unwind). */
TF_HANDLER_API uint64_t tf_context_ip(const ucontext_t *uc);
/* The sample's stack from its signal context, innermost first, at most
 * depth frames.  Async-signal-safe. */
TF_HANDLER_API uint32_t tf_unwind_sample(tf_rec_thread *t, ucontext_t *uc, uint64_t *frames,
                                        uint32_t depth);
/* From the handler, early: starts loading the rules and the stack lines
 * tf_unwind_sample will probably read. */
TF_HANDLER_API void tf_unwind_prefetch(const tf_rec_thread *t, const ucontext_t *uc);
/* Once, before sampling starts. */
void tf_unwind_setup(void);
/* The function holding addr, [*start, *start + *size), from its unwind
 * information (libunwind's local lookup, as the sampler's unwinding does,
 * async-signal-safe alike); false when none covers addr. */
bool tf_unwind_function_of(uint64_t addr, uint64_t *start, uint64_t *size);
/* Outside signal context, before the thread's sampling starts. */
void tf_unwind_thread_start(tf_rec_thread *t);
/* Return addresses of the frame-pointer chain from frame fp, checked to lie
 * inside t's stack and to move up it.  Async-signal-safe. */
TF_HANDLER_API uint32_t tf_fp_chain(const tf_rec_thread *t, uintptr_t fp, uint64_t *frames,
                                   uint32_t depth);


/* tf_counters.c */
#define TF_GROUP_READ_WORDS (3 + TF_SESSION_MAX_BASE + 1)
void tf_counters_setup(const char *list, tf_shm_process *p, uint32_t *nbase);
int  tf_counters_open(tf_rec_thread *t);
/* Resolves a counter name with libpfm4 (user level only); 0 or -1. */
int  tf_counters_encode(const char *name, struct perf_event_attr *a);
/* The leader of counter group 0 (which the perf sampling event joins, so
 * that the kernel reads the group at each sample), or -1. */
int  tf_counters_group0_fd(const tf_rec_thread *t);
/* Reads the base counters into out[0..nbase); group 0 from group0 when not
 * NULL (a sample's group read), else by read(2).  Async-signal-safe. */
TF_HANDLER_API void tf_counters_read(tf_rec_thread *t, uint64_t *out, const uint64_t *group0);
void tf_counters_close(tf_rec_thread *t);
/* Closes the events tf_counters_setup opened to probe them, once the first
 * thread's counters are open. */
void tf_counters_release_probes(void);

/* tf_thread.c */
tf_rec_thread *tf_thread_attach(void);            /* not from a signal handler */
void tf_thread_detach(tf_rec_thread *t);
/* Faults in t's sample ring, before a handler of t's starts writing it. */
void tf_thread_prefault_samples(tf_rec_thread *t);
void tf_thread_forget_all(void);                  /* in a forked child */

/* tf_stats.c: the handler's own cost, when TRACEFOLD_STATS=yes. */
static inline void tf_stats_add(tf_rec_thread *t, uint64_t ns)
{
    uint64_t b = ns / TF_COST_NS;
    t->cost[b < TF_COST_BUCKETS ? b : TF_COST_BUCKETS - 1]++;
}
void tf_stats_merge(tf_rec_thread *t);            /* at thread exit */
void tf_stats_report(void);                       /* at the end, on stderr */

/* tf_regions.c: regions by function name (option region). */
/* Resolves the names and sets the entry breakpoints, before recording
 * starts; an error names the function and what to do. */
int  tf_regions_setup(const char *list, tf_error *err);
void tf_regions_intern(void);                     /* once the process's strings exist */
void tf_regions_thread_start(tf_rec_thread *t);
void tf_regions_thread_stop(tf_rec_thread *t);
void tf_regions_stop(void);                       /* the code as it was; says what was lost */
void tf_regions_loaded(void);                     /* a library was loaded (dlopen) */
void tf_regions_forked(void);                     /* in a forked child */
/* From the sigaction interposer (tf_sample.c): a handler the program sets
 * for SIGTRAP while the breakpoints need it is kept as the one traps that
 * are not ours go to (runtimes such as gfortran's set one for backtraces);
 * true when sig was such, with *old as the program's previous one. */
bool tf_regions_keep_handler(int sig, const struct sigaction *act, struct sigaction *old);

/* tf_api.c: a region begin or end as tracefold_region_begin/end write
 * it, for an interned name.  Async-signal-safe. */
/* An end's type: the return was not seen (a longjmp or an exception left
 * the function); the end is where the thread next entered a region
 * function, and extract counts the instance as incomplete. */
#define TF_REGION_END_UNSEEN 1
void tf_region_emit(tf_rec_thread *t, bool begin, uint32_t name_id, uint32_t type);

/* tf_intern.c */
uint32_t tf_intern(const char *name);             /* 0 when the table is full */
void tf_intern_reset(void);

/* tf_lib.c */
int  tf_process_start(bool forked_child);
void tf_process_stop(void);
void tf_rec_disable(const char *why);
/* A mechanism that is not available.  asked: the user named it (an
 * option other than auto), so it is an error, always said.  Otherwise the
 * recorder fell back to another one: said under `tracefold record` unless
 * quiet; a program linked with the library and run on its own says nothing
 * of the kind. */
void tf_rec_say(bool asked, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Waits (futex, tf_session_await) until done holds for the writer's
 * answers in the control file, at most timeout_ns.  A writer that does not
 * answer in time (it died, or is stuck) is said once, naming what, and is
 * not waited for again by this process or its forked children. */
void tf_rec_await(bool (*done)(const tf_shm_process *p, void *ctx), void *ctx,
                  uint64_t timeout_ns, const char *what);
/* Wakes the writer (one byte into the session's wake FIFO) when
 * tf_ring_commit says so.  Async-signal-safe: called from the handlers. */
void tf_rec_wake(void);
/* tf_rec_await's condition: the writer has closed this process's trace. */
bool tf_rec_trace_closed(const tf_shm_process *p, void *ctx);
void tf_maps_snapshot(void);                      /* copies /proc/self/maps to the session */

static inline uint64_t tf_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Whether the library records right now (writer alive and willing). */
static inline bool tf_rec_active(void)
{
    return atomic_load_explicit(&tf_rec_g.state, memory_order_relaxed) == TF_REC_ON &&
           atomic_load_explicit(&tf_rec_g.proc->writer, memory_order_relaxed) != TF_WRITER_FAILED;
}

#endif
