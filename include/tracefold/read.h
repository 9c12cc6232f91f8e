/* SPDX-License-Identifier: BSD-3-Clause */
/** @file tracefold/read.h
 * The tracefold reader API: what a tracefold HDF5 trace and a fold result
 * (OUTDIR/fold.h5) hold, read through the same code as `tracefold info`
 * and `tracefold render`, for programs that want the numbers without
 * parsing HDF5 themselves.  Build with
 * `cc app.c $(pkg-config --cflags --libs tracefold-read)`; docs/api.md
 * and tracefold-read(3) describe it.
 *
 * Conventions: functions that can fail return 0 or a negative
 * TRACEFOLD_ERR_* code and fill the caller's tracefold_error (which may
 * be NULL) with the code and a message naming the file and, for a
 * malformed file, the dataset; nothing is printed.  Strings and arrays a
 * function hands out belong to the handle they came from and stay valid
 * until it is closed.  A handle is used by one thread at a time.
 * Processes, threads, counters, regions, instances, objects and groups
 * are numbered from 0 in the order the file gives. */
#ifndef TRACEFOLD_READ_H
#define TRACEFOLD_READ_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- errors --------------------------------------------------------- */

/** Error codes (the negated value is what a failing function returns). */
enum tracefold_status {
    TRACEFOLD_OK = 0,
    TRACEFOLD_ERR_USAGE = 1,        /**< invalid argument (an index out of range) */
    TRACEFOLD_ERR_IO = 2,           /**< the file cannot be read */
    TRACEFOLD_ERR_NOMEM = 3,        /**< out of memory */
    TRACEFOLD_ERR_FORMAT = 4,       /**< not a tracefold file, or malformed */
    TRACEFOLD_ERR_VERSION = 5,      /**< a format version this library does not read */
    TRACEFOLD_ERR_NOTFOUND = 6,     /**< a required part is missing */
    TRACEFOLD_ERR_EXISTS = 7,
    TRACEFOLD_ERR_DATA = 8,         /**< not enough data */
    TRACEFOLD_ERR_UNSUPPORTED = 9,
    TRACEFOLD_ERR_INTERNAL = 10,
    TRACEFOLD_ERR_CANCELED = 11,
};

#define TRACEFOLD_ERROR_MAX 1024

/** An error as a value: its code and the whole message. */
typedef struct tracefold_error {
    int  code;                           /**< enum tracefold_status */
    char message[TRACEFOLD_ERROR_MAX];   /**< names the file and the dataset or index */
} tracefold_error;

/** The text of a code ("malformed input"). */
const char *tracefold_status_text(int code);

/* ---- traces --------------------------------------------------------- */

typedef struct tracefold_trace tracefold_trace;

typedef struct tracefold_trace_info {
    const char *path;
    const char *producer;       /**< "tracefold record 0.1.0", ... */
    const char *host;
    const char *command_line;
    const char *clock;          /**< "CLOCK_MONOTONIC", ... */
    uint64_t    start_time;     /**< wall clock of time 0, ns since the epoch; 0 unknown */
    int         complete;       /**< 0 when the recording was interrupted */
    uint32_t    nprocesses;
    size_t      nregions;       /**< region names with at least one begin */
    const char *alloc_wrappers; /**< the routines the recorder was told allocate for
                                     their callers, comma-separated; "" none */
} tracefold_trace_info;

/** Opens a tracefold HDF5 trace (docs/trace-format.md), or a Paraver
 * trace (.prv, .prv.gz, with its .pcf and .row beside it) converted to a
 * temporary HDF5 trace that closing removes, validating it as `tracefold
 * info` does.  tracefold_trace_info's path is the path given. */
int  tracefold_trace_open(const char *path, tracefold_trace **trace, tracefold_error *err);
/** Frees the trace and everything it handed out (NULL is fine). */
void tracefold_trace_close(tracefold_trace *trace);
void tracefold_trace_get_info(const tracefold_trace *trace, tracefold_trace_info *info);

typedef struct tracefold_process {
    int64_t     pid;
    int32_t     rank;           /**< MPI rank, -1 when not MPI */
    int32_t     nranks;         /**< 0 when not MPI */
    const char *executable;
    const char *host;
    const char *build_id;       /**< lowercase hex, or "" */
    uint32_t    nthreads;
    uint32_t    ncounters;
    size_t      nobjects;
    size_t      nmodules;
    size_t      nsymbols;       /**< symbols of its modules recorded in the trace */
    /** Small blocks (docs/trace-format.md, "Small blocks"): the size of the
     * recorder's small-block log, and the blocks it could not attribute,
     * allocated past that size or faster than the writer took them. */
    uint64_t    small_blocks_cap, small_blocks_past_cap, small_blocks_ring_full;
} tracefold_process;

int tracefold_process_get(const tracefold_trace *trace, uint32_t process,
                          tracefold_process *out, tracefold_error *err);

