/* SPDX-License-Identifier: BSD-3-Clause */
/* What the raw and the synthetic Paraver exports share: building a
 * record's TYPE:VALUE pairs, the pairs of a memory reference, the Paraver
 * types of counters, and the labels of the types and values they use. */
#ifndef TF_PRV_FIELDS_H
#define TF_PRV_FIELDS_H

#include "prv_pcf.h"
#include "prv_reader.h"
#include "trace.h"

/* The pairs of one event record, reused from record to record. */
typedef struct tf_prv_pairs {
    tf_prv_pair *p;
    size_t       n, cap;
} tf_prv_pairs;

int  tf_prv_pairs_add(tf_prv_pairs *ps, uint32_t type, uint64_t value, tf_error *err);
void tf_prv_pairs_free(tf_prv_pairs *ps);

/* The memory reference of a load, store or read-modify-write sample (none
 * for a timer sample): its address under the type of its kind, its level
 * when known, a store hit, a TLB miss, its cost when known, and object
 * (data object id + 1, 0 for none). */
int tf_prv_pairs_memory(tf_prv_pairs *ps, const tf_sample *s, uint64_t object, tf_error *err);

/* Paraver types of n counters: the PAPI preset their name maps to, else
 * 780001000 + index; a type already taken by an earlier counter gives way
 * to the index's.  Each is labelled "(NAME) NAME [UNIT]" (units may be
 * NULL). */
int tf_prv_counter_types(tf_pcf *pcf, const char *const *names, const char *const *units,
                         uint32_t n, uint32_t *types, tf_error *err);

/* Labels of the memory-reference types with their value labels (levels,
 * hits, no object), the sampled instruction address, and the states. */
int tf_prv_label_samples(tf_pcf *pcf, tf_error *err);

/* A routine type and a line type with their values: 0 End, 1 Unresolved,
 * then functions[i] and lines[i] at i + 2. */
int tf_prv_label_sites(tf_pcf *pcf, uint32_t fn_type, const char *fn_label, uint32_t line_type,
                       const char *line_label, const char *const *functions, size_t nfn,
                       const char *const *lines, size_t nline, tf_error *err);

/* The data objects of every process of a trace, found by address.  Under
 * 32000007 each distinct label is one value, from 1 in order of first use
 * over all processes (0 is "no object"): an object's name, else "object
 * ID (SIZE bytes at CALLSITE)".  Named by family (extract/object_names.h),
 * a temporary allocated anew every iteration is one value in every
 * process, as it is one row of objects.csv, and the .pcf lists families,
 * not allocations. */
typedef struct tf_prv_objects {
    const tf_trace *tr;
    uint32_t      **order;   /* per process: object indices by start address */
    uint32_t      **value;   /* per process: each object's value */
} tf_prv_objects;

/* Indexes and labels the objects of tr: object i of process p labelled
 * names[p][i] where names, names[p] and names[p][i] are not NULL (the names
 * every other output gives, extract/object_names.h, which need the
 * binaries' debug information), else by its size and recorded site. */
int tf_prv_objects_init_named(tf_prv_objects *o, tf_pcf *pcf, const tf_trace *tr,
                              char **const *names, tf_error *err);
/* The value of the object of process proc holding addr at time t (at any
 * time when t is TF_NOTIME), 0 when none. */
uint64_t tf_prv_objects_find(const tf_prv_objects *o, uint32_t proc, uint64_t addr, uint64_t t);
void tf_prv_objects_free(tf_prv_objects *o);

/* Values of routines and lines start here (0 ends, 1 is unresolved). */
#define TF_PRV_FIRST_SITE 2u

#endif
