/* SPDX-License-Identifier: BSD-3-Clause */
/* The tracefold HDF5 trace, format version 2: the in-memory records, the
 * trace output and a streaming reader.  The file layout is documented for users in
 * docs/trace-format.md; this header is the contract between the stages that
 * produce traces (record/, synth/, the Paraver importer) and those that read
 * them (extract/, fold/, the CLI).
 *
 * Names are interned: regions, counters, objects, paths are stored once in
 * the root /strings dataset and referenced by a 32-bit string id.  Id 0 is
 * always the empty string. */
#ifndef TF_TRACE_H
#define TF_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/tf_error.h"

#define TF_TRACE_FORMAT  "tracefold-trace"
#define TF_TRACE_VERSION 2
/* The oldest version the reader still opens: version 1 stored its strings
 * as variable-length strings, read with formats/h5_vlen1.h. */
#define TF_TRACE_OLDEST_VERSION 1

/* A counter value that was not read at that point (counter not in the
 * active set, or no counter read at that event). */
#define TF_NOVALUE UINT64_MAX
/* A time that never came (an object never freed). */
#define TF_NOTIME UINT64_MAX

#define TF_MAX_COUNTERS 64

/* ---- records ------------------------------------------------------------ */

enum tf_event_kind {
    TF_EVENT_ENTER = 0,   /* region begin; value = region name string id */
    TF_EVENT_EXIT  = 1,   /* region end;   value = region name string id */
    TF_EVENT_USER  = 2,   /* generic event: type, value as given by the user */
};

typedef struct tf_event {
    uint64_t time;        /* ns since the trace's start_time */
    uint64_t value;
    uint32_t type;        /* user event type (0 for ENTER/EXIT) */
    uint8_t  kind;        /* enum tf_event_kind */
} tf_event;

enum tf_sample_kind {
    TF_SAMPLE_TIMER = 0,  /* timer / counter-overflow sample: ip, stack, counters */
    TF_SAMPLE_LOAD  = 1,  /* memory sample of a load */
    TF_SAMPLE_STORE = 2,  /* memory sample of a store */
    TF_SAMPLE_RMW   = 3,  /* an instruction that both reads and writes memory */
};

enum tf_sample_flags {
    TF_SAMPLE_SOFTWARE = 1u << 0,  /* address computed by decoding the instruction */
    TF_SAMPLE_TLB_MISS = 1u << 1,  /* the reference missed the first-level TLB */
    TF_SAMPLE_HIT      = 1u << 2,  /* stores: the hardware reported a hit */
    TF_SAMPLE_VECTOR   = 1u << 3,  /* gather/scatter: address is the first element only */
};

/* Memory levels: the values Extrae uses for its type 32000002, so that they
 * carry over to Paraver unchanged. */
enum tf_mem_level {
    TF_LEVEL_UNCACHED = 0, TF_LEVEL_L1 = 1, TF_LEVEL_LFB = 2, TF_LEVEL_L2 = 3,
    TF_LEVEL_L3 = 4, TF_LEVEL_REMOTE_CACHE_1 = 5, TF_LEVEL_REMOTE_CACHE_2 = 6,
    TF_LEVEL_DRAM = 7, TF_LEVEL_REMOTE_DRAM_1 = 8, TF_LEVEL_REMOTE_DRAM_2 = 9,
    TF_LEVEL_UNKNOWN = 255,
};

typedef struct tf_sample {
    uint64_t time;         /* ns since start_time */
    uint64_t ip;           /* sampled instruction address (0 when unknown) */
    uint64_t addr;         /* data address of a memory sample, else 0 */
    uint64_t data_source;  /* raw perf_mem_data_src / IBS bits, 0 when none */
    uint64_t stack;        /* index of the first frame in the thread's frames */
    uint32_t weight;       /* cost in cycles, 0 when unknown */
    uint16_t stack_len;    /* number of frames (0: no call stack) */
    uint8_t  kind;         /* enum tf_sample_kind */
    uint8_t  level;        /* enum tf_mem_level */
    uint8_t  flags;        /* enum tf_sample_flags */
} tf_sample;

