/* SPDX-License-Identifier: BSD-3-Clause */
#include "prv_export.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prv_fields.h"
#include "prv_mpi.h"
#include "prv_types.h"
#include "prv_out.h"
#include "recorder_code.h"
#include "strtab.h"

#define SAMPLE_BATCH 1024u
#define FRAME_WINDOW 65536u

/* One thread's records in time order: its events (in memory), its samples
 * (streamed), and for a process's first thread the object allocations and
 * frees. */
typedef struct obj_event {
    uint64_t time;
    uint32_t object;
    bool     is_free;
} obj_event;

typedef struct tstream {
    uint32_t          proc, thread, appl_task;   /* appl_task: Paraver task number */
    uint32_t          cpu;
    size_t            next_event;
    tf_sample_cursor *cursor;
    tf_sample        *samples;
    uint64_t         *rows;
    size_t            nsamples, next_sample;
    bool              samples_done;
    obj_event        *objs;
    size_t            nobjs, next_obj;
    uint64_t         *last;       /* last counter value written, per counter */
    uint64_t         *frames;     /* window of the thread's frames */
    uint64_t          frames_first;
    size_t            frames_n;
    tf_prv_mpi_span  *states;     /* the whole thread: running and MPI calls */
    size_t            nstates, next_state;
    const tf_prv_mpi_message *msgs;   /* sent by this thread, by send time */
    size_t            nmsgs, next_msg;
    uint32_t          mpi_type;   /* Paraver type of the MPI call in progress, 0: none */
} tstream;

typedef struct exporter {
    tf_trace            *tr;
    tf_prv_out       *w;
    tf_pcf              *pcf;
    tf_prv_symbolize_fn  symbolize;
    void                *arg;
    tstream             *ts;
    uint32_t             nts;
    uint32_t            *heap;      /* stream indices, ordered by next time */
    uint32_t             nheap;
    uint32_t           **ctype;     /* per process: Paraver type of each counter */
    tf_symbol          **symbols;   /* per process, sorted by start */
    tf_recorder_code    *recorder;  /* per process: the recorder's code, left out */
    tf_prv_objects       objects;
    tf_strtab            functions, lines;
    uint32_t             maxdepth;
    tf_prv_pairs         ps;          /* the pairs of the record being built */
    tf_prv_mpi           mpi;
    tf_prv_mpi_message  *msgs;        /* mpi's messages grouped by sending thread */
    tf_prv_export_stats *stats;
} exporter;

static int nomem(tf_error *err) { return tf_fail(err, TF_ERR_NOMEM, "out of memory"); }

/* ---- symbols ---------------------------------------------------------------- */

