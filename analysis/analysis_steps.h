/* SPDX-License-Identifier: BSD-3-Clause */
/* The steps of tf_analysis_compute, in the order it runs them; internal to
 * analysis/.  Each reads what the earlier steps filled in a tf_analysis. */
#ifndef TF_ANALYSIS_STEPS_H
#define TF_ANALYSIS_STEPS_H

#include "analysis.h"
#include "formats/trace.h"

/* True when sample s counts as a code sample: it has a routine that does
 * not wait (waiting.c) and, when
 * the trace has symbolised timer samples, it is one (memory samples follow
 * the loads, not the time, so they would bias the shares). */
static inline bool tf_analysis_is_code_sample(const tf_analysis_sample *s, bool timer_only)
{
    if (s->routine == TF_ANALYSIS_NONE || s->waiting)
        return false;
    return !timer_only || s->kind == TF_SAMPLE_TIMER;
}

/* Coarse buckets of the sort by x: few enough that their counts and write
 * positions stay in cache.  Samples handed over already grouped by bucket
 * (in bucket order, any order within one) are sorted in place, without a
 * copy of them all; tf_analysis_from_fold hands them over so. */
#define TF_ANALYSIS_COARSE 4096

static inline size_t tf_analysis_coarse_bucket(double x)
{
    return (size_t)(x * (TF_ANALYSIS_COARSE - 1));
}

/* The most frequent value of v[0..n) (may reorder v; the smallest on a
 * tie); *count (may be NULL) gets its frequency. 0 when n is 0. */
uint32_t tf_analysis_mode_u32(uint32_t *v, size_t n, size_t *count);

/* First sample (sorted by x) with x >= v. */
size_t tf_analysis_lower_index(const tf_analysis *a, double v);
/* One past the last sample of a span ending at x1: samples with x < x1, and
 * all of them when the span ends the iteration (x1 >= 1). */
size_t tf_analysis_end_index(const tf_analysis *a, double x1);

/* Code-line progression: fills a->windows. */
int tf_analysis_progression(tf_analysis *a, const tf_analysis_params *p, bool timer_only, tf_error *err);

/* Phases from the windows, the counters' rate changes and the fold's
 * change points: fills a->phases (rates left NAN). */
int tf_analysis_phases(tf_analysis *a, const tf_analysis_counter *counters, size_t ncounters,
                       const double *change_points, size_t nchange_points,
                       const tf_analysis_params *p, bool timer_only, tf_error *err);

/* The boundaries inside [x0, x1) where some counter's rate or ratio per
 * instruction changes for real (rate_changes.c): *out (malloc'ed, sorted,
 * NULL when none) gets *nout of them, each at least p->min_phase_length
 * from the next and from x0 and x1.  change_points: the fold's, tried
 * beside the grid's points. */
int tf_analysis_rate_changes(const tf_analysis_counter *counters, size_t ncounters, double duration_ns,
                             const double *change_points, size_t nchange_points, double x0, double x1,
                             const tf_analysis_params *p, double **out, size_t *nout, tf_error *err);

/* The waiting shares: a->waiting and every phase's (samples marked). */
void tf_analysis_waiting_shares(tf_analysis *a, bool timer_only);

/* Rates of every phase from the folded counter curves. */
int tf_analysis_phase_rates(tf_analysis *a, const tf_analysis_counter *counters, size_t ncounters,
                            tf_error *err);

/* References, loads, stores and share of every object. */
void tf_analysis_objects_count(tf_analysis *a);

/* Where the references to the phase's most referenced object turn from
 * one direction to the other inside [x0, x1), for splitting a routine's
 * phase into a forward and a backward sweep that share their code lines.
 * False when there is no clear turn. */
bool tf_analysis_direction_turn(const tf_analysis *a, double x0, double x1, const tf_analysis_params *p,
                                double *x_turn);

/* Per phase × object access streams: fills a->streams. */
int tf_analysis_streams(tf_analysis *a, const tf_analysis_params *p, tf_error *err);

/* Per phase (and whole iteration) memory-level shares and cost modes. */
int tf_analysis_levels(tf_analysis *a, tf_error *err);

#endif
