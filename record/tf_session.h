/* SPDX-License-Identifier: BSD-3-Clause */
/* The shared-memory session between the recorder library (in the
 * application) and the writer process (`tracefold record`, or the helper the
 * library starts).  A session is a directory under /dev/shm holding, per
 * traced process, one control file and one buffer file per thread.  Both
 * sides map the files MAP_SHARED; the writer drains them into the HDF5 trace.
 * Because the data lives in files, nothing written before a SIGKILL of the
 * application is lost: the writer drains it after the death.
 *
 * Each buffer holds two single-producer single-consumer rings of fixed-size
 * slots: events (written by the thread outside signal context) and samples
 * (written only by the thread's sampling signal handler).  The producer
 * publishes with a release store of head; the consumer frees slots with a
 * release store of tail.  C11 lock-free atomics on 64-bit words work across
 * processes on a shared mapping. */
#ifndef TF_SESSION_H
#define TF_SESSION_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TF_SESSION_MAGIC        0x31535346544e5254ull   /* "TRNTFSS1" */
#define TF_SESSION_ENV          "TRACEFOLD_SESSION"
#define TF_QUIET_ENV            "TRACEFOLD_QUIET"
#define TF_SESSION_MAX_THREADS  1024
#define TF_SESSION_MAX_BASE     16          /* hardware + software counters */
#define TF_SESSION_MAX_USER     16          /* = TRACEFOLD_MAX_USER_COUNTERS */
#define TF_SESSION_MAX_COUNTERS (TF_SESSION_MAX_BASE + TF_SESSION_MAX_USER)
#define TF_SESSION_NAME_MAX     64
#define TF_SESSION_STRINGS      (256 * 1024)
#define TF_SESSION_TEXT_MAX     4096
#define TF_SESSION_MAPS_MAX     (128 * 1024)

/* The sampling period is redrawn (jitter) every this many samples, by the
 * handler or, for kernel capture, by the writer: changing it costs a system
 * call that reprograms a timer, several microseconds under virtualisation
 * (docs/recorder.md), too much for every sample. */
#define TF_REDRAW_EVERY 32

/* A period drawn uniformly in period +- pct % (the jitter), from the
 * caller's xorshift64 state (Marsaglia 2003: a few cycles, no shared
 * state; *rng must not be 0).  Async-signal-safe. */
static inline uint64_t tf_jitter_draw(uint64_t *rng, uint64_t period, uint32_t pct)
{
    uint64_t x = *rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    *rng = x;
    uint64_t span = period * pct / 100;
    return span ? period - span + x % (2 * span + 1) : period;
}

/* Process life, written by the library. */
enum tf_proc_state {
    TF_PROC_RUNNING = 1,
    TF_PROC_CLOSED  = 2,   /* tracefold_fini or exec: drain and close the trace */
};

/* Writer's answer, read by the library. */
enum tf_writer_state {
    TF_WRITER_NONE   = 0,
    TF_WRITER_OPEN   = 1,  /* trace file created */
    TF_WRITER_DONE   = 2,  /* closed after TF_PROC_CLOSED */
    TF_WRITER_FAILED = 3,  /* no trace (unwritable output, full disk): stop recording */
};

/* user_word: number of user counters in the low bits; the frozen bit is set
 * once the writer has fixed the process's counter columns. */
#define TF_USER_FROZEN 0x80000000u
#define TF_USER_BUSY   0x40000000u   /* a definition is being written */
#define TF_USER_COUNT(word) ((word) & 0xffffu)

enum tf_thread_state { TF_THREAD_FREE = 0, TF_THREAD_LIVE = 1, TF_THREAD_EXITED = 2 };

/* The writer's answer to a thread's kernel capture (tf_shm_kcapture). */
enum tf_kernel_ack { TF_KACK_NONE = 0, TF_KACK_HELD = 1, TF_KACK_REFUSED = 2 };

