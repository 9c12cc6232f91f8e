/* SPDX-License-Identifier: BSD-3-Clause */
/* PLACEHOLDER: replaced by the module that implements 'tracefold paraver'. */
#include "commands.h"
#include "msg.h"

int tf_cmd_paraver(int argc, char **argv)
{
    tf_msg_error("not implemented yet");
    return TF_EXIT_FAILURE;
}