static int cmp_symbol(const void *a, const void *b)
{
    const tf_symbol *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* The trace's own symbols table, when no symboliser is given. */
static int table_symbolize(exporter *ex, uint32_t proc, uint64_t ip, tf_prv_source *src)
{
    const tf_process *p = tf_trace_process(ex->tr, proc);
    const tf_symbol *s = ex->symbols[proc];
    size_t lo = 0, hi = p->nsymbols;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s[mid].start <= ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    *src = (tf_prv_source){"", "", 0};
    if (lo && ip < s[lo - 1].end) {
        src->function = tf_trace_string(ex->tr, s[lo - 1].function);
        src->file = tf_trace_string(ex->tr, s[lo - 1].file);
        src->line = s[lo - 1].line;
    }
    return 0;
}

/* The caller and line values of an address, labelling new ones. */
static int site_values(exporter *ex, uint32_t proc, uint64_t ip, bool ret, uint64_t *fn,
                       uint64_t *line, tf_error *err)
{
    tf_prv_source src;
    int rc = ex->symbolize ? ex->symbolize(ex->arg, proc, ip, ret, &src, err)
                           : table_symbolize(ex, (uint32_t)proc, ret ? ip - 1 : ip, &src);
    if (rc < 0)
        return rc;
    *fn = *line = 1;
    uint32_t id;
    if (src.function && *src.function) {
        if (!tf_strtab_find(&ex->functions, src.function, &id) &&
            !tf_strtab_add(&ex->functions, src.function, &id))
            return nomem(err);
        *fn = id + TF_PRV_FIRST_SITE;
    }
    if (src.line) {
        char label[600];
        const char *base = src.file ? strrchr(src.file, '/') : NULL;
        snprintf(label, sizeof label, "%" PRIu32 " (%s)", src.line,
                 base ? base + 1 : src.file ? src.file : "");
        if (!tf_strtab_find(&ex->lines, label, &id) && !tf_strtab_add(&ex->lines, label, &id))
            return nomem(err);
        *line = id + TF_PRV_FIRST_SITE;
    }
    return 0;
}

/* ---- objects ------------------------------------------------------------------ */

static const tf_process *proc_of(exporter *ex, uint32_t p) { return tf_trace_process(ex->tr, p); }

static int cmp_obj_event(const void *a, const void *b)
{
    const obj_event *x = a, *y = b;
    return x->time < y->time ? -1 : x->time > y->time;
}

static int setup_objects(exporter *ex, uint32_t proc, tstream *first, tf_error *err)
{
    const tf_process *p = proc_of(ex, proc);
    first->objs = malloc((2 * p->nobjects + 1) * sizeof *first->objs);
    if (!first->objs)
        return nomem(err);
    for (uint32_t i = 0; i < p->nobjects; i++) {
        const tf_object *o = &p->objects[i];
        if (o->kind == TF_OBJECT_STATIC)
            continue;   /* there from the start: no allocation to show */
        first->objs[first->nobjs++] = (obj_event){o->alloc_time, i, false};
        if (o->free_time != TF_NOTIME)
            first->objs[first->nobjs++] = (obj_event){o->free_time, i, true};
    }
    qsort(first->objs, first->nobjs, sizeof *first->objs, cmp_obj_event);
    return 0;
}

/* ---- streams --------------------------------------------------------------------- */

static int refill_samples(exporter *ex, tstream *s, tf_error *err)
{
    if (s->samples_done || s->next_sample < s->nsamples)
        return 0;
    int rc = tf_samples_read(s->cursor, s->samples, s->rows, SAMPLE_BATCH, &s->nsamples, err);
    s->next_sample = 0;
    if (rc == 0 && s->nsamples == 0)
        s->samples_done = true;
    return rc;
}

/* The next time of a stream, UINT64_MAX when exhausted. */
static uint64_t next_time(exporter *ex, const tstream *s)
{
    const tf_thread *th = &proc_of(ex, s->proc)->threads[s->thread];
    uint64_t t = UINT64_MAX;
    if (s->next_event < th->nevents)
        t = th->events[s->next_event].time;
    if (!s->samples_done && s->next_sample < s->nsamples && s->samples[s->next_sample].time < t)
        t = s->samples[s->next_sample].time;
    if (s->next_obj < s->nobjs && s->objs[s->next_obj].time < t)
        t = s->objs[s->next_obj].time;
    if (s->next_state < s->nstates && s->states[s->next_state].begin < t)
        t = s->states[s->next_state].begin;
    if (s->next_msg < s->nmsgs && s->msgs[s->next_msg].lsend < t)
        t = s->msgs[s->next_msg].lsend;
    return t;
}

static bool heap_less(exporter *ex, uint32_t a, uint32_t b)
{
    uint64_t ta = next_time(ex, &ex->ts[a]), tb = next_time(ex, &ex->ts[b]);
    return ta < tb || (ta == tb && a < b);
}

static void heap_down(exporter *ex, uint32_t i)
{
    for (;;) {
        uint32_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < ex->nheap && heap_less(ex, ex->heap[l], ex->heap[m]))
            m = l;
        if (r < ex->nheap && heap_less(ex, ex->heap[r], ex->heap[m]))
            m = r;
        if (m == i)
            return;
        uint32_t tmp = ex->heap[i];
        ex->heap[i] = ex->heap[m];
        ex->heap[m] = tmp;
        i = m;
    }
}

/* Counters as Extrae writes them: the delta since the thread's previous read. */
static int push_counters(exporter *ex, tstream *s, const uint64_t *row, tf_error *err)
{
    const tf_process *p = proc_of(ex, s->proc);
    for (uint32_t c = 0; row && c < p->ncounters; c++) {
        if (row[c] == TF_NOVALUE)
            continue;
        int rc = tf_prv_pairs_add(&ex->ps, ex->ctype[s->proc][c], row[c] - s->last[c], err);
        if (rc < 0)
            return rc;
        s->last[c] = row[c];
    }
    return 0;
}

/* Writes the pairs built since the last record, and starts afresh. */
static int emit(exporter *ex, tstream *s, uint64_t time, tf_error *err)
{
    tf_prv_record rec = {.kind = TF_PRV_EVENT, .obj = {s->cpu, 1, s->appl_task, s->thread + 1},
                         .time = time, .npairs = ex->ps.n, .pairs = ex->ps.p};
    ex->ps.n = 0;
    ex->stats->records++;
    return tf_prv_write(ex->w, &rec, err);
}

