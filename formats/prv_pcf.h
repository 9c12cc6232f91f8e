/* SPDX-License-Identifier: BSD-3-Clause */
/* Paraver .pcf files: event-type labels, value labels and state names, read
 * from Extrae traces and written with the traces this project produces. */
#ifndef TF_PRV_PCF_H
#define TF_PRV_PCF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/tf_error.h"

typedef struct tf_pcf tf_pcf;

tf_pcf *tf_pcf_new(void);
void    tf_pcf_free(tf_pcf *pcf);
/* Parses path; a missing file is TF_ERR_NOTFOUND (callers may go on
 * without labels), a malformed line names the file and line. */
int     tf_pcf_read(const char *path, tf_pcf **pcf, tf_error *err);
/* Writes the default options, the states and every event type with its
 * values, in type order. */
int     tf_pcf_write(tf_pcf *pcf, FILE *f);

/* Adds a type (ignored when already present) and labels one of its
 * values (replacing an earlier label of that value). */
int tf_pcf_add_type(tf_pcf *pcf, uint32_t type, uint32_t gradient, const char *label,
                    tf_error *err);
int tf_pcf_add_value(tf_pcf *pcf, uint32_t type, uint64_t value, const char *label,
                     tf_error *err);
int tf_pcf_add_state(tf_pcf *pcf, uint32_t state, const char *label, tf_error *err);

/* Lookups; NULL or false when absent.  Type and value labels match exactly. */
const char *tf_pcf_type_label(tf_pcf *pcf, uint32_t type);
bool        tf_pcf_type_has_values(tf_pcf *pcf, uint32_t type);
const char *tf_pcf_value_label(tf_pcf *pcf, uint32_t type, uint64_t value);
const char *tf_pcf_state_label(tf_pcf *pcf, uint32_t state);
bool        tf_pcf_find_type(tf_pcf *pcf, const char *label, uint32_t *type);
bool        tf_pcf_find_value(tf_pcf *pcf, uint32_t type, const char *label, uint64_t *value);

#endif
