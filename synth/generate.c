/* SPDX-License-Identifier: BSD-3-Clause */
/* Writes a synthetic trace thread by thread, instance by instance, through
 * fixed-size batches: memory stays constant whatever the trace size, and no
 * sample costs an allocation. */
#include "config.h"

#include "synth.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"
#include "formats/trace.h"
#include "truth.h"

#define EVENT_BATCH 1024
#define SAMPLE_BATCH 8192
/* Address ranges of the code: the set-up routine, then one block per phase
 * holding three source lines of SYMBOL_BYTES each. */
#define CODE_BLOCK 0x1000u
#define SYMBOL_BYTES 0x40u
#define SYMBOL_LINES 3
#define PAGE UINT64_C(4096)
#define EXECUTABLE "/opt/synth/bin/miniapp"

/* Independent random streams, so that e.g. changing the sampling leaves the
 * drawn instances unchanged (tests compare accuracy across sample counts). */
enum { STREAM_INSTANCES, STREAM_TIMER, STREAM_MEMORY, STREAM_LAYOUT };

struct layout {
    uint64_t code;                              /* first code address */
    uint64_t object[TF_SYNTH_MAX_OBJECTS];      /* object start addresses */
};

struct gen {
    const tf_synth_options *o;
    const tf_synth_scenario *sc;
    tf_trace_out *w;
    tf_synth_truth *truth;
    uint32_t K, C;
    uint32_t region;
    uint32_t phase_region[TF_SYNTH_MAX_PHASES];
    double period, mem_period;
    tf_synth_progress progress;
    void *progress_arg;
    uint64_t done, total;

    uint32_t proc, thread, thread_index;
    const struct layout *layout;
    uint64_t *base, *totals, *novalue;          /* [C] */
    /* The observer effect (--sample-cost): what the pauses of the earlier
     * instances add to the times, the work offsets of the current
     * instance's samples (a pause each), and what each counter counts
     * during one pause (phase 0's nominal rate). */
    double shift;
    double *paused_at;
    size_t npaused, cap_paused;
    double *pause_counts;                       /* [C] */
    uint32_t *order;                            /* [iterations], to pick outliers */
    uint8_t *outlier;                           /* [iterations] */
    double *inst_mem;
    tf_synth_instance in;
    tf_rng rng_inst, rng_timer, rng_mem;

    tf_event *ev;
    uint64_t *ev_counters;
    size_t nev;
    tf_sample *smp;
    uint64_t *smp_counters;
    size_t nsmp;
};

static int flush_events(struct gen *g, tf_error *err)
{
    int rc = g->nev ? tf_trace_out_append_events(g->w, g->proc, g->thread, g->ev, g->ev_counters,
                                                 g->nev, err)
                    : 0;
    g->nev = 0;
    return rc;
}

static int flush_samples(struct gen *g, tf_error *err)
{
    int rc = g->nsmp ? tf_trace_out_append_samples(g->w, g->proc, g->thread, g->smp,
                                                   g->smp_counters, g->nsmp, err)
                     : 0;
    g->nsmp = 0;
    return rc;
}

/* The next free slot of the sample batch (flushing a full one first), or
 * NULL on a write error. */
static tf_sample *next_sample(struct gen *g, uint64_t **counters, tf_error *err)
{
    if (g->nsmp == SAMPLE_BATCH && flush_samples(g, err) < 0)
        return NULL;
    *counters = g->smp_counters + g->nsmp * g->C;
    tf_sample *s = &g->smp[g->nsmp++];
    memset(s, 0, sizeof *s);
    s->level = TF_LEVEL_UNKNOWN;
    return s;
}

/* Pauses of the current instance before its work offset tau. */
static size_t pauses_before(const struct gen *g, double tau)
{
    size_t n = 0;
    while (n < g->npaused && g->paused_at[n] < tau)
        n++;
    return n;
}

