/* SPDX-License-Identifier: BSD-3-Clause */
/* write_fixture_trace [--hostile] OUT.h5: the fixture trace, for shell
 * tests; --hostile gives its strings control characters and escape
 * sequences (fixture_hostile_strings). */
#include <stdio.h>
#include <string.h>

#include "trace_fixture.h"

int main(int argc, char **argv)
{
    int hostile = argc == 3 && !strcmp(argv[1], "--hostile");
    if (argc != 2 && !hostile) {
        fputs("usage: write_fixture_trace [--hostile] OUT.h5\n", stderr);
        return 2;
    }
    tf_error err = { 0 };
    int rc = hostile ? fixture_write_strings(argv[2], TF_WRITER_ATOMIC, &fixture_hostile_strings,
                                             &err)
                     : fixture_write(argv[1], TF_WRITER_ATOMIC, &err);
    if (rc < 0) {
        fprintf(stderr, "write_fixture_trace: %s\n", err.msg);
        return 1;
    }
    return 0;
}
