/* SPDX-License-Identifier: BSD-3-Clause */
/* The recorder's concurrent hot paths, stressed from several threads: name
 * interning (lock-free lookups, locked inserts) and the single-producer
 * single-consumer rings between a thread and the writer.  Built twice: as
 * is, and with ThreadSanitizer (hotpaths_tsan), which reports any data race
 * in these paths. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "record/lib/tf_rec.h"

/* tf_intern.c's only dependency on the rest of the library. */
tf_rec tf_rec_g;

#define THREADS 6
#define NAMES 200

static uint32_t ids[THREADS][NAMES];

static void *intern_names(void *arg)
{
    int t = (int)(intptr_t)arg;
    for (int k = 0; k < NAMES; k++) {
        int n = (k * 7 + t * 31) % NAMES;   /* a different order per thread */
        char name[32];
        snprintf(name, sizeof name, "region_%d", n);
        ids[t][n] = tf_intern(name);
        if (tf_intern(name) != ids[t][n])   /* the lock-free path agrees */
            ids[t][n] = 0;
    }
    return NULL;
}

static void interning_is_consistent(void **state)
{
    (void)state;
    tf_rec_g.proc = calloc(1, sizeof *tf_rec_g.proc);
    assert_non_null(tf_rec_g.proc);
    tf_intern_reset();
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, intern_names, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    /* Every thread got the same id for a name; ids are 1..NAMES, each once,
     * and id k is the k-th string of the session's string area. */
    bool seen[NAMES + 1] = {false};
    for (int n = 0; n < NAMES; n++) {
        for (int t = 1; t < THREADS; t++)
            assert_int_equal(ids[t][n], ids[0][n]);
        assert_true(ids[0][n] >= 1 && ids[0][n] <= NAMES);
        assert_false(seen[ids[0][n]]);
        seen[ids[0][n]] = true;
    }
    const char *s = tf_rec_g.proc->strings;
    for (uint32_t id = 1; id <= NAMES; id++) {
        int n = -1;
        assert_int_equal(sscanf(s, "region_%d", &n), 1);
        assert_int_equal(ids[0][n], id);
        s += strlen(s) + 1;
    }
    assert_int_equal((size_t)(s - tf_rec_g.proc->strings),
                     (size_t)atomic_load(&tf_rec_g.proc->strings_used));
    free(tf_rec_g.proc);
    tf_rec_g.proc = NULL;
}

#define RECORDS 200000

static tf_shm_buffer *ring_buf;
static atomic_bool producer_done;

static void *produce(void *arg)
{
    (void)arg;
    tf_shm_ring *r = &ring_buf->samples;
    for (uint64_t i = 0; i < RECORDS; i++) {
        tf_sample_slot *s = tf_ring_reserve(r);
        if (!s)
            continue;          /* full: dropped and counted */
        s->time = i;
        s->ip = i * 3 + 1;     /* a check that the slot was not torn */
        tf_ring_commit(r);
    }
    atomic_store(&producer_done, true);
    return NULL;
}

static void ring_delivers_in_order(void **state)
{
    (void)state;
    size_t size = 64 * 1024;
    ring_buf = aligned_alloc(64, size);
    assert_non_null(ring_buf);
    tf_shm_buffer_layout(ring_buf, size, 3, 8);
    assert_true(ring_buf->samples.nslots > 16);
    pthread_t th;
    pthread_create(&th, NULL, produce, NULL);
    tf_shm_ring *r = &ring_buf->samples;
    uint64_t received = 0, last = 0;
    bool first = true;
    for (;;) {
        bool done = atomic_load(&producer_done);
        uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
        uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
        for (; tail < head; tail++) {
            const tf_sample_slot *s = tf_ring_slot(r, tail);
            assert_int_equal(s->ip, s->time * 3 + 1);
            assert_true(first || s->time > last);
            last = s->time;
            first = false;
            received++;
        }
        atomic_store_explicit(&r->tail, tail, memory_order_release);
        if (done && tail == atomic_load(&r->head))
            break;
    }
    pthread_join(th, NULL);
    assert_int_equal(received + atomic_load(&r->dropped), RECORDS);
    free(ring_buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(interning_is_consistent),
        cmocka_unit_test(ring_delivers_in_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
