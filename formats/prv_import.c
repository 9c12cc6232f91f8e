/* SPDX-License-Identifier: BSD-3-Clause */
#include "prv_import.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "h5util.h"
#include "prv_index.h"
#include "prv_pcf.h"
#include "prv_reader.h"
#include "prv_row.h"
#include "prv_types.h"
#include "prv_out.h"

/* Synthetic instruction addresses, one per distinct (routine, line) of the
 * sampled callers, so that samples carry ordinary call stacks and the
 * symbols table turns them back into routine and line. */
#define SYNTH_IP_BASE 0x10000000ull
#define SYNTH_IP_STEP 16u
#define BATCH 4096u

/* ---- import state ---------------------------------------------------------- */

/* The spool: pass one turns text into binary tracefold records, learning the
 * counters, regions and call sites on the way; pass two, which knows them
 * all (the trace output needs the counters of a process up front), streams
 * the spool into the trace. */
enum { SPOOL_EVENT = 0, SPOOL_SAMPLE = 1 };

typedef struct spool_head {
    uint32_t thread;
    uint8_t  what;
    uint8_t  nread;      /* counters read at this record */
    uint16_t nframes;
} spool_head;

/* No padding: records are spooled byte for byte. */
typedef struct counter_read {
    uint64_t idx;
    uint64_t value;      /* cumulative */
} counter_read;

typedef struct pending_alloc {
    bool     active, done;
    uint64_t size, in_ptr, time;
} pending_alloc;

typedef struct ithread {
    uint64_t      cum[TF_MAX_COUNTERS];
    uint32_t     *open;           /* region indices of the open user functions */
    size_t        nopen, capopen;
    pending_alloc alloc;
} ithread;

typedef struct iproc {
    tf_object   *objects;
    size_t       nobjects, capobjects;
    tf_prv_index by_start;    /* start address -> slot in latest */
    uint32_t    *latest;      /* per slot: the last object allocated there */
    size_t       caplatest;
} iproc;

typedef struct importer {
    const char          *prv_path;
    tf_prv_reader       *r;
    const tf_prv_header *h;
    tf_pcf              *pcf;
    tf_row               row;
    FILE                *spool;
    uint32_t             nthreads, nprocs;
    ithread             *threads;
    uint32_t            *thread_proc, *thread_local;
    iproc               *procs;
    uint32_t             ncounters;
    uint32_t             counter_type[TF_MAX_COUNTERS];
    tf_prv_index         counter_map;
    tf_prv_index         region_map;     /* user-function value -> region index */
    uint64_t            *region_value;
    size_t               capregions;
    tf_prv_index         site_map;       /* (routine << 32 | line) -> synthetic ip index */
    uint64_t            *site_key;
    size_t               capsites;
    tf_prv_pair         *users;          /* scratch: generic events of a record */
    uint64_t            *fn_values;      /* scratch: user-function values of a record */
    size_t               capscratch;
    tf_prv_import_stats *stats;
} importer;

static int nomem(importer *im, tf_error *err)
{
    return tf_fail(err, TF_ERR_NOMEM, "%s: out of memory converting the trace (%" PRIu64
                   " lines read)", im->prv_path, im->r ? tf_prv_line(im->r) : 0);
}

static int counter_index(importer *im, uint32_t type, uint32_t *idx, tf_error *err)
{
    bool added;
    if (tf_prv_index_get(&im->counter_map, type, idx, &added) < 0)
        return nomem(im, err);
    if (!added)
        return 0;
    if (*idx >= TF_MAX_COUNTERS)
        return tf_fail(err, TF_ERR_UNSUPPORTED,
                       "%s: line %" PRIu64 ": counter type %" PRIu32 " is the %" PRIu32
                       "th counter of the trace; at most %d are supported",
                       im->prv_path, tf_prv_line(im->r), type, *idx + 1, TF_MAX_COUNTERS);
    im->counter_type[*idx] = type;
    im->ncounters = *idx + 1;
    return 0;
}

static int region_index(importer *im, uint64_t value, uint32_t *idx, tf_error *err)
{
    bool added;
    if (tf_prv_index_get(&im->region_map, value, idx, &added) < 0)
        return nomem(im, err);
    if (added) {
        uint64_t *nv = tf_prv_grow(im->region_value, &im->capregions, *idx + 1, sizeof *nv, 64);
        if (!nv)
            return nomem(im, err);
        im->region_value = nv;
        im->region_value[*idx] = value;
    }
    return 0;
}

/* Routine and line values above 2^32-1 have no labels (the .pcf reader of
 * Paraver keeps 32 bits): they fold into one "unknown" site. */
