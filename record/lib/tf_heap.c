/* SPDX-License-Identifier: BSD-3-Clause */
/* Heap and mmap data objects: malloc, calloc, realloc, free,
 * posix_memalign, aligned_alloc, memalign, valloc, and anonymous
 * mmap/munmap are interposed; a block of at least heap-threshold bytes is
 * recorded (address range, time, allocation call stack) as a slot of the
 * calling thread's event ring, and its release likewise, so the writer can
 * give each object its lifetime and attribute a reused range to the right
 * one (docs/recorder.md, "Data objects").
 *
 * A block below the threshold is logged (address, size, the allocation
 * call's return address, the latest time the recorder read) in the calling
 * thread's ring of the small-block log (tf_small_log.h): no stack, no clock
 * read, no shared write, so that it costs a few nanoseconds on top of the
 * allocator (bench/RESULTS.md, "Small blocks").  free costs a test of
 * one bit of a filter of the blocks recorded (below), and
 * malloc_usable_size only when it is set.  The next
 * allocator is found with dlsym(RTLD_NEXT), which may itself allocate: the
 * thread resolving takes those from a static bootstrap arena.  Nested calls
 * (the unwinder allocating, the recorder's own allocations) are not
 * recorded: a thread-local flag.  Thread stacks are recorded here too, by
 * tf_thread.c. */
#include "config.h"

#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libunwind.h>
#include <malloc.h>
#include <pthread.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "tf_rec.h"
#include "record/tf_small_log.h"
#include "formats/trace.h"

/* Smallest block recorded; 0 while not recording. */
static _Atomic uint64_t threshold;

static __thread bool in_hook __attribute__((tls_model("initial-exec")));
static __thread bool resolving __attribute__((tls_model("initial-exec")));

/* The small-block log, NULL when none or after recording. */
static tf_small_head *_Atomic small_log;
/* Set by operator new for the malloc it calls: the call site of the
 * block is new's caller, not an address inside the C++ library. */
static __thread const void *new_caller __attribute__((tls_model("initial-exec")));
/* The calling thread's ring in the log, NULL until its first small block. */
static __thread tf_small_ring *small_ring __attribute__((tls_model("initial-exec")));
/* The ring's tail when this thread last waited for the writer in vain
 * (small_ring_wait); UINT64_MAX: it has not. */
static __thread uint64_t small_stuck_tail __attribute__((tls_model("initial-exec"))) = UINT64_MAX;

static struct {
    void *(*malloc)(size_t);
    void *(*calloc)(size_t, size_t);
    void *(*realloc)(void *, size_t);
    void (*free)(void *);
    int (*posix_memalign)(void **, size_t, size_t);
    void *(*aligned_alloc)(size_t, size_t);
    void *(*memalign)(size_t, size_t);
    void *(*valloc)(size_t);
    void *(*mmap)(void *, size_t, int, int, int, off_t);
    int (*munmap)(void *, size_t);
} real;

/* ---- bootstrap arena: what dlsym allocates while we resolve ---- */

#define ARENA_SIZE (64 * 1024)
#define ARENA_HEAD 16              /* block size, keeping 16-byte alignment */
static alignas(16) unsigned char arena[ARENA_SIZE];
static _Atomic size_t arena_used;

static void *arena_alloc(size_t size)
{
    size_t need = ARENA_HEAD + ((size + 15) & ~(size_t)15);
    size_t at = atomic_fetch_add(&arena_used, need);
    if (size > ARENA_SIZE || at + need > ARENA_SIZE) {
        errno = ENOMEM;
        return NULL;
    }
    memcpy(arena + at, &size, sizeof size);
    return arena + at + ARENA_HEAD;   /* zeroed: the arena is never reused */
}

static bool in_arena(const void *p)
{
    return (const unsigned char *)p >= arena && (const unsigned char *)p < arena + ARENA_SIZE;
}

