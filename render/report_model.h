/* SPDX-License-Identifier: BSD-3-Clause */
/* What one report needs, independent of HDF5 and of the drawing back end:
 * per folded region (and group) one page pair, the triple timeline and the
 * tables.  The loader (report_load.c) fills it from a fold.h5; tests and
 * benchmarks fill it directly.  Every array is malloc'ed and owned by the
 * report; tf_report_free releases all of it.
 *
 * Time is normalised: x in [0, 1] over the synthetic iteration, whose mean
 * duration (duration_ns) turns it into milliseconds on the axes. */
#ifndef TF_REPORT_MODEL_H
#define TF_REPORT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/tf_error.h"

/* No routine, no object. */
#define TF_REPORT_NONE UINT32_MAX

/* A phase of the synthetic iteration: span, dominant routine, most observed
 * line; labelled `routine[line]` in the code-line panel. */
typedef struct tf_report_phase {
    char     label[16];    /* "4.1" as the fold's analysis numbers it; "" numbers by position */
    double   x0, x1;       /* normalised span */
    uint32_t routine;      /* index in routines, or TF_REPORT_NONE */
    uint32_t line;         /* most observed line, 0 when unknown */
    double   bandwidth;    /* MB/s summed over its linear streams (or its nearest
                            * enclosing phase's), NaN when none has any */
} tf_report_phase;

/* Whether a and b are sub-phases of one phase ("4.1" and "4.2"). */
bool tf_report_phase_siblings(const tf_report_phase *a, const tf_report_phase *b);
/* Whether ph is a sub-phase ("4.1"). */
bool tf_report_phase_is_sub(const tf_report_phase *ph);

/* One folded sample of the executing code. */
typedef struct tf_report_code_point {
    float    x;            /* normalised time */
    uint32_t routine;      /* index in routines */
    uint32_t line;         /* source line (> 0) */
} tf_report_code_point;

enum tf_report_access { TF_REPORT_LOAD = 0, TF_REPORT_STORE = 1 };

enum tf_report_mem_flags {
    /* The address came from decoding the instruction (no cost known). */
    TF_REPORT_MEM_SOFTWARE = 1u << 0,
    /* addr is an offset inside its object, not an absolute address (folds
     * that merge processes, whose layouts differ under ASLR). */
    TF_REPORT_MEM_OFFSET = 1u << 1,
};

/* One folded memory reference. */
typedef struct tf_report_mem_point {
    uint64_t addr;         /* address, or offset with TF_REPORT_MEM_OFFSET */
    float    x;            /* normalised time */
    uint32_t object;       /* index in objects, or TF_REPORT_NONE */
    uint32_t cost;         /* cycles, 0 when unknown */
    uint8_t  access;       /* enum tf_report_access */
    uint8_t  flags;        /* enum tf_report_mem_flags */
    uint8_t  level;        /* memory level that served it (enum tf_mem_level), 255 unknown */
} tf_report_mem_point;

typedef struct tf_report_object {
    char    *name;
    char    *kind;         /* "heap", "static", "user", ... */
    uint64_t start, size;  /* address range [start, start + size) */
} tf_report_object;

/* A curve over the synthetic iteration with an optional confidence band. */
typedef struct tf_report_series {
    char   *name;          /* counter name ("L1D misses") */
    size_t  n;
    double *x;             /* normalised time, increasing */
    double *y;
    double *lo, *hi;       /* band, both NULL when there is none */
} tf_report_series;

/* A counter given as its total per iteration: one that moves in one step
 * per instance (a user counter the program adds to once per iteration) has
 * no rate within the iteration to draw. */
typedef struct tf_report_total {
    char   *name;
    double  per_iteration; /* mean over the group's folded instances */
} tf_report_total;

/* A table of text cells, formatted by whoever fills the model. */
typedef struct tf_report_table {
    char   *title;
    char   *note;          /* shown under the title, e.g. why it is empty; may be NULL */
    size_t  ncols, nrows;
    char  **head;          /* ncols */
    char  **cells;         /* nrows * ncols, row-major */
} tf_report_table;

enum tf_report_tables {
    TF_REPORT_TABLE_PHASES, TF_REPORT_TABLE_LEVELS, TF_REPORT_TABLE_OBJECTS,
    TF_REPORT_TABLE_STREAMS, TF_REPORT_TABLE_ADVICE, TF_REPORT_NTABLES
};