static int emit_event(exporter *ex, tstream *s, tf_error *err)
{
    const tf_process *p = proc_of(ex, s->proc);
    const tf_thread *th = &p->threads[s->thread];
    size_t i = s->next_event++;
    const tf_event *e = &th->events[i];
    int rc;
    tf_prv_pair mp;
    const char *mlabel;
    int mpi = e->kind == TF_EVENT_USER
                  ? tf_prv_mpi_event(e->type, e->value, &s->mpi_type, &mp, &mlabel) : -1;
    if (mpi == 0)
        return 0;
    if (mpi == 1) {
        if ((mlabel && (rc = tf_pcf_add_type(ex->pcf, mp.type, 9, mlabel, err)) < 0) ||
            (rc = tf_prv_pairs_add(&ex->ps, mp.type, mp.value, err)) < 0)
            return rc;
    } else if (e->kind == TF_EVENT_USER) {
        char label[48];
        snprintf(label, sizeof label, "User event %" PRIu32, e->type);
        if ((rc = tf_pcf_add_type(ex->pcf, e->type, 5, label, err)) < 0 ||
            (rc = tf_prv_pairs_add(&ex->ps, e->type, e->value, err)) < 0)
            return rc;
    } else {
        /* Region ids: the string id + 1 (0 is the end), labelled with the name. */
        uint64_t v = e->kind == TF_EVENT_ENTER ? e->value + 1 : 0;
        if (v && (rc = tf_pcf_add_value(ex->pcf, TF_PRV_USER_FUNCTION, v,
                                        tf_trace_string(ex->tr, (uint32_t)e->value), err)) < 0)
            return rc;
        if ((rc = tf_prv_pairs_add(&ex->ps, TF_PRV_USER_FUNCTION, v, err)) < 0)
            return rc;
    }
    const uint64_t *row = th->event_counters && p->ncounters ? th->event_counters + i * p->ncounters : NULL;
    if ((rc = push_counters(ex, s, row, err)) < 0)
        return rc;
    ex->stats->events++;
    return emit(ex, s, e->time, err);
}

static int frame_at(exporter *ex, tstream *s, uint64_t index, uint64_t *ip, tf_error *err)
{
    if (index < s->frames_first || index >= s->frames_first + s->frames_n) {
        const tf_thread *th = &proc_of(ex, s->proc)->threads[s->thread];
        if (index >= th->nframes)
            return tf_fail(err, TF_ERR_FORMAT, "%s: process %" PRIu32 " thread %" PRIu32
                           ": sample frame %" PRIu64 " beyond the %zu frames",
                           tf_trace_path(ex->tr), s->proc, s->thread, index, th->nframes);
        size_t n = th->nframes - index < FRAME_WINDOW ? (size_t)(th->nframes - index) : FRAME_WINDOW;
        int rc = tf_trace_read_frames(ex->tr, s->proc, s->thread, index, n, s->frames, err);
        if (rc < 0)
            return rc;
        s->frames_first = index;
        s->frames_n = n;
    }
    *ip = s->frames[index - s->frames_first];
    return 0;
}

static int emit_sample(exporter *ex, tstream *s, tf_error *err)
{
    const tf_process *p = proc_of(ex, s->proc);
    const tf_recorder_code *rec = &ex->recorder[s->proc];
    size_t i = s->next_sample++;
    const tf_sample *sm = &s->samples[i];
    int rc = 0;
    /* The sampled ip is depth 0; the stack's callers follow.  A stack whose
     * first frame is the sampled ip itself is not repeated.  The recorder's
     * frames are left out: a sample inside it shows the program's call of
     * it, as the fold does (recorder_code.h). */
    uint32_t depth = 0;
    uint64_t ip0 = sm->ip && !tf_recorder_code_has(rec, sm->ip) ? sm->ip : 0;
    if (ip0) {
        uint64_t fn, line;
        if ((rc = site_values(ex, s->proc, ip0, false, &fn, &line, err)) < 0 ||
            (rc = tf_prv_pairs_add(&ex->ps, TF_PRV_SAMPLED_CALLER, fn, err)) < 0 ||
            (rc = tf_prv_pairs_add(&ex->ps, TF_PRV_SAMPLED_LINE, line, err)) < 0)
            return rc;
        depth = 1;
    }
    for (uint16_t k = 0; k < sm->stack_len && depth < TF_PRV_MAX_DEPTH; k++) {
        uint64_t ip = 0, fn, line;
        if ((rc = frame_at(ex, s, sm->stack + k, &ip, err)) < 0)
            return rc;
        if ((k == 0 && ip == sm->ip) || tf_recorder_code_has(rec, ip))
            continue;
        if (!ip0)
            ip0 = ip - 1;   /* the call instruction into the recorder */
        if ((rc = site_values(ex, s->proc, ip, true, &fn, &line, err)) < 0 ||
            (rc = tf_prv_pairs_add(&ex->ps, TF_PRV_SAMPLED_CALLER + depth, fn, err)) < 0 ||
            (rc = tf_prv_pairs_add(&ex->ps, TF_PRV_SAMPLED_LINE + depth, line, err)) < 0)
            return rc;
        depth++;
    }
    if (depth > ex->maxdepth)
        ex->maxdepth = depth;
    if (ip0 && (rc = tf_prv_pairs_add(&ex->ps, TF_PRV_SAMPLE_IP, ip0, err)) < 0)
        return rc;
    if (sm->kind != TF_SAMPLE_TIMER &&
        (rc = tf_prv_pairs_memory(&ex->ps, sm, tf_prv_objects_find(&ex->objects, s->proc, sm->addr, sm->time), err)) < 0)
        return rc;
    if (sm->flags && (rc = tf_prv_pairs_add(&ex->ps, TF_PRV_SAMPLE_FLAGS, sm->flags, err)) < 0)
        return rc;
    if ((rc = push_counters(ex, s, p->ncounters ? s->rows + i * p->ncounters : NULL, err)) < 0)
        return rc;
    if (ex->ps.n == 0)
        return 0;   /* nothing known about this sample */
    ex->stats->samples++;
    return emit(ex, s, sm->time, err);
}

