/* SPDX-License-Identifier: BSD-3-Clause */
/* Small HDF5 helpers for the stages that keep their own groups and files
 * (synth's /truth, fold's FOLD.h5, render) so they need no HDF5 boilerplate.
 *
 * HDF5 object ids travel as int64_t: hid_t is int64_t since HDF5 1.10, and
 * keeping hdf5.h out of this header spares its users HDF5's include flags.
 * Every function reports failure through tf_error with the file name and the
 * object's path ("fold.h5: /region/main/curves: ..."), returns a negative
 * code, and never prints: tf_h5_silence() turns HDF5's own error-stack
 * printing off, and every entry point here calls it. */
#ifndef TF_H5UTIL_H
#define TF_H5UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/tf_error.h"

/* Elements per chunk of a large 1-D dataset: slabs of whole chunks
 * (tf_h5_slabs_write) are written once each. */
#define TF_H5_CHUNK_ELEMENTS 65536

/* Element types of the numeric datasets. */
enum tf_h5_type { TF_H5_DOUBLE, TF_H5_INT64, TF_H5_UINT64, TF_H5_INT32 };

/* Stops HDF5 from printing its error stack to stderr (process-wide). */
void tf_h5_silence(void);
/* Keeps HDF5 from closing, at exit, what is still open: for a program that
 * closes every file itself.  A file whose close failed (a full disk: the
 * flush of its metadata fails) stays open inside HDF5 1.10, and closing it
 * again at exit crashes in H5F__close_cb.  Before any other HDF5 call. */
void tf_h5_no_exit_cleanup(void);

/* Creates (truncating) or opens a plain HDF5 file. */
int tf_h5_file_create(const char *path, int64_t *file, tf_error *err);
int tf_h5_file_open(const char *path, bool writable, int64_t *file, tf_error *err);
/* Closes any id these helpers return (file, group); ignores ids < 0. */
void tf_h5_close(int64_t id);

/* True when loc has an object at path ("a/b/c", each level checked). */
bool tf_h5_exists(int64_t loc, const char *path);
/* True when obj has the attribute name (files of earlier versions lack some). */
bool tf_h5_attr_exists(int64_t obj, const char *name);
/* Creates path and any missing parent groups; *group (may be NULL) gets the
 * opened last group, to close with tf_h5_close. */
int tf_h5_group_create(int64_t loc, const char *path, int64_t *group, tf_error *err);
int tf_h5_group_open(int64_t loc, const char *path, int64_t *group, tf_error *err);

/* Scalar attributes of a file, group or dataset (replaced when present).
 * Readers convert between integer types and fail when the value does not
 * fit; strings are malloc'ed UTF-8, written as fixed-length strings (the
 * terminating zero included), read fixed-length or, from version-1 files,
 * variable-length (formats/h5_vlen1.h). */
int tf_h5_attr_write_string(int64_t obj, const char *name, const char *value, tf_error *err);
int tf_h5_attr_write_int64(int64_t obj, const char *name, int64_t value, tf_error *err);
int tf_h5_attr_write_uint64(int64_t obj, const char *name, uint64_t value, tf_error *err);
int tf_h5_attr_write_double(int64_t obj, const char *name, double value, tf_error *err);
int tf_h5_attr_read_string(int64_t obj, const char *name, char **value, tf_error *err);
int tf_h5_attr_read_int64(int64_t obj, const char *name, int64_t *value, tf_error *err);
int tf_h5_attr_read_uint64(int64_t obj, const char *name, uint64_t *value, tf_error *err);
int tf_h5_attr_read_double(int64_t obj, const char *name, double *value, tf_error *err);

/* Numeric datasets: tf_h5_write_array a 1-D one of n elements,
 * tf_h5_write_matrix a 2-D one of rows × cols, 2-D even when cols (or
 * rows) is 0, and then data is not read.  Datasets of more than a few
 * thousand elements are chunked and deflate-compressed, every chunk
 * stored, even one of a single value throughout (no address, no object),
 * which deflate makes a few hundred bytes: a reader refuses a chunk that
 * is not stored, which libhdf5 would read as fill values no byte of the
 * file pays for (tf_h5_check_extent).  The reader converts
 * to the requested type and malloc's *data (NULL when empty); *cols gets 0
 * for a 1-D dataset, and for a 2-D one of no columns. */
