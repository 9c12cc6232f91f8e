/* SPDX-License-Identifier: BSD-3-Clause */
/* `tracefold`: one command, one subcommand per pipeline step.  This
 * binary links the C library alone, so that it starts in a millisecond:
 * `record` runs here (cmd_record.c starts the program at once, then this
 * process becomes the trace writer, tracefold-writer), and every other
 * command is run by tracefold-commands, which links the analysis libraries
 * (HDF5, cairo, pango, libdw, capstone, MPI).  docs/manual.md, "Programs
 * and files", says why. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "locate.h"
#include "msg.h"

struct command {
    const char *name;
    int (*run)(int argc, char **argv);   /* NULL: run by tracefold-commands */
    const char *summary;
};

static const struct command commands[] = {
    {"record",    tf_cmd_record, "run a program and record a trace (HDF5)"},
    {"info",      NULL,          "summarise a trace: processes, threads, regions, counters, samples"},
    {"fold",      NULL,          "fold the instances of a region into one synthetic iteration"},
    {"paraver",   NULL,          "write a raw or synthetic trace for Paraver"},
    {"synth",     NULL,          "generate a synthetic trace with a known ground truth"},
    {"render",    NULL,          "draw the report of a fold: PDF, SVG, PNG or gnuplot scripts"},
    {"diff",      NULL,          "compare two folds phase by phase: times, rates, bands"},
    {"calibrate", NULL,          "measure this machine's caches and TLB (Saavedra-Smith)"},
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

/* The same command line, run by tracefold-commands in this process. */
static int run_elsewhere(char **argv)
{
    char path[PATH_MAX];
    if (tf_locate(TF_PART_PROGRAM, "tracefold-commands", path, sizeof path)) {
        tf_msg_error("cannot find tracefold-commands beside this program or in %s "
                     "(incomplete installation?)", TF_PKGLIBEXECDIR);
        return TF_EXIT_FAILURE;
    }
    execv(path, argv);
    tf_msg_error("cannot run %s: %s", path, strerror(errno));
    return TF_EXIT_FAILURE;
}

int main(int argc, char **argv)
{
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
        return commands[i].run ? commands[i].run(argc - 1, argv + 1) : run_elsewhere(argv);
    }
    return tf_msg_usage("unknown command '%s'", name);
}