/* Extrae's bracketing of an allocation call: the call and its size or
 * pointer given, then the end with the pointer returned. */
static int emit_object(exporter *ex, tstream *s, tf_error *err)
{
    const obj_event *oe = &s->objs[s->next_obj++];
    const tf_object *o = &proc_of(ex, s->proc)->objects[oe->object];
    int rc;
    if ((rc = tf_prv_pairs_add(&ex->ps, TF_PRV_DYNMEM_CALL, oe->is_free ? 2 : 1, err)) < 0 ||
        (rc = oe->is_free ? tf_prv_pairs_add(&ex->ps, TF_PRV_DYNMEM_IN_PTR, o->start, err)
                          : tf_prv_pairs_add(&ex->ps, TF_PRV_DYNMEM_SIZE, o->size, err)) < 0 ||
        (rc = emit(ex, s, oe->time, err)) < 0)
        return rc;
    if ((rc = tf_prv_pairs_add(&ex->ps, TF_PRV_DYNMEM_CALL, 0, err)) < 0 ||
        (!oe->is_free && (rc = tf_prv_pairs_add(&ex->ps, TF_PRV_DYNMEM_OUT_PTR, o->start, err)) < 0))
        return rc;
    if (!oe->is_free)
        ex->stats->objects++;
    return emit(ex, s, oe->time, err);
}

static int emit_state(exporter *ex, tstream *s, tf_error *err)
{
    const tf_prv_mpi_span *sp = &s->states[s->next_state++];
    tf_prv_record rec = {.kind = TF_PRV_STATE, .obj = {s->cpu, 1, s->appl_task, s->thread + 1},
                         .time = sp->begin, .end = sp->end, .state = sp->state};
    ex->stats->records++;
    return tf_prv_write(ex->w, &rec, err);
}

static int emit_message(exporter *ex, tstream *s, tf_error *err)
{
    const tf_prv_mpi_message *m = &s->msgs[s->next_msg++];
    const tstream *to = &ex->ts[m->recv_thread];
    tf_prv_record rec = {.kind = TF_PRV_COMM, .obj = {s->cpu, 1, s->appl_task, s->thread + 1},
                         .time = m->lsend, .psend = m->psend,
                         .partner = {to->cpu, 1, to->appl_task, to->thread + 1},
                         .lrecv = m->lrecv, .precv = m->precv, .size = m->size, .tag = m->tag};
    ex->stats->records++;
    ex->stats->messages++;
    return tf_prv_write(ex->w, &rec, err);
}

static int emit_next(exporter *ex, tstream *s, tf_error *err)
{
    uint64_t t = next_time(ex, s);
    const tf_thread *th = &proc_of(ex, s->proc)->threads[s->thread];
    int rc;
    /* At equal times: the state, objects, events, samples, then messages. */
    if (s->next_state < s->nstates && s->states[s->next_state].begin == t)
        rc = emit_state(ex, s, err);
    else if (s->next_obj < s->nobjs && s->objs[s->next_obj].time == t)
        rc = emit_object(ex, s, err);
    else if (s->next_event < th->nevents && th->events[s->next_event].time == t)
        rc = emit_event(ex, s, err);
    else if (!s->samples_done && s->next_sample < s->nsamples &&
             s->samples[s->next_sample].time == t)
        rc = emit_sample(ex, s, err);
    else
        rc = emit_message(ex, s, err);
    return rc < 0 ? rc : refill_samples(ex, s, err);
}

