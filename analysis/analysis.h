/* SPDX-License-Identifier: BSD-3-Clause */
/* Where in the code and where in memory: the analysis of one folded region
 * (and group) that turns its folded samples into the code-line progression,
 * the phases, the data objects, the access streams and the memory-level
 * tables.  It sits between extraction and the fold outputs; the algorithms
 * work on plain arrays (tf_analysis_sample) so that tests can build their inputs
 * directly, and tf_analysis_run_groups() (analysis_run.h) builds those
 * arrays from a fold result and its trace. */
#ifndef TF_ANALYSIS_H
#define TF_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "extract/alloc_site.h"
#include "extract/sampling_advice.h"
#include "common/tf_error.h"

/* An index that refers to nothing (unknown routine, no object, top phase). */
#define TF_ANALYSIS_NONE UINT32_MAX

/* One folded sample.  routine/line come from symbolisation, object/offset
 * from the address-space mapping; group is the sample's thread index within
 * its process, so that the threads of one process, each sweeping its own
 * slice of an object, are analysed apart while the same thread of different
 * processes (whose objects are compared by offset) are analysed together. */
typedef struct tf_analysis_sample {
    double   x;          /* normalised time in [0, 1] */
    uint64_t offset;     /* data address relative to the object's start */
    uint32_t routine;    /* index in tf_analysis.routines, or TF_ANALYSIS_NONE */
    uint32_t line;       /* source line, 0 when unknown */
    uint32_t object;     /* index in tf_analysis.objects, or TF_ANALYSIS_NONE */
    uint32_t group;      /* thread index within its process */
    uint32_t weight;     /* cost in cycles, 0 when unknown */
    uint32_t point;      /* index of the sample in the caller's input order */
    int32_t  code_stride; /* memory samples: bytes the instruction's data advances per
                             iteration of its innermost loop, read from the code (the
                             sweep of extract/code_stride.h); 0 when the code gives none */
    uint8_t  access_bytes; /* memory samples: bytes the instruction reads or writes at
                              once (the width of extract/code_stride.h); 0 when unknown */
    uint8_t  kind;       /* enum tf_sample_kind */
    uint8_t  level;      /* enum tf_mem_level */
    uint8_t  waiting;    /* its routine waits for other threads (set by
                            tf_analysis_compute from tf_analysis_routine.waiting) */
} tf_analysis_sample;

typedef struct tf_analysis_routine {
    char *function;      /* function name, or "[module]" when only the module is known */
    char *file;          /* source file, "" when unknown */
    bool  waiting;       /* a barrier, idle loop or MPI progress routine */
} tf_analysis_routine;

/* Kinds of data objects: enum tf_object_kind plus one for addresses that
 * fall in no known object. */
#define TF_ANALYSIS_OBJECT_UNKNOWN 255

typedef struct tf_analysis_object {
    char    *name;       /* static name, user name, heap call site, "[stack]", "[unknown]" */
    char    *routine;    /* a heap object's call site's routine; NULL when none */
    uint64_t size;       /* bytes (largest size seen over the processes) */
    size_t   allocations;   /* the trace's objects (of every process) it stands for: a
                               family's allocations (object_names.h) */
    uint8_t  kind;       /* enum tf_object_kind or TF_ANALYSIS_OBJECT_UNKNOWN */
    /* filled by tf_analysis_objects_count */
    size_t   refs, loads, stores;
    double   share;      /* share of all memory samples */
} tf_analysis_object;

/* A counter folded by the fold engine: its mean normalised cumulative curve
 * on a uniform grid x_j = j / (npoints − 1), its mean total per instance
 * and, when the fold has them, the bounds of its rate's band (events/s on
 * the same grid; NULL: no band, every rate difference counts as real). */
typedef struct tf_analysis_counter {
    const char   *name;
    double        mean_total;
    size_t        npoints;
    const double *curve;
    const double *rate_lo, *rate_hi;
} tf_analysis_counter;

/* The code-line progression: per window of the synthetic iteration, the
 * routine with most samples and that routine's most observed known line
 * (0 when none of its samples there has one). */
