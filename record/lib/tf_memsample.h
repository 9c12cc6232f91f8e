/* SPDX-License-Identifier: BSD-3-Clause */
/* Memory sampling inside the recorder: the state shared by the chooser
 * (tf_memsample.c) and the back ends (tf_memsampler_*.c).  Only these files
 * see record/mem/ and capstone. */
#ifndef TF_MEMSAMPLE_H
#define TF_MEMSAMPLE_H

#include "record/mem/ea_decode.h"
#include "record/mem/mem_backend.h"
#include "record/mem/perf_records.h"
#include "tf_rec.h"

/* Data pages of each hardware ring (a power of two): drained at every
 * timer sample, so it holds one period's samples with room to spare
 * (docs/memory-sampling.md, step 6). */
#define TF_MEM_RING_PAGES 8

typedef struct tf_mem_thread {
    /* software back end */
    tf_ea_decoder *ea;
    uint64_t fs_base, gs_base;
    /* hardware back ends: one event per entry of tf_mem_g.events, the
     * sampling ones all writing into one ring (so in time order), their
     * samples told apart by id */
    int      fd[TF_MEM_MAX_EVENTS];
    uint64_t id[TF_MEM_MAX_EVENTS];
    void    *map;
    size_t   map_len;
    tf_perf_ring ring;
    tf_perf_drain_stats stats;
} tf_mem_thread;

/* Chosen at process start, read-only afterwards. */
typedef struct tf_mem_process {
    tf_mem_probe  probe;
    tf_mem_events events;
    tf_perf_layout layout[TF_MEM_MAX_EVENTS];
} tf_mem_process;

extern tf_mem_process tf_mem_g;

/* Stores memory sample ms in t's sample ring.  With timer (the sample it
 * was derived from) its counters and call stack are copied; without, the
 * call stack is frames[0..nframes) and the base counters are not read.
 * Async-signal-safe. */
void tf_mem_store(tf_rec_thread *t, const tf_sample *ms, const struct tf_sample_slot *timer,
                  const uint64_t *frames, uint32_t nframes);

#endif
