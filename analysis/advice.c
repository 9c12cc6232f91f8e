/* SPDX-License-Identifier: BSD-3-Clause */
/* The advice rules (docs/algorithms.md, "Advice"). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "advice.h"
#include "trace.h"

/* Memory samples of the analysis in phase k's span. */
static size_t phase_memory_samples(const tf_analysis *a, const tf_an_phase *ph)
{
    size_t n = 0;
    for (size_t i = 0; i < a->nsamples; i++) {
        const tf_an_sample *s = &a->samples[i];
        n += s->kind != TF_SAMPLE_TIMER && s->x >= ph->x0 && s->x < ph->x1;
    }
    return n;
}

static int by_gain(const void *pa, const void *pb)
{
    const tf_an_advice *a = pa, *b = pb;
    return (a->expected_gain < b->expected_gain) - (a->expected_gain > b->expected_gain);
}

/* Column walk -> loop interchange.  The stride says each reference touches
 * a line of its own (H&P ch. 5.2, "loop interchange"); the time those
 * references take is at most the phase's span times their share of the
 * phase's memory samples (a sample lands on an instruction in proportion to
 * the time it takes), which bounds what reordering them can save. */
static bool column_walk(const tf_analysis *a, const tf_an_stream *st, uint64_t line_bytes,
                        tf_an_advice *out)
{
    if (st->pattern != TF_AN_PATTERN_STRIDED || st->stride < TF_ADVICE_STRIDE_LINES * line_bytes ||
        st->phase >= a->nphases || st->object >= a->nobjects)
        return false;
    const tf_an_phase *ph = &a->phases[st->phase];
    double span = ph->x1 - ph->x0;
    size_t mem = phase_memory_samples(a, ph);
    if (span < TF_ADVICE_MIN_PHASE_SPAN || mem == 0)
        return false;
    double share = (double)st->samples / (double)mem;
    if (share < TF_ADVICE_MIN_STREAM_SHARE)
        return false;
    *out = (tf_an_advice){ .phase = st->phase, .object = st->object, .finding = "column walk",
                           .suggestion = "loop interchange (or a transposed layout) so that the "
                                         "innermost loop walks the object contiguously",
                           .expected_gain = span * (share > 1 ? 1 : share) };
    snprintf(out->evidence, sizeof out->evidence,
             "stride %llu B (%llu cache lines; from the %s); %.0f %% of the phase's %zu memory "
             "samples; phase %.1f %% of the iteration",
             (unsigned long long)st->stride, (unsigned long long)(st->stride / line_bytes),
             st->stride_from == TF_AN_STRIDE_CODE ? "code" : "samples", 100 * share, mem,
             100 * span);
    return true;
}

int tf_an_advice_find(const tf_analysis *a, tf_an_advice **list, size_t *n, tf_error *err)
{
    *list = NULL;
    *n = 0;
    if (a->nstreams == 0)
        return 0;
    tf_an_params p;
    tf_an_params_default(&p);
    tf_an_advice *out = malloc(a->nstreams * sizeof *out);
    if (!out)
        return tf_fail(err, TF_ERR_NOMEM, "advice: no memory for %zu streams", a->nstreams);
    size_t k = 0;
    for (size_t s = 0; s < a->nstreams; s++)
        k += column_walk(a, &a->streams[s], p.line_bytes, &out[k]);
    if (k == 0) {
        free(out);
        return 0;
    }
    qsort(out, k, sizeof *out, by_gain);
    *list = out;
    *n = k;
    return 0;
}
