/* SPDX-License-Identifier: BSD-3-Clause */
#include "test_dir.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

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
