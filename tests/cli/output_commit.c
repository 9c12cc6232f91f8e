/* SPDX-License-Identifier: BSD-3-Clause */
/* tf_output_check_file and tf_output_commit (common/tf_output.h): an
 * output finished under a temporary name takes its final name only where
 * the check found nothing, or the very file --force let it replace; a file
 * created at that name between the check and the commit stays whole; a
 * link to nothing is refused, never followed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/tf_output.h"

static char dir[] = "/tmp/tf-commit-XXXXXX";

static void put(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static void assert_holds(const char *path, const char *text)
{
    char buf[64] = "";
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    assert_string_equal(buf, text);
}

/* dir/name, in a static buffer of its own per slot. */
static const char *at(int slot, const char *name)
{
    static char paths[4][256];
    snprintf(paths[slot], sizeof paths[slot], "%s/%s", dir, name);
    return paths[slot];
}

static void new_output(void **state)
{
    (void)state;
    tf_output_rule rule = { 0 };
    tf_error err = { 0 };
    const char *out = at(0, "new.txt"), *tmp = at(1, "new.txt.tmp");
    assert_int_equal(tf_output_check_file(out, &rule, &err), 0);
    put(tmp, "ours");
    assert_int_equal(tf_output_commit(tmp, out, &err), 0);
    assert_holds(out, "ours");
    assert_int_equal(access(tmp, F_OK), -1);
}

/* Checked when nothing was there; someone creates the file before the
 * commit: it stays, the commit fails naming it. */
static void created_meanwhile(void **state)
{
    (void)state;
    tf_output_rule rule = { 0 };
    tf_error err = { 0 };
    const char *out = at(0, "race.txt"), *tmp = at(1, "race.txt.tmp");
    assert_int_equal(tf_output_check_file(out, &rule, &err), 0);
    put(out, "theirs");
    put(tmp, "ours");
    assert_int_equal(tf_output_commit(tmp, out, &err), -TF_ERR_EXISTS);
    assert_non_null(strstr(err.msg, out));
    assert_non_null(strstr(err.msg, "appeared while tracefold was writing it"));
    assert_holds(out, "theirs");
    assert_holds(tmp, "ours");
    assert_false(tf_output_may_replace(out));
}

/* --force replaces the file the check found, and only that one: a file
 * put in its place since is not replaced. */
static void forced(void **state)
{
    (void)state;
    tf_output_rule rule = { .force = true };
    tf_error err = { 0 };
    const char *out = at(0, "old.txt"), *tmp = at(1, "old.txt.tmp");
    put(out, "old");
    assert_int_equal(tf_output_check_file(out, &rule, &err), 0);
    assert_true(tf_output_may_replace(out));
    put(tmp, "new");
    assert_int_equal(tf_output_commit(tmp, out, &err), 0);
    assert_holds(out, "new");

    assert_int_equal(tf_output_check_file(out, &rule, &err), 0);
    assert_int_equal(unlink(out), 0);
    put(out, "swapped");   /* another file (inode) at the name */
    put(tmp, "newer");
    assert_false(tf_output_may_replace(out));
    assert_int_equal(tf_output_commit(tmp, out, &err), -TF_ERR_EXISTS);
    assert_holds(out, "swapped");
}

/* A link to nothing: refused with or without --force, nothing created
 * where it points. */
static void dangling_link(void **state)
{
    (void)state;
    tf_error err = { 0 };
    const char *link = at(0, "link.h5"), *target = at(1, "nowhere.h5");
    assert_int_equal(symlink(target, link), 0);
    for (int force = 0; force < 2; force++) {
        tf_output_rule rule = { .force = force };
        assert_int_equal(tf_output_check_file(link, &rule, &err), -TF_ERR_EXISTS);
        assert_non_null(strstr(err.msg, "a link to"));
        assert_non_null(strstr(err.msg, "not followed"));
    }
    assert_int_equal(access(target, F_OK), -1);
}

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    const char *names[] = { "new.txt", "race.txt", "race.txt.tmp", "old.txt", "old.txt.tmp",
                            "link.h5" };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unlink(at(0, names[i]));
    return rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(new_output),
        cmocka_unit_test(created_meanwhile),
        cmocka_unit_test(forced),
        cmocka_unit_test(dangling_link),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