typedef struct tf_shm_thread {
    _Atomic uint32_t state;        /* enum tf_thread_state; LIVE once its buffer exists */
    _Atomic uint32_t kernel_ack;   /* enum tf_kernel_ack, written by the writer */
    uint64_t tid;
} tf_shm_thread;

typedef struct tf_shm_process {
    uint64_t magic;
    uint64_t size;                 /* of this mapping, for the reader's check */
    int64_t  pid, ppid;
    int32_t  rank, nranks;
    uint64_t mono0;                /* CLOCK_MONOTONIC ns at time 0 */
    uint64_t real0;                /* CLOCK_REALTIME ns at time 0 */
    uint32_t buffer_bytes;         /* size of each thread buffer file */
    uint32_t stack_depth;
    uint32_t nbase;
    uint8_t  base_kind[TF_SESSION_MAX_BASE];          /* enum tf_counter_kind */
    char     base_name[TF_SESSION_MAX_BASE][TF_SESSION_NAME_MAX];
    char     base_unit[TF_SESSION_MAX_BASE][TF_SESSION_NAME_MAX];
    _Atomic uint32_t user_word;
    char     user_name[TF_SESSION_MAX_USER][TF_SESSION_NAME_MAX];
    _Atomic uint32_t state;        /* enum tf_proc_state */
    _Atomic uint32_t writer;       /* enum tf_writer_state */
    _Atomic uint32_t flush_req;    /* bumped by tracefold_flush */
    _Atomic uint32_t flush_done;   /* set to flush_req by the writer when done */
    /* Bumped by the writer after each answer (writer, flush_done,
     * kernel_ack) and woken as a futex (futex(2), shared across processes
     * on this MAP_SHARED file): the library waits on it instead of
     * sleeping (tf_session_await). */
    _Atomic uint32_t answer_seq;
    /* The counters asked for that could not be opened (comma-separated),
     * or "": said once per run by `tracefold record`, not by each process. */
    char     counters_missing[512];
    _Atomic uint32_t nthreads;     /* slots handed out */
    char     exe[TF_SESSION_TEXT_MAX];
    char     cmdline[TF_SESSION_TEXT_MAX];   /* arguments separated by spaces */
    char     host[256];
    /* The last copy of /proc/self/maps (at start, flush and end), for a
     * writer that finds the process gone; maps_seq is odd while it is
     * being rewritten. */
    _Atomic uint32_t maps_seq;
    uint32_t maps_len;
    char     maps[TF_SESSION_MAPS_MAX];
    /* Interned names: NUL-terminated, id = 1 + index of appearance. */
    _Atomic uint64_t strings_used;
    char     strings[TF_SESSION_STRINGS];
    tf_shm_thread threads[TF_SESSION_MAX_THREADS];
} tf_shm_process;

typedef struct tf_shm_ring {
    _Atomic uint64_t head;         /* next slot to write (producer) */
    uint64_t tail_seen;            /* producer's last read of tail (tf_ring_reserve) */
    uint64_t wake_at;              /* producer: head at which it next wakes the writer */
    char pad0[40];
    _Atomic uint64_t tail;         /* next slot to read (consumer) */
    char pad1[56];
    _Atomic uint64_t dropped;      /* records lost because the ring was full */
    uint32_t slot_size, nslots;
    uint64_t offset;               /* of slot 0 from the start of the ring header */
} tf_shm_ring;

/* Kernel capture (docs/recorder.md, "Kernel capture"): the thread's perf
 * sampling event writes each sample (IP, time, counter group, user
 * registers, a copy of the top of the user stack) into its own mmap ring,
 * with no signal; the writer takes a duplicate of the event's descriptor
 * (pidfd_getfd(2)), maps the same ring and turns the records into samples.
 * Written by the library before state is set (release). */
enum tf_kcapture_state {
    TF_KCAP_NONE    = 0,   /* samples come through the sample ring only */
    TF_KCAP_ACTIVE  = 1,   /* samples come through the kernel ring only */
    TF_KCAP_RETIRED = 2,   /* the kernel event is disabled: its ring holds the
                              older samples, the sample ring the newer ones */
};