enum tf_object_kind {
    TF_OBJECT_HEAP = 0, TF_OBJECT_STATIC = 1, TF_OBJECT_USER = 2,
    TF_OBJECT_STACK = 3, TF_OBJECT_MMAP = 4,
    /* A heap block below the recorder's heap-threshold: its stack is the
     * one return address of its allocation call; it ends when the next
     * small block starts at its address (docs/trace-format.md). */
    TF_OBJECT_SMALL = 5,
};

typedef struct tf_object {
    uint64_t start;
    uint64_t size;
    uint64_t alloc_time;   /* ns; 0 for statics */
    uint64_t free_time;    /* ns; TF_NOTIME when alive at the end */
    uint64_t stack;        /* first frame of the allocation call stack in the process frames */
    uint32_t id;
    uint32_t name;         /* string id: variable name, user name, or "" */
    uint32_t callsite;     /* string id: symbolised call site if known ("stream.c:181"), or "" */
    uint16_t stack_len;
    uint8_t  kind;         /* enum tf_object_kind */
} tf_object;

typedef struct tf_module {
    uint64_t start, end;   /* mapped address range */
    uint64_t offset;       /* file offset of start */
    uint32_t path;         /* string id */
    uint32_t build_id;     /* string id, lowercase hex, or "" */
} tf_module;

/* Address ranges already resolved to source (synthetic traces, imported
 * Extrae traces): consulted before any debug information. */
typedef struct tf_symbol {
    uint64_t start, end;   /* [start, end) */
    uint32_t function;     /* string id */
    uint32_t file;         /* string id */
    uint32_t line;
} tf_symbol;

enum tf_counter_kind {
    TF_COUNTER_HARDWARE = 0, TF_COUNTER_SOFTWARE = 1, TF_COUNTER_USER = 2,
};

typedef struct tf_counter_desc {
    uint32_t name;         /* string id, e.g. "instructions", "PAPI_TOT_INS" */
    uint32_t unit;         /* string id, e.g. "events", "ns" */
    uint8_t  kind;         /* enum tf_counter_kind */
} tf_counter_desc;

/* ---- metadata ----------------------------------------------------------- */

typedef struct tf_trace_meta {
    const char *clock;          /* e.g. "CLOCK_MONOTONIC" */
    const char *host;
    const char *command_line;
    const char *producer;       /* "tracefold record 0.1", "tracefold synth", ... */
    uint64_t    start_time;     /* wall clock of time 0, ns since the Unix epoch */
} tf_trace_meta;

typedef struct tf_process_desc {
    int64_t     pid;
    int32_t     rank;           /* MPI rank, -1 when not MPI */
    int32_t     nranks;         /* 0 when not MPI */
    const char *executable;
    const char *host;
    const char *build_id;
    uint32_t    ncounters;
    const char *const *counter_names;
    const char *const *counter_units;   /* may be NULL: "events" */
    const uint8_t *counter_kinds;       /* may be NULL: hardware */
} tf_process_desc;

/* ---- output --------------------------------------------------------------
 * Appends go to chunked, deflate-compressed, unlimited datasets; nothing is
 * held in memory beyond the caller's batch.  Times within a thread must not
 * decrease (events and samples separately): the output refuses them. */

typedef struct tf_trace_out tf_trace_out;

enum tf_trace_out_flags {
    /* Write to PATH.tmp-PID and rename to PATH on close; tf_trace_out_abort
     * removes the temporary file.  For producers that must never leave a
     * half-written file that looks complete (synth, import). */
    TF_TRACE_OUT_ATOMIC = 1u << 0,
};

int  tf_trace_out_create(tf_trace_out **w, const char *path, const tf_trace_meta *meta,
                         unsigned flags, tf_error *err);