static int site_ip(importer *im, uint64_t routine, uint64_t line, uint64_t *ip, tf_error *err)
{
    if (routine > UINT32_MAX || line > UINT32_MAX)
        routine = line = UINT32_MAX;
    uint64_t key = routine << 32 | line;
    uint32_t idx;
    bool added;
    if (tf_prv_index_get(&im->site_map, key, &idx, &added) < 0)
        return nomem(im, err);
    if (added) {
        uint64_t *nk = tf_prv_grow(im->site_key, &im->capsites, idx + 1, sizeof *nk, 256);
        if (!nk)
            return nomem(im, err);
        im->site_key = nk;
        im->site_key[idx] = key;
    }
    *ip = SYNTH_IP_BASE + (uint64_t)idx * SYNTH_IP_STEP;
    return 0;
}

/* Largest spooled record: header, sample, deepest stack, every counter. */
#define SPOOL_MAX (sizeof(spool_head) + sizeof(tf_sample) + TF_PRV_MAX_DEPTH * sizeof(uint64_t) + \
                   TF_MAX_COUNTERS * sizeof(counter_read))

/* One fwrite per record: per-call stdio overhead shows at millions of records. */
static int spool_put(importer *im, uint32_t thread, uint8_t what, const void *rec, size_t size,
                     const uint64_t *frames, uint16_t nframes, const counter_read *reads,
                     uint8_t nread, tf_error *err)
{
    unsigned char buf[SPOOL_MAX];
    spool_head hd = {thread, what, nread, nframes};
    size_t n = 0;
    memcpy(buf, &hd, sizeof hd);
    n += sizeof hd;
    memcpy(buf + n, rec, size);
    n += size;
    if (nframes)   /* events have no frames (and no array) */
        memcpy(buf + n, frames, nframes * sizeof *frames);
    n += nframes * sizeof *frames;
    memcpy(buf + n, reads, nread * sizeof *reads);
    n += nread * sizeof *reads;
    if (fwrite(buf, 1, n, im->spool) != n)
        return tf_fail(err, TF_ERR_IO, "%s: writing the conversion spool: %s", im->prv_path,
                       strerror(errno));
    return 0;
}

/* ---- dynamic memory -> objects -------------------------------------------- */

static int object_new(importer *im, uint32_t thread, uint64_t start, uint64_t size, uint64_t time,
                      tf_error *err)
{
    if (start == UINT64_MAX)
        return 0;   /* not an address (and not a key of the index) */
    iproc *p = &im->procs[im->thread_proc[thread]];
    tf_object *no = tf_prv_grow(p->objects, &p->capobjects, p->nobjects + 1, sizeof *no, 64);
    if (!no)
        return nomem(im, err);
    p->objects = no;
    uint32_t slot;
    bool added;
    if (tf_prv_index_get(&p->by_start, start, &slot, &added) < 0)
        return nomem(im, err);
    uint32_t *nl = tf_prv_grow(p->latest, &p->caplatest, (size_t)slot + 1, sizeof *nl, 64);
    if (!nl)
        return nomem(im, err);
    p->latest = nl;
    p->latest[slot] = (uint32_t)p->nobjects;
    p->objects[p->nobjects] = (tf_object){
        .start = start, .size = size, .alloc_time = time, .free_time = TF_NOTIME,
        .id = (uint32_t)p->nobjects, .kind = TF_OBJECT_HEAP,
    };
    p->nobjects++;
    im->stats->objects++;
    return 0;
}

/* Ends the object last allocated at start, if it is still alive. */
static int object_free(importer *im, uint32_t thread, uint64_t start, uint64_t time, tf_error *err)
{
    iproc *p = &im->procs[im->thread_proc[thread]];
    uint32_t slot;
    bool added;
    if (start == UINT64_MAX || tf_prv_index_get(&p->by_start, start, &slot, &added) < 0)
        return start == UINT64_MAX ? 0 : nomem(im, err);
    /* A free of an address never allocated in the trace: a new slot, unused. */
    uint32_t *nl = tf_prv_grow(p->latest, &p->caplatest, (size_t)slot + 1, sizeof *nl, 64);
    if (!nl)
        return nomem(im, err);
    p->latest = nl;
    if (added)
        p->latest[slot] = UINT32_MAX;
    else if (p->latest[slot] != UINT32_MAX && p->objects[p->latest[slot]].free_time == TF_NOTIME)
        p->objects[p->latest[slot]].free_time = time;
    return 0;
}

typedef struct dynmem {
    bool     has_call, has_size, has_in, has_out;
    uint64_t call, size, in, out;
} dynmem;

/* Extrae brackets each allocation call: 40000040 = call (with the size or
 * the pointer given) at the entry, 40000040 = 0 (with the pointer
 * returned) at the exit. */
