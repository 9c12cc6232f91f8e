/* SPDX-License-Identifier: BSD-3-Clause */
/* Text outputs of the analysis stages (CSV tables, summaries): creating a
 * file in an output directory with errors that name it, and the CSV field
 * conventions every table follows — RFC 4180 quoting for text (after the
 * escapes of tf_escape.h), an empty field for a value that does not exist
 * (NaN). */
#ifndef TF_CSV_WRITE_H
#define TF_CSV_WRITE_H

#include <stdio.h>

#include "common/tf_error.h"

/* Creates DIR/NAME for writing. */
int  tf_out_open(const char *dir, const char *name, FILE **f, tf_error *err);
/* Closes it, reporting any write error that happened on the way. */
int  tf_out_close(FILE *f, const char *dir, const char *name, tf_error *err);

/* One text field, its control characters escaped as tf_escape_put does (line
 * breaks included: a row is one line), quoted when it holds a comma or a
 * quote. */
void tf_csv_text(FILE *f, const char *s);
/* One number with `digits` significant digits; nothing for NaN. */
void tf_csv_number(FILE *f, double v, int digits);

#endif
