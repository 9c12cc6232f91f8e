/* SPDX-License-Identifier: BSD-3-Clause */
/* Whether a file is an HDF5 file of tracefold's, without trusting it: its
 * bytes are looked at before libhdf5 opens it. */
#ifndef TF_H5_PROBE_H
#define TF_H5_PROBE_H

#include <stdbool.h>

/* Whether path is a regular file with the HDF5 signature where the HDF5
 * format specification puts the superblock; reads a few bytes, needs no
 * libhdf5 (h5_signature.c). */
bool tf_h5_has_signature(const char *path);

/* Whether path is an HDF5 file (its signature where the HDF5 format
 * specification puts the superblock) whose root attribute "format" is
 * format (TF_TRACE_FORMAT, TF_FOLD_FORMAT). */
bool tf_h5_file_has_format(const char *path, const char *format);

/* tf_h5_file_has_format(path, TF_TRACE_FORMAT): a tracefold trace. */
bool tf_h5_is_trace(const char *path);

#endif
