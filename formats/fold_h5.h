/* SPDX-License-Identifier: BSD-3-Clause */
/* The layout of fold.h5 (docs/fold-format.md), defined once: the paths of
 * its groups, its tables as data (group, column names, stored types,
 * which columns files of earlier versions lack) and the one output and
 * one reader of those tables, so that no module spells a path or a
 * column of fold.h5 itself.
 *
 * A table is a group of 1-D datasets of one length, one per column.  Its
 * columns are declared here (fold_h5_schema.c); a module binds them to
 * its own structs by name (tf_fold_h5_binding: where each column's value
 * lives in memory), either one struct per row (the fold's instances, the
 * analysis' phases) or one array per column (the report's analysis).  The
 * output writes every column of the table, failing when the binding lacks
 * one; the reader reads the bound columns, each of the length of the
 * first, and fails naming the dataset when one is missing (unless files
 * of earlier versions lack it), not 1-D, or of another length. */
#ifndef TF_FOLD_H5_H
#define TF_FOLD_H5_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/tf_error.h"
#include "h5util.h"

/* ---- paths ---------------------------------------------------------------- */

/* Room for any path below. */
#define TF_FOLD_H5_PATH 96

/* "region/<r>" */
const char *tf_fold_h5_region_path(char buf[TF_FOLD_H5_PATH], uint32_t region);
/* "region/<r>/group/<g>", then "/below" when below is not NULL
 * ("analysis", "points"). */
const char *tf_fold_h5_group_path(char buf[TF_FOLD_H5_PATH], uint32_t region, uint32_t group,
                                  const char *below);

/* The analysis of a group, inside its group. */
#define TF_FOLD_H5_ANALYSIS "analysis"

/* ---- tables ----------------------------------------------------------------- */

enum tf_fold_h5_stored { TF_FOLD_H5_INT64, TF_FOLD_H5_UINT64, TF_FOLD_H5_DOUBLE,
                         TF_FOLD_H5_STRINGS };

typedef struct tf_fold_h5_column {
    const char            *name;
    enum tf_fold_h5_stored type;
    bool                   optional;   /* absent from files written before it: read as 0
                                        * (rows) or NULL (columns) */
} tf_fold_h5_column;

/* A dataset of a group that is not a column of its table: a vector or a
 * row-major matrix whose extents the caller knows (the counters, the
 * grid, the rows of the table). */
typedef struct tf_fold_h5_dataset {
    const char            *name;
    enum tf_fold_h5_stored type;
    unsigned               rank;       /* 1 or 2 */
    bool                   optional;   /* absent from files written before it, or written
                                        * only where it has a meaning (a ratio needs an
                                        * instructions counter) */
} tf_fold_h5_dataset;

/* A group of fold.h5: the columns of its table (none for a group that is
 * not a table, such as the root or a region), its attributes (scalars of
 * a stored type; TF_FOLD_H5_STRINGS: one string) and its other
 * datasets. */
typedef struct tf_fold_h5_table {
    const char               *group;   /* below the region's or group's group; for a group
                                        * that is not a table, its path as docs name it */
    const tf_fold_h5_column  *columns;
    size_t                    ncolumns;
    bool                      optional;   /* the whole group absent from earlier files */
    const tf_fold_h5_column  *attrs;
    size_t                    nattrs;
    const tf_fold_h5_dataset *datasets;
    size_t                    ndatasets;
} tf_fold_h5_table;

/* The groups that are not tables: the root /, /parameters, /region/<r>,
 * /region/<r>/group/<g>, its analysis, and /machine (the profile). */
extern const tf_fold_h5_table tf_fold_h5_root, tf_fold_h5_parameters, tf_fold_h5_region,
    tf_fold_h5_group, tf_fold_h5_analysis, tf_fold_h5_machine_profile;
/* /region/<r>/instances, /region/<r>/group/<g>/changes */
extern const tf_fold_h5_table tf_fold_h5_instances, tf_fold_h5_changes;
/* /region/<r>/group/<g>/analysis/... */
extern const tf_fold_h5_table tf_fold_h5_routines, tf_fold_h5_objects, tf_fold_h5_windows,
    tf_fold_h5_phases, tf_fold_h5_streams, tf_fold_h5_levels, tf_fold_h5_advice;