static int dynmem_apply(importer *im, uint32_t t, const dynmem *d, uint64_t time, tf_error *err)
{
    pending_alloc *a = &im->threads[t].alloc;
    if (d->has_call && d->call != 0)
        *a = (pending_alloc){.active = true, .time = time};
    if (!a->active)
        return 0;
    if (d->has_size)
        a->size = d->size;
    if (d->has_in)
        a->in_ptr = d->in;
    if (d->has_out && d->out && !a->done) {
        int rc = a->in_ptr ? object_free(im, t, a->in_ptr, time, err) : 0;   /* realloc moved it */
        if (rc == 0)
            rc = object_new(im, t, d->out, a->size, a->time, err);
        if (rc < 0)
            return rc;
        a->done = true;
    }
    if (d->has_call && d->call == 0) {
        a->active = false;
        if (!a->done && a->in_ptr && !a->size)
            return object_free(im, t, a->in_ptr, time, err);
    }
    return 0;
}

/* ---- pass one: records -> spool ------------------------------------------- */

static int grow_scratch(importer *im, size_t n, tf_error *err)
{
    if (n <= im->capscratch)
        return 0;
    tf_prv_pair *nu = realloc(im->users, n * sizeof *nu);
    if (nu)
        im->users = nu;
    uint64_t *nf = realloc(im->fn_values, n * sizeof *nf);
    if (nf)
        im->fn_values = nf;
    if (!nu || !nf)
        return nomem(im, err);
    im->capscratch = n;
    return 0;
}

static int import_event(importer *im, const tf_prv_record *rec, tf_error *err)
{
    uint32_t t = rec->thread_index;
    ithread *th = &im->threads[t];
    uint64_t time = rec->time * im->h->unit_ns;
    int rc = grow_scratch(im, rec->npairs, err);
    if (rc < 0)
        return rc;
    counter_read reads[TF_MAX_COUNTERS];
    uint8_t nread = 0;
    size_t nusers = 0, nfn = 0;
    uint64_t routine[TF_PRV_MAX_DEPTH], line[TF_PRV_MAX_DEPTH];
    int maxdepth = -1;
    bool sample = false, ip_given = false;
    tf_sample s;
    memset(&s, 0, sizeof s);   /* padding included: the struct is spooled as bytes */
    s.time = time;
    s.kind = TF_SAMPLE_TIMER;
    s.level = TF_LEVEL_UNKNOWN;
    dynmem dm = {0};
    for (size_t i = 0; i < rec->npairs; i++) {
        uint32_t type = rec->pairs[i].type;
        uint64_t v = rec->pairs[i].value;
        if (tf_prv_is_counter(type) ||
            (type >= TF_PRV_OTHER_COUNTER && type < TF_PRV_OTHER_COUNTER + TF_MAX_COUNTERS)) {
            uint32_t idx;
            if ((rc = counter_index(im, type, &idx, err)) < 0)
                return rc;
            th->cum[idx] += v;
            uint8_t k = 0;
            while (k < nread && reads[k].idx != idx)
                k++;
            reads[k] = (counter_read){idx, th->cum[idx]};
            nread = k == nread ? nread + 1 : nread;
        } else if (tf_prv_is_sampled_caller(type) || tf_prv_is_sampled_line(type)) {
            int d = (int)(type - (tf_prv_is_sampled_caller(type) ? TF_PRV_SAMPLED_CALLER
                                                                 : TF_PRV_SAMPLED_LINE));
            for (; maxdepth < d; maxdepth++)
                routine[maxdepth + 1] = line[maxdepth + 1] = 0;
            (tf_prv_is_sampled_caller(type) ? routine : line)[d] = v;
            sample = true;
        } else {
            switch (type) {
            case TF_PRV_USER_FUNCTION: im->fn_values[nfn++] = v; break;
            case TF_PRV_USER_FUNCTION_LINE: break;   /* the region's own source line */
            case TF_PRV_MEM_LOAD_ADDR: s.kind = TF_SAMPLE_LOAD; s.addr = v; sample = true; break;
            case TF_PRV_MEM_STORE_ADDR: s.kind = TF_SAMPLE_STORE; s.addr = v; sample = true; break;
            case TF_PRV_MEM_RMW_ADDR: s.kind = TF_SAMPLE_RMW; s.addr = v; sample = true; break;
            case TF_PRV_MEM_LEVEL: s.level = v <= TF_LEVEL_REMOTE_DRAM_2 ? (uint8_t)v : TF_LEVEL_UNKNOWN; break;
            case TF_PRV_MEM_HIT: s.flags |= v == 1 ? TF_SAMPLE_HIT : 0; break;
            case TF_PRV_MEM_TLB_HIT: s.flags |= v == 0 ? TF_SAMPLE_TLB_MISS : 0; break;
            case TF_PRV_MEM_TLB_LEVEL: case TF_PRV_MEM_OBJECT: break;  /* objects come from addresses */
            case TF_PRV_MEM_COST: s.weight = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v; break;
            case TF_PRV_SAMPLE_IP: s.ip = v; ip_given = sample = true; break;
            case TF_PRV_SAMPLE_FLAGS: s.flags |= (uint8_t)v; break;
            case TF_PRV_DYNMEM_CALL: dm.has_call = true; dm.call = v; break;
            case TF_PRV_DYNMEM_SIZE: dm.has_size = true; dm.size = v; break;
            case TF_PRV_DYNMEM_IN_PTR: dm.has_in = true; dm.in = v; break;
            case TF_PRV_DYNMEM_OUT_PTR: dm.has_out = true; dm.out = v; break;
            default: im->users[nusers++] = rec->pairs[i]; break;
            }
        }
    }
    /* Region boundaries and generic events share the counters read here. */
    tf_event ev;
    for (size_t i = 0; i < nfn; i++) {
        memset(&ev, 0, sizeof ev);
        ev.time = time;
        if (im->fn_values[i]) {
            uint32_t idx;
            if ((rc = region_index(im, im->fn_values[i], &idx, err)) < 0)
                return rc;
            uint32_t *no = tf_prv_grow(th->open, &th->capopen, th->nopen + 1, sizeof *no, 8);
            if (!no)
                return nomem(im, err);
            th->open = no;
            th->open[th->nopen++] = idx;
            ev.kind = TF_EVENT_ENTER;
            ev.value = idx;
        } else if (th->nopen) {
            ev.kind = TF_EVENT_EXIT;
            ev.value = th->open[--th->nopen];
        } else {
            continue;   /* an end without a begin: nothing to close */
        }
        if ((rc = spool_put(im, t, SPOOL_EVENT, &ev, sizeof ev, NULL, 0, reads, nread, err)) < 0)
            return rc;
        im->stats->events++;
    }
    for (size_t i = 0; i < nusers; i++) {
        memset(&ev, 0, sizeof ev);
        ev.time = time;
        ev.value = im->users[i].value;
        ev.type = im->users[i].type;
        ev.kind = TF_EVENT_USER;
        if ((rc = spool_put(im, t, SPOOL_EVENT, &ev, sizeof ev, NULL, 0, reads, nread, err)) < 0)
            return rc;
        im->stats->events++;
    }
    if ((rc = dynmem_apply(im, t, &dm, time, err)) < 0)
        return rc;
    if (!sample)
        return 0;
    uint64_t frames[TF_PRV_MAX_DEPTH];
    for (int d = 0; d <= maxdepth; d++) {
        if ((rc = site_ip(im, routine[d], line[d], &frames[d], err)) < 0)
            return rc;
        /* A caller's frame is a return address, which readers look up at
         * its call, the address before (symbolize.h): one past the site,
         * inside its symbol's range either way. */
        frames[d] += d > 0;
    }
    if (!ip_given && maxdepth >= 0)
        s.ip = frames[0];
    s.stack_len = (uint16_t)(maxdepth + 1);
    im->stats->samples++;
    return spool_put(im, t, SPOOL_SAMPLE, &s, sizeof s, frames, s.stack_len, reads, nread, err);
}