/* The thread runs from its first record to its last event, except in its
 * MPI calls. */
static int setup_states(exporter *ex, tstream *s, uint32_t k, tf_error *err)
{
    uint64_t first = next_time(ex, s);
    if (first == UINT64_MAX)
        return 0;
    const tf_thread *th = &proc_of(ex, s->proc)->threads[s->thread];
    uint64_t end = th->nevents && th->events[th->nevents - 1].time > first
                       ? th->events[th->nevents - 1].time : first;
    const tf_prv_mpi_span *calls = ex->mpi.spans[k];
    size_t n = ex->mpi.nspans[k];
    s->states = malloc((2 * n + 1) * sizeof *s->states);
    if (!s->states)
        return nomem(err);
    uint64_t at = first;
    for (size_t i = 0; i < n; i++) {
        if (calls[i].begin < at)
            continue;   /* before the first record: cannot be */
        if (calls[i].begin > at)
            s->states[s->nstates++] = (tf_prv_mpi_span){at, calls[i].begin, TF_PRV_STATE_RUNNING};
        s->states[s->nstates++] = calls[i];
        at = calls[i].end;
    }
    if (end > at || s->nstates == 0)
        s->states[s->nstates++] = (tf_prv_mpi_span){at, end > at ? end : at, TF_PRV_STATE_RUNNING};
    return 0;
}

/* Each thread gets the messages it sent, still by send time. */
static int setup_messages(exporter *ex, tf_error *err)
{
    const tf_prv_mpi *m = &ex->mpi;
    ex->msgs = malloc((m->nmessages ? m->nmessages : 1) * sizeof *ex->msgs);
    if (!ex->msgs)
        return nomem(err);
    for (size_t i = 0; i < m->nmessages; i++)
        ex->ts[m->messages[i].send_thread].nmsgs++;
    size_t at = 0;
    for (uint32_t k = 0; k < ex->nts; k++) {
        ex->ts[k].msgs = ex->msgs + at;
        at += ex->ts[k].nmsgs;
        ex->ts[k].nmsgs = 0;
    }
    for (size_t i = 0; i < m->nmessages; i++) {
        tstream *s = &ex->ts[m->messages[i].send_thread];
        ex->msgs[s->msgs - ex->msgs + s->nmsgs++] = m->messages[i];
    }
    ex->stats->unmatched_sends = m->unmatched_sends;
    ex->stats->unmatched_recvs = m->unmatched_recvs;
    return 0;
}

/* ---- header, labels, names -------------------------------------------------------- */

typedef struct rank_task {
    int32_t  rank;
    uint32_t task;
} rank_task;

static int rank_task_cmp(const void *a, const void *b)
{
    const rank_task *x = a, *y = b;
    return x->rank != y->rank ? (x->rank < y->rank ? -1 : 1) : (x->task > y->task) - (x->task < y->task);
}

/* An MPI run (every process has a rank): the world communicator line as
 * Extrae writes it, c:APPL:ID:NTASKS:TASK...:TASK, tasks in rank order. */
static int world_communicator(exporter *ex, tf_prv_header *h)
{
    uint32_t np = tf_trace_nprocesses(ex->tr);
    for (uint32_t p = 0; p < np; p++)
        if (proc_of(ex, p)->rank < 0)
            return 0;
    if (np == 0)
        return 0;
    rank_task *order = calloc(np, sizeof *order);
    size_t size = 32 + (size_t)np * 11;
    char *line = malloc(size);
    h->comms = calloc(1, sizeof *h->comms);
    if (!order || !line || !h->comms) {
        free(order);
        free(line);
        return -1;
    }
    for (uint32_t p = 0; p < np; p++)
        order[p] = (rank_task){proc_of(ex, p)->rank, p + 1};
    qsort(order, np, sizeof *order, rank_task_cmp);
    size_t used = (size_t)snprintf(line, size, "c:1:1:%" PRIu32, np);
    for (uint32_t p = 0; p < np; p++)
        used += (size_t)snprintf(line + used, size - used, ":%" PRIu32, order[p].task);
    free(order);
    h->comms[0] = line;
    h->ncomms = 1;
    return 0;
}