static void resolve(void)
{
    resolving = true;
    real.calloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "calloc");
    real.realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    real.free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    real.posix_memalign = (int (*)(void **, size_t, size_t))dlsym(RTLD_NEXT, "posix_memalign");
    real.aligned_alloc = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "aligned_alloc");
    real.memalign = (void *(*)(size_t, size_t))dlsym(RTLD_NEXT, "memalign");
    real.valloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "valloc");
    real.mmap = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
    real.munmap = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "munmap");
    real.malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
    resolving = false;
}

/* ---- the blocks that may have been recorded ---- */

/* A one-sided filter on the addresses of recorded blocks (a Bloom filter
 * with one hash; Bloom, CACM 13(7), 1970): a block's bit is set before
 * the allocation returns, so a clear bit proves that the block being
 * freed was never recorded, and free skips malloc_usable_size, a call
 * through the PLT that was most of the interposed free's cost on a
 * program making millions of small allocations (bench/RESULTS.md,
 * "CPU time on real-code patterns").  Bits are never cleared (another
 * block may share one): a set bit only sends free to the exact test
 * below, as before.  With blocks of heap-threshold bytes or more, few
 * bits of the 512 Ki are ever set.  The program's own synchronisation
 * orders a block's allocation before its release in another thread, so
 * relaxed accesses suffice. */
#define RECORDED_BITS_LOG 19
static _Atomic uint8_t recorded_bits[(1u << RECORDED_BITS_LOG) / 8];

static uint32_t recorded_bit(const void *p)
{
    /* Fibonacci hashing (Knuth, TAOCP vol. 3, 6.4): one multiply; blocks
     * are 16-byte aligned, so the low bits carry nothing. */
    uint64_t h = ((uint64_t)(uintptr_t)p >> 4) * 0x9e3779b97f4a7c15ull;
    return (uint32_t)(h >> (64 - RECORDED_BITS_LOG));
}

/* The filter is read by free(), which the dynamic loader may call before
 * the AddressSanitizer runtime has set up its shadow memory (its own start
 * frees a dlerror string): in a sanitizer build the two accesses must not
 * be instrumented, or that free() faults on the shadow (a variable index
 * into a global is checked; a fixed one is not). */
#define TF_NO_ASAN __attribute__((no_sanitize_address))

TF_NO_ASAN static void mark_recorded(const void *p)
{
    uint32_t b = recorded_bit(p);
    atomic_fetch_or_explicit(&recorded_bits[b / 8], (uint8_t)(1u << (b % 8)),
                             memory_order_relaxed);
}

TF_NO_ASAN static bool maybe_recorded(const void *p)
{
    uint32_t b = recorded_bit(p);
    return atomic_load_explicit(&recorded_bits[b / 8], memory_order_relaxed) & (1u << (b % 8));
}

/* ---- recording ---- */

static bool tracked(size_t size)
{
    uint64_t th = atomic_load_explicit(&threshold, memory_order_relaxed);
    return th && size >= th;
}

/* Below the threshold, while recording: a small block. */
static bool small(size_t size)
{
    uint64_t th = atomic_load_explicit(&threshold, memory_order_relaxed);
    return size && size < th;
}

/* ---- the small-block log ---- */

/* The calling thread's ring: its slot's in the thread table (so a slot
 * reused by a later thread goes on with the same single producer). */
static tf_small_ring *small_ring_of_thread(void)
{
    tf_small_head *h = atomic_load_explicit(&small_log, memory_order_acquire);
    tf_rec_thread *t = tf_self;
    if (!h || !t || in_hook || resolving || t->slot >= h->nrings)
        return NULL;
    uint64_t want = (uint64_t)t->slot + 1, n = atomic_load_explicit(&h->nused, memory_order_relaxed);
    while (n < want && !atomic_compare_exchange_weak_explicit(&h->nused, &n, want, memory_order_release,
                                                              memory_order_relaxed))
        ;
    return small_ring = &tf_small_rings(h)[t->slot];
}

/* A thread whose ring is full waits for the writer in naps of this many
 * ns, up to TF_SMALL_WAIT_NS in all. */
#define TF_SMALL_NAP_NS  50000
#define TF_SMALL_WAIT_NS 20000000

