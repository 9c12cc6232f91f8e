/* SPDX-License-Identifier: BSD-3-Clause */
/* A scratch folder under $TMPDIR for the Paraver unit tests: made by the
 * group setup, removed with its files by the group teardown; and the real
 * Extrae trace they read. */
#ifndef TF_TEST_PARAVER_DIR_H
#define TF_TEST_PARAVER_DIR_H

#include <stddef.h>

extern char *tf_test_dir;

int tf_test_dir_setup(void **state);
int tf_test_dir_teardown(void **state);
/* Runs the shell command that fmt makes; its system() status. */
int tf_test_sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* tf_test_dir/name, malloc'ed. */
char *tf_test_path(const char *name);
/* Entries in the folder, to check that nothing was left behind. */
size_t tf_test_dir_entries(void);

/* The real Extrae trace kept in the repository (tests/data/extrae): the
 * path of its .prv.gz, with its .pcf and .row beside it; malloc'ed. */
char *tf_test_namd_gz(void);
/* The same trace as plain text, with its .pcf and .row, decompressed into
 * tf_test_dir: the path of the .prv, malloc'ed; NULL when that failed. */
char *tf_test_namd_plain(void);

#endif