int tf_h5_write_array(int64_t loc, const char *name, enum tf_h5_type type, const void *data,
                      size_t n, tf_error *err);
int tf_h5_write_matrix(int64_t loc, const char *name, enum tf_h5_type type, const void *data,
                       size_t rows, size_t cols, tf_error *err);
/* Either with HDF5 types of the caller's (hid_t) in the file and in
 * memory, for element types tf_h5_type does not name (float32, uint8):
 * rank 1 (n = rows, cols unused) or 2; compress false keeps the dataset
 * contiguous and uncompressed, for data deflate cannot shrink. */
int tf_h5_write_typed(int64_t loc, const char *name, int64_t file_type, int64_t mem_type,
                      const void *data, int rank, size_t rows, size_t cols, bool compress,
                      tf_error *err);
/* A dataset written in consecutive slabs, first to last, for data that is
 * never whole in memory (the points of a fold, sent by the ranks in turn;
 * a column worked out a chunk at a time).  Rank 1: n elements, slabs of
 * them; rank 2: rows × n, each slab len columns of every row.  Types and
 * compress as tf_h5_write_typed (a 2-D one stays contiguous); the file
 * holds the same as tf_h5_write_typed's would.  The dataset is
 * created at the first write.  close with err NULL abandons it (after a
 * failure elsewhere); with err it fails when fewer than n elements were
 * written.  Writes more than n fail. */
typedef struct tf_h5_slabs tf_h5_slabs;
int tf_h5_slabs_open(int64_t loc, const char *name, int64_t file_type, int64_t mem_type,
                     int rank, size_t rows, size_t n, bool compress, tf_h5_slabs **s,
                     tf_error *err);
/* The same for a 1-D dataset of n elements, as tf_h5_write_array's. */
int tf_h5_slabs_open_array(int64_t loc, const char *name, enum tf_h5_type type, size_t n,
                           tf_h5_slabs **s, tf_error *err);
/* The next len elements (rank 2: of each row, row r's at data + r · stride
 * elements; stride unused for rank 1). */
int tf_h5_slabs_write(tf_h5_slabs *s, const void *data, size_t len, size_t stride,
                      tf_error *err);
int tf_h5_slabs_close(tf_h5_slabs *s, tf_error *err);

int tf_h5_read_array(int64_t loc, const char *name, enum tf_h5_type type, void **data,
                     size_t *rows, size_t *cols, tf_error *err);

/* The length of a 1-D numeric dataset, and rows [at, at + n) of it read
 * as type into data (room for n), for columns too long to hold whole
 * (fold.h5's per-point columns); the same conversions as
 * tf_h5_read_array. */
int tf_h5_array_length(int64_t loc, const char *name, size_t *n, tf_error *err);
int tf_h5_read_slab(int64_t loc, const char *name, enum tf_h5_type type, size_t at, size_t n,
                    void *data, tf_error *err);

/* A 1-D table of UTF-8 strings (NULL entries are written as ""), stored as
 * one 1-D dataset of unsigned bytes: each string followed by a zero byte,
 * so the count is the number of zero bytes (docs/trace-format.md, "Strings";
 * no variable-length strings, whose heap libhdf5 does not check).  The
 * reader also takes fixed-length strings, and version-1 variable-length
 * ones (formats/h5_vlen1.h).  It returns one malloc'ed array of n pointers
 * whose strings live in the same block: free(*strings) releases
 * everything. */
int tf_h5_write_strings(int64_t loc, const char *name, const char *const *strings, size_t n,
                        tf_error *err);
int tf_h5_read_strings(int64_t loc, const char *name, char ***strings, size_t *n,
                       tf_error *err);

/* Checks, before anything is allocated or read, that a dataset of
 * `elements` elements of esize bytes (as stored) is no more than its
 * storage can hold: contiguous or compact data no more than the file's
 * size; chunked data no more than the bytes of its stored chunks times
 * deflate's largest ratio (1032, or 1 without deflate), and every chunk
 * of the extent stored (libhdf5 reads one that is not as fill values).
 * Filters tracefold does not write are refused.
 * Fails naming the file and the dataset. */
int tf_h5_check_extent(int64_t dset, uint64_t elements, size_t esize, tf_error *err);

/* Records an error naming loc's file and the object loc/name (name may be
 * NULL), then the formatted text: "FILE: /group/name: TEXT".  Returns -code. */
int tf_h5_fail(tf_error *err, int code, int64_t loc, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
