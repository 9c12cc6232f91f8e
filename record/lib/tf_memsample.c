/* SPDX-License-Identifier: BSD-3-Clause */
/* Choosing the memory-sampling back end (option mem-sampler: PEBS > IBS >
 * software, docs/memory-sampling.md) and storing its samples.  Memory
 * samples ride on the timer sampling: the software back end decodes the
 * instruction of each timer sample, the hardware ones are drained at each
 * timer sample, so without a timer sampler there are none. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "tf_memsample.h"

tf_mem_process tf_mem_g;

/* enum tf_mem_choice -> enum tf_mem_backend */
static const int requested_backend[] = {
    [TF_MEMS_AUTO] = TF_MEM_AUTO, [TF_MEMS_PEBS] = TF_MEM_PEBS,
    [TF_MEMS_IBS] = TF_MEM_IBS, [TF_MEMS_SOFTWARE] = TF_MEM_SOFTWARE,
};

void tf_memsampling_setup(void)
{
    tf_rec_g.memsampler = NULL;
    int choice = tf_rec_g.opt.mem_sampler;
    if (choice == TF_MEMS_NONE || !tf_rec_g.sampler)
        return;
    tf_mem_config mc;
    tf_mem_config_default(&mc);
    mc.ldlat = tf_rec_g.opt.ldlat;
    mc.load_period = mc.store_period = tf_rec_g.opt.mem_period;
    mc.sysfs = tf_rec_g.opt.pmu_sysfs;
    mc.callchain = tf_rec_g.opt.stack_depth > 0;
    mc.clockid = CLOCK_MONOTONIC;   /* tf_now's clock: no conversion */
    tf_error err;
    tf_error_clear(&err);
    memset(&tf_mem_g, 0, sizeof tf_mem_g);
    if (tf_mem_probe_backend(&mc, requested_backend[choice], &tf_mem_g.probe, &tf_mem_g.events,
                             &err)) {
        tf_rec_say(true, "memory sampling with %s unavailable (%s); no memory samples",
                   tf_mem_backend_name(requested_backend[choice]), err.msg);
        return;
    }
    if (tf_rec_g.opt.stats)
        fprintf(stderr, "tracefold: memory sampling: %s\n", tf_mem_g.probe.reason);
    if (tf_mem_g.probe.backend == TF_MEM_SOFTWARE) {
#if defined(__x86_64__)
        tf_rec_g.memsampler = &tf_memsampler_software;
#endif
        return;
    }
    /* The sampling events share one ring: each sample says its event. */
    for (int i = 0; i < tf_mem_g.events.nevents; i++) {
        tf_mem_g.events.attr[i].sample_type |= PERF_SAMPLE_IDENTIFIER;
        tf_perf_layout_from_attr(&tf_mem_g.events.attr[i], tf_mem_g.events.kind[i],
                                 &tf_mem_g.layout[i]);
    }
    tf_rec_g.memsampler = &tf_memsampler_perf;
}

void tf_memsampling_thread_start(tf_rec_thread *t)
{
    t->mem = NULL;
    /* With kernel capture the writer decodes the software back end's
     * samples: a thread gets its own decoder (and the process capstone,
     * capstone_load.h) only when the handler takes its samples
     * (tf_memsampling_thread_handler). */
    if (!tf_rec_g.memsampler ||
        (tf_rec_g.kernel_capture && tf_rec_g.memsampler == &tf_memsampler_software))
        return;
    tf_error err;
    tf_error_clear(&err);
    /* A thread whose back end cannot start still gets timer samples. */
    if (tf_rec_g.memsampler->thread_start(t, &err))
        t->mem = NULL;
}

void tf_memsampling_thread_handler(tf_rec_thread *t)
{
    if (t->mem || !tf_rec_g.memsampler)
        return;
    tf_error err;
    tf_error_clear(&err);
    /* As at the thread's start: the decoder's allocations are not the
     * application's data objects (tf_heap.c records a thread's
     * allocations only while tf_self is set). */
    tf_rec_thread *self = tf_self;
    tf_self = NULL;
    if (tf_rec_g.memsampler->thread_start(t, &err))
        t->mem = NULL;
    tf_self = self;
}

void tf_memsampling_thread_stop(tf_rec_thread *t, bool forked)
{
    if (t->mem && tf_rec_g.memsampler)
        tf_rec_g.memsampler->thread_stop(t, forked);
    t->mem = NULL;
}

void tf_mem_store(tf_rec_thread *t, const tf_sample *ms, const tf_sample_slot *timer,
                  const uint64_t *frames, uint32_t nframes)
{
    tf_shm_ring *r = &t->buf->samples;
    tf_sample_slot *s = tf_ring_reserve(r);
    if (!s)
        return;
    uint32_t nbase = tf_rec_g.nbase;
    if (timer) {
        /* Only what the timer sample filled: its frames end the slot, and
         * the rest of a cold slot would be cache misses for nothing. */
        const uint64_t *end = tf_sample_frames((tf_sample_slot *)timer, nbase) + timer->nframes;
        memcpy(s, timer, (size_t)((const unsigned char *)end - (const unsigned char *)timer));
    } else {
        s->time = ms->time;
        for (uint32_t k = 0; k < nbase; k++)
            s->ctr[k] = TF_NOVALUE;
        /* User counters only grow: the current values are the nearest
         * ones that keep them monotone in the trace. */
        uint32_t nuser = TF_USER_COUNT(
            atomic_load_explicit(&tf_rec_g.proc->user_word, memory_order_relaxed));
        memcpy(s->ctr + nbase, t->user, nuser * sizeof t->user[0]);
        s->nuser = (uint8_t)nuser;
        uint32_t n = nframes < tf_rec_g.opt.stack_depth ? nframes : tf_rec_g.opt.stack_depth;
        memcpy(tf_sample_frames(s, nbase), frames, n * sizeof *frames);
        s->nframes = (uint16_t)n;
    }
    s->ip = ms->ip;
    s->addr = ms->addr;
    s->data_source = ms->data_source;
    s->weight = ms->weight;
    s->kind = ms->kind;
    s->level = ms->level;
    s->flags = ms->flags;
    if (tf_ring_commit(r))
        tf_rec_wake();
}