static int build_header(exporter *ex, tf_prv_header *h, tf_error *err)
{
    uint32_t np = tf_trace_nprocesses(ex->tr);
    memset(h, 0, sizeof *h);
    h->unit_ns = 1;
    h->nappls = 1;
    h->appls = calloc(1, sizeof *h->appls);
    h->node_cpus = calloc(np ? np : 1, sizeof *h->node_cpus);
    uint32_t *node_of = calloc(np ? np : 1, sizeof *node_of);
    if (!h->appls || !h->node_cpus || !node_of || !(h->appls[0].tasks = calloc(np ? np : 1, sizeof(tf_prv_task)))) {
        free(node_of);
        return nomem(err);
    }
    /* One node per host, one CPU per thread. */
    for (uint32_t p = 0; p < np; p++) {
        const tf_process *pr = proc_of(ex, p);
        uint32_t n = 0;
        while (n < h->nnodes && strcmp(proc_of(ex, node_of[n])->host, pr->host))
            n++;
        if (n == h->nnodes)
            node_of[h->nnodes++] = p;
        h->node_cpus[n] += pr->nthreads ? pr->nthreads : 1;
        h->appls[0].tasks[p] = (tf_prv_task){pr->nthreads ? pr->nthreads : 1, n + 1};
    }
    h->appls[0].ntasks = np;
    if (world_communicator(ex, h) < 0) {
        free(node_of);
        return nomem(err);
    }
    for (uint32_t n = 0; n < h->nnodes; n++)
        h->ncpus += h->node_cpus[n];
    /* Names: nodes by host, CPUs by node, threads by process and thread id. */
    tf_row *row = tf_prv_out_row(ex->w);
    int rc = 0;
    char name[600];
    uint32_t *cpu_next = calloc(h->nnodes ? h->nnodes : 1, sizeof *cpu_next);
    if (!cpu_next)
        rc = nomem(err);
    uint32_t first_cpu = 1;
    for (uint32_t n = 0; rc == 0 && n < h->nnodes; n++) {
        const char *host = proc_of(ex, node_of[n])->host;
        cpu_next[n] = first_cpu;
        first_cpu += h->node_cpus[n];
        rc = tf_row_add(row, TF_ROW_NODE, *host ? host : "localhost", err);
        for (uint32_t c = 0; rc == 0 && c < h->node_cpus[n]; c++) {
            snprintf(name, sizeof name, "%" PRIu32 ".%s", cpu_next[n] + c, *host ? host : "localhost");
            rc = tf_row_add(row, TF_ROW_CPU, name, err);
        }
    }
    const char *exe = np ? proc_of(ex, 0)->executable : "";
    const char *base = strrchr(exe, '/');
    if (rc == 0)
        rc = tf_row_add(row, TF_ROW_APPL, *exe ? (base ? base + 1 : exe) : "application", err);
    uint32_t k = 0;
    for (uint32_t p = 0; rc == 0 && p < np; p++) {
        const tf_process *pr = proc_of(ex, p);
        uint32_t node = h->appls[0].tasks[p].node - 1;
        if (pr->rank >= 0)
            snprintf(name, sizeof name, "rank %" PRId32 " (pid %" PRId64 ")", pr->rank, pr->pid);
        else
            snprintf(name, sizeof name, "pid %" PRId64, pr->pid);
        rc = tf_row_add(row, TF_ROW_TASK, name, err);
        for (uint32_t t = 0; rc == 0 && t < pr->nthreads; t++, k++) {
            tstream *s = &ex->ts[k];
            s->proc = p;
            s->thread = t;
            s->appl_task = p + 1;
            s->cpu = cpu_next[node]++;
            if (pr->rank >= 0)
                snprintf(name, sizeof name, "THREAD 1.%" PRIu32 ".%" PRIu32 " rank %" PRId32 " tid %" PRIu64,
                         p + 1, t + 1, pr->rank, pr->threads[t].tid);
            else
                snprintf(name, sizeof name, "THREAD 1.%" PRIu32 ".%" PRIu32 " pid %" PRId64 " tid %" PRIu64,
                         p + 1, t + 1, pr->pid, pr->threads[t].tid);
            rc = tf_row_add(row, TF_ROW_THREAD, name, err);
        }
    }
    free(cpu_next);
    free(node_of);
    return rc;
}

/* The raw trace's own types beside those of the samples. */
static const struct { uint32_t type; const char *label; } raw_types[] = {
    {TF_PRV_USER_FUNCTION, "User function"},
    {TF_PRV_SAMPLE_FLAGS, "Sample flags (1 software address, 2 TLB miss, 4 hit, 8 vector)"},
    {TF_PRV_DYNMEM_CALL, "Dynamic memory call"},
    {TF_PRV_DYNMEM_SIZE, "Dynamic memory size"},
    {TF_PRV_DYNMEM_IN_PTR, "Dynamic memory input pointer"},
    {TF_PRV_DYNMEM_OUT_PTR, "Dynamic memory output pointer"},
};

