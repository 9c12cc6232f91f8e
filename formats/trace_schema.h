/* SPDX-License-Identifier: BSD-3-Clause */
/* The layout of a version-2 trace, defined once for the output and the
 * reader: group, dataset and attribute names, and the record tables as data
 * (field name, place in the C struct, width), from which both the HDF5
 * compound types and the packing code are derived.  Internal to formats/;
 * users read docs/trace-format.md. */
#ifndef TF_TRACE_SCHEMA_H
#define TF_TRACE_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hdf5.h>

#include "trace.h"

/* Root attributes. */
#define TF_ATTR_FORMAT       "format"
#define TF_ATTR_VERSION      "version"
#define TF_ATTR_CLOCK        "clock"
#define TF_ATTR_TIME_UNIT    "time_unit"
#define TF_ATTR_HOST         "host"
#define TF_ATTR_COMMAND_LINE "command_line"
#define TF_ATTR_PRODUCER     "producer"
#define TF_ATTR_START_TIME   "start_time"
#define TF_ATTR_COMPLETE     "complete"
/* The routines the recording named as allocation wrappers (record option
 * alloc-wrapper), comma-separated; absent: none (older traces too). */
#define TF_ATTR_ALLOC_WRAPPERS "alloc_wrappers"
#define TF_TIME_UNIT         "ns"

/* Process and thread attributes. */
#define TF_ATTR_PID        "pid"
#define TF_ATTR_RANK       "rank"
#define TF_ATTR_NRANKS     "nranks"
#define TF_ATTR_EXECUTABLE "executable"
#define TF_ATTR_BUILD_ID   "build_id"
#define TF_ATTR_TID        "tid"
/* Records the recorder lost because the thread's buffer was full (absent:
 * none, or a producer that never loses any). */
#define TF_ATTR_DROPPED_EVENTS  "dropped_events"
#define TF_ATTR_DROPPED_SAMPLES "dropped_samples"
/* Process: blocks below heap-threshold the recorder did not attribute
 * (absent: none, or a producer without a small-block log): past the log's
 * cap (small_blocks_cap, option small-blocks), and refused by a full
 * thread ring (a burst faster than the writer). */
#define TF_ATTR_SMALL_CAP       "small_blocks_cap"
#define TF_ATTR_SMALL_PAST_CAP  "small_blocks_past_cap"
#define TF_ATTR_SMALL_RING_FULL "small_blocks_ring_full"

/* Groups and plain datasets: /strings, /process/<n>/thread/<m>. */
#define TF_DSET_STRINGS  "strings"
#define TF_GROUP_PROCESS "process"
#define TF_GROUP_THREAD  "thread"
#define TF_DSET_FRAMES   "frames"
/* The counter-values member that ends event and sample records. */
#define TF_MEMBER_COUNTERS "counters"

/* One unsigned integer field of a record. */
typedef struct tf_field {
    const char *name;
    size_t      offset;   /* in the C struct */
    size_t      size;     /* 1, 2, 4 or 8 bytes */
    bool        string;   /* a string id, which must be below the number of strings */
} tf_field;

typedef struct tf_table_schema {
    const char     *name;          /* dataset name */
    const tf_field *fields;
    size_t          nfields;
    size_t          struct_size;   /* sizeof the C record */
    bool            has_counters;  /* records end with the process's counter values */
} tf_table_schema;

extern const tf_table_schema tf_schema_events, tf_schema_samples, tf_schema_counters,
    tf_schema_modules, tf_schema_objects, tf_schema_symbols;

/* Bytes of one packed row, counter values included. */
size_t tf_schema_row_size(const tf_table_schema *t, uint32_t ncounters);
/* The packed compound type: little-endian for the file, native for memory
 * (identical on little-endian hosts, so reads and writes convert nothing). */
hid_t  tf_schema_type(const tf_table_schema *t, uint32_t ncounters, bool file);
/* Struct records (and counter rows, or NULL for "none read") to packed rows. */
void   tf_schema_pack(const tf_table_schema *t, uint32_t ncounters, const void *records,
                      const uint64_t *counters, size_t n, unsigned char *rows);
/* Packed rows back to struct records and counter rows (counters may be NULL). */
void   tf_schema_unpack(const tf_table_schema *t, uint32_t ncounters, const unsigned char *rows,
                        size_t n, void *records, uint64_t *counters);
/* Finds the first string-id field of n records that is not below nstrings;
 * false when all are valid, else true with its row, field name and value. */
bool   tf_schema_bad_string(const tf_table_schema *t, const void *records, size_t n,
                            size_t nstrings, size_t *row, const char **field, uint32_t *id);
/* Checks a stored dataset type against the table: every field an unsigned
 * integer member of its width, the counters an array of ncounters.  Extra
 * members are allowed.  On mismatch writes the reason to why. */
bool   tf_schema_check_type(const tf_table_schema *t, uint32_t ncounters, hid_t stored,
                            char *why, size_t whylen);

#endif
