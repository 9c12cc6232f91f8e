/* SPDX-License-Identifier: BSD-3-Clause */
/* Pairs region begin/end events into instances with one pass per thread and
 * a stack of open regions, so nesting, unclosed regions and ends that skip
 * an inner end all resolve the same way. */
#include "instances.h"
#include "common/tf_array.h"

#include <stdlib.h>
#include <string.h>

/* A growable array of instances; grown by doubling so that a trace with
 * millions of instances costs a handful of reallocations. */
struct instance_list {
    tf_instance *v;
    size_t n, cap;
};

static int list_push(struct instance_list *l, const tf_instance *in, tf_error *err)
{
    tf_instance *v = tf_array_room(l->v, l->n, &l->cap, sizeof *v, 64);
    if (!v)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory pairing region instances");
    l->v = v;
    l->v[l->n++] = *in;
    return 0;
}

struct open_region {
    uint32_t region;
    size_t begin_event;
};

static int by_begin_event(const void *a, const void *b)
{
    const tf_instance *x = a, *y = b;
    return (x->begin_event > y->begin_event) - (x->begin_event < y->begin_event);
}

/* Closes the open region at stack position `at` with the event `end_event`
 * (or leaves it without an end when end_event is SIZE_MAX). */
static int close_region(const tf_thread *th, uint32_t proc, uint32_t thread,
                        const struct open_region *open, size_t at, size_t end_event,
                        uint8_t status, uint32_t want, struct instance_list *out,
                        tf_error *err)
{
    if (want != UINT32_MAX && open[at].region != want)
        return 0;
    tf_instance in = {
        .proc = proc,
        .thread = thread,
        .region = open[at].region,
        .depth = (uint32_t)at,
        .begin = th->events[open[at].begin_event].time,
        .begin_event = open[at].begin_event,
        .status = status,
    };
    if (end_event == SIZE_MAX) {
        in.end = th->events[th->nevents - 1].time;
        in.end_event = open[at].begin_event;
    } else {
        in.end = th->events[end_event].time;
        in.end_event = end_event;
    }
    return list_push(out, &in, err);
}

static int pair_thread(const tf_thread *th, uint32_t proc, uint32_t thread, uint32_t want,
                       struct instance_list *out, tf_error *err)
{
    struct open_region *open = NULL;
    size_t depth = 0, cap = 0;
    size_t first = out->n;
    int rc = 0;

    for (size_t e = 0; e < th->nevents && rc == 0; e++) {
        const tf_event *ev = &th->events[e];
        if (ev->kind == TF_EVENT_ENTER) {
            if (depth == cap) {
                size_t ncap = cap ? 2 * cap : 16;
                struct open_region *v = realloc(open, ncap * sizeof *v);
                if (!v) {
                    rc = tf_fail(err, TF_ERR_NOMEM, "out of memory pairing region instances");
                    break;
                }
                open = v;
                cap = ncap;
            }
            open[depth++] = (struct open_region){(uint32_t)ev->value, e};
        } else if (ev->kind == TF_EVENT_EXIT) {
            /* The innermost open region of that name; an end that matches
             * nothing open is a stray end and pairs with nothing. */
            size_t at = depth;
            while (at > 0 && open[at - 1].region != (uint32_t)ev->value)
                at--;
            if (at == 0)
                continue;
            at--;
            /* Regions opened inside it and never ended end with it. */
            for (size_t inner = depth - 1; inner > at && rc == 0; inner--)
                rc = close_region(th, proc, thread, open, inner, e, TF_INSTANCE_MISMATCHED,
                                  want, out, err);
            /* An end the recorder did not see (type 1: --region found the
             * function left by a longjmp or an exception, at the thread's
             * next region entry, docs/trace-format.md): its end is not
             * known, as for a thread whose events stop inside it. */
            if (rc == 0)
                rc = close_region(th, proc, thread, open, at, e,
                                  ev->type == 1 ? TF_INSTANCE_NO_END : TF_INSTANCE_COMPLETE,
                                  want, out, err);
            depth = at;
        }
    }
    while (depth > 0 && rc == 0) {
        depth--;
        rc = close_region(th, proc, thread, open, depth, SIZE_MAX, TF_INSTANCE_NO_END, want,
                          out, err);
    }
    free(open);
    /* Instances are found at their end; the order promised is by begin. */
    if (rc == 0 && out->n > first)
        qsort(out->v + first, out->n - first, sizeof *out->v, by_begin_event);
    return rc;
}

