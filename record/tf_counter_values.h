/* SPDX-License-Identifier: BSD-3-Clause */
/* Counter values from one read(2) of a perf_event group leader opened with
 * read_format PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
 * PERF_FORMAT_TOTAL_TIME_RUNNING (perf_event_open(2), "Reading results"):
 * the kernel writes u64 nr, time_enabled, time_running, then nr values in
 * the order the events joined the group. */
#ifndef TF_COUNTER_VALUES_H
#define TF_COUNTER_VALUES_H

#include <stddef.h>
#include <stdint.h>

#include "formats/trace.h"   /* TF_NOVALUE */

/* The count values of a group from buf[0..words) into out[0..count).
 * A group the kernel time-multiplexed (running < enabled) is scaled to its
 * estimate over the enabled time; a group enabled but never scheduled has
 * no estimate (TF_NOVALUE), nor has a short or malformed read.
 * The trace stores cumulative values, which folding needs non-decreasing:
 * an estimate can fall back when the group ran through a quiet stretch
 * while it counted and the scaling ratio drops, so each value is at least
 * last[i], which then holds it.  last[] starts at zero.  Async-signal-safe. */
/* Called by the sampling handler: hot and hidden (TF_HANDLER_API of tf_rec.h). */
__attribute__((hot, visibility("hidden")))
void tf_counter_group_values(const uint64_t *buf, size_t words, uint32_t count, uint64_t *last,
                             uint64_t *out);

#endif
