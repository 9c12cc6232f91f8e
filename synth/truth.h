/* SPDX-License-Identifier: BSD-3-Clause */
/* The ground truth of a synthetic trace: accumulated instance by instance
 * while the trace is generated, written as the /truth group at the end
 * (layout in docs/commands/synth.md). */
#ifndef TF_SYNTH_TRUTH_H
#define TF_SYNTH_TRUTH_H

#include <stdint.h>

#include "model.h"

typedef struct tf_synth_truth tf_synth_truth;

int  tf_synth_truth_create(tf_synth_truth **t, const tf_synth_options *o,
                           const tf_synth_scenario *sc, tf_error *err);
/* Adds the next instance, in (process, thread, begin) order; totals are the
 * counter deltas written to the trace. */
void tf_synth_truth_add(tf_synth_truth *t, const tf_synth_instance *in, uint64_t begin,
                        const uint64_t *totals);
/* Writes /truth into the open HDF5 file. */
int  tf_synth_truth_write(tf_synth_truth *t, int64_t file, tf_error *err);
void tf_synth_truth_free(tf_synth_truth *t);

#endif