/* Gives the trace another name (the recorder's writer creates it before
 * the process's MPI rank, which names it, may be known): renamed on disk
 * now, or at the close for an atomic output. */
int  tf_trace_out_rename(tf_trace_out *w, const char *path, tf_error *err);
/* Interns s and stores its id; ids are stable for the output's lifetime. */
int  tf_trace_out_intern(tf_trace_out *w, const char *s, uint32_t *id, tf_error *err);
int  tf_trace_out_add_process(tf_trace_out *w, const tf_process_desc *d, uint32_t *proc,
                              tf_error *err);
int  tf_trace_out_add_thread(tf_trace_out *w, uint32_t proc, uint64_t tid, uint32_t *thread,
                             tf_error *err);
/* counters: n rows of the process's ncounters values, or NULL (none read). */
int  tf_trace_out_append_events(tf_trace_out *w, uint32_t proc, uint32_t thread,
                                const tf_event *ev, const uint64_t *counters, size_t n,
                                tf_error *err);
int  tf_trace_out_append_samples(tf_trace_out *w, uint32_t proc, uint32_t thread,
                                 const tf_sample *s, const uint64_t *counters, size_t n,
                                 tf_error *err);
/* Call-stack frames (instruction addresses, innermost first). *first gets
 * the index of ips[0], to store in tf_sample.stack.  thread = UINT32_MAX
 * appends to the process frames used by objects. */
int  tf_trace_out_append_frames(tf_trace_out *w, uint32_t proc, uint32_t thread,
                                const uint64_t *ips, size_t n, uint64_t *first,
                                tf_error *err);
int  tf_trace_out_append_objects(tf_trace_out *w, uint32_t proc, const tf_object *o, size_t n,
                                 tf_error *err);
int  tf_trace_out_append_modules(tf_trace_out *w, uint32_t proc, const tf_module *m, size_t n,
                                 tf_error *err);
int  tf_trace_out_append_symbols(tf_trace_out *w, uint32_t proc, const tf_symbol *s, size_t n,
                                 tf_error *err);
/* Records of the thread the producer lost so far (its buffer was full):
 * stored as the thread's dropped_events and dropped_samples attributes,
 * replacing earlier values; durable at the next flush. */
int  tf_trace_out_set_dropped(tf_trace_out *w, uint32_t proc, uint32_t thread, uint64_t events,
                              uint64_t samples, tf_error *err);
/* The routines of the program that allocate for their callers, named when
 * recording (record option alloc-wrapper), comma-separated: stored as the
 * root's alloc_wrappers attribute, for readers naming heap objects by call
 * site (extract/alloc_site.h). */
int  tf_trace_out_set_alloc_wrappers(tf_trace_out *w, const char *names, tf_error *err);
/* Blocks below heap-threshold the producer logged but could not
 * attribute: past_cap beyond the log's cap, ring_full refused by a full
 * thread ring; stored as the process's small_blocks_* attributes. */
int  tf_trace_out_set_small_lost(tf_trace_out *w, uint32_t proc, uint64_t cap, uint64_t past_cap,
                                 uint64_t ring_full, tf_error *err);
/* Makes everything appended so far readable by another process, even if
 * this one is killed afterwards (strings included). */
int  tf_trace_out_flush(tf_trace_out *w, tf_error *err);
/* The HDF5 file id (hid_t), for producers that add their own groups
 * (e.g. synth's /truth) with formats/h5util.h. */
int64_t tf_trace_out_file(tf_trace_out *w);
/* Writes the remaining strings, marks the trace complete, closes (and
 * renames, when atomic).  Frees w even on error. */
int  tf_trace_out_close(tf_trace_out *w, tf_error *err);
/* Closes without completing; an atomic output removes its temporary file. */
void tf_trace_out_abort(tf_trace_out *w);