/* The event at the instance's work offset tau (time: begin + tau, on the
 * work clock), moved by the pauses before it. */
static int add_event(struct gen *g, uint64_t time, uint8_t kind, uint32_t region,
                     uint32_t seg, double tau, tf_error *err)
{
    if (g->nev == EVENT_BATCH && flush_events(g, err) < 0)
        return -err->code;
    uint64_t *row = g->ev_counters + g->nev * g->C;
    double paused = (double)pauses_before(g, tau);
    for (uint32_t c = 0; c < g->C; c++)
        row[c] = g->base[c] + (uint64_t)llround(tf_synth_integral(&g->in, seg, tau, c) +
                                                paused * g->pause_counts[c]);
    time += (uint64_t)llround(g->shift + paused * (double)g->o->sample_cost_ns);
    g->ev[g->nev++] = (tf_event){.time = time, .value = region, .kind = kind};
    return 0;
}

/* A sample inside the instance at work time t (from begin): its clock is
 * read halfway through its own pause, which is recorded.  Returns the
 * sample's trace time; *paused: the pauses before it, counting half of its
 * own. */
static int pause_for_sample(struct gen *g, uint64_t t, uint64_t begin, uint64_t *time,
                            double *paused, tf_error *err)
{
    *paused = (double)g->npaused + 0.5;
    *time = t + (uint64_t)llround(g->shift + *paused * (double)g->o->sample_cost_ns);
    if (!g->o->sample_cost_ns)
        return 0;
    if (g->npaused == g->cap_paused) {
        size_t cap = g->cap_paused ? 2 * g->cap_paused : 64;
        double *grown = realloc(g->paused_at, cap * sizeof *grown);
        if (!grown)
            return tf_fail(err, TF_ERR_NOMEM, "out of memory for the synthetic samples' pauses");
        g->paused_at = grown;
        g->cap_paused = cap;
    }
    g->paused_at[g->npaused++] = (double)(t - begin);
    return 0;
}

/* An address on one of the phase's source lines: 70 % on its main line,
 * then 20 % and 10 % on the next two, so that a "most observed line"
 * exists and is not the only one. */
static uint64_t phase_ip(const struct gen *g, uint32_t k, tf_rng *rng)
{
    double u = tf_rng_uniform(rng);
    uint32_t line = u < 0.7 ? 0 : u < 0.9 ? 1 : 2;
    return g->layout->code + CODE_BLOCK * (k + 1) + SYMBOL_BYTES * line +
           tf_rng_below(rng, SYMBOL_BYTES);
}

static int timer_sample(struct gen *g, uint64_t t, uint64_t begin, uint32_t *hint,
                        tf_error *err)
{
    uint64_t *row, time;
    double paused;
    tf_sample *s = next_sample(g, &row, err);
    if (!s || pause_for_sample(g, t, begin, &time, &paused, err) < 0)
        return -err->code;
    double tau = (double)(t - begin);
    uint32_t seg = *hint = tf_synth_segment_at(&g->in, tau, *hint);
    s->time = time;
    s->kind = TF_SAMPLE_TIMER;
    s->ip = phase_ip(g, g->in.seg[seg].phase, &g->rng_timer);
    for (uint32_t c = 0; c < g->C; c++)
        row[c] = g->base[c] + (uint64_t)llround(tf_synth_integral(&g->in, seg, tau, c) +
                                                paused * g->pause_counts[c]);
    return 0;
}

/* Where loads are served and at what cost, by access pattern (documented in
 * synth.md): rows of (cumulative probability, level, least cost, spread).
 * Random loads from DRAM have two cost modes, as on a NUMA machine. */
