/* SPDX-License-Identifier: BSD-3-Clause */
/* The input of folding: the instances of one region with their counter
 * deltas, and every sample inside them with its normalised time and
 * normalised counters.  Built in one streaming pass over each thread's
 * samples (tf_samples_read), holding no copy of the trace's samples: only
 * the compact folded points. */
#ifndef TF_EXTRACT_FOLD_INPUT_H
#define TF_EXTRACT_FOLD_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "instances.h"
#include "trace.h"

/* Folded samples, column by column (struct of arrays: each fit reads one
 * counter's column, and a point costs 30 + 4·C bytes). */
typedef struct tf_fold_points {
    size_t    n;
    uint32_t *instance;      /* row in the instance table */
    float    *x;             /* normalised time (t - begin) / duration */
    uint8_t  *kind;          /* enum tf_sample_kind */
    uint64_t *ip, *addr;
    uint8_t  *level;         /* enum tf_mem_level */
    uint32_t *weight;
    float    *y;             /* [ncounters][n]; NaN where no value */
} tf_fold_points;

/* Allocates the columns for n points of ncounters counters (n may be 0). */
int  tf_fold_points_alloc(tf_fold_points *p, size_t n, uint32_t ncounters, tf_error *err);
/* Shrinks the columns to the first n points, y rows being `stride` apart
 * before (never fails: keeps the larger blocks when they cannot shrink). */
void tf_fold_points_shrink(tf_fold_points *p, size_t n, size_t stride, uint32_t ncounters);
void tf_fold_points_free(tf_fold_points *p);

/* Called now and then with the samples read so far and the total; returns
 * 0 to go on, or non-zero to stop the extraction, which then fails with
 * TF_ERR_CANCELED. */
typedef int (*tf_extract_progress)(void *arg, uint64_t done, uint64_t total);

typedef struct tf_fold_input {
    uint32_t     region;          /* string id */
    size_t       stride;          /* while shares are gathered: y rows are this far apart */
    uint64_t     fingerprint;     /* of the region's instances, counters and samples in the
                                   * trace: the same in every share of one trace */
    uint32_t     ncounters;       /* counters of the region: union by name over processes */
    const char **counter_names;   /* [C], strings owned by the trace */
    const char **counter_units;   /* [C] */
    size_t       ninstances;
    tf_instance *instances;       /* [N] from tf_instances_find */
    uint64_t    *counter_delta;   /* [N][C]; TF_NOVALUE when missing at a boundary */
    uint64_t    *samples;         /* [N] samples inside each instance */
    size_t      *first_point;     /* [N+1]: instance i owns points [first_point[i], first_point[i+1]) */
    uint32_t    *share;           /* [N] the share that files each instance's samples (0 with
                                   * one share): the same in every share */
    tf_fold_points points;        /* samples of the complete instances, by instance then time */
} tf_fold_input;

/* Which samples one extraction files.  The threads that hold an instance
 * are cut, in trace order, into `count` consecutive shares of about as many
 * samples each; share `index` is filed.  Every process that extracts a
 * share finds the same instances, counters and cut (they are functions of
 * the trace), so the shares' points, put end to end in share order, are
 * the points of the whole extraction, bit for bit. */
typedef struct tf_extract_share {
    unsigned index, count;       /* index < count; {0, 1}: every sample */
} tf_extract_share;

/* Extracts the instances of `region` and the folded samples of its complete
 * instances in `share`.  A sample belongs to the latest-begun instance that
 * contains it.  A counter whose delta is missing or zero in an instance gets
 * NaN in that instance's points.  threads > 1: samples are filed on a second
 * thread while the calling one reads the next batch (the result is the
 * same); every trace call stays on the calling thread.
 * With one share the input is complete.  With several it is open: points
 * holds this share's points only, y rows `stride` apart, and first_point and
 * samples are not set.  Share 0 keeps room for every share's points, which
 * its caller adds with tf_fold_input_room and completes with
 * tf_fold_input_finish; another share is only sent on (its columns, its y
 * rows `stride` apart). */
int  tf_fold_input_extract(tf_trace *tr, uint32_t region, unsigned threads,
                           tf_extract_share share, tf_extract_progress progress,
                           void *progress_arg, tf_fold_input *in, tf_error *err);
/* The next n points of an open share 0, appended to its points (points.n
 * grows by n): *at is where their columns start, y rows `stride` apart, to
 * be filled by the caller.  Fails when n exceeds the room the trace's
 * samples leave (a share that does not come from the same trace). */
int  tf_fold_input_room(tf_fold_input *in, size_t n, size_t *at, tf_error *err);
/* Completes an open share 0 once every share's points are in: first_point
 * and samples from the points' instances, the columns shrunk to them.
 * Fails when the instances are not in order (shares out of order, or not
 * from the same trace). */
int  tf_fold_input_finish(tf_fold_input *in, tf_error *err);
void tf_fold_input_free(tf_fold_input *in);

#endif
