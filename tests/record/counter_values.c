/* SPDX-License-Identifier: BSD-3-Clause */
/* tf_counter_group_values on read(2) buffers laid out as the kernel writes
 * them for PERF_FORMAT_GROUP | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING
 * (nr, time_enabled, time_running, values): the hardware path of the
 * counters, which a machine without a PMU never takes.  Each case reports
 * its source line on failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "record/tf_counter_values.h"

#define MAXV 4

typedef struct group_case {
    int         line;
    const char *what;
    uint64_t    buf[3 + MAXV];
    size_t      words;
    uint32_t    count;
    uint64_t    last[MAXV];      /* before the read */
    uint64_t    want[MAXV];      /* the values, and last after it */
} group_case;

#define NOV TF_NOVALUE
static const group_case cases[] = {
    { __LINE__, "scheduled all along: as read", { 2, 1000, 1000, 5000, 70 }, 5, 2,
      { 0, 0 }, { 5000, 70 } },
    { __LINE__, "multiplexed half the time: doubled", { 2, 1000, 500, 5000, 70 }, 5, 2,
      { 0, 0 }, { 10000, 140 } },
    { __LINE__, "a third of the time: exact in integers", { 1, 3000000000ull, 1000000000ull,
      3000000001ull }, 4, 1, { 0 }, { 9000000003ull } },
    { __LINE__, "beyond 2^53, scaled without rounding", { 1, 3, 2, (1ull << 60) + 1 }, 4, 1,
      { 0 }, { (((1ull << 60) + 1) / 2) * 3 + 1 } },
    { __LINE__, "an estimate below the last one is held at it", { 1, 1100, 300, 101 }, 4, 1,
      { 500 }, { 500 } },
    { __LINE__, "above the last one: the estimate", { 1, 1100, 300, 300 }, 4, 1, { 500 },
      { 1100 } },
    { __LINE__, "enabled, never scheduled: no estimate", { 2, 1000, 0, 0, 0 }, 5, 2, { 7, 9 },
      { NOV, NOV } },
    { __LINE__, "not yet enabled: zero", { 1, 0, 0, 0 }, 4, 1, { 0 }, { 0 } },
    { __LINE__, "short read", { 2, 1000, 1000, 5 }, 4, 2, { 0, 0 }, { NOV, NOV } },
    { __LINE__, "fewer events in the group than expected", { 1, 1000, 1000, 5, 6 }, 5, 2,
      { 0, 0 }, { NOV, NOV } },
    { __LINE__, "more events than used: the first ones", { 3, 10, 10, 1, 2, 3 }, 6, 2,
      { 0, 0 }, { 1, 2 } },
};

static void test_cases(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const group_case *c = &cases[k];
        uint64_t last[MAXV], out[MAXV];
        memcpy(last, c->last, sizeof last);
        tf_counter_group_values(c->buf, c->words, c->count, last, out);
        for (uint32_t i = 0; i < c->count; i++) {
            if (out[i] != c->want[i])
                fail_msg("line %d (%s): value %u is %llu, expected %llu", c->line, c->what, i,
                         (unsigned long long)out[i], (unsigned long long)c->want[i]);
            uint64_t want_last = c->want[i] == NOV ? c->last[i] : c->want[i];
            if (last[i] != want_last)
                fail_msg("line %d (%s): last %u is %llu, expected %llu", c->line, c->what, i,
                         (unsigned long long)last[i], (unsigned long long)want_last);
        }
    }
}

/* No buffer (the read failed): no values, last untouched. */
static void test_failed_read(void **state)
{
    (void)state;
    uint64_t last[2] = { 3, 4 }, out[2];
    tf_counter_group_values(NULL, 0, 2, last, out);
    assert_true(out[0] == NOV && out[1] == NOV);
    assert_true(last[0] == 3 && last[1] == 4);
}

/* A sequence of reads of one multiplexed group whose scaled estimates go
 * down and up again: what the trace gets never decreases. */
static void test_sequence_monotone(void **state)
{
    (void)state;
    static const uint64_t reads[][4] = {
        { 1, 100, 20, 100 },    /* 500 */
        { 1, 110, 30, 101 },    /* 370: held at 500 */
        { 1, 200, 100, 400 },   /* 800 */
    };
    uint64_t last[1] = { 0 }, out[1], prev = 0;
    for (size_t k = 0; k < 3; k++) {
        tf_counter_group_values(reads[k], 4, 1, last, out);
        assert_true(out[0] >= prev);
        prev = out[0];
    }
    assert_int_equal(prev, 800);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_failed_read),
        cmocka_unit_test(test_sequence_monotone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