/* The ring full: a burst of allocations outran the writer (300 000 small
 * blocks in a row lost 60 % of them on the project's VM, a C++ code's
 * setup or a row-per-allocation matrix as many).  Rather than lose the
 * block, the thread pokes the writer and waits until it has taken some,
 * up to TF_SMALL_WAIT_NS; the program slows to the writer's pace for the
 * burst.  A writer that took nothing during a whole wait (stopped,
 * starved, or gone) is not waited for again until it has.  True when the
 * ring has room. */
static bool small_ring_wait(tf_small_ring *r, uint64_t head)
{
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    if (tail == small_stuck_tail)
        return false;
    tf_session_poke(tf_rec_g.session);
    for (long waited = 0; waited < TF_SMALL_WAIT_NS; waited += TF_SMALL_NAP_NS) {
        struct timespec nap = { 0, TF_SMALL_NAP_NS };
        nanosleep(&nap, NULL);
        if (head - atomic_load_explicit(&r->tail, memory_order_acquire) < TF_SMALL_RING)
            return true;
    }
    small_stuck_tail = atomic_load_explicit(&r->tail, memory_order_acquire);
    return false;
}

/* Logs block [p, p + size) allocated from ret.  Not async-signal-safe, as
 * malloc is not: a signal handler that allocates anyway can at worst spoil
 * one entry, whose index is in the ring whatever happens. */
static inline void small_block(const void *p, size_t size, const void *ret)
{
    tf_small_ring *r = small_ring;
    if (!p || !size || in_hook || (!r && !(r = small_ring_of_thread())))
        return;
    tf_small_head *h = atomic_load_explicit(&small_log, memory_order_relaxed);
    if (h && atomic_load_explicit(&h->full, memory_order_relaxed)) {
        /* The ring's thread alone writes past: no locked add needed. */
        atomic_store_explicit(&r->past, atomic_load_explicit(&r->past, memory_order_relaxed) + 1,
                              memory_order_relaxed);
        return;
    }
    uint64_t i = atomic_load_explicit(&r->head, memory_order_relaxed);
    uint64_t used = i - atomic_load_explicit(&r->tail, memory_order_acquire);
    if (used >= TF_SMALL_RING && !small_ring_wait(r, i)) {
        atomic_fetch_add_explicit(&r->lost, 1, memory_order_relaxed);
        return;
    }
    tf_small_entry *e = &r->e[i % TF_SMALL_RING];
    e->addr = (uint64_t)(uintptr_t)p;
    e->ret = (uint64_t)(uintptr_t)ret;
    e->size = size;
    e->time = (h ? atomic_load_explicit(&h->clock, memory_order_relaxed) : 0) + 1;
    atomic_store_explicit(&r->head, i + 1, memory_order_release);
    if (used == TF_SMALL_RING / 4)   /* once per quarter: the writer drains early */
        tf_session_poke(tf_rec_g.session);
}

void tf_heap_clock(uint64_t now)
{
    tf_small_head *h = atomic_load_explicit(&small_log, memory_order_relaxed);
    if (h)
        atomic_store_explicit(&h->clock, now, memory_order_relaxed);
}

/* A forked child writes no more into its parent's log (the ring has one
 * producer): registered before tf_lib.c's handler, this one runs first,
 * and the child, when it is traced, makes its own log (tf_heap_setup). */
static void small_log_forget(void)
{
    small_ring = NULL;
    small_stuck_tail = UINT64_MAX;
    atomic_store(&small_log, NULL);
}

/* The log beside the control file; none when the option is 0, the
 * threshold is 0, or the file cannot be made (said, recording goes on).
 * Sparse: only the rings of threads that allocate are ever touched. */