struct load_level {
    double upto;
    uint8_t level;
    uint32_t cost, spread;
};
static const struct load_level load_levels[][3] = {
    [TF_PATTERN_LINEAR] = {{0.8, TF_LEVEL_L1, 4, 3}, {0.9, TF_LEVEL_LFB, 30, 11},
                           {1.0, TF_LEVEL_L2, 12, 5}},
    [TF_PATTERN_STRIDED] = {{0.5, TF_LEVEL_L2, 12, 5}, {0.8, TF_LEVEL_L3, 40, 11},
                            {1.0, TF_LEVEL_DRAM, 280, 41}},
    [TF_PATTERN_RANDOM] = {{0.3, TF_LEVEL_L3, 40, 11}, {0.65, TF_LEVEL_DRAM, 330, 41},
                           {1.0, TF_LEVEL_DRAM, 760, 81}},
};

static void load_cost(tf_sample *s, uint8_t pattern, tf_rng *rng)
{
    double u = tf_rng_uniform(rng);
    const struct load_level *l = load_levels[pattern];
    while (u >= l->upto && l->upto < 1.0)
        l++;
    s->level = l->level;
    s->weight = l->cost + (uint32_t)tf_rng_below(rng, l->spread);
}

static uint64_t stream_address(const struct gen *g, const tf_synth_stream *st, double p,
                               tf_rng *rng)
{
    uint64_t slice = tf_synth_object_slice(g->sc, st->object);
    uint64_t part = st->bytes / st->streams;
    uint64_t start = g->layout->object[st->object] + slice * g->thread_index +
                     part * tf_rng_below(rng, st->streams);
    switch (st->pattern) {
    case TF_PATTERN_LINEAR: {
        uint64_t off = (uint64_t)(p * (double)(part / 8)) * 8;
        return st->direction > 0 ? start + off : start + part - 8 - off;
    }
    case TF_PATTERN_STRIDED:
        return start + (uint64_t)(p * (double)(part / st->stride)) * st->stride;
    default:
        return start + 8 * tf_rng_below(rng, part / 8);
    }
}

static int memory_sample(struct gen *g, uint64_t t, uint64_t begin, tf_error *err)
{
    const tf_synth_instance *in = &g->in;
    uint64_t tau = t - begin;
    if (in->stall_len && tau >= in->stall_at && tau < in->stall_at + in->stall_len)
        return 0;   /* a stalled thread references nothing */
    uint64_t w = in->stall_len && tau >= in->stall_at ? tau - in->stall_len : tau;
    uint32_t k = 0;
    while (k + 1 < in->nphases && in->work_begin[k + 1] <= w)
        k++;
    double p = (double)(w - in->work_begin[k]) /
               (double)(in->work_begin[k + 1] - in->work_begin[k]);

    const tf_synth_phase *ph = &g->sc->phases[k];
    uint64_t all = 0;
    for (uint32_t i = 0; i < ph->nstreams; i++)
        all += ph->streams[i].bytes;
    uint64_t pick = tf_rng_below(&g->rng_mem, all);
    uint32_t i = 0;
    while (pick >= ph->streams[i].bytes)
        pick -= ph->streams[i++].bytes;
    const tf_synth_stream *st = &ph->streams[i];

    uint64_t *row, time;
    double paused;
    tf_sample *s = next_sample(g, &row, err);
    if (!s || pause_for_sample(g, t, begin, &time, &paused, err) < 0)
        return -err->code;
    memcpy(row, g->novalue, g->C * sizeof *row);
    s->time = time;
    s->kind = st->store ? TF_SAMPLE_STORE : TF_SAMPLE_LOAD;
    s->ip = phase_ip(g, k, &g->rng_mem);
    s->addr = stream_address(g, st, p, &g->rng_mem);
    if (!st->store)
        load_cost(s, st->pattern, &g->rng_mem);
    return 0;
}

static double next_interval(tf_rng *rng, double mean, bool poisson)
{
    return poisson ? mean * tf_rng_exponential(rng) : mean;
}

/* Exactly round(outliers × iterations) stalled instances per thread, at
 * random places: a partial Fisher-Yates shuffle of the iteration numbers. */