typedef struct tf_shm_kcapture {
    _Atomic uint32_t state;        /* enum tf_kcapture_state */
    int32_t  fd;                   /* the event's descriptor in the application */
    uint64_t id;                   /* its PERF_EVENT_IOC_ID, to check the duplicate */
    uint64_t sample_type, read_format, regs_mask;   /* of its perf_event_attr */
    uint64_t mmap_bytes;           /* ring mapping: 1 + 2^n pages */
    uint64_t period_ns;            /* mean period; the writer redraws it (jitter) */
    uint32_t jitter_pct;
    uint32_t ngroup0;              /* counters in the group read (the base counters) */
    uint32_t unwind;               /* enum tf_unwind_choice the writer walks stacks with */
    uint32_t memory;               /* 1: decode memory references (software sampler) */
    uint64_t fs_base, gs_base;     /* segment bases, for the software memory decoder */
    uint64_t stack_lo, stack_hi;   /* the thread's stack */
} tf_shm_kcapture;

/* A thread buffer file: header, then both rings' slots. */
typedef struct tf_shm_buffer {
    uint64_t magic;
    uint64_t size;
    tf_shm_kcapture kernel;
    tf_shm_ring events;
    tf_shm_ring samples;
} tf_shm_buffer;

/* Slot kinds beyond enum tf_event_kind, never stored as events. */
#define TF_SLOT_OBJECT 16          /* memory region: value begin, extra end, type name id */
/* An allocation: value begin, extra end, type enum tf_object_kind, pad the
 * number of frames of its call stack, stored in ctr[] (at most
 * TF_SESSION_MAX_USER, innermost first). */
#define TF_SLOT_ALLOC  17
/* Its release: value begin, type the kind.  A release of a block that was
 * not recorded (below the threshold) is ignored by the writer. */
#define TF_SLOT_FREE   18

typedef struct tf_event_slot {
    uint64_t time;                 /* CLOCK_MONOTONIC ns */
    uint64_t value;
    uint64_t extra;
    uint32_t type;
    uint8_t  kind;
    uint8_t  nuser;                /* user counter values present */
    uint16_t pad;
    uint64_t ctr[];                /* nbase base values, then nuser user values */
} tf_event_slot;

/* A sample as tf_sample (formats/trace.h) describes it; timer samples set
 * kind TF_SAMPLE_TIMER and level TF_LEVEL_UNKNOWN, memory back ends fill
 * addr, data_source, weight, level and flags as well.  The writer copies
 * these fields unchanged. */
typedef struct tf_sample_slot {
    uint64_t time;
    uint64_t ip;
    uint64_t addr;
    uint64_t data_source;
    uint32_t weight;
    uint16_t nframes;
    uint8_t  nuser;
    uint8_t  kind;                 /* enum tf_sample_kind */
    uint8_t  level;                /* enum tf_mem_level */
    uint8_t  flags;                /* enum tf_sample_flags */
    uint8_t  pad[6];
    uint64_t ctr[];                /* TF_SESSION_MAX_COUNTERS values, then frames */
} tf_sample_slot;

static inline size_t tf_event_slot_size(uint32_t nbase)
{
    return sizeof(tf_event_slot) + (nbase + TF_SESSION_MAX_USER) * sizeof(uint64_t);
}

static inline size_t tf_sample_slot_size(uint32_t nbase, uint32_t depth)
{
    return sizeof(tf_sample_slot) + (nbase + TF_SESSION_MAX_USER + depth) * sizeof(uint64_t);
}

static inline uint64_t *tf_sample_frames(tf_sample_slot *s, uint32_t nbase)
{
    return s->ctr + nbase + TF_SESSION_MAX_USER;
}

