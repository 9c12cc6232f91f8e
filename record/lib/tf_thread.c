/* SPDX-License-Identifier: BSD-3-Clause */
/* Threads: each gets its own buffer file in the session, its counters and
 * its sampling timer.  Threads started with pthread_create (and so OpenMP
 * workers) are attached as they start, through an interposed
 * pthread_create; threads that already existed when recording started are
 * attached at their first call into the API (documented in
 * docs/recorder.md).  A pthread key destructor detaches a thread at exit. */
#include "config.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tf_rec.h"
#include "formats/trace.h"

__thread tf_rec_thread *tf_self __attribute__((tls_model("initial-exec")));
/* Set once attaching failed (table or memory full), so we do not retry on
 * every call. */
static __thread bool attach_failed __attribute__((tls_model("initial-exec")));

static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

static void on_thread_exit(void *p)
{
    if (p && p == tf_self)
        tf_thread_detach(p);
}

static void make_exit_key(void)
{
    pthread_key_create(&exit_key, on_thread_exit);
}

static void stack_bounds(tf_rec_thread *t)
{
    pthread_attr_t attr;
    void *addr;
    size_t size;
    if (pthread_getattr_np(pthread_self(), &attr))
        return;
    if (!pthread_attr_getstack(&attr, &addr, &size)) {
        t->stack_lo = (uintptr_t)addr;
        t->stack_hi = (uintptr_t)addr + size;
    }
    pthread_attr_destroy(&attr);
}

/* MADV_POPULATE_WRITE (Linux 5.14): the pages of [addr, addr + len) made
 * present and writable.  Older kernels fault them in on first use. */
static void prefault(void *addr, size_t len)
{
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t lo = (uintptr_t)addr & ~(page - 1);
    (void)madvise((void *)lo, (uintptr_t)addr + len - lo, MADV_POPULATE_WRITE);
}

static tf_shm_buffer *create_buffer(uint32_t slot, size_t size)
{
    char path[PATH_MAX + 32];
    if (tf_session_buffer_name(path, sizeof path, tf_rec_g.proc_path, slot))
        return NULL;
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return NULL;
    void *m = MAP_FAILED;
    if (!ftruncate(fd, (off_t)size))
        m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) {
        unlink(path);
        return NULL;
    }
    tf_shm_buffer_layout(m, size, tf_rec_g.nbase, tf_rec_g.opt.stack_depth);
    /* The header and the event ring are written from handlers too (region
     * traps): faulted in now, as the whole buffer was with MAP_POPULATE.
     * The sample ring, three quarters of the buffer, only where a
     * handler writes samples (tf_thread_prefault_samples): with kernel capture
     * nothing writes it, and faulting the whole buffer in was a tenth of a recorded
     * /bin/true's start in the program (bench/RESULTS.md). */
    tf_shm_buffer *b = m;
    prefault(m, (const char *)tf_ring_slot(&b->events, 0) +
                    (size_t)b->events.nslots * b->events.slot_size - (const char *)m);
    return m;
}

void tf_thread_prefault_samples(tf_rec_thread *t)
{
    tf_shm_ring *r = &t->buf->samples;
    prefault(tf_ring_slot(r, 0), (size_t)r->nslots * r->slot_size);
}

tf_rec_thread *tf_thread_attach(void)
{
    if (tf_self)
        return tf_self;
    if (attach_failed || atomic_load(&tf_rec_g.state) != TF_REC_ON)
        return NULL;
    tf_shm_process *p = tf_rec_g.proc;
    uint32_t slot = atomic_fetch_add(&p->nthreads, 1);
    tf_rec_thread *t = NULL;
    if (slot >= TF_SESSION_MAX_THREADS || !(t = calloc(1, sizeof *t))) {
        attach_failed = true;
        return NULL;
    }
    t->slot = slot;
    t->tid = (uint64_t)gettid();
    t->buf_size = tf_rec_g.opt.buffer_size;
    t->buf = create_buffer(slot, t->buf_size);
    if (!t->buf) {
        free(t);
        attach_failed = true;
        return NULL;
    }
    stack_bounds(t);
    /* Counters that cannot be opened on this thread read as TF_NOVALUE. */
    (void)tf_counters_open(t);
    p->threads[slot].tid = t->tid;
    atomic_store_explicit(&p->threads[slot].state, TF_THREAD_LIVE, memory_order_release);
    pthread_once(&exit_key_once, make_exit_key);
    pthread_setspecific(exit_key, t);
    /* Before tf_self is set: the decoder's own allocations are not the
     * application's data objects. */
    tf_memsampling_thread_start(t);
    if (t->mem)   /* the perf back end's handler stores its samples */
        tf_thread_prefault_samples(t);
    tf_regions_thread_start(t);
    tf_self = t;
    if (t->stack_hi > t->stack_lo)
        tf_object_begin(t, TF_OBJECT_STACK, t->stack_lo, t->stack_hi);
    tf_sampling_thread_start(t);
    return t;
}

void tf_thread_detach(tf_rec_thread *t)
{
    tf_sampling_thread_stop(t);
    if (t->stack_hi > t->stack_lo)
        tf_object_end(t, TF_OBJECT_STACK, t->stack_lo);
    tf_self = NULL;
    tf_regions_thread_stop(t);
    tf_memsampling_thread_stop(t, false);
    tf_stats_merge(t);
    tf_counters_close(t);
    atomic_store_explicit(&tf_rec_g.proc->threads[t->slot].state, TF_THREAD_EXITED,
                          memory_order_release);
    munmap(t->buf, t->buf_size);
    free(t);
}

void tf_thread_forget_all(void)
{
    /* In a forked child the inherited descriptors still name the parent's
     * events: close our copies without disabling them, and leave the
     * parent's buffer alone. */
    tf_rec_thread *t = tf_self;
    tf_self = NULL;
    attach_failed = false;
    if (!t) {
        tf_kcapture_forget(NULL);
        return;
    }
    if (t->sample_ring)
        munmap(t->sample_ring, t->sample_ring_size);
    if (t->sample_fd >= 0)
        close(t->sample_fd);
    tf_kcapture_forget(t);
    tf_regions_thread_stop(t);
    tf_memsampling_thread_stop(t, true);
    for (uint32_t i = 0; i < TF_SESSION_MAX_BASE; i++)
        if (t->ctr_fd[i] >= 0)
            close(t->ctr_fd[i]);
    munmap(t->buf, t->buf_size);
    free(t);
}

/* ---- pthread_create interposition ---- */

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

struct start {
    void *(*fn)(void *);
    void *arg;
};

static void *start_thread(void *p)
{
    struct start s = *(struct start *)p;
    free(p);
    tf_thread_attach();
    return s.fn(s.arg);
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
    static pthread_create_fn real;
    if (!real)
        real = (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
    if (atomic_load(&tf_rec_g.state) != TF_REC_ON)
        return real(thread, attr, fn, arg);
    struct start *s = malloc(sizeof *s);
    if (!s)
        return real(thread, attr, fn, arg);
    s->fn = fn;
    s->arg = arg;
    int rc = real(thread, attr, start_thread, s);
    if (rc)
        free(s);
    return rc;
}
