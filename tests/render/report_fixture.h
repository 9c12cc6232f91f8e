/* SPDX-License-Identifier: BSD-3-Clause */
/* A report model filled directly, shaped like the modified STREAM of the
 * BSC memory study (Copy downwards, Scale random, Add and Triad two
 * streams): lets the render tests and the benchmark draw pages without a
 * fold.h5. */
#ifndef TF_TESTS_REPORT_FIXTURE_H
#define TF_TESTS_REPORT_FIXTURE_H

#include <stddef.h>

#include "render/report_model.h"

enum tf_fixture_flags {
    TF_FIXTURE_NO_MEMORY = 1u << 0,   /* no memory samples at all */
    TF_FIXTURE_NO_INSTRUCTIONS = 1u << 1, /* rates without MIPS */
    TF_FIXTURE_SOFTWARE = 1u << 2,    /* memory samples decoded in software (no cost) */
};

/* One page with npoints code points and as many memory points. */
int tf_fixture_stream(tf_report *r, size_t npoints, unsigned flags, tf_error *err);

/* The render tests' scratch directory: dir is a mkdtemp template, filled
 * in by make; remove deletes it with everything in it.  0 on success. */
int tf_fixture_tmpdir_make(char *dir);
int tf_fixture_tmpdir_remove(const char *dir);

#endif
