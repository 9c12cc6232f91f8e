/* SPDX-License-Identifier: BSD-3-Clause */
/* Instances of one region with their counter deltas and folded samples.
 * Each thread's samples are streamed once, in batches, and merged with the
 * thread's instances (both in time order), so the cost is one pass over the
 * samples and the memory is the compact points only.  With two threads or
 * more, reading a batch and filing the one before overlap. */
#include "fold_input.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "formats/recorder_code.h"
#include "common/tf_handoff.h"
#include "common/tf_hash.h"
#include "common/tf_memory.h"

/* Samples per tf_samples_read call: large enough to amortise the HDF5
 * hyperslab reads, small enough to stay in cache-friendly buffers. */
#define BATCH 32768

int tf_fold_points_alloc(tf_fold_points *p, size_t n, uint32_t ncounters, tf_error *err)
{
    memset(p, 0, sizeof *p);
    size_t m = n ? n : 1;
    p->instance = tf_malloc_large(m * sizeof *p->instance);
    p->x = tf_malloc_large(m * sizeof *p->x);
    p->kind = tf_malloc_large(m * sizeof *p->kind);
    p->ip = tf_malloc_large(m * sizeof *p->ip);
    p->addr = tf_malloc_large(m * sizeof *p->addr);
    p->level = tf_malloc_large(m * sizeof *p->level);
    p->weight = tf_malloc_large(m * sizeof *p->weight);
    p->name_frame = tf_malloc_large(m * sizeof *p->name_frame);
    p->y = tf_malloc_large(m * (ncounters ? ncounters : 1) * sizeof *p->y);
    if (!p->instance || !p->x || !p->kind || !p->ip || !p->addr || !p->level || !p->weight ||
        !p->name_frame || !p->y) {
        tf_fold_points_free(p);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for %zu folded samples", n);
    }
    p->n = n;
    return 0;
}

/* realloc that keeps the old block when shrinking fails. */
static void *shrink_block(void *block, size_t bytes)
{
    void *smaller = realloc(block, bytes ? bytes : 1);
    return smaller ? smaller : block;
}

void tf_fold_points_shrink(tf_fold_points *p, size_t n, size_t stride, uint32_t ncounters)
{
    /* y is [C][stride]: move each counter's row down to stride n first. */
    for (uint32_t c = 1; c < ncounters; c++)
        memmove(p->y + (size_t)c * n, p->y + (size_t)c * stride, n * sizeof *p->y);
    p->instance = shrink_block(p->instance, n * sizeof *p->instance);
    p->x = shrink_block(p->x, n * sizeof *p->x);
    p->kind = shrink_block(p->kind, n * sizeof *p->kind);
    p->ip = shrink_block(p->ip, n * sizeof *p->ip);
    p->addr = shrink_block(p->addr, n * sizeof *p->addr);
    p->level = shrink_block(p->level, n * sizeof *p->level);
    p->weight = shrink_block(p->weight, n * sizeof *p->weight);
    p->name_frame = shrink_block(p->name_frame, n * sizeof *p->name_frame);
    p->y = shrink_block(p->y, n * ncounters * sizeof *p->y);
    p->n = n;
}

void tf_fold_points_free(tf_fold_points *p)
{
    free(p->instance);
    free(p->x);
    free(p->kind);
    free(p->ip);
    free(p->addr);
    free(p->level);
    free(p->weight);
    free(p->name_frame);
    free(p->y);
    memset(p, 0, sizeof *p);
}

void tf_fold_input_free(tf_fold_input *in)
{
    free(in->counter_names);
    free(in->counter_units);
    free(in->instances);
    free(in->counter_delta);
    free(in->samples);
    free(in->first_point);
    free(in->share);
    tf_fold_points_free(&in->points);
    memset(in, 0, sizeof *in);
}

/* The region's counters: the union, by name, of every process's counters,
 * in order of first appearance; map[p][c] gives the region index of process
 * p's counter c. */
