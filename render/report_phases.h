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

#endif