static int pass_one(importer *im, tf_prv_progress_fn progress, void *arg, uint64_t total,
                    tf_error *err)
{
    tf_prv_record rec;
    int rc;
    while ((rc = tf_prv_next(im->r, &rec, err)) == 1) {
        im->stats->records++;
        if (rec.kind == TF_PRV_EVENT && (rc = import_event(im, &rec, err)) < 0)
            return rc;
        if (progress && (im->stats->records & 0xffff) == 0)
            progress(arg, tf_prv_bytes(im->r), total);
    }
    return rc;
}

/* ---- pass two: spool -> trace ---------------------------------------------- */

typedef struct wbatch {
    tf_event  *ev;
    uint64_t  *ev_rows;
    size_t     nev;
    tf_sample *s;
    uint64_t  *s_rows;
    size_t     ns;
    uint64_t  *frames;
    size_t     nframes, capframes;
} wbatch;

typedef struct pass_two {
    importer  *im;
    tf_trace_out *w;
    wbatch    *b;
    uint32_t  *region_sid;
} pass_two;

static int flush_thread(pass_two *p2, uint32_t t, tf_error *err)
{
    importer *im = p2->im;
    wbatch *b = &p2->b[t];
    uint32_t proc = im->thread_proc[t], local = im->thread_local[t];
    int rc = 0;
    if (b->nev) {
        rc = tf_trace_out_append_events(p2->w, proc, local, b->ev, b->ev_rows, b->nev, err);
        b->nev = 0;
    }
    if (rc == 0 && b->ns) {
        uint64_t first = 0;
        if (b->nframes)
            rc = tf_trace_out_append_frames(p2->w, proc, local, b->frames, b->nframes, &first, err);
        for (size_t i = 0; rc == 0 && i < b->ns; i++)
            b->s[i].stack += first;
        if (rc == 0)
            rc = tf_trace_out_append_samples(p2->w, proc, local, b->s, b->s_rows, b->ns, err);
        b->ns = b->nframes = 0;
    }
    return rc;
}