static int collect_counters(const tf_trace *tr, tf_fold_input *in, uint32_t **map,
                            tf_error *err)
{
    uint32_t np = tf_trace_nprocesses(tr);
    size_t total = 0;
    for (uint32_t p = 0; p < np; p++)
        total += tf_trace_process(tr, p)->ncounters;
    in->counter_names = malloc((total ? total : 1) * sizeof *in->counter_names);
    in->counter_units = malloc((total ? total : 1) * sizeof *in->counter_units);
    for (uint32_t p = 0; p < np; p++)
        map[p] = NULL;
    if (!in->counter_names || !in->counter_units)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the counter list");
    for (uint32_t p = 0; p < np; p++) {
        const tf_process *proc = tf_trace_process(tr, p);
        map[p] = malloc((proc->ncounters ? proc->ncounters : 1) * sizeof *map[p]);
        if (!map[p])
            return tf_fail(err, TF_ERR_NOMEM, "out of memory for the counter list");
        for (uint32_t c = 0; c < proc->ncounters; c++) {
            const char *name = tf_trace_string(tr, proc->counters[c].name);
            uint32_t k = 0;
            while (k < in->ncounters && strcmp(in->counter_names[k], name))
                k++;
            if (k == in->ncounters) {
                const char *unit = tf_trace_string(tr, proc->counters[c].unit);
                in->counter_names[k] = name;
                in->counter_units[k] = unit[0] ? unit : "events";
                in->ncounters++;
            }
            map[p][c] = k;
        }
    }
    return 0;
}

/* Counter deltas of instance i, and the begin values used to normalise its
 * samples (region counter order). */
static void instance_deltas(const tf_trace *tr, const tf_instance *ins, const uint32_t *map,
                            uint32_t nc, const uint64_t *bound, uint64_t *delta, uint64_t *base)
{
    for (uint32_t k = 0; k < nc; k++) {
        delta[k] = TF_NOVALUE;
        base[k] = TF_NOVALUE;
    }
    if (ins->status != TF_INSTANCE_COMPLETE)
        return;
    const tf_process *proc = tf_trace_process(tr, ins->proc);
    const tf_thread *th = &proc->threads[ins->thread];
    /* a thread the instance covers (region_scope.h): its samples' values */
    const uint64_t *b = bound, *e = bound ? bound + proc->ncounters : NULL;
    if (!bound && !th->event_counters)
        return;
    if (!bound) {
        b = th->event_counters + ins->begin_event * proc->ncounters;
        e = th->event_counters + ins->end_event * proc->ncounters;
    }
    for (uint32_t c = 0; c < proc->ncounters; c++) {
        uint32_t k = map[c];
        if (b[c] == TF_NOVALUE || e[c] == TF_NOVALUE || e[c] < b[c])
            continue;
        delta[k] = e[c] - b[c];
        base[k] = b[c];
    }
}

struct thread_pass {
    const tf_trace *tr;
    tf_fold_input *in;
    const tf_extract_namer *namer;   /* NULL: no name frames */
    const tf_recorder_code *recorder; /* the process's recorder code */
    const uint32_t *map;      /* process counter -> region counter */
    uint64_t *base;           /* [N][C] begin values */
    size_t first, last;       /* this thread's instances [first, last) */
    size_t capacity;          /* rows of in->points.y */
    tf_extract_progress progress;
    void *progress_arg;
    uint64_t *done, total;
};

/* Appends sample s (counter row v, name frame name) as a point of
 * instance i. */
static void add_point(struct thread_pass *tp, size_t i, const tf_sample *s, const uint64_t *v,
                      uint32_t proc_nc, uint64_t name)
{
    tf_fold_input *in = tp->in;
    tf_fold_points *pt = &in->points;
    const tf_instance *ins = &in->instances[i];
    size_t j = pt->n++;
    pt->instance[j] = (uint32_t)i;
    pt->x[j] = (float)((double)(s->time - ins->begin) / (double)(ins->end - ins->begin));
    pt->kind[j] = s->kind;
    pt->ip[j] = s->ip;
    pt->addr[j] = s->addr;
    pt->level[j] = s->level;
    pt->weight[j] = s->weight;
    pt->name_frame[j] = name;
    for (uint32_t k = 0; k < in->ncounters; k++)
        pt->y[k * tp->capacity + j] = NAN;
    const uint64_t *delta = in->counter_delta + i * in->ncounters;
    const uint64_t *base = tp->base + i * in->ncounters;
    for (uint32_t c = 0; c < proc_nc; c++) {
        uint32_t k = tp->map[c];
        if (v[c] == TF_NOVALUE || delta[k] == TF_NOVALUE || delta[k] == 0)
            continue;
        pt->y[k * tp->capacity + j] =
            (float)(((double)v[c] - (double)base[k]) / (double)delta[k]);
    }
}