static void small_log_open(void)
{
    small_log_forget();
    uint64_t cap = tf_rec_g.opt.small_blocks;
    if (!cap || !tf_rec_g.opt.heap_threshold)
        return;
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s" TF_SMALL_LOG_SUFFIX, tf_rec_g.proc_path);
    size_t size = sizeof(tf_small_head) + TF_SESSION_MAX_THREADS * sizeof(tf_small_ring);
    /* Growing a file past the file size limit raises SIGXFSZ, which would
     * kill the program: no log then. */
    struct rlimit rl;
    if (!getrlimit(RLIMIT_FSIZE, &rl) && rl.rlim_cur != RLIM_INFINITY && size > rl.rlim_cur) {
        tf_rec_say(false, "no log of small blocks: the file size limit (ulimit -f) is below its "
                   "%zu bytes; blocks below heap-threshold are not attributed", size);
        return;
    }
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    void *m = MAP_FAILED;
    if (fd >= 0 && !ftruncate(fd, (off_t)size))
        m = real.mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int saved = errno;
    if (fd >= 0)
        close(fd);
    if (m == MAP_FAILED) {
        if (fd >= 0)
            unlink(path);
        tf_rec_say(false, "no log of small blocks (%s: %s); blocks below heap-threshold are not "
                   "attributed", path, strerror(saved));
        return;
    }
    tf_small_head *h = m;
    h->nrings = TF_SESSION_MAX_THREADS;
    h->cap = cap;
    h->clock = tf_now();
    h->magic = TF_SMALL_LOG_MAGIC;
    atomic_store_explicit(&small_log, h, memory_order_release);
}

/* One slot in t's event ring; frames go where event slots keep counters. */
static void put(tf_rec_thread *t, uint8_t slot_kind, uint8_t kind, uint64_t lo, uint64_t hi,
                const uint64_t *frames, uint32_t nframes)
{
    if (t->busy) {   /* interrupted another write of this thread: drop, counted */
        atomic_fetch_add_explicit(&t->buf->events.dropped, 1, memory_order_relaxed);
        return;
    }
    t->busy = 1;
    atomic_signal_fence(memory_order_seq_cst);
    tf_shm_ring *r = &t->buf->events;
    tf_event_slot *s = tf_ring_reserve(r);
    if (s) {
        s->time = tf_now();
        tf_heap_clock(s->time);
        s->kind = slot_kind;
        s->type = kind;
        s->value = lo;
        s->extra = hi;
        s->nuser = 0;
        s->pad = (uint16_t)nframes;
        if (nframes)
            memcpy(s->ctr, frames, nframes * sizeof *frames);
        if (tf_ring_commit(r))
            tf_rec_wake();
    }
    atomic_signal_fence(memory_order_seq_cst);
    t->busy = 0;
}

/* The allocation's call stack, starting at ret (the interposed function's
 * return address, in its caller): the frames of this file are dropped. */
#define OWN_FRAMES 8
static uint32_t call_stack(tf_rec_thread *t, uint64_t ret, uint64_t *frames,
                           uint32_t depth)
{
    uint64_t buf[TF_SESSION_MAX_USER + OWN_FRAMES];
    uint32_t n = 0;
    if (tf_rec_g.opt.unwind == TF_UNWIND_LIBUNWIND) {
        void *ips[TF_SESSION_MAX_USER + OWN_FRAMES];
        t->unwinding = 1;
        atomic_signal_fence(memory_order_seq_cst);
        int got = unw_backtrace(ips, (int)(depth + OWN_FRAMES));
        atomic_signal_fence(memory_order_seq_cst);
        t->unwinding = 0;
        for (int i = 0; i < got; i++)
            buf[n++] = (uint64_t)(uintptr_t)ips[i];
    } else if (tf_rec_g.opt.unwind == TF_UNWIND_FP) {
        n = tf_fp_chain(t, (uintptr_t)__builtin_frame_address(0), buf, depth + OWN_FRAMES);
    }
    for (uint32_t skip = 0; skip < n && skip < OWN_FRAMES; skip++) {
        if (buf[skip] != ret)
            continue;
        uint32_t k = 0;
        for (uint32_t i = skip; i < n && k < depth; i++)
            frames[k++] = buf[i];
        return k;
    }
    frames[0] = ret;
    return 1;
}

