/* SPDX-License-Identifier: BSD-3-Clause */
/* A scratch folder under $TMPDIR for the Paraver unit tests: made by the
 * group setup, removed with its files by the group teardown. */
#ifndef TF_TEST_PARAVER_DIR_H
#define TF_TEST_PARAVER_DIR_H

#include <stddef.h>

extern char *tf_test_dir;

int tf_test_dir_setup(void **state);
int tf_test_dir_teardown(void **state);
/* tf_test_dir/name, malloc'ed. */
char *tf_test_path(const char *name);
/* Entries in the folder, to check that nothing was left behind. */
size_t tf_test_dir_entries(void);

#endif
