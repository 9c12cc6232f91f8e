/* SPDX-License-Identifier: BSD-3-Clause */
/* CSV outputs of a fold, with header rows (column names in
 * docs/commands/fold.md). */
#ifndef TF_FOLD_CSV_H
#define TF_FOLD_CSV_H

#include <stdbool.h>

#include "fold_result.h"

/* True when some group has per-instruction ratios. */
bool tf_fold_has_ratios(const tf_fold_result *res);
/* Writes dir/instances.csv, dir/curves.csv and, when there are ratios,
 * dir/ratios.csv. */
int tf_fold_write_csv(const tf_fold_result *res, const char *dir, tf_error *err);

#endif