static void pick_outliers(struct gen *g)
{
    uint32_t I = g->o->iterations;
    uint32_t n = (uint32_t)llround(g->o->outliers * I);
    for (uint32_t j = 0; j < I; j++) {
        g->order[j] = j;
        g->outlier[j] = 0;
    }
    for (uint32_t j = 0; j < n; j++) {
        uint32_t r = j + (uint32_t)tf_rng_below(&g->rng_inst, I - j);
        uint32_t x = g->order[r];
        g->order[r] = g->order[j];
        g->order[j] = x;
        g->outlier[x] = 1;
    }
}

static int instance_events(struct gen *g, uint64_t begin, tf_error *err)
{
    const tf_synth_instance *in = &g->in;
    uint32_t last = in->nseg - 1;
    if (add_event(g, begin, TF_EVENT_ENTER, g->region, 0, 0, err) < 0)
        return -err->code;
    if (g->o->nested) {
        uint32_t seg = 0;
        for (uint32_t k = 0; k < in->nphases; k++) {
            double t0 = (double)in->phase_begin[k], t1 = (double)in->phase_begin[k + 1];
            seg = tf_synth_segment_at(in, t0, seg);
            if (add_event(g, begin + in->phase_begin[k], TF_EVENT_ENTER, g->phase_region[k],
                          seg, t0, err) < 0)
                return -err->code;
            seg = k + 1 < in->nphases ? tf_synth_segment_at(in, t1, seg) : last;
            if (add_event(g, begin + in->phase_begin[k + 1], TF_EVENT_EXIT,
                          g->phase_region[k], seg, t1, err) < 0)
                return -err->code;
        }
    }
    return add_event(g, begin + in->duration, TF_EVENT_EXIT, g->region, last,
                     (double)in->duration, err);
}

static int gen_thread(struct gen *g, tf_error *err)
{
    const tf_synth_options *o = g->o;
    uint64_t key = (uint64_t)g->proc << 32 | g->thread_index;
    tf_rng_init(&g->rng_inst, o->seed, STREAM_INSTANCES, key);
    tf_rng_init(&g->rng_timer, o->seed, STREAM_TIMER, key);
    tf_rng_init(&g->rng_mem, o->seed, STREAM_MEMORY, key);
    pick_outliers(g);
    g->shift = 0;
    for (uint32_t c = 0; c < g->C; c++)
        g->pause_counts[c] = tf_synth_counter_rate(&g->sc->phases[0], 0, c) *
                             (double)o->sample_cost_ns * 1e-9;

    /* Set-up before the first instance, at phase 0's nominal rates. */
    uint64_t setup = (uint64_t)llround((double)o->duration_ns *
                                       (0.01 + 0.02 * tf_rng_uniform(&g->rng_inst)));
    const tf_synth_phase *ph0 = &g->sc->phases[0];
    double next_t = o->poisson ? g->period * tf_rng_exponential(&g->rng_timer)
                               : g->period * tf_rng_uniform(&g->rng_timer);
    double next_m = g->mem_period * tf_rng_exponential(&g->rng_mem);
    for (; next_t < (double)setup; next_t += next_interval(&g->rng_timer, g->period, o->poisson)) {
        uint64_t *row;
        tf_sample *s = next_sample(g, &row, err);
        if (!s)
            return -err->code;
        s->time = (uint64_t)next_t;
        s->kind = TF_SAMPLE_TIMER;
        s->ip = g->layout->code + tf_rng_below(&g->rng_timer, SYMBOL_BYTES);
        for (uint32_t c = 0; c < g->C; c++)
            row[c] = (uint64_t)llround(tf_synth_counter_rate(ph0, 0, c) *
                                       (double)s->time * 1e-9);
    }
    while (next_m < (double)setup)
        next_m += g->mem_period * tf_rng_exponential(&g->rng_mem);
    for (uint32_t c = 0; c < g->C; c++)
        g->base[c] = (uint64_t)llround(tf_synth_counter_rate(ph0, 0, c) * (double)setup * 1e-9);

    uint64_t begin = setup;
    for (uint32_t j = 0; j < o->iterations; j++) {
        tf_synth_instance_draw(&g->in, g->sc, o, tf_synth_kind_of(g->sc, j), g->outlier[j],
                               &g->rng_inst);
        g->npaused = 0;
        double end = (double)(begin + g->in.duration);
        uint32_t hint = 0;
        for (;;) {
            bool timer = !o->memory || next_t <= next_m;
            double t = timer ? next_t : next_m;
            if (t >= end)
                break;
            int rc;
            if (timer) {
                rc = timer_sample(g, (uint64_t)t, begin, &hint, err);
                next_t += next_interval(&g->rng_timer, g->period, o->poisson);
            } else {
                rc = memory_sample(g, (uint64_t)t, begin, err);
                next_m += g->mem_period * tf_rng_exponential(&g->rng_mem);
            }
            if (rc < 0)
                return rc;
        }
        /* The events once the samples' pauses are known (events and
         * samples go to the trace apart, each in time order). */
        if (instance_events(g, begin, err) < 0)
            return -err->code;
        for (uint32_t c = 0; c < g->C; c++)
            g->totals[c] = (uint64_t)llround(g->in.total[c]);
        tf_synth_truth_add(g->truth, &g->in, begin + (uint64_t)llround(g->shift), g->totals);
        for (uint32_t c = 0; c < g->C; c++)
            g->base[c] += g->totals[c] +
                          (uint64_t)llround((double)g->npaused * g->pause_counts[c]);
        g->shift += (double)g->npaused * (double)o->sample_cost_ns;
        begin += g->in.duration;
        if (g->progress)
            g->progress(++g->done, g->total, g->progress_arg);
    }
    if (flush_events(g, err) < 0 || flush_samples(g, err) < 0)
        return -err->code;
    return 0;
}

