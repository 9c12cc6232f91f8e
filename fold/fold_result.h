/* SPDX-License-Identifier: BSD-3-Clause */
/* The result of folding, in memory and in OUTDIR/fold.h5: the contract
 * between the fold engine and the stages that read its output (the
 * synthetic Paraver trace, the report).  The file layout is documented in
 * docs/fold-format.md; these structs mirror it one to one, so that
 * tf_fold_result_save() and tf_fold_result_load() are inverses. */
#ifndef TF_FOLD_RESULT_H
#define TF_FOLD_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extract/fold_input.h"   /* tf_fold_points */
#include "extract/sampling_advice.h"
#include "common/tf_error.h"

#define TF_FOLD_FORMAT  "tracefold-fold"
#define TF_FOLD_VERSION 2
/* The oldest version fold_load still reads: version 1 stored its text as
 * variable-length strings (formats/h5_vlen1.h reads them). */
#define TF_FOLD_OLDEST_VERSION 1

/* ---- parameters --------------------------------------------------------- */

enum tf_fold_filter {
    TF_FILTER_ROBUST = 0,  /* scaled-MAD rules on duration and curve shape */
    TF_FILTER_MAD15 = 1,   /* median ± 1.5·MAD of durations, MAD unscaled */
    TF_FILTER_NONE = 2,
};

/* What splits the instances into groups (--groups, --group-by). */
enum tf_fold_group_by {
    TF_GROUP_BY_DURATION = 0,   /* duration groups, `groups` of them */
    TF_GROUP_BY_RANK = 1,       /* one group per MPI rank */
    TF_GROUP_BY_HOST = 2,       /* one group per host */
};

/* What becomes of an instance that lost the CPU to another process
 * (--preempted, fold/preempt.h). */
enum tf_fold_preempted {
    TF_PREEMPTED_EXCLUDE = 0,   /* excluded, like a stall */
    TF_PREEMPTED_CPU_TIME = 1,  /* folded in its thread's CPU time */
};

typedef struct tf_fold_params {
    enum tf_fold_filter filter;
    double   filter_k;     /* robust duration rule: threshold in scaled MADs */
    double   shape_k;      /* robust shape rule: threshold in scaled MADs */
    uint32_t groups;       /* duration groups asked for; 0 = automatic */
    enum tf_fold_group_by group_by;
    uint32_t grid;         /* grid points of the curves (G) */
    uint32_t bootstrap;    /* bootstrap replicates for the bands; 0 = none */
    double   confidence;   /* coverage of the bands, in (0, 1) */
    uint64_t seed;         /* seed of the bootstrap draws */
    double   min_change;   /* smallest relative rate change kept as a change point */
    uint32_t threads;      /* threads fitting the counters; 0 = one per CPU (1 under
                            * mpirun); never changes the result, not saved */
    enum tf_fold_preempted preempted;  /* not saved: instances.csv's reason and
                            * duration show what it did */
    enum tf_region_scope region_scope;  /* the threads an instance covers
                            * (extract/region_scope.h), as asked; each instance's
                            * threads say what it did */
    const tf_region_given *given;  /* instances found from the samples, folded in place
                            * of the region's (NULL: the region's); not saved */
    const tf_extract_namer *namer; /* names the points' phases from their call stacks
                            * (--phase-level; NULL: by their innermost routine);
                            * not saved */
} tf_fold_params;

/* The documented defaults (docs/commands/fold.md). */
void tf_fold_params_default(tf_fold_params *p);
/* "robust", "mad15", "none"; NULL for an unknown value. */
const char *tf_fold_filter_name(enum tf_fold_filter f);
/* Parses a filter name; -1 when unknown. */
int tf_fold_filter_parse(const char *name);

/* ---- instances ---------------------------------------------------------- */

enum tf_fold_status {
    TF_FOLD_USED = 0,
    TF_FOLD_EXCLUDED = 1,
    TF_FOLD_INCOMPLETE = 2,
};

enum tf_fold_reason {
    TF_FOLD_REASON_NONE = 0,
    TF_FOLD_REASON_DURATION = 1,   /* duration outlier */
    TF_FOLD_REASON_SHAPE = 2,      /* counter curve unlike the others (stall, disturbance) */
    TF_FOLD_REASON_NO_END = 3,     /* the thread ended inside the instance */
    TF_FOLD_REASON_MISMATCHED = 4, /* closed by the end of an enclosing region */
    TF_FOLD_REASON_EMPTY = 5,      /* zero duration */
    TF_FOLD_REASON_PREEMPTED = 6,  /* lost the CPU to another process (excluded, or
                                    * used and folded in CPU time) */
    TF_FOLD_NREASONS = 7,
};

