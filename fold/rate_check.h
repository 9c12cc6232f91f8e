/* SPDX-License-Identifier: BSD-3-Clause */
/* Rates that no thread can reach, dropped from a group's fit
 * (docs/algorithms.md, "Impossible rates"): a fit that meets a stretch the
 * samples hardly cover (a preempted instance, a boundary where a few
 * points carry a steep step) can give a derivative that no machine
 * produces, and a band drawn around it looks as sure as any other. */
#ifndef TF_FOLD_RATE_CHECK_H
#define TF_FOLD_RATE_CHECK_H

#include "fold_result.h"

/* A thread's CPU-time counter (task-clock, cpu-clock) advances at most one
 * CPU-second per second; the margin is the fit's local error. */
#define TF_RATE_MAX_CPU_SHARE 1.1
/* Instructions per cycle beyond any core's retirement width (8 on the
 * widest x86 and Arm cores of today). */
#define TF_RATE_MAX_IPC 8.0

/* Checks g's rates: where a CPU-time counter's rate (task-clock, cpu-clock) exceeds
 * TF_RATE_MAX_CPU_SHARE CPU-seconds per second, or the instructions'
 * rate exceeds TF_RATE_MAX_IPC times the cycles', that grid point's rate
 * (and its band and ratio) becomes NaN for the counters concerned; a band
 * bound beyond the limit is cut at it.  g->rate_dropped (allocated here,
 * [C]) counts the grid points dropped per counter.  Returns 0 or
 * -TF_ERR_NOMEM. */
int tf_fold_rates_check(const tf_fold_region *r, tf_fold_group *g, tf_error *err);

#endif
