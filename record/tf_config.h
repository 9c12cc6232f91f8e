/* SPDX-License-Identifier: BSD-3-Clause */
/* The XML configuration file of the recorder (docs/recorder.md):
 *   <tracefold> <period>1ms</period> <counters>instructions</counters> ... </tracefold>
 * one element per option of tf_option_table.  Read by `tracefold record`
 * only, so that libxml2 stays out of the application's process. */
#ifndef TF_REC_CONFIG_H
#define TF_REC_CONFIG_H

#include "common/tf_error.h"
#include "tf_options.h"

/* Applies the options of the file at path to o.  Errors name the file and
 * the line. */
int tf_config_load(const char *path, tf_options *o, tf_error *err);

#endif