#define TF_REPORT_CACHES 6
/* The memory levels with a name (enum tf_mem_level 0 .. 9). */
#define TF_REPORT_LEVELS 10

typedef struct tf_report_page {
    char  *title;          /* "region main" or "region main, group 2" */
    char  *subtitle;       /* source trace, instances used, ... */
    double duration_ns;    /* mean duration of the synthetic iteration */

    size_t  nroutines;
    char  **routines;      /* index = routine id; colours follow this order */
    char  **routine_files; /* their source files ("" unknown); NULL when none is known */

    size_t           nphases;
    tf_report_phase *phases;

    size_t                ncode;
    tf_report_code_point *code;
    char                 *code_missing;   /* why there are no points, or NULL */
    /* Timer samples in routines where threads wait for others (barriers,
     * idle loops, MPI progress: the analysis's routines/waiting), drawn
     * apart as waiting rather than as code lines. */
    size_t                nwaiting;
    float                *waiting;        /* their normalised times */
    double                waiting_share;  /* of the group's symbolised timer samples */

    size_t               nobjects;
    tf_report_object    *objects;
    size_t               nmem;
    tf_report_mem_point *mem;
    char                *mem_missing;
    /* Cache sizes of the machine profile `tracefold fold --machine` stored
     * (/machine/levels), smallest first: reference lines in the bands. */
    size_t               ncaches;
    double               cache_bytes[TF_REPORT_CACHES];

    /* Bottom panel: per-instruction ratios when mips is set, otherwise the
     * rates of the counters that exist (in rates_unit). */
    size_t            nrates;
    tf_report_series *rates;
    char             *rates_unit;          /* "per instruction", "M events/s" */
    tf_report_series *mips;                /* NULL when no instructions counter */
    char             *rates_missing;
    size_t            ntotals;             /* step counters: totals, not rates */
    tf_report_total  *totals;

    tf_report_table tables[TF_REPORT_NTABLES];

    /* Instance durations for the histogram; used[i] false when excluded. */
    size_t  ninstances;
    double *instance_ns;
    bool   *instance_used;
} tf_report_page;

typedef struct tf_report {
    char           *source;  /* the fold.h5 it came from, for captions */
    size_t          npages;
    tf_report_page *pages;
} tf_report;

/* Appends a zeroed page to r; *page points at it (valid until the next add). */
int  tf_report_add_page(tf_report *r, tf_report_page **page, tf_error *err);
/* Sets a table's shape and allocates its (empty) cells; head and cells are
 * then filled with tf_report_strdup'ed strings. */
int  tf_report_table_init(tf_report_table *t, const char *title, size_t ncols, size_t nrows,
                          tf_error *err);
/* Allocates a series of n points, with a band when band is true. */
int  tf_report_series_init(tf_report_series *s, const char *name, size_t n, bool band,
                           tf_error *err);
/* malloc'ed copy of a printf-formatted string, NULL when out of memory. */
char *tf_report_strdup(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Frees everything r owns (r itself is the caller's). */
void tf_report_free(tf_report *r);

/* The legend text of routine i: its name, and when another routine of the
 * page has the same name (C++ overloads, static functions of two files, an
 * Extrae trace's sampled and instrumented tables), what tells them apart:
 * its file's name, else its number among them ("solve (cg.c)", "solve (2)"). */
void tf_report_routine_label(const tf_report_page *p, size_t i, char *buf, size_t len);
/* The legend label of the page's waiting samples, with their share:
 * "waiting (barriers, MPI): 44 % of the samples". */
void tf_report_waiting_label(const tf_report_page *p, char *buf, size_t len);
/* Height 0..1 of waiting sample i in its lane: a fixed spread (golden-ratio
 * steps, 0.15 to 0.85), so that dense spans read as a dark band and
 * isolated samples stay visible, the same on every run. */
double tf_report_waiting_height(size_t i);

/* "NAME: 199999 per iteration", the legend text of a total. */
void tf_report_total_label(const tf_report_total *t, char *buf, size_t len);

/* Mean of a series' values (its y, lo or hi) over [x0, x1]: the grid
 * points inside, the nearest one when none is. */
double tf_report_series_mean(const tf_report_series *s, const double *values, double x0, double x1);

/* "L1", "DRAM", ...: a memory level (enum tf_mem_level) for tables. */
const char *tf_report_level_name(unsigned level);

/* Human sizes for labels and tables ("152 MB", "32 KiB" style, binary units). */
void tf_report_format_size(uint64_t bytes, char *buf, size_t len);

#endif
