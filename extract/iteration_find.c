/* SPDX-License-Identifier: BSD-3-Clause */
/* Finding the iteration from the samples.  A main loop whose body runs
 * routines A, B, C in turn leaves, in the sequence of sampled routines of
 * its thread, the changes A→B, B→C and C→A once per iteration each, one
 * period apart; a routine change that happens at random times does not
 * recur regularly.  So every (left, entered) routine pair is a candidate,
 * its occurrences the candidate boundaries, and the candidates are ranked
 * by how regular the spans between consecutive boundaries are.  Two
 * changes of one pair closer than half the median span are one boundary
 * (a routine sampled on both sides of a short call); a span longer than
 * 1.5 medians lost a boundary between two samples and is not an instance.
 * Spans are measured on the thread's CPU clock (its task-clock counter,
 * read with every sample) where the trace has it: a busy machine that
 * preempts the program stretches wall-clock spans unevenly, CPU time not.
 * The candidates are ranked on the busiest thread of the trace; every
 * other process (the ranks of an MPI run) gets the instances of the same
 * routine change on its own busiest thread. */
#include "iteration_find.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize.h"
#include "common/tf_array.h"
#include "common/tf_sort.h"

#define BATCH 8192

void tf_iteration_found_free(tf_iteration_found *f)
{
    free(f->instances);
    memset(f, 0, sizeof *f);
}

/* The thread's timer samples with a routine: times, CPU clock and
 * routine ids. */
struct sequence {
    uint64_t *t;
    uint64_t *c;           /* task-clock, or t without it */
    uint32_t *r;
    size_t    n, cap;
    char    **names;       /* routine id -> name */
    uint64_t *first;       /* routine id -> time of its first sample */
    size_t    nnames, names_cap;
};

static void sequence_free(struct sequence *s)
{
    for (size_t k = 0; k < s->nnames; k++)
        free(s->names[k]);
    free(s->names);
    free(s->first);
    free(s->t);
    free(s->c);
    free(s->r);
}

/* The routine id of a name (a loop holds few routines: a linear search). */
static int intern(struct sequence *s, const char *name, uint64_t t, uint32_t *id, tf_error *err)
{
    for (size_t k = 0; k < s->nnames; k++)
        if (!strcmp(s->names[k], name)) {
            *id = (uint32_t)k;
            return 0;
        }
    if (s->nnames == s->names_cap) {
        size_t c = s->names_cap ? 2 * s->names_cap : 64;
        char **v = realloc(s->names, c * sizeof *v);
        if (v)
            s->names = v;
        uint64_t *f = realloc(s->first, c * sizeof *f);
        if (f)
            s->first = f;
        if (!v || !f)
            return tf_fail(err, TF_ERR_NOMEM, "out of memory for routine names");
        s->names_cap = c;
    }
    if (!(s->names[s->nnames] = strdup(name)))
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for routine names");
    s->first[s->nnames] = t;
    *id = (uint32_t)s->nnames++;
    return 0;
}

static int append(struct sequence *s, uint64_t t, uint64_t clock, uint32_t r, tf_error *err)
{
    if (s->n == s->cap) {
        size_t c = s->cap ? 2 * s->cap : 4096;
        uint64_t *tv = realloc(s->t, c * sizeof *tv);
        if (tv)
            s->t = tv;
        uint64_t *cv = realloc(s->c, c * sizeof *cv);
        if (cv)
            s->c = cv;
        uint32_t *rv = realloc(s->r, c * sizeof *rv);
        if (rv)
            s->r = rv;
        if (!tv || !cv || !rv)
            return tf_fail(err, TF_ERR_NOMEM, "out of memory for %zu samples", c);
        s->cap = c;
    }
    s->t[s->n] = t;
    s->c[s->n] = clock;
    s->r[s->n++] = r;
    return 0;
}

/* The routine of ip: the function the compiler emitted (inlined frames
 * belong to it), or "[module]"; NULL when nothing is known. */
