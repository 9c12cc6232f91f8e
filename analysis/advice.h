/* SPDX-License-Identifier: BSD-3-Clause */
/* Advice: a code change suggested by a pattern the analysis measured, with
 * the measured evidence, the rule that fired and a bound on what the change
 * can gain (docs/algorithms.md, "Advice").  No rule fires on weak evidence:
 * each has thresholds, documented there.  The rules that compare with the
 * machine's caches and TLB need its profile (tracefold calibrate, `fold
 * --machine`); without it they are not tried, and the analysis says which
 * figure they lack. */
#ifndef TF_ANALYSIS_ADVICE_H
#define TF_ANALYSIS_ADVICE_H

#include "analysis.h"

/* Every rule: the phase holds at least this share of the iteration ... */
#define TF_ADVICE_MIN_PHASE_SPAN 0.05
/* ... and the references the rule is about at least this share of the
 * phase's memory samples. */
#define TF_ADVICE_MIN_STREAM_SHARE 0.10

/* Rule "column walk": a strided stream whose stride spans at least this many
 * cache lines: each reference brings in a line of which it uses one element. */
#define TF_ADVICE_STRIDE_LINES 8
/* Rule "reuse distance": the tiles it suggests bring the bytes touched
 * between two uses of a line to at most this share of the cache they are
 * blocked for (the rest for everything else, and conflict misses: H&P
 * ch. 5.2 blocks well below the capacity). */
#define TF_ADVICE_TILE_SHARE 0.5
/* Rule "reuse distance": a walk whose passes the samples resolve counts
 * when fetching its footprint from beyond the cache takes at least this
 * share of a pass, each line at the pace of the profile's sequential walk
 * from there (the fastest a line comes, prefetched): a walk that spends
 * less on it does other work (a blocked product's output, each line used
 * many times a pass), and blocking saves it little. */
#define TF_ADVICE_MIN_FETCH_SHARE 0.25
/* Rule "small allocations": at least this many blocks of one call site,
 * each at most TF_ADVICE_SMALL_BYTES, touched in one phase. */
#define TF_ADVICE_MIN_BLOCKS 16
#define TF_ADVICE_SMALL_BYTES (64 * 1024)
/* Rule "random over a large object": the object is at least this many
 * times the last-level cache, so that uniform random loads miss it at
 * least 1 - 1/this of the time. */
#define TF_ADVICE_LLC_TIMES 4
/* Rules on a random stream: at least this many samples.  Fewer of an
 * ordered sweep can look random: in a sub-phase of a gather through
 * sorted indices (tests/analysis/advice_gather.sh), 12 samples of a linear
 * sweep were called random. */
#define TF_ADVICE_MIN_RANDOM_SAMPLES 32
/* ... and, where load levels are measured, at least this share of the
 * phase's loads is served beyond the caches. */
#define TF_ADVICE_MIN_MEMORY_SHARE 0.25
/* Rule "TLB reach": at most this many references per page (random, or a
 * stride of at least page / this). */
#define TF_ADVICE_REFS_PER_PAGE 8
/* Rule "per-iteration allocation": a block of at least this many pages
 * allocated at least once per iteration, and page faults per iteration at
 * least half its pages. */
#define TF_ADVICE_MIN_TEMP_PAGES 64
#define TF_ADVICE_FAULTED_SHARE 0.5

/* The rules, as bits of tf_analysis.advice_untried. */
enum tf_analysis_rule {
    TF_ANALYSIS_RULE_COLUMN_WALK = 1u << 0,
    TF_ANALYSIS_RULE_REUSE_DISTANCE = 1u << 1,
    TF_ANALYSIS_RULE_SMALL_ALLOCATIONS = 1u << 2,
    TF_ANALYSIS_RULE_RANDOM_LARGE = 1u << 3,
    TF_ANALYSIS_RULE_TLB_REACH = 1u << 4,
    TF_ANALYSIS_RULE_TEMPORARIES = 1u << 5,
};

typedef struct tf_analysis_advice {
    uint32_t    phase, object;      /* indexes in the analysis */
    char        finding[48];        /* "column walk" */
    char        suggestion[224];    /* "loop interchange (or ...)", with its figures */
    char        evidence[512];
    /* Upper bound of the share of the iteration the change can save: the
     * time spent on the references the rule is about, cut by the latency
     * difference between the levels where the profile gives them. */
    double      expected_gain;
} tf_analysis_advice;

/* The advice for analysis a, strongest first, into *list (malloc'ed, *n
 * of them; NULL and 0 when none); *untried: the rules (enum tf_analysis_rule)
 * that params->machine (NULL: no profile) lacks a figure for. */
int tf_analysis_advice_find(const tf_analysis *a, const tf_analysis_params *params,
                            tf_analysis_advice **list, size_t *n, unsigned *untried,
                            tf_error *err);

/* What the rules in `untried` lack, as one sentence for the summary
 * ("" when none). */
void tf_analysis_advice_untried_text(unsigned untried, char *buf, size_t size);

#endif
