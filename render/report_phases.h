/* SPDX-License-Identifier: BSD-3-Clause */
/* Phases of a page from the fold's boundaries (its merged rate change
 * points): each span between two boundaries is labelled with the routine
 * that has most code samples in it and that routine's most observed line.
 * Neighbouring spans with the same label are one phase. */
#ifndef TF_RENDER_REPORT_PHASES_H
#define TF_RENDER_REPORT_PHASES_H

#include "report_model.h"

int tf_report_phases_derive(tf_report_page *p, const double *bounds, size_t nbounds,
                            tf_error *err);

/* Phase ph's label, "routine[line]" (the routine alone without a line). */
void tf_report_phase_label(const tf_report_page *page, const tf_report_phase *ph, char *buf,
                           size_t len);
/* Which phases get a label, into keep[nphases], for both back ends: those
 * with a routine and not labelled like the one before; of more than max
 * (0: no limit), those of later sub-phases of a phase (4.2 after 4.1) are
 * left out first, then those of the narrowest phases.  Where a kept label
 * does not fit, the back end draws its key mark and the label in the key. */
void tf_report_phase_labels_choose(const tf_report_page *page, unsigned max, bool *keep);

#endif
