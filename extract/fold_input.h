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
#include "region_scope.h"
#include "formats/trace.h"

/* Folded samples, column by column (struct of arrays: each fit reads one
 * counter's column, and a point costs 38 + 4·C bytes). */
typedef struct tf_fold_points {
    size_t    n;
    uint32_t *instance;      /* row in the instance table */
    float    *x;             /* normalised time (t - begin) / duration */
    uint8_t  *kind;          /* enum tf_sample_kind */
    uint64_t *ip, *addr;
    uint8_t  *level;         /* enum tf_mem_level */
    uint32_t *weight;
    uint64_t *name_frame;    /* the frame that names the point's phase at the chosen
                              * call-stack level (tf_extract_namer), TF_NAME_FRAME
                              * encoded; 0: the sample's own ip.  NULL in points
                              * loaded from fold.h5, which does not keep it */
    float    *y;             /* [ncounters][n]; NaN where no value */
} tf_fold_points;

/* A name frame: the address to look up (the sampled ip, or a return
 * address minus 1: the call) in the low 56 bits, which user-space
 * addresses never exceed, and which of the frames the symboliser gives
 * for it (0: the innermost, an inlined function's body; then its callers
 * inlined there) in the top 8. */
#define TF_NAME_FRAME_ADDRESS_BITS 56
#define TF_NAME_FRAME(address, inlined) \
    ((uint64_t)(address) | (uint64_t)(inlined) << TF_NAME_FRAME_ADDRESS_BITS)
#define TF_NAME_FRAME_ADDRESS(v) ((v) & ((UINT64_C(1) << TF_NAME_FRAME_ADDRESS_BITS) - 1))
#define TF_NAME_FRAME_INLINED(v) ((uint32_t)((v) >> TF_NAME_FRAME_ADDRESS_BITS))

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
    uint64_t     fingerprint;     /* of the region's instances, counters and samples in the
                                   * trace: the same in every share of one trace */
    uint32_t     ncounters;       /* counters of the region: union by name over processes */
    const char **counter_names;   /* [C], strings owned by the trace */
    const char **counter_units;   /* [C] */
    size_t       ninstances;
    tf_instance *instances;       /* [N] from tf_instances_find */
    uint64_t    *counter_delta;   /* [N][C]; TF_NOVALUE when missing at a boundary */
    uint64_t    *samples;         /* [N] samples inside each instance (this share's: 0 for
                                   * another share's) */
    size_t      *first_point;     /* [N+1]: instance i owns points [first_point[i], first_point[i+1]),
                                   * of this share's points (empty for another share's) */
    uint32_t    *share;           /* [N] the share that files each instance's samples (0 with
                                   * one share): the same in every share */
    tf_fold_points points;        /* samples of the complete instances, by instance then time */
} tf_fold_input;

/* Names each sample's phase from its call stack (fold --phase-level),
 * called on the thread that reads the trace: ip is the sample's
 * instruction (a caller's call when the sample fell in the recorder),
 * frames[0..n) its call stack as recorded (innermost first, frames[0] the
 * interrupted instruction, the others return addresses; n may be 0).
 * *name gets a TF_NAME_FRAME, 0 for the innermost routine.  Returns 0 or
 * a negative error. */
typedef struct tf_extract_namer {
    int  (*name)(void *ctx, uint32_t proc, uint64_t ip, const uint64_t *frames, size_t n,
                 uint64_t *name, tf_error *err);
    void *ctx;
} tf_extract_namer;

/* Which samples one extraction files.  The threads that hold an instance
 * are cut, in trace order, into `count` consecutive shares of about as many
 * samples each; share `index` is filed.  Every process that extracts a
 * share finds the same instances, counters and cut (they are functions of
 * the trace), so the shares' points, put end to end in share order, are
 * the points of the whole extraction, bit for bit. */
typedef struct tf_extract_share {
    unsigned index, count;       /* index < count; {0, 1}: every sample */
} tf_extract_share;

/* Extracts the instances of `region` (or those `given`, when not NULL),
 * each point named by `namer` (NULL: no name frames, all 0), with `scope` applied (region_scope.h:
 * an instance copied onto each thread it covers), and the folded samples of
 * its complete instances in `share`.  A sample belongs to the latest-begun instance that
 * contains it.  A counter whose delta is missing or zero in an instance gets
 * NaN in that instance's points.  threads > 1: samples are filed on a second
 * thread while the calling one reads the next batch (the result is the
 * same); every trace call stays on the calling thread.
 * With several shares, points, first_point and samples are of this share's
 * instances only (each instance is all in one share); put end to end in
 * share order, the shares' points are those of the whole extraction. */
int  tf_fold_input_extract(tf_trace *tr, uint32_t region, enum tf_region_scope scope,
                           const tf_region_given *given, const tf_extract_namer *namer,
                           unsigned threads, tf_extract_share share, tf_extract_progress progress,
                           void *progress_arg, tf_fold_input *in, tf_error *err);
void tf_fold_input_free(tf_fold_input *in);

#endif
