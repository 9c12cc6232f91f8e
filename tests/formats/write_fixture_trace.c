/* SPDX-License-Identifier: BSD-3-Clause */
/* write_fixture_trace OUT.h5: the fixture trace, for shell tests. */
#include <stdio.h>

#include "trace_fixture.h"

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: write_fixture_trace OUT.h5\n", stderr);
        return 2;
    }
    tf_error err = { 0 };
    if (fixture_write(argv[1], TF_WRITER_ATOMIC, &err) < 0) {
        fprintf(stderr, "write_fixture_trace: %s\n", err.msg);
        return 1;
    }
    return 0;
}
