/* SPDX-License-Identifier: BSD-3-Clause */
/* make_bad_trace MODE OUT.h5: writes a damaged trace for error-path tests
 * (see bad_trace.h for the modes). */
#include <stdio.h>
#include <string.h>

#include "bad_trace.h"

static void usage(FILE *out)
{
    fputs("usage: make_bad_trace MODE OUT.h5\nmodes:", out);
    for (size_t i = 0; bad_trace_mode(i); i++)
        fprintf(out, " %s", bad_trace_mode(i));
    fputc('\n', out);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--help") == 0) {
        usage(stdout);
        return 0;
    }
    if (argc != 3) {
        usage(stderr);
        return 2;
    }
    char why[1200];
    if (bad_trace_make(argv[1], argv[2], why, sizeof why) < 0) {
        fprintf(stderr, "make_bad_trace: %s\n", why);
        return 1;
    }
    return 0;
}