static inline void *tf_ring_slot(tf_shm_ring *r, uint64_t seq)
{
    return (char *)r + r->offset + (size_t)(seq % r->nslots) * r->slot_size;
}

/* Producer: a free slot, or NULL (counted as dropped) when the ring is full.
 * Never blocks; async-signal-safe. */
static inline void *tf_ring_reserve(tf_shm_ring *r)
{
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
    /* tail lives in the consumer's cache line: reading it costs a
     * transfer between cores, so it is read only when the ring looks
     * full by the last value seen.  An old value frees fewer slots, never
     * one the consumer is still reading (it was loaded with acquire). */
    if (head - r->tail_seen >= r->nslots) {
        r->tail_seen = atomic_load_explicit(&r->tail, memory_order_acquire);
        if (head - r->tail_seen >= r->nslots) {
            atomic_fetch_add_explicit(&r->dropped, 1, memory_order_relaxed);
            return NULL;
        }
    }
    return tf_ring_slot(r, head);
}

/* Producer: starts loading what tf_ring_reserve and tf_ring_commit touch
 * (head, and the line of nslots, slot_size and offset). */
static inline void tf_ring_prefetch(tf_shm_ring *r)
{
    __builtin_prefetch(&r->head, 1);
    __builtin_prefetch(&r->offset);
}

/* Producer: publishes the slot.  True at the first slot and then once
 * every quarter of the ring's slots: the producer then wakes the writer
 * (tf_rec_wake), which drains the ring long before it fills however long
 * the writer's tick (tf_writer.c) and whatever the rate of records. */
static inline bool tf_ring_commit(tf_shm_ring *r)
{
    uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed) + 1;
    atomic_store_explicit(&r->head, head, memory_order_release);
    if (head < r->wake_at)
        return false;
    r->wake_at = head + (r->nslots > 4 ? r->nslots / 4 : 1);
    return true;
}

/* Lays out both rings in a buffer of `size` bytes. */
void tf_shm_buffer_layout(tf_shm_buffer *b, size_t size, uint32_t nbase, uint32_t depth);

/* File names inside a session directory. */
#define TF_SESSION_PROC_PREFIX "p"
int tf_session_buffer_name(char *buf, size_t size, const char *proc_file, uint32_t slot);

/* The writer's wake-up: a FIFO in the session directory, which the writer
 * holds open and polls with its children's pidfd.  A process pokes it when
 * it publishes its control file, closes, asks for a flush or publishes a
 * kernel ring, so that the writer answers at once rather than at its next
 * tick. */
#define TF_SESSION_WAKE "wake"

/* TRACEFOLD_QUIET set to anything but "", "0" or "no": the recorder says
 * nothing but errors (tracefold record -q sets it for the program). */
bool tf_session_quiet_env(void);

/* Library: one byte into the session's wake FIFO.  Never blocks (no reader
 * yet, or a full FIFO, are fine: the writer scans at its start and drains
 * the FIFO as a whole); async-signal-safe. */
void tf_session_poke(const char *dir);

/* Library: whether the writer has started on the session (it makes the
 * wake FIFO first).  `tracefold record` starts the program before its
 * writer has loaded HDF5, which on a loaded machine can take longer than
 * the waits' bounds (TF_WRITER_START_NS). */
bool tf_session_writer_started(const char *dir);
#define TF_WRITER_START_NS 10000000000ull

/* Library: whether the writer has gone (died or ended): it made the wake
 * FIFO and no longer holds it open, so that a wait for its answer can end
 * at once instead of at its bound. */
bool tf_session_writer_gone(const char *dir);

/* Writer: an answer was stored in p; wakes the process's waiters. */
void tf_session_answered(tf_shm_process *p);

/* Library: waits until done(p, ctx) holds, woken by tf_session_answered,
 * at most timeout_ns; false when the time ran out. */
bool tf_session_await(tf_shm_process *p, bool (*done)(const tf_shm_process *p, void *ctx),
                      void *ctx, uint64_t timeout_ns);

#endif