static const char *routine_name(tf_symbolizer *sym, uint64_t ip, char *buf, size_t size,
                                tf_error *err, int *rc)
{
    const tf_sym_location *loc;
    if ((*rc = tf_symbolize(sym, ip, false, &loc, err)) < 0 || loc->source == TF_SYM_NONE)
        return NULL;
    const char *fn = loc->frames[loc->nframes - 1].function;
    if (fn[0])
        return fn;
    if (!loc->module[0])
        return NULL;
    /* as the analysis names it (analysis/from_fold.c) */
    const char *slash = strrchr(loc->module, '/');
    snprintf(buf, size, "[%s]", slash ? slash + 1 : loc->module);
    return buf;
}

static int read_sequence(tf_trace *tr, uint32_t proc_index, uint32_t thread,
                         const char *debug_dir, struct sequence *seq, tf_error *err)
{
    tf_symbolizer *sym = NULL;
    tf_sample_cursor *cur = NULL;
    const tf_process *proc = tf_trace_process(tr, proc_index);
    uint32_t nc = proc->ncounters, clock = nc;
    for (uint32_t c = 0; c < nc; c++)
        if (!strcmp(tf_trace_string(tr, proc->counters[c].name), "task-clock"))
            clock = c;
    tf_sample *s = malloc(BATCH * sizeof *s);
    uint64_t *v = malloc((size_t)BATCH * (nc ? nc : 1) * sizeof *v);
    uint64_t last_clock = 0;
    int rc = 0;
    if (!s || !v) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for the samples");
        goto done;
    }
    if ((rc = tf_symbolizer_for_process(&sym, tr, proc_index, debug_dir, err)) < 0 ||
        (rc = tf_samples_open(tr, proc_index, thread, &cur, err)) < 0)
        goto done;
    for (;;) {
        size_t n;
        if ((rc = tf_samples_read(cur, s, v, BATCH, &n, err)) < 0 || n == 0)
            break;
        for (size_t k = 0; k < n && rc == 0; k++) {
            if (s[k].kind != TF_SAMPLE_TIMER || !s[k].ip)
                continue;
            char buf[300];
            const char *name = routine_name(sym, s[k].ip, buf, sizeof buf, err, &rc);
            uint32_t id = 0;
            /* the CPU clock, kept non-decreasing over a sample without it */
            uint64_t cpu = clock < nc ? v[k * nc + clock] : s[k].time;
            if (cpu != TF_NOVALUE && cpu > last_clock)
                last_clock = cpu;
            if (name && (rc = intern(seq, name, s[k].time, &id, err)) == 0)
                rc = append(seq, s[k].time, last_clock, id, err);
        }
        if (rc < 0)
            break;
    }
done:
    if (cur)
        tf_samples_close(cur);
    tf_symbolizer_free(sym);
    free(s);
    free(v);
    return rc;
}

/* A routine change: where in the sequence, and between which routines. */
struct change {
    uint64_t pair;     /* left << 32 | entered */
    uint64_t time;     /* halfway between the two samples */
    uint64_t clock;    /* the same on the CPU clock */
};

static int by_pair_time(const void *pa, const void *pb)
{
    const struct change *p = pa, *q = pb;
    if (p->pair != q->pair)
        return p->pair < q->pair ? -1 : 1;
    return (p->time > q->time) - (p->time < q->time);
}


/* A pair's boundaries, doubles merged: times and clocks [0..*n) rewritten
 * in place; returns the median span on the clock (0 with fewer than 2
 * boundaries).  gaps: room for n values. */
