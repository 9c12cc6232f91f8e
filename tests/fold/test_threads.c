/* SPDX-License-Identifier: BSD-3-Clause */
/* The thread helpers the fold rests on (common/tf_parallel.c,
 * common/tf_handoff.c, common/tf_outfile.c): every task runs exactly once,
 * on a slot below the number of threads, whatever that number (more
 * threads than tasks, one, none to do); buffers handed over arrive all and
 * in order, and an emptier that stops makes the filler stop; a file
 * written behind holds every byte in order, and a write that fails is
 * reported, by a later write or by the close. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/tf_handoff.h"
#include "common/tf_outfile.h"
#include "common/tf_parallel.h"

#define TASKS 1000

struct tally {
    atomic_uint runs[TASKS];
    atomic_uint bad_slot;
    unsigned threads;
};

static void count_task(void *arg, unsigned task, unsigned slot)
{
    struct tally *t = arg;
    atomic_fetch_add(&t->runs[task], 1);
    if (slot >= t->threads)
        atomic_fetch_add(&t->bad_slot, 1);
}

static void test_every_task_once(void **state)
{
    static const unsigned threads[] = { 1, 2, 3, 8, TASKS + 5 };
    static const unsigned counts[] = { 0, 1, 7, TASKS };
    for (size_t a = 0; a < sizeof threads / sizeof threads[0]; a++)
        for (size_t b = 0; b < sizeof counts / sizeof counts[0]; b++) {
            static struct tally t;
            memset(&t, 0, sizeof t);
            t.threads = threads[a];
            tf_parallel_for(counts[b], threads[a], count_task, &t);
            for (unsigned k = 0; k < TASKS; k++)
                assert_int_equal(atomic_load(&t.runs[k]), k < counts[b] ? 1 : 0);
            assert_int_equal(atomic_load(&t.bad_slot), 0);
        }
    assert_true(tf_parallel_cpus() >= 1);
}

/* An emptier summing the buffers it takes, in turn; it stops at stop_at. */
struct pipe {
    tf_handoff h;
    uint64_t buf[2];
    uint64_t sum, taken, stop_at;
};

static void *emptier(void *arg)
{
    struct pipe *p = arg;
    for (unsigned k = 0; tf_handoff_take(&p->h, k); k ^= 1) {
        p->sum = p->sum * 31 + p->buf[k];   /* order-sensitive */
        p->taken++;
        tf_handoff_release(&p->h, k, p->taken == p->stop_at);
    }
    return NULL;
}

/* Fills `n` buffers 1..n through the pipe; returns how many were put. */
static uint64_t fill(struct pipe *p, uint64_t n)
{
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, emptier, p), 0);
    uint64_t put = 0;
    for (unsigned k = 0; put < n; k ^= 1) {
        if (!tf_handoff_wait_empty(&p->h, k))
            break;
        p->buf[k] = ++put;
        tf_handoff_put(&p->h, k);
    }
    tf_handoff_end(&p->h);
    assert_int_equal(pthread_join(t, NULL), 0);
    return put;
}

static void test_handoff_order(void **state)
{
    struct pipe p = { .stop_at = 0 };
    tf_handoff_init(&p.h);
    uint64_t put = fill(&p, 100000);
    tf_handoff_destroy(&p.h);
    uint64_t want = 0;
    for (uint64_t i = 1; i <= 100000; i++)
        want = want * 31 + i;
    assert_int_equal(put, 100000);
    assert_int_equal(p.taken, 100000);
    assert_true(p.sum == want);
}

static void test_handoff_stop(void **state)
{
    struct pipe p = { .stop_at = 10 };
    tf_handoff_init(&p.h);
    uint64_t put = fill(&p, 100000);
    tf_handoff_destroy(&p.h);
    /* The filler stops within a buffer or two of the emptier's stop, and
     * every buffer put is taken. */
    assert_true(put >= 10 && put <= 12);
    assert_int_equal(p.taken, put);
}

/* Pieces of every size up to past a buffer (1 MiB), about 9 MiB in all,
 * written with and without write-behind: the same file, byte for byte. */
static void test_outfile_bytes(void **state)
{
    (void)state;
    char dir[] = "/tmp/tf-outfile-XXXXXX";
    assert_non_null(mkdtemp(dir));
    enum { TOTAL = 9 << 20 };
    unsigned char *want = malloc(TOTAL);
    assert_non_null(want);
    for (size_t i = 0; i < TOTAL; i++)
        want[i] = (unsigned char)(i * 2654435761u >> 13);
    for (int behind = 0; behind < 2; behind++) {
        char path[64];
        snprintf(path, sizeof path, "%s/%d", dir, behind);
        tf_outfile *f;
        tf_error err = {0};
        assert_int_equal(tf_outfile_open(&f, path, &err), 0);
        if (behind)
            tf_outfile_write_behind(f);
        size_t at = 0;
        for (size_t piece = 1; at < TOTAL; piece = piece * 3 % 1500007 + 1) {
            size_t n = piece < TOTAL - at ? piece : TOTAL - at;
            assert_int_equal(tf_outfile_write(f, want + at, n), 0);
            at += n;
        }
        assert_int_equal(tf_outfile_tell(f), TOTAL);
        assert_int_equal(tf_outfile_close(f, &err), 0);
        FILE *in = fopen(path, "rb");
        assert_non_null(in);
        unsigned char *got = malloc(TOTAL + 1);
        assert_non_null(got);
        assert_int_equal(fread(got, 1, TOTAL + 1, in), TOTAL);
        fclose(in);
        assert_memory_equal(got, want, TOTAL);
        free(got);
        unlink(path);
    }
    rmdir(dir);
    free(want);
}

/* /dev/full refuses every write (ENOSPC): with write-behind the error
 * reaches a later write or the close, and the close names the file. */
static void test_outfile_error(void **state)
{
    (void)state;
    static char block[1 << 16];
    for (int behind = 0; behind < 2; behind++) {
        tf_outfile *f;
        tf_error err = {0};
        if (tf_outfile_open(&f, "/dev/full", &err) < 0)
            skip();
        if (behind)
            tf_outfile_write_behind(f);
        int failed = 0;
        for (int i = 0; i < 100 && !failed; i++)   /* 6.4 MiB: several buffers */
            failed = tf_outfile_write(f, block, sizeof block) < 0;
        assert_true(failed);
        assert_true(tf_outfile_close(f, &err) < 0);
        assert_non_null(strstr(err.msg, "/dev/full"));
    }
    /* A file abandoned with buffers in flight. */
    tf_outfile *f;
    tf_error err = {0};
    assert_int_equal(tf_outfile_open(&f, "/dev/null", &err), 0);
    tf_outfile_write_behind(f);
    for (int i = 0; i < 40; i++)
        assert_int_equal(tf_outfile_write(f, block, sizeof block), 0);
    tf_outfile_abort(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_task_once),
        cmocka_unit_test(test_handoff_order),
        cmocka_unit_test(test_handoff_stop),
        cmocka_unit_test(test_outfile_bytes),
        cmocka_unit_test(test_outfile_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
