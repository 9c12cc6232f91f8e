/* SPDX-License-Identifier: BSD-3-Clause */
/* The tables of a report page, computed from the page's own content: the
 * phases with their mean rates, the memory levels that served the loads
 * with their mean cost, the most referenced data objects; and the access
 * streams found by the fold's analysis. */
#ifndef TF_RENDER_REPORT_TABLES_H
#define TF_RENDER_REPORT_TABLES_H

#include "analysis/analysis.h"
#include "report_model.h"

/* Objects listed in the table of data objects. */
#define TF_REPORT_TOP_OBJECTS 10

/* an: the fold's analysis of the page's group, NULL when there is none
 * (the stream table then says so). */
int tf_report_tables_fill(tf_report_page *p, const tf_analysis *an, tf_error *err);

#endif