/* One batch of a thread's samples with their counter rows and, with a
 * namer, their name frames. */
struct batch {
    tf_sample *samples;
    uint64_t  *values;
    uint64_t  *names;     /* [BATCH] */
    size_t     n;
    bool       named;
};

/* Files a batch's samples into points: the instance cursor *at moves with
 * the samples, both in time order. */
static void file_batch(struct thread_pass *tp, const struct batch *b, size_t *at, uint32_t proc_nc)
{
    const tf_fold_input *in = tp->in;
    for (size_t s = 0; s < b->n; s++) {
        uint64_t t = b->samples[s].time;
        while (*at + 1 < tp->last && in->instances[*at + 1].begin <= t)
            (*at)++;
        const tf_instance *ins = &in->instances[*at];
        if (ins->status != TF_INSTANCE_COMPLETE || t < ins->begin || t > ins->end ||
            ins->end == ins->begin)
            continue;
        add_point(tp, *at, &b->samples[s], b->values + s * proc_nc, proc_nc,
                  b->named ? b->names[s] : 0);
    }
}

/* Reading and filing on two threads: this one reads batches (HDF5 stays on
 * it: Debian's HDF5 is not thread-safe) into the two buffers in turn, while
 * the filer files the other one (normalising, writing the points' columns,
 * touching their fresh pages), which touches nothing the reader does. */
struct pipeline {
    tf_handoff          h;
    struct batch       *b;        /* [2] */
    struct thread_pass *tp;
    uint32_t            proc_nc;
};

static void *filer(void *arg)
{
    struct pipeline *pl = arg;
    size_t at = pl->tp->first;
    for (unsigned k = 0; tf_handoff_take(&pl->h, k); k ^= 1) {
        file_batch(pl->tp, &pl->b[k], &at, pl->proc_nc);
        tf_handoff_release(&pl->h, k, false);
    }
    return NULL;
}

/* The call stacks read from the trace for the namer. */
struct stacks {
    uint64_t *frames;
    size_t    cap;
};

/* The name frames of a batch's samples: the frames of the whole batch,
 * which the recorder stores one sample after the other, in one read when
 * they lie together (else a read per sample). */
static int name_batch(const struct thread_pass *tp, uint32_t proc, uint32_t thread,
                      struct batch *b, struct stacks *st, tf_error *err)
{
    uint64_t lo = UINT64_MAX, hi = 0, frames_of_samples = 0;
    bool past_end = false;   /* a stack beyond any index: the reads refuse it */
    for (size_t i = 0; i < b->n; i++)
        if (b->samples[i].stack_len) {
            const tf_sample *s = &b->samples[i];
            past_end |= s->stack > UINT64_MAX - s->stack_len;
            lo = s->stack < lo ? s->stack : lo;
            hi = s->stack + s->stack_len > hi ? s->stack + s->stack_len : hi;
            frames_of_samples += s->stack_len;
        }
    /* together: the range holds little besides the samples' frames (a
     * trace that scatters them is read a sample at a time) */
    bool together = !past_end && hi > lo && hi - lo <= 2 * frames_of_samples;
    size_t want = together ? (size_t)(hi - lo) : UINT16_MAX;
    if (want > st->cap) {
        uint64_t *bigger = realloc(st->frames, want * sizeof *bigger);
        if (!bigger)
            return tf_fail(err, TF_ERR_NOMEM, "out of memory for %zu call-stack frames", want);
        st->frames = bigger;
        st->cap = want;
    }
    int rc = together ? tf_trace_read_frames((tf_trace *)tp->tr, proc, thread, lo, want,
                                             st->frames, err)
                      : 0;
    for (size_t i = 0; i < b->n && rc == 0; i++) {
        const tf_sample *s = &b->samples[i];
        const uint64_t *frames = st->frames;
        if (together)
            frames += s->stack_len ? s->stack - lo : 0;
        else if (s->stack_len)
            rc = tf_trace_read_frames((tf_trace *)tp->tr, proc, thread, s->stack, s->stack_len,
                                      st->frames, err);
        if (rc == 0)
            rc = tp->namer->name(tp->namer->ctx, proc, s->ip, frames, s->stack_len,
                                 &b->names[i], err);
    }
    b->named = true;
    return rc;
}

