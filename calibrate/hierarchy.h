/* SPDX-License-Identifier: BSD-3-Clause */
/* The memory hierarchy measured the Saavedra–Smith way (IEEE Trans.
 * Computers, 1995), adapted to dependent loads: sizes on a ×1.25 grid so
 * that caches that are not powers of two (48 KiB, 1.25 MiB) are found. */
#ifndef TF_CALIBRATE_HIERARCHY_H
#define TF_CALIBRATE_HIERARCHY_H

#include <stdbool.h>
#include <stddef.h>

#include "common/tf_error.h"

#define TF_CAL_MAX_LEVELS 6
#define TF_CAL_MAX_POINTS 128
#define TF_CAL_MAX_STRIDES 24

typedef struct tf_cal_options {
    size_t min_bytes, max_bytes;  /* capacity sweep range */
    double grid;                  /* ratio between sizes, 1.25 */
    int    repeats;               /* best of; more repeats, less noise */
    size_t loads;                 /* dependent loads per timing */
    bool   quick;                 /* fewer repeats and strides (CI) */
    /* Called after each measured point, for progress; may be NULL. */
    void (*progress)(void *ctx, const char *what, size_t done, size_t total);
    void  *progress_ctx;
} tf_cal_options;

typedef struct tf_cal_curve {     /* ns per load against array size */
    size_t n;
    double bytes[TF_CAL_MAX_POINTS];
    double ns[TF_CAL_MAX_POINTS];
} tf_cal_curve;

typedef struct tf_cal_level {
    double size_bytes;            /* largest array with no capacity misses */
    double hit_ns;                /* latency of a load served here */
    double miss_penalty_ns;       /* next level's latency minus this one's */
    int    associativity;         /* 0: not measurable */
} tf_cal_level;

typedef struct tf_cal_profile {
    int          nlevels;
    tf_cal_level levels[TF_CAL_MAX_LEVELS];
    double       memory_ns;       /* latency beyond the last cache */
    int          line_bytes;      /* 0: not found */
    int          page_bytes;      /* 0: not found */
    double       tlb_reach_bytes; /* first-level data TLB reach, 0: not found */
    double       tlb_miss_ns;
    tf_cal_curve capacity;        /* the size sweep (huge pages) */
    tf_cal_curve stride[TF_CAL_MAX_STRIDES]; /* ns per access vs size, per stride */
    double       stride_bytes[TF_CAL_MAX_STRIDES];
    int          nstrides;
} tf_cal_profile;

void tf_cal_default_options(tf_cal_options *o);
/* Runs every measurement and fills p.  Takes seconds to minutes. */
int  tf_cal_measure(const tf_cal_options *o, tf_cal_profile *p, tf_error *err);
/* The line size from pair timings t[k] at spacings s[k] (increasing), step
 * being the first level's miss penalty; 0 when no rise holds (exposed for
 * tests on known timings). */
int  tf_cal_find_step(const double *t, const size_t *s, int n, double step);
/* Finds the levels in a capacity curve (exposed for tests on known curves). */
int  tf_cal_find_levels(const tf_cal_curve *c, tf_cal_level *levels, int max_levels,
                        double *memory_ns);

/* The profile as a small HDF5 file (format "tracefold-machine", version 1,
 * described in docs/commands/calibrate.md), for `tracefold fold --machine`. */
int  tf_cal_profile_save(const tf_cal_profile *p, const char *path, tf_error *err);
int  tf_cal_profile_load(tf_cal_profile *p, const char *path, tf_error *err);
/* Adds group /machine (source, line and page size, memory latency, the
 * levels as in the profile) to the existing HDF5 file h5_path: what
 * `tracefold fold --machine` keeps in fold.h5 (docs/fold-format.md). */
int  tf_cal_profile_attach(const tf_cal_profile *p, const char *source, const char *h5_path,
                           tf_error *err);

#endif