static double boundaries(uint64_t *times, uint64_t *clocks, size_t *n, double *gaps)
{
    if (*n < 2)
        return 0;
    for (size_t k = 1; k < *n; k++)
        gaps[k - 1] = (double)(clocks[k] - clocks[k - 1]);
    double m0 = tf_median_sorted(gaps, *n - 1);
    size_t kept = 1;
    for (size_t k = 1; k < *n; k++)
        if ((double)(clocks[k] - clocks[kept - 1]) >= 0.5 * m0) {
            times[kept] = times[k];
            clocks[kept++] = clocks[k];
        }
    *n = kept;
    if (kept < 2)
        return 0;
    for (size_t k = 1; k < kept; k++)
        gaps[k - 1] = (double)(clocks[k] - clocks[k - 1]);
    return tf_median_sorted(gaps, kept - 1);
}

/* The changes[from, from + n) into times and clocks. */
static void take(const struct change *changes, size_t from, size_t n, uint64_t *times,
                 uint64_t *clocks)
{
    for (size_t k = 0; k < n; k++) {
        times[k] = changes[from + k].time;
        clocks[k] = changes[from + k].clock;
    }
}

/* A candidate while ranking: its statistics and where its changes are. */
struct ranked {
    tf_iteration_candidate c;
    size_t   from, count;   /* in the sorted changes */
    uint64_t first;         /* first sample of the entered routine */
    double   score;
};

static int by_score(const void *pa, const void *pb)
{
    const struct ranked *p = pa, *q = pb;
    if (p->score != q->score)
        return p->score > q->score ? -1 : 1;
    return (p->first > q->first) - (p->first < q->first);
}

/* Whether span g is an instance of a candidate of median span m. */
static bool is_instance(double g, double m)
{
    return g >= 0.5 * m && g <= 1.5 * m;
}

/* The statistics of the changes of one pair, changes[from, from + count)
 * (times copied to `times`, which boundaries() rewrites). */
static void rank_pair(const struct change *changes, size_t from, size_t count,
                      const struct sequence *seq, uint64_t *times, uint64_t *clocks,
                      double *gaps, struct ranked *rk)
{
    memset(rk, 0, sizeof *rk);
    rk->from = from;
    rk->count = count;
    uint32_t left = (uint32_t)(changes[from].pair >> 32), entered = (uint32_t)changes[from].pair;
    snprintf(rk->c.after, sizeof rk->c.after, "%s", seq->names[left]);
    snprintf(rk->c.function, sizeof rk->c.function, "%s", seq->names[entered]);
    rk->first = seq->first[entered];
    size_t n = count;
    take(changes, from, n, times, clocks);
    double m = boundaries(times, clocks, &n, gaps);
    if (m <= 0)
        return;
    size_t within = 0, spans = 0;
    for (size_t k = 1; k < n; k++) {
        double g = (double)(clocks[k] - clocks[k - 1]);
        within += fabs(g - m) <= 0.1 * m;
        spans += is_instance(g, m);
    }
    rk->c.instances = spans;
    /* The mean period from first to last boundary, in whole periods: a
     * span lost (or stretched by preemption) moves it less than the mean
     * of the spans kept. */
    double periods = fmax(1, round((double)(clocks[n - 1] - clocks[0]) / m));
    rk->c.period_ns = (double)(times[n - 1] - times[0]) / periods;
    rk->c.regular = (double)within / (double)(n - 1);
    /* regular first; among equally regular, the one with more instances */
    rk->score = spans >= 3 ? rk->c.regular * (double)spans : 0;
}

/* The thread of process p with the most samples: the main loop's, in a
 * serial or master-worker program (the others are covered by process
 * scope). */
static uint32_t busiest_thread(const tf_trace *tr, uint32_t p, size_t *samples)
{
    const tf_process *pr = tf_trace_process(tr, p);
    uint32_t thread = 0;
    *samples = 0;
    for (uint32_t t = 0; t < pr->nthreads; t++)
        if (pr->threads[t].nsamples > *samples) {
            *samples = pr->threads[t].nsamples;
            thread = t;
        }
    return thread;
}

/* The instances of one thread's candidate, appended to out's: spans
 * between consecutive boundaries that are one period long. */
