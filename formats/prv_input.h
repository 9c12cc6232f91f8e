/* SPDX-License-Identifier: BSD-3-Clause */
/* The bytes of a .prv file: plain text, or a gzip stream (recognised by its
 * magic bytes, whatever the name) whose end is checked as gzip defines it
 * (RFC 1952 section 2.3: every member ends with the CRC-32 and the length of
 * its data), so a cut-short or damaged .prv.gz fails instead of reading as
 * a shorter trace.  Only regular files are read: a device or a pipe has no
 * end that could be checked. */
#ifndef TF_PRV_INPUT_H
#define TF_PRV_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "common/tf_error.h"

typedef struct tf_prv_input tf_prv_input;

/* Opens path (messages name it); TF_ERR_NOTFOUND when it does not exist,
 * TF_ERR_FORMAT when it is not a regular file. */
int  tf_prv_input_open(tf_prv_input **in, const char *path, tf_error *err);
void tf_prv_input_close(tf_prv_input *in);

/* Fills up to size bytes of text: *got > 0, or 0 at the end of a complete
 * input.  On error err->msg holds what went wrong without the file name
 * ("the gzip stream is cut short ..."), for the caller to place. */
int  tf_prv_input_read(tf_prv_input *in, char *buf, size_t size, size_t *got, tf_error *err);

/* The size of the file on disk (compressed for gzip). */
uint64_t tf_prv_input_file_size(const tf_prv_input *in);

#endif