/* ---- reader --------------------------------------------------------------
 * tf_trace_open validates the file (format name, version, required groups
 * and datasets, event time order) and loads everything but the samples and
 * the thread call-stack frames, which are streamed. */

typedef struct tf_thread {
    uint64_t  tid;
    size_t    nevents;
    tf_event *events;
    uint64_t *event_counters;   /* nevents × process ncounters */
    size_t    nsamples;
    size_t    nframes;
    uint64_t  dropped_events;   /* lost by the recorder (buffer full); 0 when none */
    uint64_t  dropped_samples;
} tf_thread;

typedef struct tf_process {
    int64_t     pid;
    int32_t     rank, nranks;
    const char *executable, *host, *build_id;
    uint32_t    ncounters;
    tf_counter_desc *counters;
    size_t      nmodules;  tf_module *modules;
    size_t      nobjects;  tf_object *objects;
    size_t      nsymbols;  tf_symbol *symbols;
    size_t      nframes;   uint64_t  *frames;    /* process frames (object call stacks) */
    uint32_t    nthreads;  tf_thread *threads;
    /* Small blocks logged but not attributed (0 when none, or not said):
     * past the log's cap small_cap, and refused by a full thread ring. */
    uint64_t    small_cap, small_past_cap, small_ring_full;
} tf_process;

typedef struct tf_trace tf_trace;

int  tf_trace_open(tf_trace **tr, const char *path, tf_error *err);
/* Opens n traces as one (the traces of an MPI run's ranks): each file is
 * validated as by tf_trace_open, and an error names it.  The processes come
 * ordered by MPI rank (those without one last, in the order given), string
 * ids are those of one merged table, and times are moved onto the earliest
 * trace's start_time.  Samples and frames are streamed from the member
 * files; tf_trace_file gives the first one's.  n == 1 is tf_trace_open. */
int  tf_trace_open_set(tf_trace **tr, const char *const *paths, size_t n, tf_error *err);
void tf_trace_close(tf_trace *tr);

const char       *tf_trace_path(const tf_trace *tr);
const tf_trace_meta *tf_trace_get_meta(const tf_trace *tr);
bool              tf_trace_complete(const tf_trace *tr);  /* false: recording interrupted */
/* The allocation wrappers named when recording, comma-separated ("" when
 * none, as in older traces; of the first trace of a set). */
const char       *tf_trace_alloc_wrappers(const tf_trace *tr);
uint32_t          tf_trace_nprocesses(const tf_trace *tr);
const tf_process *tf_trace_process(const tf_trace *tr, uint32_t i);
/* The string for an id; "" for an id out of range. */
const char       *tf_trace_string(const tf_trace *tr, uint32_t id);
/* Looks a string up; false when the trace has no such string. */
bool              tf_trace_find_string(const tf_trace *tr, const char *s, uint32_t *id);
/* The HDF5 file id (hid_t), for readers of extra groups (e.g. /truth). */
int64_t           tf_trace_file(const tf_trace *tr);

/* Streaming sample reader for one thread, in time order. */
typedef struct tf_sample_cursor tf_sample_cursor;

int  tf_samples_open(tf_trace *tr, uint32_t proc, uint32_t thread,
                     tf_sample_cursor **c, tf_error *err);
/* Reads up to max samples into s and, unless counters is NULL, their
 * counter rows (max × ncounters).  *n = 0 at the end.  Fails on a sample
 * whose time goes backwards, naming the file, process, thread and index. */
int  tf_samples_read(tf_sample_cursor *c, tf_sample *s, uint64_t *counters, size_t max,
                     size_t *n, tf_error *err);
void tf_samples_close(tf_sample_cursor *c);

/* Reads frames [first, first+n) of a thread's call stacks. */
int  tf_trace_read_frames(tf_trace *tr, uint32_t proc, uint32_t thread, uint64_t first,
                          size_t n, uint64_t *ips, tf_error *err);

#endif
