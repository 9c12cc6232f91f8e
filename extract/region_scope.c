/* SPDX-License-Identifier: BSD-3-Clause */
/* Process scope: the instances one thread marks, copied onto the threads of
 * its process that work inside them, with each copy's counters at its
 * boundaries interpolated from that thread's own samples (cumulative
 * per-thread values, linear between the two samples around a boundary). */
#include "region_scope.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Samples per read: the scan keeps only counts and boundary rows. */
#define BATCH 8192

static const char *const scope_names[] = { "auto", "thread", "process" };

int tf_region_scope_parse(const char *name)
{
    for (int k = 0; k < 3; k++)
        if (!strcmp(name, scope_names[k]))
            return k;
    return -1;
}

const char *tf_region_scope_name(enum tf_region_scope scope)
{
    return (unsigned)scope < 3 ? scope_names[scope] : "?";
}

void tf_scoped_instances_free(tf_scoped_instances *s)
{
    free(s->v);
    free(s->bound);
    free(s->values);
    memset(s, 0, sizeof *s);
}

/* A boundary of a marked instance: where a covered thread's counters are
 * interpolated. */
struct boundary {
    uint64_t time;
    size_t   row;     /* in the scan's rows: 2 per complete instance, begin first */
};

static int by_time(const void *pa, const void *pb)
{
    const struct boundary *p = pa, *q = pb;
    return (p->time > q->time) - (p->time < q->time);
}

/* What a scan of one thread's samples finds over the marking thread's
 * complete instances. */
struct scan {
    const tf_instance *marks;   /* the complete marked instances, by begin */
    size_t             nmarks;
    struct boundary   *bounds;  /* [2 nmarks] sorted by time */
    uint32_t           nc;      /* the process's counters */
    uint64_t          *rows;    /* [2 nmarks][nc] interpolated values */
    size_t             inside;  /* samples inside a marked instance */
};

/* The counters at time t between the samples (t0, v0) and (t1, v1). */
static void interpolate(uint64_t *out, uint32_t nc, uint64_t t, uint64_t t0, const uint64_t *v0,
                        uint64_t t1, const uint64_t *v1)
{
    for (uint32_t c = 0; c < nc; c++) {
        if (v0[c] == TF_NOVALUE || v1[c] == TF_NOVALUE || v1[c] < v0[c]) {
            out[c] = TF_NOVALUE;
            continue;
        }
        double f = t1 > t0 ? (double)(t - t0) / (double)(t1 - t0) : 1.0;
        out[c] = v0[c] + (uint64_t)((double)(v1[c] - v0[c]) * f + 0.5);
    }
}

/* One pass over thread `thread`'s samples: how many lie inside the marked
 * instances, and its counters at their boundaries. */
static int scan_thread(tf_trace *tr, uint32_t proc, uint32_t thread, struct scan *sc,
                       tf_error *err)
{
    uint32_t nc = sc->nc;
    size_t nb = 2 * sc->nmarks;
    for (size_t k = 0; k < nb * nc; k++)
        sc->rows[k] = TF_NOVALUE;
    sc->inside = 0;
    tf_sample *s = malloc(BATCH * sizeof *s);
    uint64_t *v = malloc((size_t)BATCH * (nc ? nc : 1) * sizeof *v);
    uint64_t *prev = malloc((nc ? nc : 1) * sizeof *prev);
    tf_sample_cursor *cur = NULL;
    int rc = 0;
    if (!s || !v || !prev) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory scanning the samples of thread %u",
                     thread);
        goto done;
    }
    if ((rc = tf_samples_open(tr, proc, thread, &cur, err)) < 0)
        goto done;
    bool have_prev = false;
    uint64_t prev_time = 0;
    size_t next = 0, at = 0;   /* next boundary; latest-begun marked instance */
    for (;;) {
        size_t n;
        if ((rc = tf_samples_read(cur, s, v, BATCH, &n, err)) < 0 || n == 0)
            break;
        for (size_t k = 0; k < n; k++) {
            uint64_t t = s[k].time;
            const uint64_t *row = v + k * nc;
            for (; next < nb && sc->bounds[next].time <= t; next++)
                if (have_prev)
                    interpolate(sc->rows + sc->bounds[next].row * nc, nc, sc->bounds[next].time,
                                prev_time, prev, t, row);
            while (at + 1 < sc->nmarks && sc->marks[at + 1].begin <= t)
                at++;
            if (sc->nmarks && t >= sc->marks[at].begin && t <= sc->marks[at].end)
                sc->inside++;
            memcpy(prev, row, nc * sizeof *prev);
            prev_time = t;
            have_prev = true;
        }
    }