static void fill_row(uint64_t *row, uint32_t n, const counter_read *reads, uint8_t nread)
{
    for (uint32_t c = 0; c < n; c++)
        row[c] = TF_NOVALUE;
    for (uint8_t k = 0; k < nread; k++)
        row[reads[k].idx] = reads[k].value;
}

/* The rest of a record after its header, in one fread. */
static int spool_get(importer *im, const spool_head *hd, void *rec, size_t size,
                     uint64_t *frames, counter_read *reads, tf_error *err)
{
    unsigned char buf[SPOOL_MAX];
    size_t nf = hd->nframes * sizeof *frames, nr = hd->nread * sizeof *reads;
    if (fread(buf, 1, size + nf + nr, im->spool) != size + nf + nr)
        return tf_fail(err, TF_ERR_IO, "%s: reading the conversion spool back failed", im->prv_path);
    memcpy(rec, buf, size);
    memcpy(frames, buf + size, nf);
    memcpy(reads, buf + size + nf, nr);
    return 0;
}

static int stream_spool(pass_two *p2, tf_error *err)
{
    importer *im = p2->im;
    uint32_t C = im->ncounters;
    if (fflush(im->spool) != 0 || fseek(im->spool, 0, SEEK_SET) != 0)
        return tf_fail(err, TF_ERR_IO, "%s: conversion spool: %s", im->prv_path, strerror(errno));
    spool_head hd;
    counter_read reads[TF_MAX_COUNTERS];
    uint64_t frames[TF_PRV_MAX_DEPTH];
    int rc = 0;
    while (rc == 0 && fread(&hd, sizeof hd, 1, im->spool) == 1) {
        wbatch *b = &p2->b[hd.thread];
        if (hd.what == SPOOL_EVENT) {
            if (!b->ev && (!(b->ev = malloc(BATCH * sizeof *b->ev)) ||
                           !(b->ev_rows = malloc((size_t)BATCH * (C ? C : 1) * sizeof *b->ev_rows))))
                return nomem(im, err);
            tf_event *ev = &b->ev[b->nev];
            if ((rc = spool_get(im, &hd, ev, sizeof *ev, frames, reads, err)) < 0)
                return rc;
            if (ev->kind != TF_EVENT_USER)
                ev->value = p2->region_sid[ev->value];
            fill_row(b->ev_rows + b->nev * C, C, reads, hd.nread);
            if (++b->nev == BATCH)
                rc = flush_thread(p2, hd.thread, err);
        } else {
            if (!b->s && (!(b->s = malloc(BATCH * sizeof *b->s)) ||
                          !(b->s_rows = malloc((size_t)BATCH * (C ? C : 1) * sizeof *b->s_rows))))
                return nomem(im, err);
            tf_sample *s = &b->s[b->ns];
            if ((rc = spool_get(im, &hd, s, sizeof *s, frames, reads, err)) < 0)
                return rc;
            uint64_t *nf = tf_prv_grow(b->frames, &b->capframes, b->nframes + hd.nframes,
                                       sizeof *nf, 256);
            if (!nf)
                return nomem(im, err);
            b->frames = nf;
            /* The offset within this batch; flush_thread adds the batch's first index. */
            s->stack = b->nframes;
            memcpy(b->frames + b->nframes, frames, hd.nframes * sizeof *frames);
            b->nframes += hd.nframes;
            fill_row(b->s_rows + b->ns * C, C, reads, hd.nread);
            if (++b->ns == BATCH)
                rc = flush_thread(p2, hd.thread, err);
        }
    }
    if (rc == 0 && ferror(im->spool))
        rc = tf_fail(err, TF_ERR_IO, "%s: reading the conversion spool back failed", im->prv_path);
    for (uint32_t t = 0; rc == 0 && t < im->nthreads; t++)
        rc = flush_thread(p2, t, err);
    return rc;
}

/* "(PAPI_TOT_INS) Instr completed" -> "PAPI_TOT_INS"; unlabelled PAPI
 * presets get their preset name, other counters "counter TYPE". */
static void counter_name(importer *im, uint32_t type, char *buf, size_t size)
{
    const char *label = im->pcf ? tf_pcf_type_label(im->pcf, type) : NULL;
    if (label && label[0] == '(' && strchr(label, ')')) {
        snprintf(buf, size, "%.*s", (int)(strchr(label, ')') - label - 1), label + 1);
        return;
    }
    if (label && *label) {
        snprintf(buf, size, "%s", label);
        return;
    }
    for (unsigned i = 0; i < tf_prv_npapi_presets; i++)
        if (type == TF_PRV_PAPI_BASE + tf_prv_papi_presets[i].code) {
            snprintf(buf, size, "%s", tf_prv_papi_presets[i].name);
            return;
        }
    snprintf(buf, size, "counter %" PRIu32, type);
}

static const char *value_label(importer *im, uint32_t type, uint64_t value)
{
    return im->pcf ? tf_pcf_value_label(im->pcf, type, value) : NULL;
}

