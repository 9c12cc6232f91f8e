/* SPDX-License-Identifier: BSD-3-Clause */
/* The writer's side of data objects (docs/recorder.md, "Data objects"):
 * heap and mmap blocks and thread stacks arrive as begin and end slots from
 * the threads' rings and are written once their lifetime is known (at
 * their end, or alive at the end of the trace); static variables are read
 * from the ELF symbol tables of each file the process maps, here in the
 * writer, so the work stays out of the application.
 *
 * Live objects are kept in an open-addressing table keyed by start address
 * (linear probing, deletion by backward shift).  An end whose begin was
 * not seen is kept until the next flush: another thread's ring, drained
 * later in the same pass, may hold the begin (a block allocated by one
 * thread and freed by another); ends of blocks never recorded (below the
 * threshold) simply expire. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "record/writer/elf_objects.h"
#include "record/tf_session.h"
#include "tf_writer.h"

/* Static variables smaller than this are left out: a table of every
 * one-byte flag of every library says nothing about address streams. */
#define STATIC_MIN_SIZE 64
#define BATCH 256
#define MAX_ORPHANS 1024

typedef struct live {
    tf_object o;                   /* free_time TF_NOTIME; stack: index in frames below */
    uint64_t frames[TF_SESSION_MAX_USER];
    bool used;
} live;

typedef struct orphan {
    uint64_t start, time;
} orphan;

struct tf_wobjects {
    live    *table;
    size_t   cap, n;               /* cap a power of two */
    uint32_t next_id;
    tf_object out[BATCH];          /* written at the next flush */
    uint64_t frames[BATCH * TF_SESSION_MAX_USER];
    size_t   nout, nframes;
    orphan   orphans[MAX_ORPHANS];
    size_t   norphans;
};

int tf_wobjects_create(tf_wobjects **out, tf_error *err)
{
    tf_wobjects *o = calloc(1, sizeof *o);
    if (o) {
        o->cap = 256;
        o->table = calloc(o->cap, sizeof *o->table);
    }
    if (!o || !o->table) {
        free(o);
        return tf_fail(err, TF_ERR_NOMEM, "data objects table");
    }
    *out = o;
    return 0;
}

void tf_wobjects_destroy(tf_wobjects *o)
{
    if (!o)
        return;
    free(o->table);
    free(o);
}

uint32_t tf_wobjects_new_id(tf_wobjects *o)
{
    return o->next_id++;
}

static size_t slot_of(const tf_wobjects *o, uint64_t start)
{
    return (size_t)((start >> 4) * 0x9e3779b97f4a7c15ull >> 20) & (o->cap - 1);
}

static live *find(tf_wobjects *o, uint64_t start)
{
    for (size_t i = slot_of(o, start);; i = (i + 1) & (o->cap - 1)) {
        if (!o->table[i].used)
            return NULL;
        if (o->table[i].o.start == start)
            return &o->table[i];
    }
}

static void remove_at(tf_wobjects *o, size_t i)
{
    size_t mask = o->cap - 1;
    o->table[i].used = false;
    /* Backward shift: move up every entry of the run after i whose home
     * is not between the hole and itself. */
    for (size_t j = (i + 1) & mask; o->table[j].used; j = (j + 1) & mask) {
        size_t home = slot_of(o, o->table[j].o.start);
        bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (stays)
            continue;
        o->table[i] = o->table[j];
        o->table[j].used = false;
        i = j;
    }
    o->n--;
}

static int grow(tf_wobjects *o, tf_error *err)
{
    live *old = o->table;
    size_t oldcap = o->cap;
    live *t = calloc(2 * oldcap, sizeof *t);
    if (!t)
        return tf_fail(err, TF_ERR_NOMEM, "data objects table (%zu live)", o->n);
    o->table = t;
    o->cap = 2 * oldcap;
    for (size_t i = 0; i < oldcap; i++) {
        if (!old[i].used)
            continue;
        size_t k = slot_of(o, old[i].o.start);
        while (o->table[k].used)
            k = (k + 1) & (o->cap - 1);
        o->table[k] = old[i];
    }
    free(old);
    return 0;
}

/* Queues object x (stack_len frames in frames) for the next flush. */
static int emit(tf_wobjects *o, tf_trace_out *w, uint32_t proc, const tf_object *x,
                const uint64_t *frames, tf_error *err)
{
    if (o->nout == BATCH) {
        int rc = tf_wobjects_flush(o, w, proc, err);
        if (rc)
            return rc;
    }
    tf_object *y = &o->out[o->nout++];
    *y = *x;
    y->stack = o->nframes;
    memcpy(o->frames + o->nframes, frames, x->stack_len * sizeof *frames);
    o->nframes += x->stack_len;
    return 0;
}