/* Where a process's code and objects live: fixed places, or with --aslr
 * shifted by whole pages, differently for each process, as address-space
 * randomisation does. */
static void make_layout(const struct gen *g, uint32_t p, struct layout *l, uint64_t *image_end)
{
    tf_rng rng;
    tf_rng_init(&rng, g->o->seed, STREAM_LAYOUT, p);
    uint64_t code_shift = g->o->aslr ? PAGE * tf_rng_below(&rng, 1u << 16) : 0;
    uint64_t heap_shift = g->o->aslr ? PAGE * tf_rng_below(&rng, 1u << 20) : 0;
    l->code = UINT64_C(0x400000) + code_shift;
    /* Statics sit in the executable's image after its code. */
    uint64_t statics = l->code + UINT64_C(0x200000);
    uint64_t heap = UINT64_C(0x7f0000000000) + heap_shift;
    for (uint32_t i = 0; i < g->sc->nobjects; i++) {
        uint64_t size = tf_synth_object_slice(g->sc, i) * g->o->threads;
        uint64_t *next = g->sc->objects[i].kind == TF_OBJECT_STATIC ? &statics : &heap;
        l->object[i] = *next;
        *next += size + PAGE;
    }
    *image_end = statics;
}

static int write_code(struct gen *g, const struct layout *l, uint64_t image_end,
                      tf_error *err)
{
    tf_symbol sym[1 + TF_SYNTH_MAX_PHASES * SYMBOL_LINES];
    size_t n = 0;
    int rc;
    sym[n] = (tf_symbol){.start = l->code, .end = l->code + SYMBOL_BYTES, .line = 30};
    if ((rc = tf_trace_out_intern(g->w, "main", &sym[n].function, err)) < 0 ||
        (rc = tf_trace_out_intern(g->w, "main.c", &sym[n].file, err)) < 0)
        return rc;
    n++;
    for (uint32_t k = 0; k < g->K; k++) {
        const tf_synth_phase *ph = &g->sc->phases[k];
        for (uint32_t m = 0; m < SYMBOL_LINES; m++, n++) {
            uint64_t start = l->code + CODE_BLOCK * (k + 1) + SYMBOL_BYTES * m;
            sym[n] = (tf_symbol){.start = start, .end = start + SYMBOL_BYTES,
                                 .line = ph->line + m};
            if ((rc = tf_trace_out_intern(g->w, ph->routine, &sym[n].function, err)) < 0 ||
                (rc = tf_trace_out_intern(g->w, ph->file, &sym[n].file, err)) < 0)
                return rc;
        }
    }
    if ((rc = tf_trace_out_append_symbols(g->w, g->proc, sym, n, err)) < 0)
        return rc;
    tf_module mod = {.start = l->code, .end = image_end};
    if ((rc = tf_trace_out_intern(g->w, EXECUTABLE, &mod.path, err)) < 0)
        return rc;
    return tf_trace_out_append_modules(g->w, g->proc, &mod, 1, err);
}