static int make_instances(const struct change *changes, size_t from, size_t count,
                          uint32_t proc, uint32_t thread, uint64_t *times, uint64_t *clocks,
                          double *gaps, tf_iteration_found *out, size_t *cap, tf_error *err)
{
    size_t n = count;
    take(changes, from, n, times, clocks);
    double m = boundaries(times, clocks, &n, gaps);
    for (size_t k = 1; k < n; k++) {
        if (!is_instance((double)(clocks[k] - clocks[k - 1]), m))
            continue;
        tf_instance *v = tf_array_room(out->instances, out->ninstances, cap,
                                       sizeof *out->instances, 256);
        if (!v)
            return tf_fail(err, TF_ERR_NOMEM, "out of memory for %zu instances",
                           out->ninstances + 1);
        out->instances = v;
        out->instances[out->ninstances++] = (tf_instance){
            .proc = proc, .thread = thread, .region = UINT32_MAX,
            .begin = times[k - 1], .end = times[k], .status = TF_INSTANCE_COMPLETE,
        };
    }
    return 0;
}

/* One thread's routine changes, sorted by pair and time, with room for
 * a pair's boundaries. */
struct thread_changes {
    struct sequence seq;
    struct change *changes;
    size_t nchanges;
    uint64_t *times, *clocks;
    double *gaps;
};

static void thread_changes_free(struct thread_changes *tc)
{
    sequence_free(&tc->seq);
    free(tc->changes);
    free(tc->times);
    free(tc->clocks);
    free(tc->gaps);
    memset(tc, 0, sizeof *tc);
}

static int load_changes(tf_trace *tr, uint32_t proc, uint32_t thread, const char *debug_dir,
                        struct thread_changes *tc, tf_error *err)
{
    memset(tc, 0, sizeof *tc);
    int rc = read_sequence(tr, proc, thread, debug_dir, &tc->seq, err);
    if (rc < 0)
        return rc;
    size_t n = tc->seq.n + 1;
    tc->changes = malloc(n * sizeof *tc->changes);
    tc->times = malloc(n * sizeof *tc->times);
    tc->clocks = malloc(n * sizeof *tc->clocks);
    tc->gaps = malloc(n * sizeof *tc->gaps);
    if (!tc->changes || !tc->times || !tc->clocks || !tc->gaps)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for %zu samples", tc->seq.n);
    const struct sequence *seq = &tc->seq;
    for (size_t k = 1; k < seq->n; k++)
        if (seq->r[k] != seq->r[k - 1])
            tc->changes[tc->nchanges++] = (struct change){
                (uint64_t)seq->r[k - 1] << 32 | seq->r[k],
                seq->t[k - 1] + (seq->t[k] - seq->t[k - 1]) / 2,
                seq->c[k - 1] + (seq->c[k] - seq->c[k - 1]) / 2 };
    qsort(tc->changes, tc->nchanges, sizeof *tc->changes, by_pair_time);
    return 0;
}

/* The routine id of name in seq, or -1. */
static int64_t routine_id(const struct sequence *seq, const char *name)
{
    for (size_t k = 0; k < seq->nnames; k++)
        if (!strcmp(seq->names[k], name))
            return (int64_t)k;
    return -1;
}

/* The other processes' instances of the chosen candidate: the same
 * routine change on each one's busiest thread (every rank of an SPMD
 * program runs the same loop). */