enum tracefold_counter_kind {
    TRACEFOLD_COUNTER_HARDWARE = 0, TRACEFOLD_COUNTER_SOFTWARE = 1, TRACEFOLD_COUNTER_USER = 2,
};

typedef struct tracefold_counter {
    const char *name;           /**< "instructions", "PAPI_TOT_INS", ... */
    const char *unit;           /**< "events", "ns", ... */
    int         kind;           /**< enum tracefold_counter_kind */
} tracefold_counter;

int tracefold_counter_get(const tracefold_trace *trace, uint32_t process, uint32_t counter,
                          tracefold_counter *out, tracefold_error *err);

typedef struct tracefold_thread {
    uint64_t tid;
    size_t   nevents;
    size_t   nsamples;
    uint64_t dropped_events;    /**< lost by the recorder, its buffer full */
    uint64_t dropped_samples;
    uint64_t first_event, last_event;   /**< ns, the times of its first and last
                                             events; 0 when nevents is 0 */
} tracefold_thread;

int tracefold_thread_get(const tracefold_trace *trace, uint32_t process, uint32_t thread,
                         tracefold_thread *out, tracefold_error *err);

/** A region: every begin/end pair of one name, over all threads. */
typedef struct tracefold_region {
    const char *name;
    size_t      ninstances;     /**< complete instances */
    size_t      incomplete;     /**< instances without a proper end */
    uint64_t    total_ns;       /**< durations of the complete instances */
    uint64_t    min_ns, median_ns, max_ns;
} tracefold_region;

/** Region `region` (0 .. nregions-1), largest total time first, as
 * `tracefold info` lists them. */
int tracefold_region_get(const tracefold_trace *trace, size_t region, tracefold_region *out,
                         tracefold_error *err);

typedef struct tracefold_instance {
    uint32_t process, thread;
    uint32_t depth;             /**< regions open around it at its begin */
    uint64_t begin, end;        /**< ns; end = the thread's last event when not complete */
    int      complete;          /**< 0: no end, or closed by an enclosing region's end */
} tracefold_instance;

/** The instances of region `region`, in (process, thread, begin) order:
 * *n of them at *instances. */
int tracefold_region_instances(tracefold_trace *trace, size_t region,
                               const tracefold_instance **instances, size_t *n,
                               tracefold_error *err);

enum tracefold_sample_kind {
    TRACEFOLD_SAMPLE_TIMER = 0, TRACEFOLD_SAMPLE_LOAD = 1, TRACEFOLD_SAMPLE_STORE = 2,
    TRACEFOLD_SAMPLE_RMW = 3,
};

typedef struct tracefold_sample {
    uint64_t time;              /**< ns since the trace's start_time */
    uint64_t ip;                /**< instruction address, 0 unknown */
    uint64_t address;           /**< data address of a memory sample, else 0 */
    uint64_t data_source;       /**< raw perf_mem_data_src / IBS bits, 0 none */
    uint32_t weight;            /**< cost in cycles, 0 unknown */
    uint16_t stack_depth;       /**< frames of its call stack */
    uint8_t  kind;              /**< enum tracefold_sample_kind (a newer recorder may add) */
    uint8_t  level;             /**< memory level, Extrae's values (docs/trace-format.md) */
    uint8_t  flags;             /**< docs/trace-format.md, "samples" */
} tracefold_sample;

/** A thread's samples, streamed in time order. */
typedef struct tracefold_samples tracefold_samples;

int  tracefold_samples_open(tracefold_trace *trace, uint32_t process, uint32_t thread,
                            tracefold_samples **samples, tracefold_error *err);
/** Reads up to max samples into buf and, unless counters is NULL, their
 * counter values (max rows of the process's ncounters, UINT64_MAX where a
 * counter was not read); *n = 0 at the end. */
int  tracefold_samples_read(tracefold_samples *samples, tracefold_sample *buf,
                            uint64_t *counters, size_t max, size_t *n, tracefold_error *err);
void tracefold_samples_close(tracefold_samples *samples);

enum tracefold_object_kind {
    TRACEFOLD_OBJECT_HEAP = 0, TRACEFOLD_OBJECT_STATIC = 1, TRACEFOLD_OBJECT_USER = 2,
    TRACEFOLD_OBJECT_STACK = 3, TRACEFOLD_OBJECT_MMAP = 4,
    TRACEFOLD_OBJECT_SMALL = 5,     /**< the small blocks of one call site, as one object */
};

/** A data object: a heap allocation, a static variable, a named region. */
typedef struct tracefold_object {
    uint32_t    id;
    int         kind;           /**< enum tracefold_object_kind */
    uint64_t    start, size;
    uint64_t    alloc_time;     /**< ns; 0 for statics */
    uint64_t    free_time;      /**< ns; UINT64_MAX when alive at the end */
    const char *name;           /**< the name `tracefold info` and the fold give it */
    const char *routine;        /**< the routine that allocated it (a heap object named
                                     from its allocation stack), else "" */
    const char *recorded_name;  /**< the name the recorder gave it (a static's variable, a
                                     user region's name), else "" */
    const char *callsite;       /**< the call site the recorder gave it, else "" */
    int         system;         /**< 1: the system's, not the program's: a static of a
                                     system library or the recorder, or small blocks
                                     allocated there (`tracefold info` hides them) */
} tracefold_object;