int tf_wobjects_flush(tf_wobjects *o, tf_trace_out *w, uint32_t proc, tf_error *err)
{
    uint64_t first = 0;
    int rc = 0;
    if (o->nframes)
        rc = tf_trace_out_append_frames(w, proc, UINT32_MAX, o->frames, o->nframes, &first, err);
    for (size_t i = 0; i < o->nout; i++)
        if (o->out[i].stack_len)
            o->out[i].stack += first;
        else
            o->out[i].stack = 0;
    if (!rc && o->nout)
        rc = tf_trace_out_append_objects(w, proc, o->out, o->nout, err);
    o->nout = o->nframes = 0;
    o->norphans = 0;
    return rc;
}

int tf_wobjects_add(tf_wobjects *o, tf_trace_out *w, uint32_t proc, const tf_object *x,
                    tf_error *err)
{
    static const uint64_t no_frames[1];
    tf_object y = *x;
    y.id = tf_wobjects_new_id(o);
    y.stack_len = 0;
    return emit(o, w, proc, &y, no_frames, err);
}

int tf_wobjects_end(tf_wobjects *o, tf_trace_out *w, uint32_t proc, uint64_t start,
                    uint64_t time, tf_error *err)
{
    live *l = find(o, start);
    if (!l) {
        if (o->norphans < MAX_ORPHANS)
            o->orphans[o->norphans++] = (orphan){start, time};
        return 0;
    }
    l->o.free_time = time;
    int rc = emit(o, w, proc, &l->o, l->frames, err);
    remove_at(o, (size_t)(l - o->table));
    return rc;
}

int tf_wobjects_begin(tf_wobjects *o, tf_trace_out *w, uint32_t proc, uint8_t kind,
                      uint64_t start, uint64_t end, uint64_t time, const uint64_t *frames,
                      uint32_t nframes, tf_error *err)
{
    int rc = 0;
    live *l = find(o, start);
    if (l)   /* its end was lost (a ring full): it ended by now at the latest */
        rc = tf_wobjects_end(o, w, proc, start, time, err);
    if (!rc && 2 * (o->n + 1) > o->cap)
        rc = grow(o, err);
    if (rc)
        return rc;
    size_t i = slot_of(o, start);
    while (o->table[i].used)
        i = (i + 1) & (o->cap - 1);
    l = &o->table[i];
    memset(l, 0, sizeof *l);
    l->used = true;
    o->n++;
    if (nframes > TF_SESSION_MAX_USER)
        nframes = TF_SESSION_MAX_USER;
    l->o = (tf_object){.start = start, .size = end > start ? end - start : 0,
                       .alloc_time = time, .free_time = TF_NOTIME,
                       .id = tf_wobjects_new_id(o), .stack_len = (uint16_t)nframes,
                       .kind = kind};
    memcpy(l->frames, frames, nframes * sizeof *frames);
    for (size_t k = 0; k < o->norphans; k++) {
        if (o->orphans[k].start != start || o->orphans[k].time < time)
            continue;
        uint64_t t = o->orphans[k].time;
        o->orphans[k] = o->orphans[--o->norphans];
        return tf_wobjects_end(o, w, proc, start, t, err);
    }
    return 0;
}

int tf_wobjects_finish(tf_wobjects *o, tf_trace_out *w, uint32_t proc, tf_error *err)
{
    int rc = 0;
    for (size_t i = 0; !rc && i < o->cap; i++)
        if (o->table[i].used) {
            rc = emit(o, w, proc, &o->table[i].o, o->table[i].frames, err);
            o->table[i].used = false;
        }
    o->n = 0;
    return rc ? rc : tf_wobjects_flush(o, w, proc, err);
}

int tf_wobjects_static_file(tf_wobjects *o, tf_trace_out *w, uint32_t proc, const char *path,
                            uint64_t map_start, tf_error *err)
{
    tf_error ignored;
    uint64_t bias;
    /* Mapped files that are not ELF (locale archives, data files) have
     * no symbols: nothing to add. */
    if (tf_elf_load_bias(path, map_start, &bias, &ignored))
        return 0;
    tf_elf_objects list;
    tf_elf_objects_init(&list, STATIC_MIN_SIZE);
    int rc = 0;
    if (!tf_elf_objects_read_file(&list, path, bias, &ignored)) {
        for (size_t i = 0; !rc && i < list.nobjects; i++) {
            tf_object x = {.start = list.objects[i].start, .size = list.objects[i].size,
                           .alloc_time = 0, .free_time = TF_NOTIME,
                           .kind = TF_OBJECT_STATIC};
            rc = tf_trace_out_intern(w, list.objects[i].name, &x.name, err);
            if (!rc)
                rc = tf_wobjects_add(o, w, proc, &x, err);
        }
    }
    tf_elf_objects_free(&list);
    return rc;
}