done:
    if (cur)
        tf_samples_close(cur);
    free(s);
    free(v);
    free(prev);
    if (rc < 0)
        tf_error_prefix(err, "%s: process %u, thread %u: ", tf_trace_path(tr), proc, thread);
    return rc;
}

/* Room for `more` instances (and their value rows) at the end of out. */
static int grow(tf_scoped_instances *out, size_t *cap, size_t more, size_t *vcap, size_t vmore,
                size_t nvalues, tf_error *err)
{
    if (out->n + more > *cap) {
        size_t c = (out->n + more) * 2;
        tf_instance *v = realloc(out->v, c * sizeof *v);
        if (v)
            out->v = v;
        size_t *b = realloc(out->bound, c * sizeof *b);
        if (b)
            out->bound = b;
        if (!v || !b)
            return tf_fail(err, TF_ERR_NOMEM, "out of memory for %zu instances", c);
        *cap = c;
    }
    if (nvalues + vmore > *vcap) {
        size_t c = (nvalues + vmore) * 2;
        uint64_t *v = realloc(out->values, c * sizeof *v);
        if (!v)
            return tf_fail(err, TF_ERR_NOMEM, "out of memory for %zu counter values", c);
        out->values = v;
        *vcap = c;
    }
    return 0;
}

/* The threads of process p (instances marked[first, last), all of thread
 * m) that the instances cover: covered[t] set; scans in rows[t] (t's
 * boundary rows). */
static int find_covered(tf_trace *tr, enum tf_region_scope scope, bool unmarked, uint32_t p,
                        uint32_t m, struct scan *sc, bool *covered, uint64_t **rows,
                        tf_error *err)
{
    const tf_process *proc = tf_trace_process(tr, p);
    size_t nrow = 2 * sc->nmarks * sc->nc;
    for (uint32_t t = 0; t < proc->nthreads; t++) {
        covered[t] = false;
        rows[t] = NULL;
        /* m itself only for its boundaries, when no event gives them */
        bool wanted = t == m ? unmarked : scope != TF_REGION_SCOPE_THREAD;
        if (!wanted || proc->threads[t].nsamples == 0 || sc->nmarks == 0)
            continue;
        if (!(rows[t] = malloc((nrow ? nrow : 1) * sizeof *rows[t])))
            return tf_fail(err, TF_ERR_NOMEM, "out of memory for the boundaries of thread %u", t);
        sc->rows = rows[t];
        int rc = scan_thread(tr, p, t, sc, err);
        if (rc < 0)
            return rc;
        /* "Busy inside": half its samples or more (auto), any (process). */
        size_t need = scope == TF_REGION_SCOPE_PROCESS ? 1 : (proc->threads[t].nsamples + 1) / 2;
        covered[t] = t != m && sc->inside >= need && sc->inside > 0;
    }
    return 0;
}

/* Process p's instances marked[first, last), all of thread m, onto out:
 * the marked ones on m and a copy of the complete ones on each covered
 * thread, in thread order. */
