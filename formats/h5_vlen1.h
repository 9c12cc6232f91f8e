/* SPDX-License-Identifier: BSD-3-Clause */
/* Variable-length strings of files written before format version 2 (trace
 * and fold version 1), read without libhdf5's global-heap code.
 *
 * A variable-length string is stored as a heap id (length, address of a
 * global heap collection, object index) whose text lives in that
 * collection.  libhdf5 1.10 trusts both: a damaged id or collection makes
 * H5HG_read copy from a wild pointer or H5HG_protect loop for ever.  Here
 * the ids are taken as they are stored (a conversion to an opaque type that
 * copies the raw bytes, so HDF5 never follows them), and the collection is
 * read with pread and walked with every size checked against the
 * collection and the file (HDF5 File Format Specification 3.0, section
 * III.E "Global Heap", and section IV.A.2.d for the id's layout).
 * Internal to formats/. */
#ifndef TF_H5_VLEN1_H
#define TF_H5_VLEN1_H

#include <stddef.h>

#include <hdf5.h>

#include "common/tf_error.h"

/* A scalar variable-length string attribute of obj: *value malloc'ed. */
int tf_h5_vlen1_attr(hid_t obj, hid_t attr, const char *name, char **value, tf_error *err);
/* The n variable-length strings of a 1-D dataset, packed as
 * tf_h5_read_strings returns them (free(*strings) frees all). */
int tf_h5_vlen1_dataset(hid_t loc, const char *name, hid_t dset, size_t n, char ***strings,
                        tf_error *err);

#endif
