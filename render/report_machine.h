/* SPDX-License-Identifier: BSD-3-Clause */
/* The machine profile a fold was made against (`tracefold fold --machine`,
 * /machine in fold.h5, docs/fold-format.md): its cache sizes, for the
 * address-space panel's reference lines. */
#ifndef TF_RENDER_REPORT_MACHINE_H
#define TF_RENDER_REPORT_MACHINE_H

#include "report_model.h"

/* Copies /machine/levels' sizes into every page of r; nothing when fold_path
 * has no /machine.  A malformed group is an error naming the dataset. */
int tf_report_machine_read(const char *fold_path, tf_report *r, tf_error *err);

#endif