/* __attribute__((noinline)): the frames skipped above are this file's. */
static __attribute__((noinline)) void record_alloc(const void *p, size_t size, uint8_t kind,
                                                   const void *ret)
{
    tf_rec_thread *t = tf_self;
    if (!p || !t || in_hook || !tf_rec_active())
        return;
    in_hook = true;
    mark_recorded(p);
    uint64_t frames[TF_SESSION_MAX_USER];
    uint32_t depth = tf_rec_g.opt.heap_stack_depth;
    uint32_t n = depth ? call_stack(t, (uint64_t)(uintptr_t)ret, frames, depth) : 0;
    put(t, TF_SLOT_ALLOC, kind, (uint64_t)(uintptr_t)p, (uint64_t)(uintptr_t)p + size, frames,
        n);
    in_hook = false;
}

static void record_free(const void *p, uint8_t kind)
{
    tf_rec_thread *t = tf_self;
    if (!t || in_hook || !tf_rec_active())
        return;
    in_hook = true;
    put(t, TF_SLOT_FREE, kind, (uint64_t)(uintptr_t)p, 0, NULL, 0);
    in_hook = false;
}

/* Whether p, from the heap, may be a recorded block.  A block of a size
 * just below the threshold, or one whose bit another recorded block set,
 * can pass too; the writer ignores the release of a block it has not seen
 * allocated. */
static bool maybe_tracked(void *p)
{
    return p && !in_arena(p) && maybe_recorded(p) &&
           atomic_load_explicit(&threshold, memory_order_relaxed) &&
           tracked(malloc_usable_size(p));
}

void tf_object_begin(tf_rec_thread *t, uint8_t kind, uint64_t lo, uint64_t hi)
{
    put(t, TF_SLOT_ALLOC, kind, lo, hi, NULL, 0);
}

void tf_object_end(tf_rec_thread *t, uint8_t kind, uint64_t lo)
{
    put(t, TF_SLOT_FREE, kind, lo, 0, NULL, 0);
}

void tf_heap_setup(void)
{
    static bool atfork_registered;
    if (!atfork_registered) {
        pthread_atfork(NULL, NULL, small_log_forget);
        atfork_registered = true;
    }
    if (!real.malloc)
        resolve();
    small_log_open();
    atomic_store(&threshold, tf_rec_g.opt.heap_threshold);
}

void tf_heap_stop(void)
{
    atomic_store(&threshold, 0);   /* small blocks too: small() and malloc test it */
}

/* ---- the interposed functions ---- */

#define CALLER __builtin_return_address(0)

void *malloc(size_t size)
{
    if (!real.malloc) {
        if (resolving)
            return arena_alloc(size);
        resolve();
    }
    const void *by_new = new_caller;
    if (by_new)
        new_caller = NULL;
    uint64_t th = atomic_load_explicit(&threshold, memory_order_relaxed);
    if (!th)   /* not recording: a tail call, one jump more than the C library's malloc */
        return real.malloc(size);
    void *p = real.malloc(size);
    if (size < th)
        small_block(p, size, by_new ? by_new : CALLER);
    else
        record_alloc(p, size, TF_OBJECT_HEAP, CALLER);
    return p;
}

void *calloc(size_t n, size_t size)
{
    if (!real.calloc) {
        if (resolving)
            return n && size > SIZE_MAX / n ? NULL : arena_alloc(n * size);
        resolve();
    }
    void *p = real.calloc(n, size);
    if (p && tracked(n * size))   /* p: n * size did not overflow */
        record_alloc(p, n * size, TF_OBJECT_HEAP, CALLER);
    else if (small(n * size))
        small_block(p, n * size, CALLER);
    return p;
}

void free(void *p)
{
    if (!p || in_arena(p))
        return;
    if (!real.free)
        resolve();
    /* The filter's test first, inline: most blocks end here. */
    if (maybe_recorded(p) && maybe_tracked(p))
        record_free(p, TF_OBJECT_HEAP);
    real.free(p);
}