typedef struct tf_fold_instance {
    uint32_t proc, thread;   /* indexes in the trace */
    uint64_t tid;
    uint64_t begin, end, duration;   /* ns, trace time */
    uint8_t  status;         /* enum tf_fold_status */
    uint8_t  reason;         /* enum tf_fold_reason */
    uint16_t threads;        /* threads of its process its interval covers: 1 (its own,
                              * thread scope) or more (process scope,
                              * extract/region_scope.h); tf_fold_region_threads */
    int32_t  group;          /* -1 for incomplete instances */
    uint64_t samples;        /* samples inside the instance */
    double   score;          /* filter statistic in scaled MADs, NaN when not computed */
} tf_fold_instance;

/* ---- one synthetic iteration -------------------------------------------- */

typedef struct tf_fold_change {
    uint32_t counter;
    double   x;              /* normalised time */
    double   rate_before, rate_after;   /* events/s */
} tf_fold_change;

/* A group's folded points in the fold's order, cut into consecutive parts
 * that need not be in memory at once: each consumer of the points
 * (fold.h5, the analysis, the report) takes them a part at a time.  Under
 * mpirun each rank keeps its share of the points, which the leader's
 * consumers take in chunks (fold_team.h, tf_fold_team_parts). */
/* The columns of the points a consumer reads (a source may give more):
 * what travels when a part comes from another rank. */
enum tf_fold_column {
    TF_FOLD_COL_INSTANCE = 1 << 0, TF_FOLD_COL_X = 1 << 1, TF_FOLD_COL_KIND = 1 << 2,
    TF_FOLD_COL_IP = 1 << 3, TF_FOLD_COL_ADDR = 1 << 4, TF_FOLD_COL_LEVEL = 1 << 5,
    TF_FOLD_COL_WEIGHT = 1 << 6, TF_FOLD_COL_NAME_FRAME = 1 << 7, TF_FOLD_COL_Y = 1 << 8,
    TF_FOLD_COL_ALL = (1 << 9) - 1,
    TF_FOLD_COL_SAMPLE = TF_FOLD_COL_ALL & ~TF_FOLD_COL_Y,   /* the sample, not its counters */
};

typedef struct tf_fold_parts {
    size_t n;                 /* parts */
    size_t npoints;           /* in all of them */
    /* Part k into *p (y rows p->n apart), at least the columns asked for
     * (enum tf_fold_column), valid until the next take with the same
     * room.  A source that copies the part (another rank's) copies it
     * into room, the consumer's storage for one part (zeroed before its
     * first take, room->n points of room, grown by the source when a part
     * needs more, freed by the consumer with tf_fold_points_free), which
     * p's arrays then are: the pages of one part, faulted in once for all
     * the parts (a fresh part's pages, each time, cost rank 0 0.4 s of
     * CPU in the outputs of a 64 x 3000 fold under mpirun -np 2).
     * Returns 0, or a negative error (err). */
    int  (*take)(void *ctx, size_t k, unsigned columns, tf_fold_points *room,
                 tf_fold_points *p, tf_error *err);
    void *ctx;
} tf_fold_parts;

typedef struct tf_fold_group {
    uint32_t index;
    uint32_t instances;           /* used instances */
    double   mean_duration_ns;
    double   duration_lo_ns, duration_hi_ns;
    int32_t  instructions;        /* counter index, -1 when none */
    uint32_t *counter_instances;  /* [C] instances each counter rests on */
    double   *mean_total;         /* [C] events */
    uint32_t  grid;               /* G */
    double   *x;                  /* [G] */
    /* [C][G]; NaN rows for a counter that rests on fewer than 2 instances */
    double   *curve, *curve_lo, *curve_hi;
    double   *rate, *rate_lo, *rate_hi;    /* events/s */
    double   *ratio;              /* per instruction, NULL when instructions < 0 */
    /* [C] grid points whose rate no thread can reach, dropped (rate,
     * band and ratio NaN there; fold/rate_check.h); NULL: never checked */
    uint32_t *rate_dropped;
    size_t    nchanges;
    tf_fold_change *changes;      /* sorted by counter, then x */
    size_t    nboundaries;
    double   *boundaries;         /* merged change points, sorted */
    tf_fold_points points;        /* samples of the used instances */
    /* Where they are when `points` does not hold them all (set by the
     * caller, who owns it); NULL: `points` is the one part */
    const tf_fold_parts *parts;
} tf_fold_group;

/* One part of a group's points and the index of its first point. */
typedef int (*tf_fold_part_fn)(void *arg, const tf_fold_points *part, size_t first,
                               tf_error *err);
/* Calls fn on each part of g's points, in order, with at least the
 * columns asked for (enum tf_fold_column); stops at the first failure (a
 * part not taken, or fn's), returning its error. */
