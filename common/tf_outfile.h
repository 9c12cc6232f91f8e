/* SPDX-License-Identifier: BSD-3-Clause */
/* A file written from start to end through large buffers, optionally by a
 * thread of its own (write-behind): the caller fills one buffer while the
 * other goes to the kernel.  For outputs of hundreds of megabytes made of
 * short records (Paraver traces), whose copy into the page cache costs as
 * much as formatting them.  One thread writes; not for signal handlers. */
#ifndef TF_OUTFILE_H
#define TF_OUTFILE_H

#include <stddef.h>
#include <stdint.h>

#include "tf_error.h"

typedef struct tf_outfile tf_outfile;

/* Creates (truncates) path for writing. */
int  tf_outfile_open(tf_outfile **f, const char *path, tf_error *err);
/* From now on full buffers are written by a thread of f's own; without one
 * (thread creation failing), f goes on writing them itself. */
void tf_outfile_write_behind(tf_outfile *f);
/* Appends n bytes: 0, or -1 with errno set when a write failed (this one's
 * buffer or an earlier one: with write-behind, errors surface late). */
int  tf_outfile_write(tf_outfile *f, const void *p, size_t n);
/* Bytes appended so far. */
uint64_t tf_outfile_tell(const tf_outfile *f);
/* Writes what is left, closes and frees f: 0, or an error naming the file. */
int  tf_outfile_close(tf_outfile *f, tf_error *err);
/* Closes and frees f, dropping what was not written yet (after an error). */
void tf_outfile_abort(tf_outfile *f);

#endif
