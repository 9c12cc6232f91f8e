/* SPDX-License-Identifier: BSD-3-Clause */
/* The ring-buffer reader on a real kernel ring: a software task-clock
 * event samples this thread at 10 kHz into a one-page ring (records of
 * 40 bytes, so they split at the end of the buffer).  The ring is left to
 * overflow once, so the kernel drops samples and says so with a
 * PERF_RECORD_LOST notice. */
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "record/mem/perf_records.h"

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static volatile double sink;

/* Runs for ns of this thread's CPU time: what the task clock counts, so
 * the number of samples does not depend on the machine's load. */
static void spin(uint64_t ns)
{
    uint64_t end = cpu_ns() + ns;
    double x = 1;
    while (cpu_ns() < end)
        for (int i = 0; i < 1000; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

typedef struct check {
    uint32_t tid;
    uint64_t first_time, last_time;
    uint64_t n, wrong_tid, backwards;
} check;

static void on_sample(void *ctx, const tf_perf_sample *s)
{
    check *c = ctx;
    c->n++;
    c->wrong_tid += s->tid != c->tid;
    if (!c->first_time)
        c->first_time = s->time;
    c->backwards += s->time < c->last_time;
    c->last_time = s->time;
}

static void test_live_ring(void **state)
{
    struct perf_event_attr attr = {
        .size = sizeof attr, .type = PERF_TYPE_SOFTWARE, .config = PERF_COUNT_SW_TASK_CLOCK,
        .sample_period = 100000,
        .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_PERIOD,
        .disabled = 1, .exclude_kernel = 1, .exclude_hv = 1, .use_clockid = 1,
        .clockid = CLOCK_MONOTONIC, .wakeup_events = 1,
    };
    int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0)
        skip();   /* perf_event_open forbidden here (perf_event_paranoid > 2) */
    size_t page = (size_t)sysconf(_SC_PAGESIZE), len = 2 * page;
    void *base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    assert_true(base != MAP_FAILED);
    tf_perf_ring ring;
    tf_error err;
    assert_int_equal(tf_perf_ring_init(&ring, base, len, page, &err), 0);
    tf_perf_layout l;
    tf_perf_layout_from_attr(&attr, TF_SAMPLE_TIMER, &l);
    check c = { .tid = (uint32_t)syscall(SYS_gettid) };
    uint64_t t0 = now_ns();
    tf_perf_drain_stats st = { 0 };

    assert_int_equal(ioctl(fd, PERF_EVENT_IOC_ENABLE, 0), 0);
    for (int round = 0; round < 20; round++) {   /* drained often: nothing lost */
        spin(2000000);
        assert_true(tf_perf_ring_drain(&ring, &l, on_sample, &c, &st) >= 0);
    }
    uint64_t kept = st.samples;
    assert_int_equal(st.lost, 0);
    spin(60000000);   /* 600 samples into a ring that holds about 100 */
    assert_true(tf_perf_ring_drain(&ring, &l, on_sample, &c, &st) >= 0);
    spin(5000000);    /* the kernel reports the loss once there is room again */
    assert_true(tf_perf_ring_drain(&ring, &l, on_sample, &c, &st) >= 0);
    ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
    assert_true(tf_perf_ring_drain(&ring, &l, on_sample, &c, &st) >= 0);
    uint64_t t1 = now_ns();
    print_message("# %llu samples (%llu before the overflow), %llu lost in %llu notices, "
                  "%llu other records\n", (unsigned long long)st.samples,
                  (unsigned long long)kept, (unsigned long long)st.lost,
                  (unsigned long long)st.lost_notices, (unsigned long long)st.other);
    assert_true(kept >= 100);
    assert_int_equal(c.n, st.samples);
    assert_int_equal(c.wrong_tid, 0);
    /* use_clockid: sample times are on this process's CLOCK_MONOTONIC. */
    assert_true(c.first_time >= t0 && c.last_time <= t1);
    assert_int_equal(c.backwards, 0);
    assert_int_equal(st.malformed, 0);
    assert_true(st.lost_notices >= 1);
    assert_true(st.lost >= 50);
    tf_perf_ring_fini(&ring);
    munmap(base, len);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_live_ring),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
