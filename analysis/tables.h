/* SPDX-License-Identifier: BSD-3-Clause */
/* The analysis tables as files: phases.csv, objects.csv, streams.csv,
 * levels.csv, advice.csv (one header row, one row per item, every region
 * and group of the run) and summary.md, the same tables for a reader. */
#ifndef TF_ANALYSIS_TABLES_H
#define TF_ANALYSIS_TABLES_H

#include "analysis.h"

/* Writes the six files into dir (which must exist), from n analyses. */
int tf_analysis_write_tables(const tf_analysis *const *a, size_t n, const char *dir,
                             tf_error *err);

#endif
