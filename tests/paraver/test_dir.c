/* SPDX-License-Identifier: BSD-3-Clause */
#include "test_dir.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

char *tf_test_dir;

int tf_test_dir_setup(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    if (asprintf(&tf_test_dir, "%s/tf-prv-test-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0)
        return -1;
    return mkdtemp(tf_test_dir) ? 0 : -1;
}

/* The tests write plain files only: no recursion needed. */
int tf_test_dir_teardown(void **state)
{
    (void)state;
    DIR *d = opendir(tf_test_dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') {
            char *p = tf_test_path(e->d_name);
            if (p)
                unlink(p);
            free(p);
        }
    if (d)
        closedir(d);
    rmdir(tf_test_dir);
    free(tf_test_dir);
    return 0;
}

char *tf_test_path(const char *name)
{
    char *p;
    return asprintf(&p, "%s/%s", tf_test_dir, name) < 0 ? NULL : p;
}

size_t tf_test_dir_entries(void)
{
    size_t n = 0;
    DIR *d = opendir(tf_test_dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

/* top_srcdir/tests/data/extrae/444.namd + suffix, malloc'ed. */
static char *namd_source(const char *suffix)
{
    const char *top = getenv("top_srcdir");
    char *p;
    return asprintf(&p, "%s/tests/data/extrae/444.namd%s", top ? top : ".", suffix) < 0 ? NULL
                                                                                        : p;
}

char *tf_test_namd_gz(void)
{
    return namd_source(".prv.gz");
}

/* Copies (decompressing, when it is gzip) the repository's 444.namd+suffix
 * to tf_test_dir/444.namd+plain_suffix. */
static bool copy_namd(const char *suffix, const char *plain_suffix)
{
    char *src = namd_source(suffix), *name = NULL, *dst = NULL;
    bool ok = false;
    gzFile in = src ? gzopen(src, "rb") : NULL;
    FILE *out = NULL;
    if (!in || asprintf(&name, "444.namd%s", plain_suffix) < 0 || !(dst = tf_test_path(name)) ||
        !(out = fopen(dst, "w")))
        goto done;
    char buf[65536];
    int n;
    while ((n = gzread(in, buf, sizeof buf)) > 0)
        if (fwrite(buf, 1, (size_t)n, out) != (size_t)n)
            goto done;
    ok = n == 0;
done:
    if (out && fclose(out))
        ok = false;
    if (in)
        gzclose(in);
    free(src);
    free(name);
    free(dst);
    return ok;
}

char *tf_test_namd_plain(void)
{
    if (!copy_namd(".prv.gz", ".prv") || !copy_namd(".pcf", ".pcf") || !copy_namd(".row", ".row"))
        return NULL;
    return tf_test_path("444.namd.prv");
}

int tf_test_sh(const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    return system(cmd);
}
