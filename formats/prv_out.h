/* SPDX-License-Identifier: BSD-3-Clause */
/* The Paraver output: traces written as NAME.prv (or NAME.prv.gz), NAME.pcf, NAME.row.
 * Records must come in global time order (the output refuses others), so
 * every trace written is time-sorted; the header's end time is the last
 * time seen.  Files appear under their names only when complete.  An output
 * is used by one thread at a time (its stream is written unlocked). */
#ifndef TF_PRV_OUT_H
#define TF_PRV_OUT_H

#include "prv_pcf.h"
#include "prv_reader.h"
#include "prv_row.h"

typedef struct tf_prv_out tf_prv_out;

/* hdr gives the resources, applications and communicators (copied); its
 * end_time is a minimum, its unit_ns the unit of the record times (0: ns),
 * an empty date is replaced by the current one.  An uncompressed trace
 * whose end_time is the true one is written once, not copied behind its
 * header at closing. */
int tf_prv_out_create(tf_prv_out **w, const char *path, const tf_prv_header *hdr,
                      tf_error *err);
/* Before the first record: the records go to the kernel from a thread of
 * the output's own while the next ones are formatted (common/tf_outfile.h),
 * for callers that may use a second CPU. */
void tf_prv_out_write_behind(tf_prv_out *w);
/* Replaces the header given at creation; only before the first record. */
int tf_prv_out_set_header(tf_prv_out *w, const tf_prv_header *hdr, tf_error *err);
/* Labels and names, filled by the caller before closing. */
tf_pcf *tf_prv_out_pcf(tf_prv_out *w);
tf_row  *tf_prv_out_row(tf_prv_out *w);

/* One record (events: rec->npairs pairs at rec->time). */
int tf_prv_write(tf_prv_out *w, const tf_prv_record *rec, tf_error *err);

/* Checks that every event type written has a label, writes the header, the
 * records, the .pcf and the .row, and renames them into place.  Frees w. */
int  tf_prv_out_close(tf_prv_out *w, tf_error *err);
/* Removes the temporary files.  Frees w. */
void tf_prv_out_abort(tf_prv_out *w);

/* The .pcf and .row paths of a .prv or .prv.gz path (malloc'ed). */
char *tf_prv_sibling(const char *prv_path, const char *ext);

#endif
