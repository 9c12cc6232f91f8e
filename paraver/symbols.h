/* SPDX-License-Identifier: BSD-3-Clause */
/* Routines and lines of code addresses for the Paraver exports: one
 * symboliser per process of a trace, made when first needed (the trace's
 * own symbols table first, then the binaries' debug information). */
#ifndef TF_PARAVER_SYMBOLS_H
#define TF_PARAVER_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>

#include "extract/alloc_site.h"
#include "formats/prv_export.h"
#include "extract/symbolize.h"
#include "common/tf_error.h"
#include "formats/trace.h"

typedef struct tf_prv_symbols {
    const tf_trace *tr;            /* may be NULL: nothing is known */
    tf_symbolizer **per_proc;
    const tf_alloc_rules *alloc_rules;   /* heap objects' call sites (NULL: the built-in
                                            rules only); the caller's, set after init */
    struct tf_object_naming *namings;    /* per process, while object names are out */
} tf_prv_symbols;

int  tf_prv_symbols_init(tf_prv_symbols *sb, const tf_trace *tr, tf_error *err);
void tf_prv_symbols_free(tf_prv_symbols *sb);

/* The routine and line of an address (innermost frame, inlined functions
 * included); "" and 0 when unknown.  A module without symbols gives its
 * file name as the routine.  arg: a tf_prv_symbols (the source callback of
 * tf_prv_export_raw). */
int tf_prv_symbols_resolve(void *arg, uint32_t proc, uint64_t ip, bool return_address,
                           tf_prv_source *src, tf_error *err);

/* The names of every process's data objects (extract/object_names.h), with
 * their symbolisers: (*names)[p][i] for object i of process p, the labels
 * the Paraver exports give (tf_prv_objects_init_named); freed with
 * tf_prv_symbols_object_names_free. */
int  tf_prv_symbols_object_names(tf_prv_symbols *sb, char ****names, tf_error *err);
void tf_prv_symbols_object_names_free(tf_prv_symbols *sb, char ***names);

#endif