static const struct { uint32_t type; uint64_t value; const char *label; } raw_values[] = {
    {TF_PRV_USER_FUNCTION, 0, "End"}, {TF_PRV_DYNMEM_CALL, 0, "End"},
    {TF_PRV_DYNMEM_CALL, 1, "Allocation"}, {TF_PRV_DYNMEM_CALL, 2, "free"},
};

static int fixed_labels(exporter *ex, tf_error *err)
{
    int rc = tf_prv_label_samples(ex->pcf, err);
    for (size_t i = 0; rc == 0 && i < sizeof raw_types / sizeof raw_types[0]; i++)
        rc = tf_pcf_add_type(ex->pcf, raw_types[i].type, raw_types[i].type == TF_PRV_USER_FUNCTION ? 0 : 9,
                             raw_types[i].label, err);
    for (size_t i = 0; rc == 0 && i < sizeof raw_values / sizeof raw_values[0]; i++)
        rc = tf_pcf_add_value(ex->pcf, raw_values[i].type, raw_values[i].value, raw_values[i].label,
                              err);
    return rc;
}

static int counter_labels(exporter *ex, uint32_t proc, tf_error *err)
{
    const tf_process *p = proc_of(ex, proc);
    size_t n = p->ncounters ? p->ncounters : 1;
    ex->ctype[proc] = malloc(n * sizeof(uint32_t));
    const char **names = malloc(n * sizeof *names), **units = malloc(n * sizeof *units);
    int rc = ex->ctype[proc] && names && units ? 0 : nomem(err);
    for (uint32_t c = 0; rc == 0 && c < p->ncounters; c++) {
        names[c] = tf_trace_string(ex->tr, p->counters[c].name);
        units[c] = tf_trace_string(ex->tr, p->counters[c].unit);
    }
    if (rc == 0)
        rc = tf_prv_counter_types(ex->pcf, names, units, p->ncounters, ex->ctype[proc], err);
    free(names);
    free(units);
    return rc;
}

static int sampled_labels(exporter *ex, tf_error *err)
{
    int rc = 0;
    for (uint32_t d = 0; rc == 0 && d < ex->maxdepth; d++) {
        char fl[64], ll[64];
        snprintf(fl, sizeof fl, d ? "Sampled functions (depth %" PRIu32 ")" : "Sampled functions", d);
        snprintf(ll, sizeof ll, d ? "Sampled lines (depth %" PRIu32 ")" : "Sampled lines", d);
        rc = tf_prv_label_sites(ex->pcf, TF_PRV_SAMPLED_CALLER + d, fl, TF_PRV_SAMPLED_LINE + d, ll,
                                (const char *const *)ex->functions.strings, ex->functions.n,
                                (const char *const *)ex->lines.strings, ex->lines.n, err);
    }
    return rc;
}

/* ---- driver ------------------------------------------------------------------------ */

static bool has_calls(const tf_prv_mpi *m)
{
    for (uint32_t t = 0; t < m->nthreads; t++)
        if (m->nspans[t])
            return true;
    return false;
}

static int setup_streams(exporter *ex, tf_error *err)
{
    int rc = 0;
    uint32_t np = tf_trace_nprocesses(ex->tr), k = 0;
    tf_recorder_code_find(ex->tr, ex->recorder);
    for (uint32_t p = 0; rc == 0 && p < np; p++) {
        const tf_process *pr = proc_of(ex, p);
        if ((rc = counter_labels(ex, p, err)) < 0)
            break;
        ex->symbols[p] = malloc((pr->nsymbols ? pr->nsymbols : 1) * sizeof *ex->symbols[p]);
        if (!ex->symbols[p])
            return nomem(err);
        memcpy(ex->symbols[p], pr->symbols, pr->nsymbols * sizeof *pr->symbols);
        qsort(ex->symbols[p], pr->nsymbols, sizeof *pr->symbols, cmp_symbol);
        for (uint32_t t = 0; rc == 0 && t < pr->nthreads; t++, k++) {
            tstream *s = &ex->ts[k];
            size_t C = pr->ncounters ? pr->ncounters : 1;
            s->samples = malloc(SAMPLE_BATCH * sizeof *s->samples);
            s->rows = malloc(SAMPLE_BATCH * C * sizeof *s->rows);
            s->last = calloc(C, sizeof *s->last);
            s->frames = malloc(FRAME_WINDOW * sizeof *s->frames);
            if (!s->samples || !s->rows || !s->last || !s->frames)
                return nomem(err);
            if (t == 0 && (rc = setup_objects(ex, p, s, err)) < 0)
                break;
            if ((rc = tf_samples_open(ex->tr, p, t, &s->cursor, err)) == 0)
                rc = refill_samples(ex, s, err);
            if (rc == 0)
                rc = setup_states(ex, s, k, err);
        }
    }
    return rc < 0 ? rc : setup_messages(ex, err);
}