void *realloc(void *p, size_t size)
{
    if (in_arena(p)) {
        size_t old;
        memcpy(&old, (unsigned char *)p - ARENA_HEAD, sizeof old);
        void *q = malloc(size);
        if (q)
            memcpy(q, p, old < size ? old : size);
        return q;
    }
    if (!real.realloc)
        resolve();
    /* A move, or a change in place, ends the old object and starts a new
     * one.  The release goes first, as another thread may get the range
     * once it is freed. */
    size_t old = 0;
    if (maybe_tracked(p)) {
        old = malloc_usable_size(p);
        record_free(p, TF_OBJECT_HEAP);
    }
    void *q = real.realloc(p, size);
    if (q && tracked(size))
        record_alloc(q, size, TF_OBJECT_HEAP, CALLER);
    else if (!q && size && old)   /* failed: the old block lives on */
        record_alloc(p, old, TF_OBJECT_HEAP, CALLER);
    else if (q && q != p && small(size))   /* moved: a new small block */
        small_block(q, size, CALLER);
    return q;
}

int posix_memalign(void **out, size_t align, size_t size)
{
    if (!real.posix_memalign)
        resolve();
    int rc = real.posix_memalign(out, align, size);
    if (!rc && tracked(size))
        record_alloc(*out, size, TF_OBJECT_HEAP, CALLER);
    else if (!rc && small(size))
        small_block(*out, size, CALLER);
    return rc;
}

void *aligned_alloc(size_t align, size_t size)
{
    if (!real.aligned_alloc)
        resolve();
    void *p = real.aligned_alloc(align, size);
    if (tracked(size))
        record_alloc(p, size, TF_OBJECT_HEAP, CALLER);
    else if (small(size))
        small_block(p, size, CALLER);
    return p;
}

void *memalign(size_t align, size_t size)
{
    if (!real.memalign)
        resolve();
    void *p = real.memalign(align, size);
    if (tracked(size))
        record_alloc(p, size, TF_OBJECT_HEAP, CALLER);
    else if (small(size))
        small_block(p, size, CALLER);
    return p;
}

void *valloc(size_t size)
{
    if (!real.valloc)
        resolve();
    void *p = real.valloc(size);
    if (tracked(size))
        record_alloc(p, size, TF_OBJECT_HEAP, CALLER);
    return p;
}

void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    if (!real.mmap && !resolving)
        resolve();
    void *p = real.mmap ? real.mmap(addr, len, prot, flags, fd, off)
                        : (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
    if (p != MAP_FAILED && (flags & MAP_ANONYMOUS) && tracked(len))
        record_alloc(p, len, TF_OBJECT_MMAP, CALLER);
    return p;
}

int munmap(void *addr, size_t len)
{
    if (!real.munmap && !resolving)
        resolve();
    if (tracked(len))
        record_free(addr, TF_OBJECT_MMAP);
    return real.munmap ? real.munmap(addr, len) : (int)syscall(SYS_munmap, addr, len);
}

/* ---- operator new and new[] (C++ ABI mangled names) ----
 * Each calls the next definition (libstdc++'s, which calls malloc and
 * throws std::bad_alloc or calls the new-handler on failure: this frame,
 * with the unwind tables GCC emits on x86-64, lets the exception through)
 * after noting its caller for that malloc.  A large block keeps its whole
 * call stack (tf_heap.c's record_alloc), where the naming rule skips new. */

/* new[] calls new through the PLT, that is this file's new: the first
 * caller noted (the program's) is kept.  Without a C++ library behind
 * (which a program calling new has), malloc's result. */
#define NEW_INTERPOSER(name, params, args)                                  \
    void *name params;                                                      \
    void *name params                                                       \
    {                                                                       \
        static void *(*next) params;                                        \
        if (!next)                                                          \
            next = (void *(*) params)dlsym(RTLD_NEXT, #name);               \
        if (!next)                                                          \
            return malloc(size);                                            \
        if (!new_caller)                                                    \
            new_caller = CALLER;                                            \
        return next args;                                                   \
    }

NEW_INTERPOSER(_Znwm, (size_t size), (size))
NEW_INTERPOSER(_Znam, (size_t size), (size))
NEW_INTERPOSER(_ZnwmRKSt9nothrow_t, (size_t size, const void *nothrow), (size, nothrow))
NEW_INTERPOSER(_ZnamRKSt9nothrow_t, (size_t size, const void *nothrow), (size, nothrow))