typedef struct tf_analysis_window {
    double   x0, x1;
    uint32_t routine;    /* TF_ANALYSIS_NONE for a window without samples */
    uint32_t line;
    size_t   samples;
    double   share;      /* share of the window's samples in its routine */
} tf_analysis_window;

typedef struct tf_analysis_phase {
    char     label[48];  /* "2", or "2.1" for the first sub-phase of phase 2 */
    uint32_t parent;     /* enclosing phase, TF_ANALYSIS_NONE at the top level */
    double   x0, x1;
    uint32_t routine;
    uint32_t line;       /* the routine's most observed known line in the span; 0: none
                            of its samples there has line information */
    size_t   samples;
    double   share;      /* share of the iteration's code samples */
    double   waiting;    /* share of the span's samples that wait (not code samples) */
    /* rates over the span; NAN where the counters are absent */
    double   mips, ipc;
    double  *per_unit;   /* [ncounters]: per instruction when an instructions
                            counter exists, else events per second */
    /* The thread's CPU time over the span's wall time (task-clock, else
     * cpu-clock; NAN without), also where its rate is left out as beyond
     * TF_RATE_MAX_CPU_SHARE; whether MIPS and IPC were left out as beyond
     * TF_RATE_MAX_IPC (fold/rate_check.h). */
    double   cpu_share;
    bool     ipc_dropped;
} tf_analysis_phase;

enum tf_analysis_pattern {
    TF_ANALYSIS_PATTERN_LINEAR = 0,  /* ordered, stride below a cache line or within the access */
    TF_ANALYSIS_PATTERN_STRIDED = 1, /* ordered, stride of a cache line or more, past the access */
    TF_ANALYSIS_PATTERN_RANDOM = 2,  /* no ordered progression of the offsets */
    TF_ANALYSIS_PATTERN_FIXED = 3,   /* all references within one cache line */
    TF_ANALYSIS_PATTERN_SPARSE = 4,  /* too few samples to tell */
};

/* Where a stream's stride comes from. */
enum tf_analysis_stride_from {
    TF_ANALYSIS_STRIDE_NONE = 0,     /* no stride (random, fixed, sparse) */
    TF_ANALYSIS_STRIDE_SAMPLES = 1,  /* the gaps between the sampled offsets */
    TF_ANALYSIS_STRIDE_CODE = 2,     /* the sampled instructions' loops
                                        (tf_analysis_sample.code_stride) */
};

/* The accesses of one phase to one object. */
typedef struct tf_analysis_stream {
    uint32_t phase, object;
    size_t   samples;
    int      direction;  /* +1 up, −1 down, 0 none */
    uint64_t stride;     /* dominant stride in bytes, 0 when none */
    uint8_t  stride_from; /* enum tf_analysis_stride_from */
    uint32_t streams;    /* concurrent streams (per thread) */
    uint8_t  pattern;    /* enum tf_analysis_pattern */
    double   ordered_r2; /* share of the offsets' variance explained by the streams' lines */
    double   bytes;      /* bytes swept (ordered) or spanned (random) per thread and iteration */
    double   bandwidth;  /* MB/s per thread moved by ordered streams (for strided ones
                            the lines they touch), else NAN */
} tf_analysis_stream;

#define TF_ANALYSIS_MAX_MODES 4

/* Loads of one phase (or of the whole iteration: phase TF_ANALYSIS_NONE) served
 * by one memory level. */
typedef struct tf_analysis_level {
    uint32_t phase;
    uint8_t  level;      /* enum tf_mem_level */
    size_t   loads;
    double   share;      /* of the phase's loads with a known level */
    double   mean_cost;  /* cycles, NAN without costs */
    unsigned nmodes;
    double   modes[TF_ANALYSIS_MAX_MODES];  /* cost modes, cycles, ascending */
} tf_analysis_level;

/* The figures of a machine profile (tracefold calibrate, `fold --machine`)
 * that the advice rules use; 0 where the profile has none. */
