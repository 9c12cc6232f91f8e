/* SPDX-License-Identifier: BSD-3-Clause */
/* tf_escape (common/tf_escape.c): what each kind of byte becomes, case by
 * case with its source line; the marks of CSV and Markdown; the column
 * count info aligns with; the string form the report draws. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/tf_escape.h"

typedef struct escape_case {
    int line;
    const char *in, *out;
} escape_case;

static const escape_case cases[] = {
    {__LINE__, "", ""},
    {__LINE__, "main", "main"},
    {__LINE__, "a\\b c|d,\"e\"", "a\\b c|d,\"e\""},            /* printable ASCII as it is */
    {__LINE__, "\x1b[2J", "\\x1b[2J"},                        /* ESC */
    {__LINE__, "a\nb\rc\td", "a\\x0ab\\x0dc\\x09d"},           /* line breaks, tab */
    {__LINE__, "\x01\x1f\x7f", "\\x01\\x1f\\x7f"},             /* C0 ends, DEL */
    {__LINE__, "caf\xc3\xa9 \xc2\xb5s \xe2\x80\x93", "caf\xc3\xa9 \xc2\xb5s \xe2\x80\x93"},
    {__LINE__, "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80"},         /* 4 bytes, U+1F600 */
    {__LINE__, "\xc2\x80\xc2\x9b\xc2\x9f\xc2\xa0", "\\xc2\\x80\\xc2\\x9b\\xc2\\x9f\xc2\xa0"}, /* C1 */
    {__LINE__, "\x9b" "31m", "\\x9b31m"},                     /* lone continuation byte */
    {__LINE__, "\xc0\xaf", "\\xc0\\xaf"},                     /* overlong '/' */
    {__LINE__, "\xe0\x80\xaf", "\\xe0\\x80\\xaf"},            /* overlong, 3 bytes */
    {__LINE__, "\xed\xa0\x80", "\\xed\\xa0\\x80"},            /* surrogate U+D800 */
    {__LINE__, "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"},   /* above U+10FFFF */
    {__LINE__, "\xf5\x80", "\\xf5\\x80"},                     /* no such lead byte */
    {__LINE__, "x\xe2\x82", "x\\xe2\\x82"},                   /* cut at the end */
    {__LINE__, "\xe2\x82y", "\\xe2\\x82y"},                   /* cut by ASCII */
    {__LINE__, "\xc3", "\\xc3"},
};

/* f's content as a string, after closing it. */
static char *closed(FILE *f, char **buf)
{
    assert_int_equal(fclose(f), 0);
    return *buf;
}

static void each_case(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const escape_case *c = &cases[i];
        char *buf = NULL;
        size_t size;
        FILE *f = open_memstream(&buf, &size);
        assert_non_null(f);
        size_t n = tf_escape_put(f, c->in);
        closed(f, &buf);
        if (strcmp(buf, c->out) || n != strlen(c->out))
            fail_msg("line %d: wrote '%s' (%zu bytes), expected '%s'", c->line, buf, n, c->out);
        free(buf);
        char *dup = tf_escape_dup(c->in);
        assert_non_null(dup);
        if (strcmp(dup, c->out))
            fail_msg("line %d: tf_escape_dup gave '%s'", c->line, dup);
        free(dup);
    }
}

static void marks(void **state)
{
    (void)state;
    static const struct { int line; const char *in; char c, mark; const char *out; } m[] = {
        {__LINE__, "a\"b\"\n", '"', '"', "a\"\"b\"\"\\x0a"},
        {__LINE__, "x|y\x1b|", '|', '\\', "x\\|y\\x1b\\|"},
        {__LINE__, "no mark", '|', '\\', "no mark"},
    };
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++) {
        char *buf = NULL;
        size_t size;
        FILE *f = open_memstream(&buf, &size);
        assert_non_null(f);
        size_t n = tf_escape_put_marked(f, m[i].in, m[i].c, m[i].mark);
        closed(f, &buf);
        if (strcmp(buf, m[i].out) || n != strlen(m[i].out))
            fail_msg("line %d: wrote '%s' (%zu bytes), expected '%s'", m[i].line, buf, n,
                     m[i].out);
        free(buf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_case),
        cmocka_unit_test(marks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