int tf_fold_group_each_part(const tf_fold_group *g, unsigned columns, tf_fold_part_fn fn,
                            void *arg, tf_error *err);
/* The group's points, in all its parts. */
size_t tf_fold_group_npoints(const tf_fold_group *g);

typedef struct tf_fold_region {
    char     *name;
    uint32_t  ncounters;          /* C */
    char    **counter_names;      /* [C] */
    char    **counter_units;      /* [C] */
    size_t    ninstances;         /* N */
    tf_fold_instance *instances;  /* [N] in (process, thread, begin) order */
    uint64_t *counter_delta;      /* [N][C], TF_NOVALUE when missing */
    /* The recording's cost per sample, taken out of the used instances'
     * durations and counter_delta and of their points (observer.h); 0
     * where none was measured */
    double    observer_ns;
    double    observer_spread_ns; /* how much it varies (a scaled MAD), which
                                   * widens the duration rule for the
                                   * sampled instances */
    double   *observer_events;    /* [C] */
    size_t    used, excluded, incomplete;
    uint32_t  ngroups;
    tf_fold_group *groups;
} tf_fold_region;

typedef struct tf_fold_result {
    char          *producer;      /* "tracefold fold 0.1.0" */
    char          *trace;         /* path of the folded trace */
    tf_fold_params params;
    uint32_t       nregions;
    tf_fold_region *regions;
    /* What serves the groups' parts when they are spread (a team's
     * leader, tf_fold_team_parts), freed with the result; NULL alone */
    void          *parts_owner;
    void         (*parts_free)(void *owner);
} tf_fold_result;

/* Index of the counter that counts instructions (by name: instructions,
 * PAPI_TOT_INS, INST_RETIRED..., case-insensitive), -1 when none. */
int tf_fold_instructions_counter(const char *const *names, uint32_t n);

/* Whether a counter measured on `rests` of a group's `instances` carries
 * its shape: at least 3 instances and a tenth of the group.  A software
 * counter that changed in 2 of 197 iterations is an anecdote (no change
 * points from it, no curve drawn); a counter multiplexed over a third of
 * them (namd's PAPI_TOT_INS, 12 of 38) is a fold. */
static inline bool tf_fold_counter_representative(uint32_t rests, uint32_t instances)
{
    return rests >= 3 && 10.0 * rests >= (double)instances;
}

/* Whether a counter moves in one step per instance.  A user counter the
 * program adds to once per iteration (tracefold_counter_add after the loop
 * body) is read at the region marks and at every sample, so its folded
 * values (C(t) - C(begin)) / (C(end) - C(begin)) are all 0 before the add
 * and 1 after it; a counter that moves with the work (any hardware
 * counter, a user counter added in the loop) leaves values in between.
 * `valued`: samples with a value; `inside`: those tf_fold_value_inside.
 * Such a counter has no rate within the iteration, only a total per
 * iteration: it gives no change points, and the report shows the total
 * instead of a curve. */
static inline bool tf_fold_value_inside(double y)
{
    return y > 0.01 && y < 0.99;
}

static inline bool tf_fold_counter_stepwise(size_t valued, size_t inside)
{
    return valued >= 10 && (double)inside <= 0.02 * (double)valued;
}

/* How densely group g's used instances were sampled (sampling_advice.h):
 * their length is the mean total of the CPU-time counter when the region
 * has it, else their mean duration. */
void tf_fold_sampling_density(const tf_fold_region *r, uint32_t g, tf_sampling_density *d);

/* Writes r to path (a new file; an existing one is replaced). */
int  tf_fold_result_save(const tf_fold_result *r, const char *path, tf_error *err);
/* Loads a fold.h5, validating its format name, version and every dataset's
 * shape; errors name the file and the dataset. */
int  tf_fold_result_load(const char *path, tf_fold_result **r, tf_error *err);
/* Frees what g owns and zeroes it. */
void tf_fold_group_clear(tf_fold_group *g);
/* The instances of an extraction as a region's: ncounters, ninstances,
 * instances (used, or incomplete or empty as their ends say, with their
 * threads; tid 0, for the caller to set) and counter_delta, taken from in. */
int  tf_fold_region_instances(tf_fold_region *r, tf_fold_input *in, tf_error *err);
/* Frees what r owns and zeroes it. */
void tf_fold_region_clear(tf_fold_region *r);
/* Sets each instance's threads: how many threads its interval covers, the
 * instances of its process with its begin and end (1 but under process
 * scope, extract/region_scope.h).  Returns the most of them, 0 when out of
 * memory (threads then all 1). */
uint32_t tf_fold_region_threads(tf_fold_region *r);
/* Frees everything r owns, and r (NULL is fine). */
void tf_fold_result_free(tf_fold_result *r);

#endif
