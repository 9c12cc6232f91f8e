/* SPDX-License-Identifier: BSD-3-Clause */
/* The public API (tracefold.h): regions, events, user counters, memory
 * regions, flush, and the MPI rank (tracefold_mpi.h).  Every call writes
 * one slot into the calling thread's event ring with the counters read at
 * that point. */
#include "config.h"

#include <string.h>
#include <time.h>

#include "tf_rec.h"
#include "tracefold.h"
#include "tracefold_mpi.h"

/* The calling thread's state, attaching it on first use (threads that were
 * running before recording started). */
static tf_rec_thread *self(void)
{
    tf_rec_thread *t = tf_self;
    if (!t)
        t = tf_thread_attach();
    return t && tf_rec_active() ? t : NULL;
}

static void emit(tf_rec_thread *t, uint8_t kind, uint32_t type, uint64_t value, uint64_t extra)
{
    /* A call from a signal handler that interrupted another emit on this
     * thread would tear the slot: drop it instead (counted). */
    if (t->busy) {
        atomic_fetch_add_explicit(&t->buf->events.dropped, 1, memory_order_relaxed);
        return;
    }
    t->busy = 1;
    atomic_signal_fence(memory_order_seq_cst);
    tf_shm_ring *r = &t->buf->events;
    tf_event_slot *s = tf_ring_reserve(r);
    if (s) {
        uint32_t nbase = tf_rec_g.nbase;
        s->time = tf_now();
        tf_heap_clock(s->time);   /* small blocks after a region begin come after it */
        s->kind = kind;
        s->type = type;
        s->value = value;
        s->extra = extra;
        tf_counters_read(t, s->ctr, NULL);
        uint32_t nuser =
            TF_USER_COUNT(atomic_load_explicit(&tf_rec_g.proc->user_word, memory_order_relaxed));
        memcpy(s->ctr + nbase, t->user, nuser * sizeof t->user[0]);
        s->nuser = (uint8_t)nuser;
        if (tf_ring_commit(r))
            tf_rec_wake();
    }
    atomic_signal_fence(memory_order_seq_cst);
    t->busy = 0;
}

/* The counter columns are fixed by the first region: user counters must be
 * defined before it. */
static void freeze_counters(void)
{
    tf_shm_process *p = tf_rec_g.proc;
    if (!(atomic_load_explicit(&p->user_word, memory_order_relaxed) & TF_USER_FROZEN))
        atomic_fetch_or(&p->user_word, TF_USER_FROZEN);
}

void tracefold_region_begin(const char *name)
{
    tf_rec_thread *t = self();
    if (!t)
        return;
    freeze_counters();
    emit(t, 0 /* TF_EVENT_ENTER */, 0, tf_intern(name), 0);
}

void tf_region_emit(tf_rec_thread *t, bool begin, uint32_t name_id, uint32_t type)
{
    if (begin)
        freeze_counters();
    emit(t, begin ? 0 /* TF_EVENT_ENTER */ : 1 /* TF_EVENT_EXIT */, type, name_id, 0);
}

void tracefold_region_end(const char *name)
{
    tf_rec_thread *t = self();
    if (t)
        emit(t, 1 /* TF_EVENT_EXIT */, 0, tf_intern(name), 0);
}

void tracefold_event(uint32_t type, uint64_t value)
{
    tf_rec_thread *t = self();
    if (t)
        emit(t, 2 /* TF_EVENT_USER */, type, value, 0);
}

int tracefold_counter_define(const char *name)
{
    if (!name || !*name)
        return -1;
    /* Not recording: any id will do, tracefold_counter_add ignores it. */
    if (atomic_load(&tf_rec_g.state) != TF_REC_ON)
        return 0;
    tf_shm_process *p = tf_rec_g.proc;
    uint32_t word = atomic_load(&p->user_word);
    for (;;) {
        uint32_t n = TF_USER_COUNT(word);
        for (uint32_t i = 0; i < n; i++)
            if (!strncmp(p->user_name[i], name, TF_SESSION_NAME_MAX - 1))
                return (int)i;
        /* Never silent: the program goes on, but its metric would be
         * missing from the trace without a word. */
        if (word & TF_USER_FROZEN) {
            tf_rec_say(true, "user counter '%s' not recorded: the trace's counter columns were "
                             "fixed (at the first region, or when a buffer filled); define it "
                             "earlier, at the program's start", name);
            return -1;
        }
        if (n >= TF_SESSION_MAX_USER) {
            tf_rec_say(true, "user counter '%s' not recorded: at most %d per process", name,
                       TF_SESSION_MAX_USER);
            return -1;
        }
        /* Claim index n with the busy bit, write its name, then publish the
         * count and drop the bit in one add (keeping a frozen bit the writer
         * may have set meanwhile; the writer waits for the busy bit to go). */
        if (!(word & TF_USER_BUSY) &&
            atomic_compare_exchange_weak(&p->user_word, &word, word | TF_USER_BUSY)) {
            strncpy(p->user_name[n], name, TF_SESSION_NAME_MAX - 1);
            p->user_name[n][TF_SESSION_NAME_MAX - 1] = '\0';
            atomic_fetch_sub(&p->user_word, TF_USER_BUSY - 1);
            return (int)n;
        }
        if (word & TF_USER_BUSY) {
            struct timespec ts = {0, 100000};
            nanosleep(&ts, NULL);
            word = atomic_load(&p->user_word);
        }
    }
}

void tracefold_counter_add(int id, uint64_t delta)
{
    tf_rec_thread *t = tf_self;
    if (!t)
        t = tf_thread_attach();
    if (t && id >= 0 && id < TF_SESSION_MAX_USER) {
        /* A kernel-captured sample cannot read user counters: a thread
         * whose counters start to move goes to the signal handler first. */
        if (__builtin_expect(t->kernel, 0))
            tf_kcapture_switch(t);
        t->user[id] += delta;
    }
}

void tracefold_memory_region(const char *name, const void *begin, const void *end)
{
    tf_rec_thread *t = self();
    if (t && begin && end > begin)
        emit(t, TF_SLOT_OBJECT, tf_intern(name), (uint64_t)(uintptr_t)begin,
             (uint64_t)(uintptr_t)end);
}

#define FLUSH_WAIT_NS 5000000000ull

static bool flushed(const tf_shm_process *p, void *want)
{
    return (int32_t)(atomic_load(&p->flush_done) - *(uint32_t *)want) >= 0 ||
           atomic_load(&p->writer) == TF_WRITER_FAILED;
}

void tracefold_flush(void)
{
    if (atomic_load(&tf_rec_g.state) != TF_REC_ON)
        return;
    /* Ask the writer and wait (bounded) until it has flushed. */
    tf_maps_snapshot();
    tf_shm_process *p = tf_rec_g.proc;
    uint32_t want = atomic_fetch_add(&p->flush_req, 1) + 1;
    tf_session_poke(tf_rec_g.session);
    tf_rec_await(flushed, &want, FLUSH_WAIT_NS, "tracefold_flush");
}

int tracefold_mpi_rank(int rank, int size)
{
    if (atomic_load(&tf_rec_g.state) != TF_REC_ON)
        return -1;
    /* The launcher's variables gave a rank already when it sets them; MPI's
     * own answer wins.  The writer reads both when it creates the trace
     * file, which is at the first region in most programs. */
    tf_rec_g.proc->rank = rank;
    tf_rec_g.proc->nranks = size;
    return tf_rec_g.opt.mpi_calls;
}