static int add_processes(pass_two *p2, tf_error *err)
{
    importer *im = p2->im;
    char names[TF_MAX_COUNTERS][96];
    const char *cn[TF_MAX_COUNTERS];
    for (uint32_t c = 0; c < im->ncounters; c++) {
        counter_name(im, im->counter_type[c], names[c], sizeof names[c]);
        cn[c] = names[c];
    }
    uint32_t proc = 0;
    int rc = 0;
    for (uint32_t a = 0; rc == 0 && a < im->h->nappls; a++) {
        const tf_prv_appl *ap = &im->h->appls[a];
        char exe[64];
        snprintf(exe, sizeof exe, "application %" PRIu32, a + 1);
        const char *appl_name = tf_row_name(&im->row, TF_ROW_APPL, a);
        for (uint32_t k = 0; rc == 0 && k < ap->ntasks; k++, proc++) {
            const char *node = tf_row_name(&im->row, TF_ROW_NODE, ap->tasks[k].node - 1);
            tf_process_desc d = {
                .pid = k + 1, .rank = ap->ntasks > 1 ? (int32_t)k : -1,
                .nranks = ap->ntasks > 1 ? (int32_t)ap->ntasks : 0,
                .executable = appl_name ? appl_name : exe, .host = node ? node : "",
                .build_id = "", .ncounters = im->ncounters, .counter_names = cn,
            };
            uint32_t pid;
            rc = tf_trace_out_add_process(p2->w, &d, &pid, err);
            for (uint32_t th = 0; rc == 0 && th < ap->tasks[k].nthreads; th++) {
                uint32_t tid;
                rc = tf_trace_out_add_thread(p2->w, pid, th + 1, &tid, err);
            }
        }
    }
    return rc;
}

/* Symbols for the synthetic ips: routine from the sampled-caller labels,
 * file and line from the line labels "LINE (FILE)". */
static int add_symbols(pass_two *p2, tf_error *err)
{
    importer *im = p2->im;
    size_t n = im->site_map.n;
    if (n == 0)
        return 0;
    tf_symbol *sym = calloc(n, sizeof *sym);
    if (!sym)
        return nomem(im, err);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < n; i++) {
        uint64_t routine = im->site_key[i] >> 32, line = im->site_key[i] & 0xffffffffu;
        char fallback[48], file[512] = "";
        const char *fn = value_label(im, TF_PRV_SAMPLED_CALLER, routine);
        if (!fn) {
            snprintf(fallback, sizeof fallback, "routine %" PRIu64, routine);
            fn = fallback;
        }
        unsigned lineno = 0;
        const char *ll = value_label(im, TF_PRV_SAMPLED_LINE, line);
        int used = 0;
        if (ll && sscanf(ll, "%u (%n", &lineno, &used) == 1 && used && strchr(ll + used, ')'))
            snprintf(file, sizeof file, "%.*s", (int)(strrchr(ll, ')') - (ll + used)), ll + used);
        sym[i] = (tf_symbol){.start = SYNTH_IP_BASE + i * SYNTH_IP_STEP,
                             .end = SYNTH_IP_BASE + (i + 1) * SYNTH_IP_STEP, .line = lineno};
        if ((rc = tf_trace_out_intern(p2->w, fn, &sym[i].function, err)) == 0)
            rc = tf_trace_out_intern(p2->w, file, &sym[i].file, err);
    }
    for (uint32_t p = 0; rc == 0 && p < im->nprocs; p++)
        rc = tf_trace_out_append_symbols(p2->w, p, sym, n, err);
    free(sym);
    return rc;
}

