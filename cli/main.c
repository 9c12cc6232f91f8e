/* SPDX-License-Identifier: BSD-3-Clause */
/* `tracefold`: one binary, one subcommand per pipeline step. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "h5util.h"
#include "msg.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"record",    tf_cmd_record,     "run a program and record a trace (HDF5)"},
    {"info",      tf_cmd_info,       "summarise a trace: processes, threads, regions, counters, samples"},
    {"fold",      tf_cmd_fold,       "fold the instances of a region into one synthetic iteration"},
    {"paraver",   tf_cmd_paraver,    "write a raw or synthetic trace for Paraver"},
    {"synth",     tf_cmd_synth,      "generate a synthetic trace with a known ground truth"},
    {"render",    tf_cmd_render,     "draw the report of a fold: PDF, SVG, PNG or gnuplot scripts"},
    {"calibrate", tf_cmd_calibrate,  "measure this machine's caches and TLB (Saavedra-Smith)"},
};

static void usage(FILE *out)
{
    fprintf(out,
            "Usage: tracefold COMMAND [OPTIONS] [ARGS]\n"
            "Trace post-processor with folding analysis for HPC performance work.\n\n"
            "Commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(out,
            "\nOptions:\n"
            "  -h, --help     show this help and exit\n"
            "  -V, --version  show the version and exit\n\n"
            "'tracefold COMMAND --help' describes a command. The manual is docs/manual.md\n"
            "(man tracefold once installed).\n");
}

int main(int argc, char **argv)
{
    /* Every command closes the files it opens; an output that failed to
     * close (full disk) must not crash the exit after its message. */
    tf_h5_no_exit_cleanup();
    if (argc < 2) {
        usage(stderr);
        return TF_EXIT_USAGE;
    }
    const char *name = argv[1];
    if (!strcmp(name, "-h") || !strcmp(name, "--help") || !strcmp(name, "help")) {
        usage(stdout);
        return TF_EXIT_OK;
    }
    if (!strcmp(name, "-V") || !strcmp(name, "--version")) {
        printf("tracefold %s\n", PACKAGE_VERSION);
        return TF_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(name, commands[i].name))
            continue;
        static char program[64];
        snprintf(program, sizeof program, "tracefold %s", name);
        tf_msg_set_program(program);
        return commands[i].run(argc - 1, argv + 1);
    }
    return tf_msg_usage("unknown command '%s'", name);
}