#define TF_ANALYSIS_MAX_CACHES 6
#define TF_ANALYSIS_MAX_WALK 64
typedef struct tf_analysis_machine {
    unsigned nlevels;
    double   cache_bytes[TF_ANALYSIS_MAX_CACHES];   /* L1 first */
    double   hit_ns[TF_ANALYSIS_MAX_CACHES];        /* latency of a load served there */
    double   memory_ns;                       /* beyond the last cache */
    double   page_bytes;
    double   tlb_reach_bytes, tlb_miss_ns;
    /* a sequential walk, one load a line (calibrate's stride of a line):
     * ns per load against the bytes walked, ascending; 0 points: none */
    unsigned nline_walk;
    double   line_walk_bytes[TF_ANALYSIS_MAX_WALK], line_walk_ns[TF_ANALYSIS_MAX_WALK];
} tf_analysis_machine;

/* The default of tf_analysis_params.max_samples: 48 MB of samples, enough for
 * every statistic (docs/algorithms.md, "Samples analysed"). */
#define TF_ANALYSIS_MAX_SAMPLES ((size_t)1 << 20)

/* Parameters; tf_analysis_params_default() gives the documented defaults. */
typedef struct tf_analysis_params {
    size_t windows;          /* code-line windows (0: from the sample count) */
    double min_phase_share;  /* phases holding fewer samples are merged */
    double boundary_tol;     /* change points closer than this to a boundary are the same boundary */
    double min_change;       /* smallest relative rate (or ratio) change that splits a phase */
    double min_phase_length; /* a rate change splits a phase only into parts at least this
                                long (share of the iteration) */
    uint64_t line_bytes;     /* cache line: strides below it are linear */
    double ordered_r2;       /* R² at or above which offsets are ordered */
    double trend_r2;         /* below ordered_r2, R² at or above which a clear rank
                                correlation and the code's stride make a stream
                                ordered; below it a stream is never linear */
    double trend_rho;        /* |rank correlation| at or above which (and beyond
                                2.58 of its standard deviations without order) the
                                samples' direction is clear */
    size_t min_stream_samples;
    double min_stream_share; /* phase × object pairs with a smaller share of the
                                phase's memory samples are not reported */
    size_t max_samples;      /* folded samples analysed at most (about): beyond,
                                a uniform choice by a hash of the point; 0: all */
    tf_alloc_rules alloc_rules;  /* how heap objects' call sites are found */
    const tf_analysis_machine *machine;  /* for the advice; NULL: no profile */
} tf_analysis_params;

void tf_analysis_params_default(tf_analysis_params *p);

struct tf_analysis_advice;
struct tf_fold_points;

/* fold.h5's per-point columns of an analysis (docs/fold-format.md,
 * analysis/points), n elements each. */
typedef struct tf_analysis_point_columns {
    int32_t  *routine;   /* row in routines, -1 when not symbolised */
    int32_t  *line;      /* source line, 0 when unknown */
    int32_t  *object;    /* row in objects, -1 without a data address */
    uint64_t *offset;    /* offset in the object, 0 without one */
} tf_analysis_point_columns;

/* Where the folded points of the analysed group lie, in the code and in
 * the address space: every point's columns, given by whoever made the
 * analysis, so that each address is looked up once per run.  An analysis
 * worked out in memory keeps the code caches and object maps it looked
 * the points up in (from_fold.c); one read back from fold.h5, the columns
 * stored there (analysis_h5.c).  The analysis owns it. */
typedef struct tf_analysis_places tf_analysis_places;
struct tf_analysis_places {
    size_t   npoints;    /* the group's folded points it places */
    unsigned needs;      /* the columns (TF_FOLD_COL_*, fold/fold_result.h) of a part of
                            the points that columns() reads */
    /* The columns of points [at, at + n) of part (whose first point is
     * point `first` of the group; NULL: n points without a place), into
     * c (room for n in each). */
    int  (*columns)(const tf_analysis_places *pl, const struct tf_fold_points *part,
                    size_t first, size_t at, size_t n, const tf_analysis_point_columns *c,
                    tf_error *err);
    void (*free)(tf_analysis_places *pl);
};