static void free_exporter(exporter *ex)
{
    uint32_t np = tf_trace_nprocesses(ex->tr);
    for (uint32_t i = 0; ex->ts && i < ex->nts; i++) {
        tstream *s = &ex->ts[i];
        if (s->cursor)
            tf_samples_close(s->cursor);
        free(s->samples);
        free(s->rows);
        free(s->last);
        free(s->frames);
        free(s->objs);
        free(s->states);
    }
    for (uint32_t p = 0; p < np; p++) {
        if (ex->ctype)
            free(ex->ctype[p]);
        if (ex->symbols)
            free(ex->symbols[p]);
    }
    free(ex->ctype);
    free(ex->symbols);
    free(ex->recorder);
    tf_prv_objects_free(&ex->objects);
    tf_prv_mpi_free(&ex->mpi);
    free(ex->msgs);
    free(ex->ts);
    free(ex->heap);
    tf_prv_pairs_free(&ex->ps);
    tf_strtab_free(&ex->functions);
    tf_strtab_free(&ex->lines);
}

int tf_prv_export_raw(tf_trace *tr, const char *out_path, tf_prv_symbolize_fn symbolize,
                      void *arg, char **const *object_names, tf_prv_export_stats *stats,
                      tf_error *err)
{
    memset(stats, 0, sizeof *stats);
    exporter ex = {.tr = tr, .symbolize = symbolize, .arg = arg, .stats = stats};
    tf_strtab_init(&ex.functions);
    tf_strtab_init(&ex.lines);
    uint32_t np = tf_trace_nprocesses(tr);
    if (np == 0)
        return tf_fail(err, TF_ERR_DATA, "%s: no process to write", tf_trace_path(tr));
    for (uint32_t p = 0; p < np; p++)
        ex.nts += tf_trace_process(tr, p)->nthreads;
    stats->threads = ex.nts;
    ex.ts = calloc(ex.nts ? ex.nts : 1, sizeof *ex.ts);
    ex.heap = calloc(ex.nts ? ex.nts : 1, sizeof *ex.heap);
    ex.ctype = calloc(np, sizeof *ex.ctype);
    ex.symbols = calloc(np, sizeof *ex.symbols);
    ex.recorder = calloc(np, sizeof *ex.recorder);
    int rc = ex.ts && ex.heap && ex.ctype && ex.symbols && ex.recorder ? 0 : nomem(err);
    /* The Paraver output needs the header first: a temporary empty one gives way to
     * the real one as soon as the streams are named. */
    tf_prv_header h = {0};
    tf_prv_task one_task = {1, 1};
    tf_prv_appl one_appl = {1, &one_task};
    tf_prv_header placeholder = {.nappls = 1, .appls = &one_appl};
    if (rc == 0)
        rc = tf_prv_out_create(&ex.w, out_path, &placeholder, err);
    if (rc < 0) {
        free_exporter(&ex);
        return rc;
    }
    ex.pcf = tf_prv_out_pcf(ex.w);
    if ((rc = build_header(&ex, &h, err)) == 0 && (rc = fixed_labels(&ex, err)) == 0 &&
        (rc = tf_prv_mpi_build(tr, &ex.mpi, err)) == 0 &&
        (rc = tf_prv_mpi_labels(ex.pcf, has_calls(&ex.mpi), err)) == 0 &&
        (rc = tf_prv_objects_init_named(&ex.objects, ex.pcf, tr, object_names, err)) == 0 &&
        (rc = setup_streams(&ex, err)) == 0)
        rc = tf_prv_out_set_header(ex.w, &h, err);
    for (uint32_t i = 0; i < ex.nts; i++)
        ex.heap[ex.nheap++] = i;
    for (uint32_t i = ex.nheap / 2; rc == 0 && i-- > 0;)
        heap_down(&ex, i);
    while (rc == 0 && ex.nheap) {
        tstream *s = &ex.ts[ex.heap[0]];
        if (next_time(&ex, s) == UINT64_MAX) {
            ex.heap[0] = ex.heap[--ex.nheap];
        } else {
            rc = emit_next(&ex, s, err);
        }
        heap_down(&ex, 0);
    }
    if (rc == 0)
        rc = sampled_labels(&ex, err);
    tf_prv_header_free(&h);
    if (rc == 0)
        rc = tf_prv_out_close(ex.w, err);
    else
        tf_prv_out_abort(ex.w);
    free_exporter(&ex);
    return rc;
}
