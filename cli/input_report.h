/* SPDX-License-Identifier: BSD-3-Clause */
/* What the commands say of the traces they open (formats/trace_input.h):
 * the progress of a Paraver conversion and what it left out. */
#ifndef TF_CLI_INPUT_REPORT_H
#define TF_CLI_INPUT_REPORT_H

#include "formats/prv_import.h"

/* Makes every later tf_input_open report through cli/msg.h. */
void tf_cli_input_report(void);
/* Warns about what a conversion of path left out: skipped records, the
 * labels of a missing .pcf. */
void tf_cli_report_import(const char *path, const tf_prv_import_stats *st);

#endif
