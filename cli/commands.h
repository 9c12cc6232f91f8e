/* SPDX-License-Identifier: BSD-3-Clause */
/* The subcommands of `tracefold`: each takes its own argv (argv[0] is the
 * subcommand name) and returns an exit code from enum tf_exit. */
#ifndef TF_CLI_COMMANDS_H
#define TF_CLI_COMMANDS_H

int tf_cmd_info(int argc, char **argv);
int tf_cmd_synth(int argc, char **argv);
int tf_cmd_fold(int argc, char **argv);
int tf_cmd_paraver(int argc, char **argv);
int tf_cmd_record(int argc, char **argv);
int tf_cmd_calibrate(int argc, char **argv);
int tf_cmd_render(int argc, char **argv);
int tf_cmd_diff(int argc, char **argv);

#endif