static int other_processes(tf_trace *tr, const char *debug_dir, const tf_iteration_candidate *c,
                           tf_iteration_found *out, size_t *cap, tf_error *err)
{
    for (uint32_t p = 0; p < tf_trace_nprocesses(tr); p++) {
        if (p == out->proc)
            continue;
        size_t samples;
        uint32_t thread = busiest_thread(tr, p, &samples);
        if (!samples)
            continue;
        struct thread_changes tc;
        int rc = load_changes(tr, p, thread, debug_dir, &tc, err);
        int64_t left = rc < 0 ? -1 : routine_id(&tc.seq, c->after);
        int64_t entered = rc < 0 ? -1 : routine_id(&tc.seq, c->function);
        if (left >= 0 && entered >= 0) {
            uint64_t pair = (uint64_t)left << 32 | (uint64_t)entered;
            size_t from = 0, to;
            while (from < tc.nchanges && tc.changes[from].pair != pair)
                from++;
            for (to = from; to < tc.nchanges && tc.changes[to].pair == pair; to++)
                ;
            size_t before = out->ninstances;
            rc = make_instances(tc.changes, from, to - from, p, thread, tc.times, tc.clocks,
                                tc.gaps, out, cap, err);
            out->processes += out->ninstances > before;
        }
        thread_changes_free(&tc);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int tf_iteration_find(tf_trace *tr, const char *function, const char *debug_dir,
                      tf_iteration_found *out, tf_error *err)
{
    memset(out, 0, sizeof *out);
    size_t most = 0;
    for (uint32_t p = 0; p < tf_trace_nprocesses(tr); p++) {
        size_t samples;
        uint32_t t = busiest_thread(tr, p, &samples);
        if (samples > most || p == 0) {
            most = samples;
            out->proc = p;
            out->thread = t;
        }
    }
    struct thread_changes tc;
    struct ranked *ranked = NULL;
    size_t cap = 0;
    int rc = load_changes(tr, out->proc, out->thread, debug_dir, &tc, err);
    if (rc < 0)
        goto done;
    out->samples = tc.seq.n;
    size_t npairs = 0;
    for (size_t k = 0; k < tc.nchanges; k++)
        npairs += k == 0 || tc.changes[k].pair != tc.changes[k - 1].pair;
    if (!(ranked = malloc((npairs + 1) * sizeof *ranked))) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for %zu routine changes", npairs);
        goto done;
    }
    npairs = 0;
    for (size_t k = 0, j; k < tc.nchanges; k = j) {
        for (j = k; j < tc.nchanges && tc.changes[j].pair == tc.changes[k].pair; j++)
            ;
        rank_pair(tc.changes, k, j - k, &tc.seq, tc.times, tc.clocks, tc.gaps, &ranked[npairs]);
        if (ranked[npairs].score > 0)
            npairs++;
    }
    qsort(ranked, npairs, sizeof *ranked, by_score);
    size_t chosen = npairs;
    for (size_t k = 0; k < npairs && chosen == npairs; k++)
        if (function ? !strcmp(ranked[k].c.function, function)
                     : ranked[k].c.regular >= TF_ITERATION_REGULAR)
            chosen = k;
    /* the candidates listed: the best ones, and the chosen one among them */
    for (size_t k = 0; k < npairs && out->ncandidates < TF_ITERATION_CANDIDATES; k++)
        out->candidates[out->ncandidates++] = ranked[k].c;
    if (chosen == npairs) {
        rc = function ? tf_fail(err, TF_ERR_NOTFOUND, "%s: no recurring iteration begins in "
                                "routine '%s'", tf_trace_path(tr), function)
                      : tf_fail(err, TF_ERR_NOTFOUND, "%s: no regular iteration in the %zu "
                                "samples of process %u, thread %u", tf_trace_path(tr),
                                tc.seq.n, out->proc, out->thread);
        goto done;
    }
    out->chosen = chosen < out->ncandidates ? chosen : out->ncandidates - 1;
    out->candidates[out->chosen] = ranked[chosen].c;
    rc = make_instances(tc.changes, ranked[chosen].from, ranked[chosen].count, out->proc,
                        out->thread, tc.times, tc.clocks, tc.gaps, out, &cap, err);
    out->processes = 1;
    if (rc == 0)
        rc = other_processes(tr, debug_dir, &ranked[chosen].c, out, &cap, err);
done:
    thread_changes_free(&tc);
    free(ranked);
    if (rc < 0) {
        free(out->instances);
        out->instances = NULL;
        out->ninstances = 0;
    }
    return rc;
}