static int write_objects(struct gen *g, const struct layout *l, tf_error *err)
{
    tf_object obj[TF_SYNTH_MAX_OBJECTS];
    for (uint32_t i = 0; i < g->sc->nobjects; i++) {
        const tf_synth_object *so = &g->sc->objects[i];
        obj[i] = (tf_object){
            .start = l->object[i],
            .size = tf_synth_object_slice(g->sc, i) * g->o->threads,
            .alloc_time = 0,
            .free_time = TF_NOTIME,
            .id = TF_SYNTH_OBJECT_ID(i),
            .kind = so->kind,
        };
        int rc;
        if ((rc = tf_trace_out_intern(g->w, so->name, &obj[i].name, err)) < 0 ||
            (rc = tf_trace_out_intern(g->w, so->callsite, &obj[i].callsite, err)) < 0)
            return rc;
    }
    return tf_trace_out_append_objects(g->w, g->proc, obj, g->sc->nobjects, err);
}

static int write_process(struct gen *g, uint32_t p, tf_error *err)
{
    const tf_synth_options *o = g->o;
    char names[TF_MAX_COUNTERS][16], host[32];
    const char *counter_names[TF_MAX_COUNTERS];
    for (uint32_t c = 0; c < g->C; c++)
        counter_names[c] = tf_synth_counter_name(c, names[c], sizeof names[c]);
    snprintf(host, sizeof host, "synth-node%02u", p);
    int64_t pid = 4000 + 17 * (int64_t)p;
    tf_process_desc d = {
        .pid = pid,
        .rank = o->processes > 1 ? (int32_t)p : -1,
        .nranks = o->processes > 1 ? (int32_t)o->processes : 0,
        .executable = EXECUTABLE,
        .host = host,
        .build_id = "",
        .ncounters = g->C,
        .counter_names = counter_names,
    };
    int rc = tf_trace_out_add_process(g->w, &d, &g->proc, err);
    if (rc < 0)
        return rc;

    struct layout l;
    uint64_t image_end;
    make_layout(g, p, &l, &image_end);
    g->layout = &l;
    if ((rc = write_code(g, &l, image_end, err)) < 0)
        return rc;
    if (o->memory && (rc = write_objects(g, &l, err)) < 0)
        return rc;
    for (uint32_t t = 0; t < o->threads; t++) {
        if ((rc = tf_trace_out_add_thread(g->w, g->proc, (uint64_t)pid + t, &g->thread, err)) < 0)
            return rc;
        g->thread_index = t;
        if ((rc = gen_thread(g, err)) < 0)
            return rc;
    }
    g->layout = NULL;
    return 0;
}

static void free_buffers(struct gen *g)
{
    free(g->base);
    free(g->order);
    free(g->outlier);
    free(g->inst_mem);
    free(g->ev);
    free(g->ev_counters);
    free(g->smp);
    free(g->smp_counters);
    free(g->paused_at);
    free(g->pause_counts);
}

