/* SPDX-License-Identifier: BSD-3-Clause */
/* The hardware memory-sampling back ends, PEBS and IBS: the events chosen
 * by tf_mem_probe_backend opened per thread, each sampling event with its
 * own ring buffer, drained by the thread's timer-sample handler (one
 * reader, no lock, no allocation: tf_perf_ring_drain).  The events differ
 * between PEBS and IBS; the handling of their samples does not. */
#include "config.h"

#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tf_memsample.h"

static void release(tf_mem_thread *m, bool forked)
{
    for (int i = 0; i < tf_mem_g.events.nevents; i++) {
        if (m->fd[i] >= 0 && !forked && tf_mem_g.events.leader[i] < 0)
            ioctl(m->fd[i], PERF_EVENT_IOC_DISABLE, 0);
        if (m->map[i]) {
            tf_perf_ring_fini(&m->ring[i]);
            munmap(m->map[i], m->map_len);
        }
    }
    for (int i = 0; i < tf_mem_g.events.nevents; i++)
        if (m->fd[i] >= 0)
            close(m->fd[i]);
    free(m);
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
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    m->map_len = (1 + TF_MEM_RING_PAGES) * page;
    for (int i = 0; i < ev->nevents; i++) {
        if (!ev->sampling[i])
            continue;
        void *map = mmap(NULL, m->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, m->fd[i], 0);
        if (map == MAP_FAILED) {
            rc = tf_fail(err, TF_ERR_IO, "mmap of the %s sampling ring",
                         tf_mem_backend_name(ev->backend));
            break;
        }
        if ((rc = tf_perf_ring_init(&m->ring[i], map, m->map_len, page, err))) {
            munmap(map, m->map_len);
            break;
        }
        m->map[i] = map;
    }
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

struct drain_ctx {
    tf_rec_thread *t;
    const tf_perf_layout *layout;
};

/* Call chains carry PERF_CONTEXT_* markers (user, kernel) between frames. */
static void on_perf_sample(void *ctxv, const tf_perf_sample *p)
{
    const struct drain_ctx *c = ctxv;
    tf_sample ms;
    tf_perf_to_tf_sample(c->layout, p, &ms);
    uint64_t frames[128];
    uint32_t n = 0;
    for (uint64_t i = 0; i < p->callchain_nr && n < 128; i++)
        if (p->callchain[i] < (uint64_t)PERF_CONTEXT_MAX)
            frames[n++] = p->callchain[i];
    tf_mem_store(c->t, &ms, NULL, frames, n);
}

static void perf_drain(tf_rec_thread *t)
{
    tf_mem_thread *m = t->mem;
    for (int i = 0; i < tf_mem_g.events.nevents; i++) {
        if (!m->map[i])
            continue;
        struct drain_ctx c = {t, &tf_mem_g.layout[i]};
        tf_perf_ring_drain(&m->ring[i], &tf_mem_g.layout[i], on_perf_sample, &c, &m->stats);
    }
}

static void perf_thread_stop(tf_rec_thread *t, bool forked)
{
    tf_mem_thread *m = t->mem;
    if (!forked)
        perf_drain(t);   /* what the last period left (the timer is stopped) */
    release(m, forked);
}

const tf_memsampler_ops tf_memsampler_perf = {
    .name = "perf",
    .thread_start = perf_thread_start,
    .drain = perf_drain,
    .decode = NULL,
    .thread_stop = perf_thread_stop,
};