static int cover_process(tf_trace *tr, enum tf_region_scope scope, bool unmarked,
                         const tf_instance *marked, size_t first, size_t last,
                         tf_scoped_instances *out, size_t *cap, size_t *vcap, size_t *nvalues,
                         tf_error *err)
{
    uint32_t p = marked[first].proc, m = marked[first].thread;
    const tf_process *proc = tf_trace_process(tr, p);
    struct scan sc = { .nc = proc->ncounters };
    tf_instance *marks = malloc((last - first) * sizeof *marks);
    sc.bounds = malloc(2 * (last - first) * sizeof *sc.bounds);
    bool *covered = calloc(proc->nthreads + 1, sizeof *covered);
    uint64_t **rows = calloc(proc->nthreads + 1, sizeof *rows);
    int rc = 0;
    if (!marks || !sc.bounds || !covered || !rows) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for process %u's instances", p);
        goto done;
    }
    for (size_t i = first; i < last; i++)
        if (marked[i].status == TF_INSTANCE_COMPLETE)
            marks[sc.nmarks++] = marked[i];
    for (size_t k = 0; k < sc.nmarks; k++) {
        sc.bounds[2 * k] = (struct boundary){ marks[k].begin, 2 * k };
        sc.bounds[2 * k + 1] = (struct boundary){ marks[k].end, 2 * k + 1 };
    }
    qsort(sc.bounds, 2 * sc.nmarks, sizeof *sc.bounds, by_time);
    sc.marks = marks;
    if ((rc = find_covered(tr, scope, unmarked, p, m, &sc, covered, rows, err)) < 0)
        goto done;
    for (uint32_t t = 0; t < proc->nthreads && rc == 0; t++) {
        if (t == m && !rows[m]) {
            if ((rc = grow(out, cap, last - first, vcap, 0, *nvalues, err)) < 0)
                break;
            for (size_t i = first; i < last; i++) {
                out->bound[out->n] = SIZE_MAX;
                out->v[out->n++] = marked[i];
            }
        } else if (covered[t] || t == m) {
            size_t nc = sc.nc;
            if ((rc = grow(out, cap, sc.nmarks, vcap, 2 * sc.nmarks * nc, *nvalues, err)) < 0)
                break;
            memcpy(out->values + *nvalues, rows[t], 2 * sc.nmarks * nc * sizeof *out->values);
            for (size_t k = 0; k < sc.nmarks; k++) {
                tf_instance copy = marks[k];
                copy.thread = t;
                /* no event of t marks it (nor of m, unmarked) */
                copy.begin_event = copy.end_event = 0;
                out->bound[out->n] = *nvalues + 2 * k * nc;
                out->v[out->n++] = copy;
            }
            *nvalues += 2 * sc.nmarks * nc;
        }
    }
done:
    for (uint32_t t = 0; rows && t < proc->nthreads; t++)
        free(rows[t]);
    free(rows);
    free(covered);
    free(marks);
    free(sc.bounds);
    return rc;
}

int tf_region_scope_apply(tf_trace *tr, uint32_t region, enum tf_region_scope scope,
                          bool unmarked, tf_instance *marked, size_t n,
                          tf_scoped_instances *out, tf_error *err)
{
    memset(out, 0, sizeof *out);
    size_t cap = n ? n : 1, vcap = 0, nvalues = 0;
    out->v = malloc(cap * sizeof *out->v);
    out->bound = malloc(cap * sizeof *out->bound);
    int rc = 0;
    if (!out->v || !out->bound) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for %zu instances", n);
        goto fail;
    }
    for (size_t i = 0, j; i < n; i = j) {
        /* process i's run, and whether one thread marks all of it */
        bool one = true;
        for (j = i; j < n && marked[j].proc == marked[i].proc; j++)
            one &= marked[j].thread == marked[i].thread;
        if (!one && scope == TF_REGION_SCOPE_PROCESS) {
            rc = tf_fail(err, TF_ERR_DATA, "%s: process %u: region '%s' is marked by several "
                         "threads; --region-scope process needs one marking thread per "
                         "process (use thread, or auto)", tf_trace_path(tr), marked[i].proc,
                         tf_trace_string(tr, region));
            goto fail;
        }
        if (one && (scope != TF_REGION_SCOPE_THREAD || unmarked)) {
            if ((rc = cover_process(tr, scope, unmarked, marked, i, j, out, &cap, &vcap,
                                    &nvalues, err)) < 0)
                goto fail;
            continue;
        }
        if ((rc = grow(out, &cap, j - i, &vcap, 0, nvalues, err)) < 0)
            goto fail;
        for (size_t k = i; k < j; k++) {
            out->bound[out->n] = SIZE_MAX;
            out->v[out->n++] = marked[k];
        }
    }
    free(marked);
    return 0;
fail:
    free(marked);
    tf_scoped_instances_free(out);
    return rc;
}