int tracefold_object_get(tracefold_trace *trace, uint32_t process, size_t object,
                         tracefold_object *out, tracefold_error *err);

/** Names heap objects allocated through these n routines of the program
 * (wrappers of malloc) by their callers, as `tracefold info
 * --alloc-wrapper NAME` does, with those the trace names (alloc_wrappers
 * above).  Call it before the first tracefold_object_get of the trace;
 * the names are copied. */
int tracefold_trace_set_alloc_wrappers(tracefold_trace *trace, const char *const *names,
                                       size_t n, tracefold_error *err);

/* ---- fold results ----------------------------------------------------- */

typedef struct tracefold_fold tracefold_fold;

typedef struct tracefold_fold_info {
    const char *path;
    const char *producer;       /**< "tracefold fold 0.1.0" */
    const char *trace;          /**< the folded trace's path */
    uint32_t    nregions;
} tracefold_fold_info;

/** Opens a fold.h5 (docs/fold-format.md), validating every dataset. */
int  tracefold_fold_open(const char *path, tracefold_fold **fold, tracefold_error *err);
void tracefold_fold_close(tracefold_fold *fold);
void tracefold_fold_get_info(const tracefold_fold *fold, tracefold_fold_info *info);

typedef struct tracefold_fold_region {
    const char *name;
    uint32_t    ncounters;
    const char *const *counter_names;   /**< [ncounters] */
    const char *const *counter_units;   /**< [ncounters] */
    size_t      ninstances;
    size_t      used, excluded, incomplete;
    uint32_t    ngroups;
} tracefold_fold_region;

int tracefold_fold_region_get(const tracefold_fold *fold, uint32_t region,
                              tracefold_fold_region *out, tracefold_error *err);

enum tracefold_fold_status {
    TRACEFOLD_FOLD_USED = 0, TRACEFOLD_FOLD_EXCLUDED = 1, TRACEFOLD_FOLD_INCOMPLETE = 2,
};

typedef struct tracefold_fold_instance {
    uint32_t process, thread;
    uint64_t tid;
    uint64_t begin, end, duration;      /**< ns, trace time */
    int      status;                    /**< enum tracefold_fold_status */
    int32_t  group;                     /**< -1 for incomplete instances */
    uint64_t samples;                   /**< samples inside it */
    const uint64_t *counter_delta;      /**< [ncounters] (NULL: none), UINT64_MAX where missing */
} tracefold_fold_instance;

int tracefold_fold_instance_get(const tracefold_fold *fold, uint32_t region, size_t instance,
                                tracefold_fold_instance *out, tracefold_error *err);

/** A group of similar instances folded into one synthetic iteration. */
typedef struct tracefold_fold_group {
    uint32_t instances;                 /**< used instances */
    double   mean_duration_ns;
    uint32_t grid;                      /**< points of each curve */
    size_t   npoints;                   /**< folded samples */
} tracefold_fold_group;

int tracefold_fold_group_get(const tracefold_fold *fold, uint32_t region, uint32_t group,
                             tracefold_fold_group *out, tracefold_error *err);

/** One counter's fitted curve in a group, on the grid x[0..grid-1] of
 * normalised time: the normalised counter value and its rate (events/s),
 * with the confidence band; NaN where the counter rests on too few
 * instances. */
typedef struct tracefold_fold_curve {
    uint32_t      grid;
    const double *x;
    const double *value, *value_lo, *value_hi;
    const double *rate, *rate_lo, *rate_hi;
} tracefold_fold_curve;

int tracefold_fold_curve_get(const tracefold_fold *fold, uint32_t region, uint32_t group,
                             uint32_t counter, tracefold_fold_curve *out, tracefold_error *err);

/** A folded sample: its place in the synthetic iteration. */
typedef struct tracefold_fold_point {
    double   x;                         /**< normalised time, 0..1 */
    uint32_t instance;                  /**< index of its instance in the region */
    uint8_t  kind;                      /**< enum tracefold_sample_kind */
    uint8_t  level;
    uint32_t weight;
    uint64_t ip, address;
} tracefold_fold_point;

/** Copies up to max of group's folded samples, from index first, to buf;
 * *n = 0 past the last.  Unless values is NULL, the counters' normalised
 * values too (max rows of ncounters, NaN where none). */
int tracefold_fold_points_read(const tracefold_fold *fold, uint32_t region, uint32_t group,
                               size_t first, tracefold_fold_point *buf, double *values,
                               size_t max, size_t *n, tracefold_error *err);

#ifdef __cplusplus
}
#endif

#endif