/* Region names: the .pcf label of the user function, else "60000019=VALUE". */
static int intern_regions(pass_two *p2, char ***names_out, tf_error *err)
{
    importer *im = p2->im;
    size_t n = im->region_map.n;
    char **names = calloc(n ? n : 1, sizeof *names);
    p2->region_sid = calloc(n ? n : 1, sizeof *p2->region_sid);
    if (!names || !p2->region_sid) {
        free(names);
        return nomem(im, err);
    }
    *names_out = names;
    for (size_t i = 0; i < n; i++) {
        const char *label = value_label(im, TF_PRV_USER_FUNCTION, im->region_value[i]);
        if (label ? !(names[i] = strdup(label))
                  : asprintf(&names[i], "%u=%" PRIu64, TF_PRV_USER_FUNCTION, im->region_value[i]) < 0) {
            names[i] = NULL;
            return nomem(im, err);
        }
        int rc = tf_trace_out_intern(p2->w, names[i], &p2->region_sid[i], err);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int write_paraver_group(pass_two *p2, char **names, tf_error *err)
{
    importer *im = p2->im;
    int64_t g;
    int rc = tf_h5_group_create(tf_trace_out_file(p2->w), TF_PRV_IMPORT_GROUP, &g, err);
    if (rc < 0)
        return rc;
    rc = tf_h5_attr_write_string(g, "source", im->prv_path, err);
    size_t n = im->region_map.n;
    const char *type_label = im->pcf ? tf_pcf_type_label(im->pcf, TF_PRV_USER_FUNCTION) : NULL;
    uint64_t *types = malloc((n ? n : 1) * sizeof *types);
    const char **tl = malloc((n ? n : 1) * sizeof *tl);
    const char **vl = malloc((n ? n : 1) * sizeof *vl);
    if (!types || !tl || !vl)
        rc = nomem(im, err);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        types[i] = TF_PRV_USER_FUNCTION;
        tl[i] = type_label ? type_label : "";
        vl[i] = value_label(im, TF_PRV_USER_FUNCTION, im->region_value[i]);
    }
    if (rc == 0 && n) {
        if ((rc = tf_h5_write_array(g, "region_type", TF_H5_UINT64, types, n, err)) == 0 &&
            (rc = tf_h5_write_array(g, "region_value", TF_H5_UINT64, im->region_value, n, err)) == 0 &&
            (rc = tf_h5_write_strings(g, "region_type_label", tl, n, err)) == 0 &&
            (rc = tf_h5_write_strings(g, "region_value_label", vl, n, err)) == 0)
            rc = tf_h5_write_strings(g, "region_name", (const char *const *)names, n, err);
    }
    free(types);
    free(tl);
    free(vl);
    tf_h5_close(g);
    return rc;
}

/* Extrae writes the date as "dd/mm/yyyy at hh:mm"; taken as UTC. */
static uint64_t header_start_time(const char *date)
{
    struct tm tm = {0};
    const char *end = strptime(date, "%d/%m/%Y at %H:%M", &tm);
    if (!end || *end)
        return 0;
    time_t t = timegm(&tm);
    return t > 0 ? (uint64_t)t * 1000000000u : 0;
}

static int pass_two_run(importer *im, const char *h5_path, tf_error *err)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "import of %s", im->prv_path);
    tf_trace_meta meta = {
        .clock = "paraver", .host = tf_row_name(&im->row, TF_ROW_NODE, 0),
        .command_line = cmd, .producer = "tracefold paraver import",
        .start_time = header_start_time(im->h->date),
    };
    if (!meta.host)
        meta.host = "";
    pass_two p2 = {.im = im};
    char **names = NULL;
    int rc = tf_trace_out_create(&p2.w, h5_path, &meta, TF_TRACE_OUT_ATOMIC, err);
    if (rc < 0)
        return rc;
    p2.b = calloc(im->nthreads, sizeof *p2.b);
    if (!p2.b)
        rc = nomem(im, err);
    if (rc == 0)
        rc = add_processes(&p2, err);
    if (rc == 0)
        rc = intern_regions(&p2, &names, err);
    if (rc == 0)
        rc = stream_spool(&p2, err);
    if (rc == 0)
        rc = add_symbols(&p2, err);
    for (uint32_t p = 0; rc == 0 && p < im->nprocs; p++)
        if (im->procs[p].nobjects)
            rc = tf_trace_out_append_objects(p2.w, p, im->procs[p].objects, im->procs[p].nobjects,
                                             err);
    if (rc == 0)
        rc = write_paraver_group(&p2, names, err);
    if (rc == 0)
        rc = tf_trace_out_close(p2.w, err);
    else
        tf_trace_out_abort(p2.w);
    for (size_t i = 0; names && i < im->region_map.n; i++)
        free(names[i]);
    free(names);
    for (uint32_t t = 0; p2.b && t < im->nthreads; t++) {
        free(p2.b[t].ev);
        free(p2.b[t].ev_rows);
        free(p2.b[t].s);
        free(p2.b[t].s_rows);
        free(p2.b[t].frames);
    }
    free(p2.b);
    free(p2.region_sid);
    return rc;
}

/* ---- setup ------------------------------------------------------------------ */

static FILE *open_spool(tf_error *err)
{
    const char *dir = getenv("TMPDIR");
    char *path;
    if (asprintf(&path, "%s/tracefold-spool-XXXXXX", dir && *dir ? dir : "/tmp") < 0)
        return NULL;
    /* The name lives only while the terminating signals are held back: a
     * SIGTERM between mkstemp and unlink would leave it behind. */
    sigset_t hold, was;
    sigemptyset(&hold);
    sigaddset(&hold, SIGINT);
    sigaddset(&hold, SIGTERM);
    sigaddset(&hold, SIGHUP);
    sigprocmask(SIG_BLOCK, &hold, &was);
    int fd = mkstemp(path);
    int saved = errno;
    if (fd >= 0)
        unlink(path);   /* gone from the file system; freed when closed, even on a crash */
    sigprocmask(SIG_SETMASK, &was, NULL);
    FILE *f = NULL;
    if (fd < 0) {
        tf_fail(err, TF_ERR_IO, "%s: cannot create the conversion spool: %s", path, strerror(saved));
    } else {
        if (!(f = fdopen(fd, "w+"))) {
            tf_fail(err, TF_ERR_IO, "conversion spool: %s", strerror(errno));
            close(fd);
        } else {
            setvbuf(f, NULL, _IOFBF, 1u << 20);
        }
    }
    free(path);
    return f;
}