static int stream_thread(struct thread_pass *tp, struct batch b[2], unsigned threads,
                         tf_error *err)
{
    tf_fold_input *in = tp->in;
    const tf_instance *first = &in->instances[tp->first];
    const tf_process *proc = tf_trace_process(tp->tr, first->proc);
    tf_sample_cursor *cur;
    int rc = tf_samples_open((tf_trace *)tp->tr, first->proc, first->thread, &cur, err);
    if (rc < 0)
        return rc;
    struct pipeline pl = { .b = b, .tp = tp, .proc_nc = proc->ncounters };
    struct stacks stacks = { NULL, 0 };
    tf_handoff_init(&pl.h);
    pthread_t thread;
    bool piped = threads > 1 && pthread_create(&thread, NULL, filer, &pl) == 0;
    size_t at = tp->first;    /* latest-begun instance with begin <= sample time */
    for (unsigned k = 0;; k ^= 1) {
        struct batch *next = &b[piped ? k : 0];
        if (piped)
            tf_handoff_wait_empty(&pl.h, k);
        size_t n;
        rc = tf_samples_read(cur, next->samples, next->values, BATCH, &n, err);
        if (rc < 0 || n == 0)
            break;
        /* On this thread: the frames are read from the trace (HDF5). */
        rc = tf_recorder_code_skip((tf_trace *)tp->tr, first->proc, first->thread, tp->recorder,
                                   next->samples, n, err);
        next->n = n;
        if (rc == 0 && tp->namer)
            rc = name_batch(tp, first->proc, first->thread, next, &stacks, err);
        if (rc < 0)
            break;
        if (piped)
            tf_handoff_put(&pl.h, k);
        else
            file_batch(tp, next, &at, pl.proc_nc);
        *tp->done += n;
        if (tp->progress && tp->progress(tp->progress_arg, *tp->done, tp->total)) {
            rc = tf_fail(err, TF_ERR_CANCELED, "reading the samples: stopped after %llu of %llu",
                         (unsigned long long)*tp->done, (unsigned long long)tp->total);
            break;
        }
    }
    if (piped) {
        tf_handoff_end(&pl.h);
        pthread_join(thread, NULL);
    }
    tf_handoff_destroy(&pl.h);
    tf_samples_close(cur);
    free(stacks.frames);
    return rc;
}

/* The end of the run of instances of one thread that starts at i. */
static size_t thread_run_end(const tf_fold_input *in, size_t i)
{
    size_t j = i;
    while (j < in->ninstances && in->instances[j].proc == in->instances[i].proc &&
           in->instances[j].thread == in->instances[i].thread)
        j++;
    return j;
}

static uint64_t thread_samples(const tf_trace *tr, const tf_instance *ins)
{
    return tf_trace_process(tr, ins->proc)->threads[ins->thread].nsamples;
}

/* The fingerprint: FNV-1a's step on whole words, strings with their NUL
 * (so that "ab","c" and "a","bc" differ).  It only tells traces apart, it
 * defends against no one. */
static uint64_t mix(uint64_t h, uint64_t word)
{
    return tf_fnv_step(h, word);
}

static uint64_t mix_string(uint64_t h, const char *s)
{
    return mix(tf_fnv_string(h, s ? s : ""), 0);
}

