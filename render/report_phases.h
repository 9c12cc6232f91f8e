/* SPDX-License-Identifier: BSD-3-Clause */
/* The labels of a page's phases (the analysis's, report_load.c), as both
 * back ends draw them. */
#ifndef TF_RENDER_REPORT_PHASES_H
#define TF_RENDER_REPORT_PHASES_H

#include "report_model.h"

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
