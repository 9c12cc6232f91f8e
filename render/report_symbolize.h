/* SPDX-License-Identifier: BSD-3-Clause */
/* Code lines and data objects of folded samples, looked up in the folded
 * trace: code addresses through the project's symboliser (the trace's
 * symbol table, the binaries' DWARF, their ELF symbols), data addresses in
 * the trace's object tables.  Objects of several processes are merged by name (their
 * addresses differ under ASLR); references are then given as offsets. */
#ifndef TF_RENDER_REPORT_SYMBOLIZE_H
#define TF_RENDER_REPORT_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report_model.h"

typedef struct tf_report_symbolizer tf_report_symbolizer;

/* Opens the trace at `trace` (as fold.h5 records it) or, failing that, the
 * file of that name beside fold_path.  On failure returns NULL and writes
 * the reason (for the panels' notes) into why. */
tf_report_symbolizer *tf_report_symbolizer_open(const char *trace, const char *fold_path,
                                                char *why, size_t len);
void tf_report_symbolizer_close(tf_report_symbolizer *s);

/* Processes merged: references are offsets inside their objects. */
bool tf_report_symbolizer_relative(const tf_report_symbolizer *s);

/* Routine (index in first-seen order) and line of an instruction address. */
bool tf_report_symbolizer_code(tf_report_symbolizer *s, uint32_t proc, uint64_t ip,
                               uint32_t *routine, uint32_t *line);
size_t      tf_report_symbolizer_nroutines(const tf_report_symbolizer *s);
const char *tf_report_symbolizer_routine(const tf_report_symbolizer *s, size_t i);

/* Object holding a data address, and the offset inside it. */
bool tf_report_symbolizer_object(const tf_report_symbolizer *s, uint32_t proc, uint64_t addr,
                                 uint32_t *object, uint64_t *offset);
size_t tf_report_symbolizer_nobjects(const tf_report_symbolizer *s);
/* Object i described for the report (strings are copied). */
int tf_report_symbolizer_describe(const tf_report_symbolizer *s, size_t i, tf_report_object *o,
                                  tf_error *err);

#endif