static int load_labels(importer *im, tf_error *err)
{
    char *pcf = tf_prv_sibling(im->prv_path, ".pcf");
    char *row = tf_prv_sibling(im->prv_path, ".row");
    int rc = pcf && row ? 0 : nomem(im, err);
    if (rc == 0 && (rc = tf_pcf_read(pcf, &im->pcf, err)) == -TF_ERR_NOTFOUND)
        rc = 0;   /* no labels: names fall back to numbers */
    im->stats->have_pcf = im->pcf != NULL;
    if (rc == 0 && (rc = tf_row_read(row, &im->row, err)) == -TF_ERR_NOTFOUND)
        rc = 0;
    else if (rc == 0)
        rc = tf_row_check_counts(&im->row, row, im->h, err);
    im->stats->have_row = rc == 0 && (im->row.n[TF_ROW_THREAD] || im->row.n[TF_ROW_NODE]);
    if (rc == 0)
        tf_error_clear(err);
    free(pcf);
    free(row);
    return rc;
}

static int setup_threads(importer *im, tf_error *err)
{
    const tf_prv_header *h = im->h;
    im->nthreads = tf_prv_nthreads(h);
    for (uint32_t a = 0; a < h->nappls; a++)
        im->nprocs += h->appls[a].ntasks;
    im->threads = calloc(im->nthreads, sizeof *im->threads);
    im->thread_proc = calloc(im->nthreads, sizeof *im->thread_proc);
    im->thread_local = calloc(im->nthreads, sizeof *im->thread_local);
    im->procs = calloc(im->nprocs, sizeof *im->procs);
    if (!im->threads || !im->thread_proc || !im->thread_local || !im->procs)
        return nomem(im, err);
    uint32_t t = 0, p = 0;
    for (uint32_t a = 0; a < h->nappls; a++)
        for (uint32_t k = 0; k < h->appls[a].ntasks; k++, p++)
            for (uint32_t th = 0; th < h->appls[a].tasks[k].nthreads; th++, t++) {
                im->thread_proc[t] = p;
                im->thread_local[t] = th;
            }
    return 0;
}

int tf_prv_import(const char *prv_path, const char *h5_path, bool lenient,
                  tf_prv_progress_fn progress, void *progress_arg,
                  tf_prv_import_stats *stats, tf_error *err)
{
    memset(stats, 0, sizeof *stats);
    importer im = {.prv_path = prv_path, .stats = stats};
    int rc = tf_prv_open(&im.r, prv_path, lenient, err);
    if (rc < 0)
        return rc;
    im.h = tf_prv_get_header(im.r);
    struct stat st;
    size_t n = strlen(prv_path);
    /* Progress in text bytes needs the text size: unknown for gzip. */
    uint64_t total = (n < 3 || strcmp(prv_path + n - 3, ".gz")) && stat(prv_path, &st) == 0
                         ? (uint64_t)st.st_size : 0;
    if ((rc = load_labels(&im, err)) == 0 && (rc = setup_threads(&im, err)) == 0 &&
        (im.spool = open_spool(err)) == NULL)
        rc = err ? -err->code : -TF_ERR_IO;
    if (rc == 0)
        rc = pass_one(&im, progress, progress_arg, total, err);
    stats->skipped = tf_prv_skipped(im.r);
    if (tf_prv_first_skip(im.r))
        snprintf(stats->first_skip, sizeof stats->first_skip, "%s", tf_prv_first_skip(im.r));
    if (rc == 0) {
        stats->counters = im.ncounters;
        stats->regions = im.region_map.n;
        rc = pass_two_run(&im, h5_path, err);
    }
    if (im.spool)
        fclose(im.spool);
    for (uint32_t t = 0; im.threads && t < im.nthreads; t++)
        free(im.threads[t].open);
    for (uint32_t p = 0; im.procs && p < im.nprocs; p++) {
        free(im.procs[p].objects);
        free(im.procs[p].latest);
        tf_prv_index_free(&im.procs[p].by_start);
    }
    free(im.threads);
    free(im.thread_proc);
    free(im.thread_local);
    free(im.procs);
    tf_prv_index_free(&im.counter_map);
    tf_prv_index_free(&im.region_map);
    tf_prv_index_free(&im.site_map);
    free(im.region_value);
    free(im.site_key);
    free(im.users);
    free(im.fn_values);
    tf_pcf_free(im.pcf);
    tf_row_free(&im.row);
    tf_prv_close(im.r);
    return rc;
}