/* The analysis of one region (and group). */
typedef struct tf_analysis {
    char    *region;
    unsigned group;
    double   duration_ns;    /* mean duration of the used instances */
    tf_sampling_density sampling;   /* of the used instances (zero when not known,
                                       as in a fold.h5 read back) */
    size_t   nroutines;  tf_analysis_routine *routines;
    size_t   nobjects;   tf_analysis_object  *objects;
    size_t   nsamples;   tf_analysis_sample  *samples;   /* sorted by x */
    size_t   nfolded;    /* the folded samples (with a time) the samples were
                            chosen from: nsamples when all were */
    tf_analysis_places *places;   /* NULL: no point has a place */
    size_t   ncounters;  char **counter_names;
    uint32_t *rate_dropped;   /* [ncounters]: grid points whose rate the fold left out as
                                 impossible (fold/rate_check.h); NULL when not known */
    double   waiting;    /* share of the samples that wait at barriers (tf_analysis_routine.waiting) */
    bool     per_instruction;  /* phases' per_unit are per instruction (else per second) */
    size_t   nwindows;   tf_analysis_window  *windows;
    size_t   nphases;    tf_analysis_phase   *phases;    /* top-level phases first, in x order;
                                                      then sub-phases */
    size_t   nstreams;   tf_analysis_stream  *streams;
    size_t   nlevels;    tf_analysis_level   *levels;
    size_t   nadvice;    struct tf_analysis_advice *advice;   /* advice.h, strongest first */
    unsigned advice_untried;  /* rules not tried for want of a machine figure (advice.h) */
} tf_analysis;

/* Runs every step on a tf_analysis whose region, duration, routines,
 * objects and samples are filled (samples in any order): sorts the samples,
 * then fills windows, phases (with rates from counters and the fold's
 * change points), objects' counts, streams, levels and advice. */
int tf_analysis_compute(tf_analysis *a, const tf_analysis_counter *counters, size_t ncounters,
                        const double *change_points, size_t nchange_points,
                        const tf_analysis_params *params, tf_error *err);

/* Frees everything a tf_analysis owns (not a itself). */
void tf_analysis_clear(tf_analysis *a);

/* Interns a routine (function, file) and returns its index. */
int tf_analysis_add_routine(tf_analysis *a, const char *function, const char *file,
                            uint32_t *index, tf_error *err);

/* True for the names of the instructions counter (instructions,
 * PAPI_TOT_INS, INST_RETIRED..., case-insensitive). */
bool tf_analysis_is_instructions(const char *name);
/* True for the counters whose rate the scheduler sets rather than the
 * program (task-clock, cpu-clock, context-switches, cpu-migrations): a
 * change of theirs within a routine is preemption, not a phase. */
bool tf_analysis_is_scheduling(const char *name);
/* True for a routine where threads wait for others (barriers, idle loops,
 * MPI progress; waiting.c), named as tf_analysis_routine.function names it
 * ("[libgomp.so.1]" for a module's unnamed code). */
bool tf_analysis_is_waiting_routine(const char *function);

/* The columns of points [at, at + n) of part as tf_analysis_places
 * gives them, or, without places, those of points without a place. */
int tf_analysis_point_places(const tf_analysis *a, const struct tf_fold_points *part,
                              size_t first, size_t at, size_t n,
                              const tf_analysis_point_columns *c, tf_error *err);

/* The names of enum values as fold.h5 and the tables store them, and back
 * (-1: not a name of the list). */
const char *tf_analysis_pattern_name(uint8_t pattern);
const char *tf_analysis_stride_from_name(uint8_t from);
const char *tf_analysis_level_name(uint8_t level);
const char *tf_analysis_object_kind_name(uint8_t kind);
int tf_analysis_pattern_parse(const char *name);
int tf_analysis_stride_from_parse(const char *name);
int tf_analysis_object_kind_parse(const char *name);

#endif
