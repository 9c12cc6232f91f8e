/* SPDX-License-Identifier: BSD-3-Clause */
/* tf_sigsafe_vsnprintf against the C library's vsnprintf: same text, same
 * return value, same truncation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <string.h>
#include <cmocka.h>

#include "record/mem/sigsafe_format.h"

/* Formats with both implementations into buffers of size cap and compares;
 * line is the caller's source line, reported on failure. */
static void compare(int line, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void compare(int line, size_t cap, const char *fmt, ...)
{
    char want[256], got[256];
    memset(want, 'W', sizeof want);
    memset(got, 'G', sizeof got);
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int want_len = vsnprintf(want, cap, fmt, ap);
    int got_len = tf_sigsafe_vsnprintf(got, cap, fmt, ap2);
    va_end(ap2);
    va_end(ap);
    if (want_len != got_len)
        fail_msg("line %d: \"%s\": length %d, expected %d", line, fmt, got_len, want_len);
    if (cap && strcmp(want, got) != 0)
        fail_msg("line %d: \"%s\": \"%s\", expected \"%s\"", line, fmt, got, want);
    if (cap < sizeof got && got[cap] != 'G')
        fail_msg("line %d: \"%s\": wrote past the buffer", line, fmt);
}

#define SAME(cap, ...) compare(__LINE__, cap, __VA_ARGS__)

static void test_conversions(void **state)
{
    SAME(256, "plain text");
    SAME(256, "%d %i %u", -42, 7, 4000000000u);
    SAME(256, "%x %X %o", 0xbeefu, 0xbeefu, 8u);
    SAME(256, "0x%" PRIx64 " %" PRIu64 " %" PRId64, UINT64_MAX, UINT64_MAX, INT64_MIN);
    SAME(256, "%hhd %hhu %hd %hu", -1, 255, -2, 65535);
    SAME(256, "%ld %lu %lld %llx", -5L, 5UL, -6LL, 0xabcULL);
    SAME(256, "%zu %zd %jd %jx %td", (size_t)9, (ssize_t)-9, (intmax_t)-10, (uintmax_t)10,
         (ptrdiff_t)-11);
    SAME(256, "[%5d] [%-5d] [%05d] [%.3d] [%8.3d] [%-8.3x]", 42, 42, -42, 7, 7, 0xa);
    SAME(256, "[%*d] [%-*d] [%.*d] [%*d]", 6, 1, 6, 2, 4, 3, -6, 4);
    SAME(256, "[%.0d] [%.0x] [%5.0u]", 0, 0u, 0u);
    SAME(256, "[%s] [%10s] [%-10s] [%.2s] [%*.*s]", "abc", "abc", "abc", "abc", 6, 1, "xyz");
    SAME(256, "[%c] [%3c] [%-3c]", 'a', 'b', 'c');
    SAME(256, "100%% %p", (void *)0x1234);
    SAME(256, "%s", "{%s}");
}

static void test_truncation(void **state)
{
    SAME(1, "abc");
    SAME(4, "abcdef");
    SAME(5, "%d", 123456789);
    SAME(6, "0x%" PRIx64, UINT64_MAX);
    SAME(3, "%s%s", "ab", "cd");
    SAME(0, "nothing is written");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conversions),
        cmocka_unit_test(test_truncation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
