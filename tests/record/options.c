/* SPDX-License-Identifier: BSD-3-Clause */
/* The recorder's option table and value parsers, and the XML configuration
 * reader's error messages (file and line). */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "record/tf_config.h"
#include "record/tf_options.h"

static void defaults_are_valid(void **state)
{
    (void)state;
    for (unsigned i = 0; i < tf_option_count; i++) {
        tf_options o;
        tf_error err;
        memset(&o, 0, sizeof o);
        assert_int_equal(tf_option_set(&o, &tf_option_table[i], tf_option_table[i].deflt, &err), 0);
    }
    tf_options o;
    tf_options_defaults(&o);
    assert_int_equal(o.period_ns, 5000000);
    assert_int_equal(o.buffer_size, 4u << 20);
    assert_int_equal(o.flush_ns, 1000000000);
    assert_int_equal(o.stack_depth, 32);
    assert_true(o.autostart);
}

static void values_parse(void **state)
{
    (void)state;
    tf_options o;
    tf_error err;
    tf_options_defaults(&o);
    assert_int_equal(tf_option_set(&o, tf_option_find("period"), "100us", &err), 0);
    assert_int_equal(o.period_ns, 100000);
    assert_int_equal(tf_option_set(&o, tf_option_find("period"), "0.5ms", &err), 0);
    assert_int_equal(o.period_ns, 500000);
    assert_int_equal(tf_option_set(&o, tf_option_find("buffer-size"), "8M", &err), 0);
    assert_int_equal(o.buffer_size, 8u << 20);
    assert_int_equal(tf_option_set(&o, tf_option_find("sampler"), "posix", &err), 0);
    assert_int_equal(o.sampler, TF_SAMPLER_POSIX);
    assert_int_equal(tf_option_set(&o, tf_option_find("autostart"), "no", &err), 0);
    assert_false(o.autostart);
    char buf[64];
    tf_option_format(&o, tf_option_find("period"), buf, sizeof buf);
    assert_string_equal(buf, "500000ns");
}

/* Every spelling the documentation uses (tracefold.h: TRACEFOLD_AUTOSTART=0;
 * recorder.md: no), in the environment and in an option's text, and the
 * value written back is the canonical one. */
static void booleans_take_every_spelling(void **state)
{
    (void)state;
    static const struct { const char *text; bool value; } cases[] = {
        {"0", false}, {"no", false}, {"off", false}, {"false", false}, {"NO", false}, {"Off", false},
        {"1", true}, {"yes", true}, {"on", true}, {"true", true}, {"YES", true}, {"True", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tf_options o;
        tf_error err;
        tf_options_defaults(&o);
        o.autostart = !cases[i].value;
        assert_int_equal(setenv("TRACEFOLD_AUTOSTART", cases[i].text, 1), 0);
        if (tf_options_from_env(&o, &err))
            fail_msg("TRACEFOLD_AUTOSTART=%s refused: %s", cases[i].text, err.msg);
        assert_int_equal(o.autostart, cases[i].value);
        o.stats = !cases[i].value;
        assert_int_equal(tf_option_set(&o, tf_option_find("stats"), cases[i].text, &err), 0);
        assert_int_equal(o.stats, cases[i].value);
        char buf[8];
        tf_option_format(&o, tf_option_find("stats"), buf, sizeof buf);
        assert_string_equal(buf, cases[i].value ? "yes" : "no");
    }
    assert_int_equal(unsetenv("TRACEFOLD_AUTOSTART"), 0);
}

static void bad_values_say_why(void **state)
{
    (void)state;
    static const struct { const char *opt, *value, *expect; } cases[] = {
        {"period", "fast", "not a duration"},
        {"period", "5", "not a duration"},
        {"period", "1ns", "out of range"},
        {"buffer-size", "1K", "out of range"},
        {"buffer-size", "lots", "not a size"},
        {"sampler", "magic", "not one of auto, perf, posix, none"},
        {"stack-depth", "-1", "not a non-negative integer"},
        {"jitter", "90", "out of range"},
        {"output", "", "empty value"},
        {"autostart", "2", "not a yes/no value"},
        {"stats", "yess", "not a yes/no value"},
        {"mpi-calls", "", "not a yes/no value"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tf_options o;
        tf_error err;
        tf_options_defaults(&o);
        assert_int_equal(tf_option_set(&o, tf_option_find(cases[i].opt), cases[i].value, &err),
                         -TF_ERR_USAGE);
        if (!strstr(err.msg, cases[i].expect) || !strstr(err.msg, cases[i].opt))
            fail_msg("case %zu: message '%s' lacks '%s'", i, err.msg, cases[i].expect);
    }
}

static void config_file(const char *text, tf_options *o, tf_error *err, int *rc)
{
    char path[] = "/tmp/tf-options-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    tf_options_defaults(o);
    *rc = tf_config_load(path, o, err);
    unlink(path);
}

static void config_reads_options(void **state)
{
    (void)state;
    tf_options o;
    tf_error err;
    int rc;
    config_file("<?xml version=\"1.0\"?>\n<tracefold>\n  <period>2ms</period>\n"
                "  <counters> task-clock </counters>\n</tracefold>\n", &o, &err, &rc);
    assert_int_equal(rc, 0);
    assert_int_equal(o.period_ns, 2000000);
    assert_string_equal(o.counters, "task-clock");
}

static void config_errors_name_the_line(void **state)
{
    (void)state;
    static const struct { const char *text, *expect; } cases[] = {
        {"<tracefold>\n<period>1ms</period>\n<period>2ms</perio>\n</tracefold>\n", ":3: invalid XML"},
        {"<tracefold>\n\n<speed>1</speed>\n</tracefold>\n", ":3: unknown option <speed>"},
        {"<tracefold>\n<period>\n1 hour</period>\n</tracefold>\n", ":2: period: '1 hour' is not a duration"},
        {"<config/>\n", ":1: the root element must be <tracefold>"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tf_options o;
        tf_error err;
        int rc;
        config_file(cases[i].text, &o, &err, &rc);
        assert_true(rc < 0);
        if (!strstr(err.msg, cases[i].expect) || !strstr(err.msg, "/tmp/tf-options-test-"))
            fail_msg("case %zu: message '%s' lacks '%s'", i, err.msg, cases[i].expect);
    }
    tf_options o;
    tf_error err;
    tf_options_defaults(&o);
    assert_int_equal(tf_config_load("/nonexistent/tf.xml", &o, &err), -TF_ERR_IO);
    assert_non_null(strstr(err.msg, "/nonexistent/tf.xml"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_are_valid),
        cmocka_unit_test(values_parse),
        cmocka_unit_test(booleans_take_every_spelling),
        cmocka_unit_test(bad_values_say_why),
        cmocka_unit_test(config_reads_options),
        cmocka_unit_test(config_errors_name_the_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
