/* SPDX-License-Identifier: BSD-3-Clause */
/* Not a test of its own: the program tap_driver.sh runs through the test
 * harness to see what becomes of a skipped and of a failing cmocka case.
 * Usage: tap_cases skip|fail (one case passes, the other skips or fails). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

static const char *mode = "";

static void passes(void **state)
{
    (void)state;
    assert_int_equal(1 + 1, 2);
}

static void skips_or_fails(void **state)
{
    (void)state;
    if (!strcmp(mode, "skip"))
        skip();
    fail_msg("this case fails on purpose (mode '%s')", mode);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        mode = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(passes),
        cmocka_unit_test(skips_or_fails),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
