/* SPDX-License-Identifier: BSD-3-Clause */
/* tracefold-commands: the commands of `tracefold` that read and write
 * traces and fold results, run by the `tracefold` binary (main.c) with the
 * same command line.  It links the analysis libraries that `record` must
 * not load (docs/manual.md, "Programs and files"). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "formats/h5util.h"
#include "input_report.h"
#include "msg.h"

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
} commands[] = {
    {"info", tf_cmd_info},       {"fold", tf_cmd_fold},         {"paraver", tf_cmd_paraver},
    {"synth", tf_cmd_synth},     {"render", tf_cmd_render},     {"calibrate", tf_cmd_calibrate},
    {"diff", tf_cmd_diff},
};

int main(int argc, char **argv)
{
    /* Every command closes the files it opens; an output that failed to
     * close (full disk) must not crash the exit after its message. */
    tf_h5_no_exit_cleanup();
    tf_cli_input_report();
    for (size_t i = 0; argc >= 2 && i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[1], commands[i].name))
            continue;
        static char program[64];
        snprintf(program, sizeof program, "tracefold %s", argv[1]);
        tf_msg_set_program(program);
        return commands[i].run(argc - 1, argv + 1);
    }
    tf_msg_set_program("tracefold-commands");
    return tf_msg_usage("run by tracefold: tracefold-commands COMMAND [OPTIONS] (COMMAND: "
                        "info, fold, paraver, synth, render, diff or calibrate)");
}