/* What every share of one trace finds alike: the region's name, the
 * counters, every instance (where, when, how it ended, its deltas) and the
 * samples of their threads. */
static uint64_t fingerprint_of(const tf_trace *tr, const tf_fold_input *in, uint64_t samples)
{
    uint64_t h = mix_string(TF_FNV_OFFSET, tf_trace_string(tr, in->region));
    for (uint32_t c = 0; c < in->ncounters; c++)
        h = mix_string(mix_string(h, in->counter_names[c]), in->counter_units[c]);
    for (size_t i = 0; i < in->ninstances; i++) {
        const tf_instance *s = &in->instances[i];
        h = mix(mix(mix(h, (uint64_t)s->proc << 32 | s->thread), s->begin), s->end);
        h = mix(h, s->status);
        for (uint32_t c = 0; c < in->ncounters; c++)
            h = mix(h, in->counter_delta[i * in->ncounters + c]);
    }
    return mix(h, samples);
}

/* The share of the thread whose samples start `before` samples into the
 * extraction's `total`: shares cut the samples into equal parts, and a
 * thread goes where its first sample falls. */
static unsigned share_of(uint64_t before, uint64_t total, unsigned count)
{
    /* before * count stays below 2^64 up to 2^50 samples in 16384 shares */
    return total ? (unsigned)(before * count / total) : 0;
}

/* Completes the share once its points are in (y rows `stride` apart):
 * first_point and samples from the points' instances, the columns shrunk
 * to them. */
static int finish(tf_fold_input *in, size_t stride, tf_error *err)
{
    const tf_fold_points *pt = &in->points;
    /* Points arrive by instance: instance i's range ends where i+1's starts. */
    for (size_t p = 0; p < pt->n; p++) {
        uint32_t i = pt->instance[p];
        if (i >= in->ninstances || (p > 0 && i < pt->instance[p - 1]))
            return tf_fail(err, TF_ERR_INTERNAL, "folded sample %zu: instance %u after %u, of %zu",
                           p, i, p > 0 ? pt->instance[p - 1] : 0, in->ninstances);
        in->first_point[i + 1]++;
    }
    for (size_t i = 0; i < in->ninstances; i++) {
        in->samples[i] = in->first_point[i + 1];
        in->first_point[i + 1] += in->first_point[i];
    }
    tf_fold_points_shrink(&in->points, pt->n, stride, in->ncounters);
    return 0;
}