int tf_instances_find(const tf_trace *tr, uint32_t region, tf_instance **out, size_t *n,
                      tf_error *err)
{
    struct instance_list list = {0};
    *out = NULL;
    *n = 0;
    for (uint32_t p = 0; p < tf_trace_nprocesses(tr); p++) {
        const tf_process *proc = tf_trace_process(tr, p);
        for (uint32_t t = 0; t < proc->nthreads; t++) {
            int rc = pair_thread(&proc->threads[t], p, t, region, &list, err);
            if (rc < 0) {
                free(list.v);
                return rc;
            }
        }
    }
    *out = list.v;
    *n = list.n;
    return 0;
}

/* Sort key for the statistics: region first, then duration, incomplete
 * instances last within their region. */
static int by_region_duration(const void *a, const void *b)
{
    const tf_instance *x = a, *y = b;
    if (x->region != y->region)
        return (x->region > y->region) - (x->region < y->region);
    bool xc = x->status == TF_INSTANCE_COMPLETE, yc = y->status == TF_INSTANCE_COMPLETE;
    if (xc != yc)
        return xc ? -1 : 1;
    uint64_t dx = x->end - x->begin, dy = y->end - y->begin;
    return (dx > dy) - (dx < dy);
}

static int by_total_desc(const void *a, const void *b)
{
    const tf_region_stats *x = a, *y = b;
    if (x->total != y->total)
        return x->total < y->total ? 1 : -1;
    return (x->region > y->region) - (x->region < y->region);
}

int tf_region_stats_compute(const tf_trace *tr, tf_region_stats **out, size_t *n,
                            tf_error *err)
{
    tf_instance *in;
    size_t nin;
    *out = NULL;
    *n = 0;
    int rc = tf_instances_find(tr, UINT32_MAX, &in, &nin, err);
    if (rc < 0)
        return rc;
    if (nin)
        qsort(in, nin, sizeof *in, by_region_duration);

    size_t nregions = 0;
    for (size_t i = 0; i < nin; i++)
        if (i == 0 || in[i].region != in[i - 1].region)
            nregions++;
    tf_region_stats *st = calloc(nregions ? nregions : 1, sizeof *st);
    if (!st) {
        free(in);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory computing region statistics");
    }

    size_t r = 0;
    for (size_t i = 0; i < nin;) {
        size_t j = i;
        while (j < nin && in[j].region == in[i].region)
            j++;
        tf_region_stats *s = &st[r++];
        s->region = in[i].region;
        /* Complete instances come first in [i, j), sorted by duration. */
        for (size_t k = i; k < j; k++) {
            if (in[k].status != TF_INSTANCE_COMPLETE) {
                s->incomplete++;
                continue;
            }
            s->count++;
            s->total += in[k].end - in[k].begin;
        }
        if (s->count > 0) {
            s->min = in[i].end - in[i].begin;
            s->max = in[i + s->count - 1].end - in[i + s->count - 1].begin;
            const tf_instance *lo = &in[i + (s->count - 1) / 2], *hi = &in[i + s->count / 2];
            uint64_t dlo = lo->end - lo->begin, dhi = hi->end - hi->begin;
            s->median = dlo + (dhi - dlo) / 2;
        }
        i = j;
    }
    free(in);
    if (nregions)
        qsort(st, nregions, sizeof *st, by_total_desc);
    *out = st;
    *n = nregions;
    return 0;
}

const tf_region_stats *tf_region_stats_main(const tf_region_stats *st, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (st[k].count >= 2)
            return &st[k];
    return NULL;
}
