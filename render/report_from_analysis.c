/* SPDX-License-Identifier: BSD-3-Clause */
/* An analysis in memory as the report's tables, row for row as
 * analysis/analysis_h5.c writes them: indexes that refer to nothing are
 * -1, the object kinds, stream patterns and strides named. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/advice.h"
#include "report_from_analysis.h"

static int64_t index_or_minus_one(uint32_t v)
{
    return v == TF_ANALYSIS_NONE ? -1 : (int64_t)v;
}

/* n elements of size each (at least one, so that none is NULL). */
static bool take(void *p, size_t n, size_t size, bool ok)
{
    void **slot = p;
    *slot = ok ? calloc(n ? n : 1, size) : NULL;
    return *slot != NULL;
}

int tf_report_analysis_from(const tf_analysis *a, size_t npoints, tf_report_analysis *t,
                            tf_error *err)
{
    memset(t, 0, sizeof *t);
    t->file = t->points = -1;
    size_t nr = a->nroutines, no = a->nobjects, np = a->nphases, ns = a->nstreams,
           nadv = a->nadvice;
    bool ok = take(&t->routines, nr, sizeof *t->routines, true);
    ok = take(&t->routine_files, nr, sizeof *t->routine_files, ok);
    ok = take(&t->routine_waiting, nr, sizeof *t->routine_waiting, ok);
    ok = take(&t->object_names, no, sizeof *t->object_names, ok);
    ok = take(&t->object_kinds, no, sizeof *t->object_kinds, ok);
    ok = take(&t->object_size, no, sizeof *t->object_size, ok);
    ok = take(&t->phase_label, np, sizeof *t->phase_label, ok);
    ok = take(&t->phase_parent, np, sizeof *t->phase_parent, ok);
    ok = take(&t->phase_routine, np, sizeof *t->phase_routine, ok);
    ok = take(&t->phase_line, np, sizeof *t->phase_line, ok);
    ok = take(&t->phase_x0, np, sizeof *t->phase_x0, ok);
    ok = take(&t->phase_x1, np, sizeof *t->phase_x1, ok);
    ok = take(&t->stream_phase, ns, sizeof *t->stream_phase, ok);
    ok = take(&t->stream_object, ns, sizeof *t->stream_object, ok);
    ok = take(&t->stream_direction, ns, sizeof *t->stream_direction, ok);
    ok = take(&t->stream_stride, ns, sizeof *t->stream_stride, ok);
    ok = take(&t->stream_count, ns, sizeof *t->stream_count, ok);
    ok = take(&t->stream_samples, ns, sizeof *t->stream_samples, ok);
    ok = take(&t->stream_pattern, ns, sizeof *t->stream_pattern, ok);
    ok = take(&t->stream_bandwidth, ns, sizeof *t->stream_bandwidth, ok);
    ok = take(&t->advice_phase, nadv, sizeof *t->advice_phase, ok);
    ok = take(&t->advice_object, nadv, sizeof *t->advice_object, ok);
    ok = take(&t->advice_finding, nadv, sizeof *t->advice_finding, ok);
    ok = take(&t->advice_suggestion, nadv, sizeof *t->advice_suggestion, ok);
    ok = take(&t->advice_gain, nadv, sizeof *t->advice_gain, ok);
    if (!ok) {
        tf_report_analysis_free(t);
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for the analysis of %s",
                       a->region ? a->region : "a region");
    }
    t->nroutines = nr;
    for (size_t i = 0; i < nr; i++) {
        t->routines[i] = a->routines[i].function;
        t->routine_files[i] = a->routines[i].file;
        t->routine_waiting[i] = a->routines[i].waiting;
    }
    t->nobjects = no;
    for (size_t i = 0; i < no; i++) {
        t->object_names[i] = a->objects[i].name;
        t->object_kinds[i] = (char *)tf_analysis_object_kind_name(a->objects[i].kind);
        t->object_size[i] = a->objects[i].size;
    }
    t->npoints = npoints;
    t->nphases = np;
    for (size_t i = 0; i < np; i++) {
        const tf_analysis_phase *ph = &a->phases[i];
        t->phase_label[i] = (char *)ph->label;
        t->phase_parent[i] = index_or_minus_one(ph->parent);
        t->phase_routine[i] = index_or_minus_one(ph->routine);
        t->phase_line[i] = ph->line;
        t->phase_x0[i] = ph->x0;
        t->phase_x1[i] = ph->x1;
    }
    t->nstreams = ns;
    for (size_t i = 0; i < ns; i++) {
        const tf_analysis_stream *s = &a->streams[i];
        t->stream_phase[i] = s->phase;
        t->stream_object[i] = s->object;
        t->stream_direction[i] = s->direction;
        t->stream_stride[i] = (int64_t)s->stride;
        t->stream_count[i] = s->streams;
        t->stream_samples[i] = (int64_t)s->samples;
        t->stream_pattern[i] = (char *)tf_analysis_pattern_name(s->pattern);
        t->stream_bandwidth[i] = s->bandwidth;
    }
    t->nadvice = nadv;
    for (size_t i = 0; i < nadv; i++) {
        const tf_analysis_advice *v = &a->advice[i];
        t->advice_phase[i] = v->phase;
        t->advice_object[i] = v->object;
        t->advice_finding[i] = (char *)v->finding;
        t->advice_suggestion[i] = (char *)v->suggestion;
        t->advice_gain[i] = v->expected_gain;
    }
    return 0;
}