static int alloc_buffers(struct gen *g, tf_error *err)
{
    size_t C = g->C;
    g->base = malloc(3 * C * sizeof *g->base);
    g->order = malloc(g->o->iterations * sizeof *g->order);
    g->outlier = malloc(g->o->iterations);
    g->inst_mem = malloc(tf_synth_instance_doubles(g->K, g->C) * sizeof(double));
    g->ev = malloc(EVENT_BATCH * sizeof *g->ev);
    g->ev_counters = malloc(EVENT_BATCH * C * sizeof *g->ev_counters);
    g->smp = malloc(SAMPLE_BATCH * sizeof *g->smp);
    g->smp_counters = malloc(SAMPLE_BATCH * C * sizeof *g->smp_counters);
    g->pause_counts = malloc((C + 1) * sizeof *g->pause_counts);
    if (!g->base || !g->order || !g->outlier || !g->inst_mem || !g->ev || !g->ev_counters ||
        !g->smp || !g->smp_counters || !g->pause_counts)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the synthetic trace buffers");
    g->totals = g->base + C;
    g->novalue = g->base + 2 * C;
    for (size_t c = 0; c < C; c++)
        g->novalue[c] = TF_NOVALUE;
    tf_synth_instance_init(&g->in, g->K, g->C, g->inst_mem);
    return 0;
}

int tf_synth_write(const tf_synth_options *o, const char *path, bool overwrite,
                   tf_synth_progress progress, void *arg, tf_error *err)
{
    int rc = tf_synth_check(o, err);
    if (rc < 0)
        return rc;
    if (!overwrite && access(path, F_OK) == 0)
        return tf_fail(err, TF_ERR_EXISTS, "%s: the file already exists", path);

    struct gen g = {
        .o = o,
        .sc = tf_synth_scenario_find(o->scenario),
        .C = o->counters,
        .period = o->period_ns ? (double)o->period_ns
                               : (double)o->duration_ns / o->samples_per_iteration,
        .mem_period = (double)o->duration_ns / o->memory_samples,
        .progress = progress,
        .progress_arg = arg,
        .total = (uint64_t)o->processes * o->threads * o->iterations,
    };
    g.K = g.sc->nphases;
    /* Fixed metadata, so that the same options give the same trace. */
    tf_trace_meta meta = {
        .clock = "synthetic",
        .host = "synth-node00",
        .command_line = o->command_line ? o->command_line : "tracefold synth",
        .producer = "tracefold synth " PACKAGE_VERSION,
        .start_time = UINT64_C(1764460800000000000),
    };
    if ((rc = alloc_buffers(&g, err)) < 0 ||
        (rc = tf_synth_truth_create(&g.truth, o, g.sc, err)) < 0)
        goto done;
    if ((rc = tf_trace_out_create(&g.w, path, &meta, TF_TRACE_OUT_ATOMIC, err)) < 0)
        goto done;
    if ((rc = tf_trace_out_intern(g.w, o->region, &g.region, err)) < 0)
        goto done;
    for (uint32_t k = 0; k < g.K && o->nested; k++)
        if ((rc = tf_trace_out_intern(g.w, g.sc->phases[k].name, &g.phase_region[k], err)) < 0)
            goto done;
    for (uint32_t p = 0; p < o->processes; p++)
        if ((rc = write_process(&g, p, err)) < 0)
            goto done;
    if ((rc = tf_synth_truth_write(g.truth, tf_trace_out_file(g.w), err)) < 0)
        goto done;
    rc = tf_trace_out_close(g.w, err);
    g.w = NULL;
done:
    if (g.w)
        tf_trace_out_abort(g.w);
    tf_synth_truth_free(g.truth);
    free_buffers(&g);
    return rc;
}
