/* SPDX-License-Identifier: BSD-3-Clause */
/* The synthetic Paraver trace names each sampled address as the fold's
 * analysis placed it, not by looking it up again (issue 32): a fold.h5
 * whose stored routines are renamed gives `tracefold paraver` the new
 * names, for its samples' routines as for its phases, and the trace's own
 * symbols appear nowhere in the .pcf; and a fold.h5 without its analysis
 * is analysed by analysis/, as `tracefold render` does, giving the trace
 * the fold.h5 with one gives. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <hdf5.h>

#include "formats/fold_h5.h"
#include "formats/h5util.h"
#include "test_dir.h"

/* Whether some line of the file is "VALUE   label" with this label. */
static bool labelled(const char *path, const char *label)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        const char *sp = line + strspn(line, "0123456789");
        found = sp > line && *sp == ' ' && !strcmp(sp + strspn(sp, " "), label);
    }
    fclose(f);
    return found;
}

/* NAME.h5 from `tracefold synth` (40 iterations, seed, extra flags)
 * folded into NAME.fold in the test directory; the tracefold run (skips
 * without one). */
static const char *synth_and_fold(const char *name, unsigned seed, const char *flags)
{
    const char *tf = getenv("TRACEFOLD");
    if (!tf)
        skip();
    assert_int_equal(tf_test_sh("'%s' synth -q -o '%s/%s.h5' --iterations 40 --seed %u %s && "
                                "'%s' fold -q '%s/%s.h5' -o '%s/%s.fold'",
                                tf, tf_test_dir, name, seed, flags, tf, tf_test_dir, name,
                                tf_test_dir, name), 0);
    return tf;
}

static void sites_from_the_analysis(void **state)
{
    (void)state;
    const char *tf = synth_and_fold("t", 3, "--no-memory");
    char fold[512], group[TF_FOLD_H5_PATH];
    snprintf(fold, sizeof fold, "%s/t.fold/fold.h5", tf_test_dir);
    int64_t file, routines;
    tf_error err = { 0 };
    if (tf_h5_file_open(fold, true, &file, &err) < 0 ||
        tf_h5_group_open(file, tf_fold_h5_group_path(group, 0, 0, TF_FOLD_H5_ANALYSIS), &routines,
                         &err) < 0)
        fail_msg("%s", err.msg);
    int64_t analysis = routines;
    if (tf_h5_group_open(analysis, tf_fold_h5_routines.group, &routines, &err) < 0)
        fail_msg("%s", err.msg);
    char **names;
    size_t n;
    if (tf_h5_read_strings(routines, "function", &names, &n, &err) < 0)
        fail_msg("%s", err.msg);
    assert_true(n >= 2);
    char **renamed = calloc(n, sizeof *renamed);
    for (size_t i = 0; i < n; i++) {
        size_t size = strlen(names[i]) + sizeof "renamed_";
        renamed[i] = malloc(size);
        assert_non_null(renamed[i]);
        snprintf(renamed[i], size, "renamed_%s", names[i]);
    }
    assert_true(H5Ldelete((hid_t)routines, "function", H5P_DEFAULT) >= 0);
    if (tf_h5_write_strings(routines, "function", (const char *const *)renamed, n, &err) < 0)
        fail_msg("%s", err.msg);
    tf_h5_close(routines);
    tf_h5_close(analysis);
    tf_h5_close(file);
    assert_int_equal(tf_test_sh("'%s' paraver -q -o '%s/s.prv' '%s'", tf, tf_test_dir, fold), 0);
    char *pcf = tf_test_path("s.pcf");
    size_t seen = 0;
    for (size_t i = 0; i < n; i++) {
        seen += labelled(pcf, renamed[i]);
        if (labelled(pcf, names[i]))
            fail_msg("'%s' named again from the trace's symbols", names[i]);
        free(renamed[i]);
    }
    assert_true(seen >= 2);
    free(renamed);
    free(names);
    free(pcf);
}

/* Whether two files hold the same bytes. */
static bool same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    assert_non_null(fa);
    assert_non_null(fb);
    int ca, cb;
    do {
        ca = fgetc(fa);
        cb = fgetc(fb);
    } while (ca == cb && ca != EOF);
    fclose(fa);
    fclose(fb);
    return ca == cb;
}

static void analysed_when_not_stored(void **state)
{
    (void)state;
    const char *tf = synth_and_fold("u", 5, "");
    assert_int_equal(tf_test_sh("cp '%s/u.fold/fold.h5' '%s/bare.h5'", tf_test_dir, tf_test_dir),
                     0);
    char bare[512], group[TF_FOLD_H5_PATH];
    snprintf(bare, sizeof bare, "%s/bare.h5", tf_test_dir);
    int64_t file;
    tf_error err = { 0 };
    if (tf_h5_file_open(bare, true, &file, &err) < 0)
        fail_msg("%s", err.msg);
    assert_true(H5Ldelete((hid_t)file, tf_fold_h5_group_path(group, 0, 0, TF_FOLD_H5_ANALYSIS),
                          H5P_DEFAULT) >= 0);
    tf_h5_close(file);
    assert_int_equal(tf_test_sh("'%s' paraver -q -o '%s/with.prv' '%s/u.fold/fold.h5' && "
                                "'%s' paraver -q -o '%s/without.prv' '%s'",
                                tf, tf_test_dir, tf_test_dir, tf, tf_test_dir, bare), 0);
    const char *ext[] = { "prv", "pcf", "row" };
    for (size_t i = 0; i < sizeof ext / sizeof *ext; i++) {
        char with[64], without[64];
        snprintf(with, sizeof with, "with.%s", ext[i]);
        snprintf(without, sizeof without, "without.%s", ext[i]);
        char *a = tf_test_path(with), *b = tf_test_path(without);
        if (!same_file(a, b))
            fail_msg("%s and %s differ: the fold.h5 without its analysis was not analysed as "
                     "`tracefold fold` analysed it", a, b);
        free(a);
        free(b);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sites_from_the_analysis),
        cmocka_unit_test(analysed_when_not_stored),
    };
    return cmocka_run_group_tests(tests, tf_test_dir_setup, tf_test_dir_teardown);
}
