/* SPDX-License-Identifier: BSD-3-Clause */
/* Advice: a code change suggested by a pattern the analysis measured, with
 * the measured evidence, the rule that fired and a bound on what the change
 * can gain (docs/algorithms.md, "Advice").  No rule fires on weak evidence:
 * each has thresholds, documented there. */
#ifndef TF_AN_ADVICE_H
#define TF_AN_ADVICE_H

#include "analysis.h"

/* Rule "column walk": a strided stream whose stride spans at least this many
 * cache lines: each reference brings in a line of which it uses one element. */
#define TF_ADVICE_STRIDE_LINES 8
/* ... in a phase holding at least this share of the iteration ... */
#define TF_ADVICE_MIN_PHASE_SPAN 0.05
/* ... carrying at least this share of the phase's memory samples. */
#define TF_ADVICE_MIN_STREAM_SHARE 0.10

typedef struct tf_an_advice {
    uint32_t    phase, object;      /* indexes in the analysis */
    const char *finding;            /* "column walk" */
    const char *suggestion;         /* "loop interchange (or transpose)" */
    char        evidence[256];
    /* Upper bound of the share of the iteration the change can save: the
     * time spent on the references the rule is about. */
    double      expected_gain;
} tf_an_advice;

/* The advice for analysis a, strongest first, into *list (malloc'ed, *n
 * of them; NULL and 0 when none). */
int tf_an_advice_find(const tf_analysis *a, tf_an_advice **list, size_t *n, tf_error *err);

#endif
