/* SPDX-License-Identifier: BSD-3-Clause */
/* The hardware memory-sampling back ends, PEBS and IBS: the events chosen
 * by tf_mem_probe_backend opened per thread.  The sampling events (PEBS
 * loads and stores) all write into the ring of the first one
 * (PERF_EVENT_IOC_SET_OUTPUT), so the ring holds the thread's samples in
 * the order they were taken and the trace's times stay in order; each
 * sample's PERF_SAMPLE_IDENTIFIER says which event, hence load or store.
 * The ring is drained by the thread's timer-sample handler (one reader, no
 * lock, no allocation: tf_perf_ring_drain).  The events differ between
 * PEBS and IBS; the handling of their samples does not. */
#include "config.h"

#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tf_memsample.h"

static void release(tf_mem_thread *m, bool forked)
{
    const tf_mem_events *ev = &tf_mem_g.events;
    for (int i = 0; !forked && i < ev->nevents; i++)
        if (m->fd[i] >= 0 && ev->leader[i] < 0)
            ioctl(m->fd[i], PERF_EVENT_IOC_DISABLE, 0);
    if (m->map) {
        tf_perf_ring_fini(&m->ring);
        munmap(m->map, m->map_len);
    }
    for (int i = 0; i < ev->nevents; i++)
        if (m->fd[i] >= 0)
            close(m->fd[i]);
    free(m);
}

/* Maps the ring of the first sampling event and sends the others' samples
 * there; reads every sampling event's id. */
static int map_ring(tf_mem_thread *m, tf_error *err)
{
    const tf_mem_events *ev = &tf_mem_g.events;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    int first = -1;
    for (int i = 0; i < ev->nevents; i++) {
        if (!ev->sampling[i])
            continue;
        if (ioctl(m->fd[i], PERF_EVENT_IOC_ID, &m->id[i]))
            return tf_fail(err, TF_ERR_IO, "reading the id of a %s event",
                           tf_mem_backend_name(ev->backend));
        if (first >= 0) {
            if (ioctl(m->fd[i], PERF_EVENT_IOC_SET_OUTPUT, m->fd[first]))
                return tf_fail(err, TF_ERR_IO, "sharing the %s sampling ring",
                               tf_mem_backend_name(ev->backend));
            continue;
        }
        first = i;
        m->map_len = (1 + TF_MEM_RING_PAGES) * page;
        void *map = mmap(NULL, m->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd[i], 0);
        if (map == MAP_FAILED)
            return tf_fail(err, TF_ERR_IO, "mmap of the %s sampling ring",
                           tf_mem_backend_name(ev->backend));
        int rc = tf_perf_ring_init(&m->ring, map, m->map_len, page, err);
        if (rc) {
            munmap(map, m->map_len);
            return rc;
        }
        m->map = map;
    }
    return first >= 0 ? 0 : tf_fail(err, TF_ERR_INTERNAL, "no sampling event");
}

static int perf_thread_start(tf_rec_thread *t, tf_error *err)
{
    const tf_mem_events *ev = &tf_mem_g.events;
    tf_mem_thread *m = calloc(1, sizeof *m);
    if (!m)
        return tf_fail(err, TF_ERR_NOMEM, "memory-sampling state");
    for (int i = 0; i < TF_MEM_MAX_EVENTS; i++)
        m->fd[i] = -1;
    int rc = tf_mem_open_events(ev, m->fd, err);
    if (rc) {
        free(m);
        return rc;
    }
    rc = map_ring(m, err);
    for (int i = 0; !rc && i < ev->nevents; i++)
        if (ev->leader[i] < 0 && ioctl(m->fd[i], PERF_EVENT_IOC_ENABLE, 0))
            rc = tf_fail(err, TF_ERR_IO, "enabling the %s events",
                         tf_mem_backend_name(ev->backend));
    if (rc) {
        release(m, false);
        return rc;
    }
    t->mem = m;
    return 0;
}

/* Call chains carry PERF_CONTEXT_* markers (user, kernel) between frames. */
static void on_perf_sample(void *ctx, const tf_perf_sample *p)
{
    tf_rec_thread *t = ctx;
    const tf_mem_thread *m = t->mem;
    int which = -1;
    for (int i = 0; i < tf_mem_g.events.nevents && which < 0; i++)
        if (tf_mem_g.events.sampling[i] && m->id[i] == p->identifier)
            which = i;
    if (which < 0)
        return;
    tf_sample ms;
    tf_perf_to_tf_sample(&tf_mem_g.layout[which], p, &ms);
    uint64_t frames[128];
    uint32_t n = 0;
    for (uint64_t i = 0; i < p->callchain_nr && n < 128; i++)
        if (p->callchain[i] < (uint64_t)PERF_CONTEXT_MAX)
            frames[n++] = p->callchain[i];
    tf_mem_store(t, &ms, NULL, frames, n);
}

static void perf_drain(tf_rec_thread *t)
{
    tf_mem_thread *m = t->mem;
    /* Every sampling event has the same layout but for the kind, which
     * on_perf_sample takes from the event the sample names. */
    const tf_perf_layout *layout = NULL;
    for (int i = 0; i < tf_mem_g.events.nevents && !layout; i++)
        if (tf_mem_g.events.sampling[i])
            layout = &tf_mem_g.layout[i];
    tf_perf_ring_drain(&m->ring, layout, on_perf_sample, t, &m->stats);
}

static void perf_thread_stop(tf_rec_thread *t, bool forked)
{
    if (!forked)
        perf_drain(t);   /* what the last period left (the timer is stopped) */
    release(t->mem, forked);
}

const tf_memsampler_ops tf_memsampler_perf = {
    .name = "perf",
    .thread_start = perf_thread_start,
    .drain = perf_drain,
    .decode = NULL,
    .thread_stop = perf_thread_stop,
};