/* Where a column's values live in memory. */
enum tf_fold_h5_mem {
    /* one struct per row: the member at offset, converted to the stored type */
    TF_FOLD_H5_U8, TF_FOLD_H5_U16, TF_FOLD_H5_U32, TF_FOLD_H5_I32, TF_FOLD_H5_INT,
    TF_FOLD_H5_U64, TF_FOLD_H5_I64, TF_FOLD_H5_SIZE, TF_FOLD_H5_BOOL, TF_FOLD_H5_F64,
    TF_FOLD_H5_INDEX,       /* uint32_t, UINT32_MAX (none) stored as -1 */
    TF_FOLD_H5_TEXT,        /* char * (NULL stored as ""; read: malloc'ed) */
    TF_FOLD_H5_TEXT_ARRAY,  /* char[size] inside the struct */
    TF_FOLD_H5_NAMED,       /* uint8_t enum stored as the text `name` gives, read back
                             * through `parse` (without one: write only) */
    TF_FOLD_H5_COMPUTED,    /* int64_t from `value` of the whole row (write only) */
    /* one array per column: the member at offset is a pointer to the
     * column in its stored type (int64_t *, uint64_t *, double *, or
     * char ** whose strings live in the same block), malloc'ed by the
     * reader (NULL for an optional column the file lacks) */
    TF_FOLD_H5_COLUMN,
};

typedef struct tf_fold_h5_field {
    const char         *column;   /* its name in the table */
    enum tf_fold_h5_mem mem;
    size_t              offset;
    const char *(*name)(uint8_t value);       /* TF_FOLD_H5_NAMED */
    int64_t (*value)(const void *row);        /* TF_FOLD_H5_COMPUTED */
    int (*parse)(const char *name);           /* TF_FOLD_H5_NAMED: the value, -1 none */
    size_t size;                              /* TF_FOLD_H5_TEXT_ARRAY: the array's */
} tf_fold_h5_field;

typedef struct tf_fold_h5_binding {
    const tf_fold_h5_table *table;
    const tf_fold_h5_field *fields;
    size_t                  nfields;
    size_t                  row_size;   /* sizeof the row struct; 0: one array per column */
} tf_fold_h5_binding;

#define TF_FOLD_H5_BINDING(tbl, list, row) \
    { .table = &(tbl), .fields = list, .nfields = sizeof list / sizeof list[0], .row_size = row }

/* Creates loc/<table's group> with every column of the table from the n
 * rows at `rows` (row_size apart); *group (may be NULL) gets the group,
 * open, for the caller's attributes and matrices. */
int tf_fold_h5_table_write(int64_t loc, const tf_fold_h5_binding *b, const void *rows,
                           size_t n, int64_t *group, tf_error *err);

/* Reads the bound columns of loc/<table's group>.  *n is the length
 * expected (SIZE_MAX: any) and gets the length read (0 when an optional
 * table is absent).  One struct per row: *(void **)dest gets the rows,
 * calloc'ed (n + 1 of them, also on failure NULL); one array per column:
 * dest is the struct whose members get the columns (those read before a
 * failure stay there for the caller to free).  *missing (may be NULL)
 * gets bit k set when the optional column of field k is absent. */
int tf_fold_h5_table_read(int64_t loc, const tf_fold_h5_binding *b, void *dest, size_t *n,
                          uint32_t *missing, tf_error *err);

/* The attributes of the group at obj (the table's attrs) from the one
 * struct at row, every attribute bound (as the columns of a table). */
int tf_fold_h5_attrs_write(int64_t obj, const tf_fold_h5_binding *b, const void *row,
                           tf_error *err);
/* The bound attributes of the group at obj into the struct at row
 * (strings malloc'ed, the caller's also on failure), each checked to fit
 * its member; *missing (may be NULL) gets bit k set when the optional
 * attribute of field k is absent (its member left as it was). */
int tf_fold_h5_attrs_read(int64_t obj, const tf_fold_h5_binding *b, void *row,
                          uint32_t *missing, tf_error *err);

/* The dataset `name` of group t; NULL, with an internal error naming it,
 * when t declares none (a caller's slip, not a damaged file). */
const tf_fold_h5_dataset *tf_fold_h5_dataset_of(int64_t loc, const tf_fold_h5_table *t,
                                                const char *name, tf_error *err);
/* Writes dataset `name` of group t (one of t's datasets) at loc: rows
 * values (cols 0) or a rows x cols matrix of the dataset's stored type
 * (strings: const char *const *). */
int tf_fold_h5_dataset_write(int64_t loc, const tf_fold_h5_table *t, const char *name,
                             const void *data, size_t rows, size_t cols, tf_error *err);
/* Reads dataset `name` of group t at loc into *data, malloc'ed (strings:
 * char ** into one block), requiring *rows values (SIZE_MAX: any; set to
 * the count read), or *rows x cols (a matrix without rows or columns may
 * come back as rows x 0); *data NULL and 0 returned when an optional
 * dataset is absent. */