int tf_fold_input_extract(tf_trace *tr, uint32_t region, enum tf_region_scope scope,
                          const tf_region_given *given, const tf_extract_namer *namer,
                          unsigned threads, tf_extract_share share, tf_extract_progress progress,
                          void *progress_arg, tf_fold_input *in, tf_error *err)
{
    memset(in, 0, sizeof *in);
    in->region = region;
    uint32_t np = tf_trace_nprocesses(tr);
    uint32_t **map = calloc(np ? np : 1, sizeof *map);
    tf_recorder_code *recorder = malloc((np ? np : 1) * sizeof *recorder);
    uint64_t *base = NULL;
    struct batch b[2] = { { 0 } };
    tf_scoped_instances scoped = { 0 };
    int rc;
    if (!map || !recorder) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if (share.count == 0 || share.index >= share.count) {
        rc = tf_fail(err, TF_ERR_INTERNAL, "extraction: share %u of %u", share.index,
                     share.count);
        goto fail;
    }
    if ((rc = collect_counters(tr, in, map, err)) < 0)
        goto fail;
    tf_instance *marked;
    size_t nmarked = given ? given->n : 0;
    if (given) {
        if (!(marked = malloc((nmarked + 1) * sizeof *marked))) {
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for %zu instances", nmarked);
            goto fail;
        }
        memcpy(marked, given->v, nmarked * sizeof *marked);
    } else if ((rc = tf_instances_find(tr, region, &marked, &nmarked, err)) < 0) {
        goto fail;
    }
    if ((rc = tf_region_scope_apply(tr, region, scope, given != NULL, marked, nmarked, &scoped,
                                    err)) < 0)
        goto fail;
    in->instances = scoped.v;
    in->ninstances = scoped.n;
    scoped.v = NULL;

    size_t n = in->ninstances, nc = in->ncounters;
    in->counter_delta = malloc((n * nc + 1) * sizeof *in->counter_delta);
    base = malloc((n * nc + 1) * sizeof *base);
    in->samples = calloc(n ? n : 1, sizeof *in->samples);
    in->first_point = calloc(n + 1, sizeof *in->first_point);
    in->share = calloc(n ? n : 1, sizeof *in->share);
    if (!in->counter_delta || !base || !in->samples || !in->first_point || !in->share) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for %zu instances", n);
        goto fail;
    }
    for (size_t i = 0; i < n; i++)
        instance_deltas(tr, &in->instances[i], map[in->instances[i].proc], in->ncounters,
                        scoped.bound[i] == SIZE_MAX ? NULL : scoped.values + scoped.bound[i],
                        in->counter_delta + i * nc, base + i * nc);

    /* Every sample of the threads that hold an instance, and this share's. */
    uint64_t total = 0, mine = 0;
    uint32_t max_nc = 1;
    for (size_t i = 0; i < n; i = thread_run_end(in, i)) {
        total += thread_samples(tr, &in->instances[i]);
        uint32_t pnc = tf_trace_process(tr, in->instances[i].proc)->ncounters;
        if (pnc > max_nc)
            max_nc = pnc;
    }
    for (size_t i = 0, j, before = 0; i < n; i = j) {
        uint64_t ns = thread_samples(tr, &in->instances[i]);
        unsigned owner = share_of(before, total, share.count);
        size_t end = thread_run_end(in, i);
        for (j = i; j < end; j++)
            in->share[j] = owner;
        if (owner == share.index)
            mine += ns;
        before += ns;
    }
    in->fingerprint = fingerprint_of(tr, in, total);
    if ((rc = tf_fold_points_alloc(&in->points, mine, in->ncounters, err)) < 0) {
        tf_error_prefix(err, "%s: ", tf_trace_path(tr));
        goto fail;
    }
    in->points.n = 0;
    for (int k = 0; k < 2; k++) {
        b[k].samples = malloc(BATCH * sizeof *b[k].samples);
        b[k].values = malloc((size_t)BATCH * max_nc * sizeof *b[k].values);
        b[k].names = namer ? malloc(BATCH * sizeof *b[k].names) : NULL;
        if (!b[k].samples || !b[k].values || (namer && !b[k].names)) {
            rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for the sample buffers");
            goto fail;
        }
    }

    tf_recorder_code_find(tr, recorder);
    uint64_t done = 0, before = 0;
    for (size_t i = 0; i < n;) {
        size_t j = thread_run_end(in, i);
        uint64_t ns = thread_samples(tr, &in->instances[i]);
        struct thread_pass tp = {
            .tr = tr, .in = in, .namer = namer,
            .recorder = &recorder[in->instances[i].proc], .map = map[in->instances[i].proc],
            .base = base,
            .first = i, .last = j, .capacity = mine, .progress = progress,
            .progress_arg = progress_arg, .done = &done, .total = mine,
        };
        bool any_complete = false;
        for (size_t k = i; k < j; k++)
            any_complete |= in->instances[k].status == TF_INSTANCE_COMPLETE;
        if (any_complete && share_of(before, total, share.count) == share.index &&
            (rc = stream_thread(&tp, b, threads, err)) < 0)
            goto fail;
        before += ns;
        i = j;
    }
    if ((rc = finish(in, mine, err)) < 0)
        goto fail;
    goto done;
fail:
    tf_fold_input_free(in);
done:
    for (uint32_t p = 0; map && p < np; p++)
        free(map[p]);
    free(map);
    free(recorder);
    free(base);
    tf_scoped_instances_free(&scoped);
    for (int k = 0; k < 2; k++) {
        free(b[k].samples);
        free(b[k].values);
        free(b[k].names);
    }
    return rc;
}
