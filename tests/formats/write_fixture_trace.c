/* SPDX-License-Identifier: BSD-3-Clause */
/* write_fixture_trace [--hostile | --v1] OUT.h5: the fixture trace, for
 * shell tests; --hostile gives its strings control characters and escape
 * sequences (fixture_hostile_strings); --v1 writes it in the version-1
 * layout (variable-length strings). */
#include <stdio.h>
#include <string.h>

#include "trace_fixture.h"
#include "v1_trace.h"

int main(int argc, char **argv)
{
    int hostile = argc == 3 && strcmp(argv[1], "--hostile") == 0;
    int v1 = argc == 3 && strcmp(argv[1], "--v1") == 0;
    if (argc != 2 + (hostile || v1)) {
        fputs("usage: write_fixture_trace [--hostile | --v1] OUT.h5\n", stderr);
        return 2;
    }
    const char *out = argv[argc - 1];
    tf_error err = { 0 };
    char why[1200];
    int rc = hostile
                 ? fixture_write_strings(out, TF_TRACE_OUT_ATOMIC, &fixture_hostile_strings, &err)
                 : fixture_write(out, TF_TRACE_OUT_ATOMIC, &err);
    if (rc < 0) {
        fprintf(stderr, "write_fixture_trace: %s\n", err.msg);
        return 1;
    }
    if (v1 && v1_trace_convert(out, why, sizeof why) < 0) {
        fprintf(stderr, "write_fixture_trace: %s\n", why);
        return 1;
    }
    return 0;
}
