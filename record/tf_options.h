/* SPDX-License-Identifier: BSD-3-Clause */
/* The recorder's options, described once as a table shared by the library
 * (which reads the TRACEFOLD_* environment), `tracefold record` (flags) and
 * the XML configuration reader.  Precedence: flag > environment > file >
 * default.  docs/recorder.md lists the same table for users. */
#ifndef TF_OPTIONS_H
#define TF_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/tf_error.h"

enum tf_sampler_choice { TF_SAMPLER_AUTO, TF_SAMPLER_PERF, TF_SAMPLER_POSIX, TF_SAMPLER_NONE };
enum tf_unwind_choice { TF_UNWIND_LIBUNWIND, TF_UNWIND_FP, TF_UNWIND_NONE };
enum tf_fork_choice { TF_FORK_TRACE, TF_FORK_NONE };
/* Memory sampling: the order of the names in the option table. */
/* Where timer samples are captured (docs/recorder.md, "Kernel capture"). */
enum tf_capture_choice { TF_CAPTURE_AUTO, TF_CAPTURE_KERNEL, TF_CAPTURE_SIGNAL };
enum tf_mem_choice { TF_MEMS_AUTO, TF_MEMS_PEBS, TF_MEMS_IBS, TF_MEMS_SOFTWARE, TF_MEMS_NONE };

/* The numbers first, the strings last: the sampling handler reads a few of
 * the numbers (stats, unwind, stack_depth, jitter_pct), which then share a
 * cache line with the recorder's other state (tf_rec of record/lib/tf_rec.h). */
typedef struct tf_options {
    uint64_t period_ns;
    uint32_t jitter_pct;
    int      sampler;          /* enum tf_sampler_choice */
    int      unwind;           /* enum tf_unwind_choice */
    uint32_t stack_depth;
    bool     stats;            /* report the sampling handler's cost at the end */
    bool     autostart;
    bool     mpi_calls;        /* libtracefold-mpi records MPI calls as events */
    bool     force;            /* an existing trace (a tracefold trace only) is replaced */
    uint64_t buffer_size;      /* bytes per thread */
    uint64_t flush_ns;
    int      signal;           /* 0: chosen at start */
    int      fork;             /* enum tf_fork_choice */
    uint32_t overflow_period;  /* events between two overflow samples */
    int      mem_sampler;      /* enum tf_mem_choice */
    uint32_t ldlat;            /* PEBS load-latency threshold, cycles */
    uint32_t mem_period;       /* PEBS loads or stores between two samples */
    int      capture;          /* enum tf_capture_choice */
    uint64_t kernel_stack;     /* bytes of user stack the kernel copies per sample */
    uint64_t kernel_ring;      /* bytes of each thread's kernel sample ring (a power of two) */
    uint64_t heap_threshold;   /* bytes; allocations from this size are objects, 0: none */
    uint32_t heap_stack_depth; /* frames per allocation call stack */
    uint32_t small_blocks;     /* entries of the small-block log, 0: none */
    char     output[1024];     /* file name pattern: %p pid, %r rank, %h host, %e program */
    char     counters[1024];   /* comma-separated event names */
    char     overflow[1024];   /* counter to sample on ("none": the task clock) */
    char     pmu_sysfs[1024];  /* the kernel's PMU descriptions */
    char     region[1024];     /* functions whose calls are regions, comma-separated; "none" */
    char     alloc_wrapper[1024]; /* the program's allocation wrappers, comma-separated; "none" */
} tf_options;

enum tf_option_type { TF_OPT_STRING, TF_OPT_DURATION, TF_OPT_SIZE, TF_OPT_UINT,
                      TF_OPT_ENUM, TF_OPT_BOOL };

typedef struct tf_option_desc {
    const char *name;          /* XML element and --flag name */
    const char *env;           /* environment variable */
    int         type;          /* enum tf_option_type */
    const char *deflt;         /* default, as text */
    const char *const *choices;/* TF_OPT_ENUM: NULL-terminated names, value = index;
                                  TF_OPT_BOOL: the names written for false, true */
    uint64_t    min, max;      /* numeric bounds */
    const char *help;          /* one line for --help and the docs */
    size_t      offset;        /* of the field in tf_options: char[1024] for
                                  strings, uint64_t for durations and sizes,
                                  uint32_t for UINT, int for ENUM, bool */
} tf_option_desc;

extern const tf_option_desc tf_option_table[];
extern const unsigned tf_option_count;

/* The option named name, or NULL. */
const tf_option_desc *tf_option_find(const char *name);

/* Fills o with every default. */
void tf_options_defaults(tf_options *o);

/* A boolean setting's text: yes/no, on/off, true/false, 1/0 (any case).
 * 0 with *value set, -1 when text is none of them.  The one parser of
 * booleans, also used by the load-time autostart check. */
int tf_parse_bool(const char *text, bool *value);

/* Parses text as a value of option d into o.  Errors say what was expected,
 * without context: callers prefix where the text came from. */
int tf_option_set(tf_options *o, const tf_option_desc *d, const char *text, tf_error *err);

/* As tf_option_set, but a list option (region, alloc-wrapper) given again
 * (again: already set from the same source, a flag or the file) adds its
 * names to the ones it has, comma-separated. */
int tf_option_add(tf_options *o, const tf_option_desc *d, const char *text, bool again,
                  tf_error *err);

/* Applies every TRACEFOLD_* variable set in the environment. */
int tf_options_from_env(tf_options *o, tf_error *err);

/* The value of d in o as text (for passing to the application's environment). */
void tf_option_format(const tf_options *o, const tf_option_desc *d, char *buf, size_t size);

#endif
