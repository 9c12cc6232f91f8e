/* SPDX-License-Identifier: BSD-3-Clause */
/* The recording's own cost per sample (the observer effect), measured on
 * the instances and taken out of their durations, counter totals and the
 * folded points (docs/algorithms.md, "The recording's cost per sample").
 * Each sample stops the program for a while (interrupt, signal, handler;
 * about 20 µs on a virtual machine, a few µs on bare metal): an instance
 * holding k samples lasts k such costs longer.  In a region shorter than
 * the sampling period most instances hold no sample, so the sampled ones,
 * the only ones that inform the fold, stand out as duration outliers and
 * their samples sit early in a stretched instance. */
#ifndef TF_FOLD_OBSERVER_H
#define TF_FOLD_OBSERVER_H

#include <stddef.h>
#include <stdint.h>

#include "fold_result.h"

/* The cost per sample of one measure of the instances (duration, or a
 * counter's total): value[i] of an instance holding samples[i] samples,
 * for n instances; work holds 2n doubles.  0 when it cannot be told: fewer
 * than TF_OBSERVER_MIN_INSTANCES instances with samples or without, or an
 * estimate within 3 of its standard errors of 0.  *spread
 * gets how much the cost varies from sample to sample (a scaled MAD; 0
 * with no cost). */
#define TF_OBSERVER_MIN_INSTANCES 8
double tf_fold_observer_cost(const double *value, const uint64_t *samples, size_t n,
                             double *work, double *spread);

/* Measures the cost per sample of r's used instances' durations (each
 * holding instances[i].samples samples) and of each counter's totals into
 * r->observer_ns (its spread in r->observer_spread_ns) and
 * r->observer_events[c] (allocated here).  A CPU-time counter's cost
 * (task-clock, cpu-clock) is the CPU part of the duration's: 0 when the
 * duration's is 0, else the counter's own estimate, whatever its
 * significance, within 0 and the duration's. */
int  tf_fold_observer_measure(tf_fold_region *r, tf_error *err);

/* Takes r's costs out of its used instances' durations and counter_delta,
 * and out of the points held of them (first[i]..first[i+1] of instance i,
 * in time order, empty for an instance whose points are elsewhere; y rows
 * pts->n apart): a point after j samples of its instance moves back by
 * j + ½ costs (the share of its own sample's cost spent before its clock
 * was read is not known: half), and the instance shrinks by all of them.
 * With a CPU-time counter (column cpu, else -1) an instance's duration
 * loses the samples' CPU time and, of their off-CPU part, at most the
 * time the instance spent off the CPU: an instance whose CPU time did not
 * exceed its wall time does not after the correction either.  Each rank
 * of a team takes them out of its own points alike. */
void tf_fold_observer_apply(tf_fold_region *r, int cpu, const size_t *first, tf_fold_points *pts);

#endif