int tf_fold_h5_dataset_read(int64_t loc, const tf_fold_h5_table *t, const char *name,
                            size_t *rows, size_t cols, void **data, tf_error *err);

/* ---- a group's curves: [C][G] matrices of /region/<r>/group/<g> ----------- */

/* In this order; ratio only where the group has an instructions counter. */
enum tf_fold_h5_curve { TF_FOLD_H5_CURVE, TF_FOLD_H5_CURVE_LO, TF_FOLD_H5_CURVE_HI,
                        TF_FOLD_H5_RATE, TF_FOLD_H5_RATE_LO, TF_FOLD_H5_RATE_HI,
                        TF_FOLD_H5_RATIO, TF_FOLD_H5_CURVES };
extern const char *const tf_fold_h5_curve_names[TF_FOLD_H5_CURVES];

/* ---- the folded points: /region/<r>/group/<g>/points ----------------------- */

#define TF_FOLD_H5_POINTS "points"

/* Its columns, in this order, with their types in memory: instance
 * (uint32_t), x (float), kind (uint8_t), ip (uint64_t), addr (uint64_t),
 * level (uint8_t), weight (uint32_t), y (float, [C][P]). */
enum { TF_FOLD_H5_POINT_COLUMNS = 8 };

/* Creates loc/points for n points of nc counters and opens the slab output of
 * each column (formats/h5util.h, tf_h5_slabs: written a part at a time,
 * closed by the caller; those not opened are NULL).  *group gets the
 * points' group, which the caller closes after the outputs (a column's
 * dataset is created at its first write). */
int tf_fold_h5_points_open(int64_t loc, size_t n, uint32_t nc,
                           tf_h5_slabs *slabs[TF_FOLD_H5_POINT_COLUMNS], int64_t *group,
                           tf_error *err);
/* Reads the columns of loc/points, n points of nc counters, each into
 * *out[k], malloc'ed in its memory type; each dataset's shape and storage
 * checked first (tf_h5_check_extent). */
int tf_fold_h5_points_read(int64_t loc, size_t n, uint32_t nc,
                           void **out[TF_FOLD_H5_POINT_COLUMNS], tf_error *err);

/* The analysis' columns of the same points (analysis/points, in the
 * order of the folded points): routine, line, object (int32_t, -1: none)
 * and offset (uint64_t). */
enum tf_fold_h5_analysis_point { TF_FOLD_H5_POINT_ROUTINE, TF_FOLD_H5_POINT_LINE,
                                 TF_FOLD_H5_POINT_OBJECT, TF_FOLD_H5_POINT_OFFSET,
                                 TF_FOLD_H5_ANALYSIS_POINT_COLUMNS };

/* Creates loc/points for n points and opens the slab output of each column,
 * as tf_fold_h5_points_open. */
int tf_fold_h5_analysis_points_open(int64_t loc, size_t n,
                                    tf_h5_slabs *slabs[TF_FOLD_H5_ANALYSIS_POINT_COLUMNS],
                                    int64_t *group, tf_error *err);
/* Opens loc/points to read: *points gets the group (tf_h5_close), *n the
 * length, the same in every column. */
int tf_fold_h5_analysis_points_find(int64_t loc, int64_t *points, size_t *n, tf_error *err);
/* Rows [at, at + n) of column c of the group points into data (room for
 * n of the column's type). */
int tf_fold_h5_analysis_points_read(int64_t points, enum tf_fold_h5_analysis_point c, size_t at,
                                    size_t n, void *data, tf_error *err);

/* ---- the machine profile: /machine ----------------------------------------- */

/* Columns of /machine/levels: size_bytes, hit_ns, miss_penalty_ns,
 * associativity, one row per cache level, L1 first. */
enum { TF_FOLD_H5_LEVEL_COLUMNS = 4, TF_FOLD_H5_MAX_LEVELS = 8 };

typedef struct tf_fold_h5_machine {
    const char *source;      /* the profile's path */
    int64_t     line_bytes, page_bytes;
    double      memory_ns;
    size_t      nlevels;
    double      levels[TF_FOLD_H5_MAX_LEVELS][TF_FOLD_H5_LEVEL_COLUMNS];
} tf_fold_h5_machine;

/* Adds /machine to the fold.h5 at path. */
int tf_fold_h5_machine_write(const char *path, const tf_fold_h5_machine *m, tf_error *err);
/* The cache sizes of /machine/levels (at most max, positive and
 * increasing) into bytes; *n 0 when the file has no machine. */
int tf_fold_h5_machine_read_caches(const char *path, double *bytes, size_t max, size_t *n,
                                   tf_error *err);

#endif
