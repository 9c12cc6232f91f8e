/* SPDX-License-Identifier: BSD-3-Clause */
/* The data source of a hardware memory sample (perf_mem_data_src, filled
 * by the kernel for Intel PEBS and AMD IBS) decoded into the trace's memory
 * level, TLB outcome and store hit flag.  The mapping is a table; it is
 * documented in docs/memory-sampling.md. */
#ifndef TF_DATA_SOURCE_H
#define TF_DATA_SOURCE_H

#include <stdbool.h>
#include <stdint.h>

#include "formats/trace.h"

enum tf_mem_op {
    TF_MEM_OP_UNKNOWN = 0, TF_MEM_OP_LOAD, TF_MEM_OP_STORE, TF_MEM_OP_PREFETCH,
    TF_MEM_OP_EXEC,
};

typedef struct tf_mem_source {
    uint8_t level;       /* enum tf_mem_level: where the access was served */
    uint8_t op;          /* enum tf_mem_op */
    bool    hit_known;   /* the level field reports hit or miss */
    bool    hit;         /* ... and it was a hit */
    bool    tlb_known;
    bool    tlb_miss;    /* missed the first-level data TLB */
    bool    remote;      /* served by another core, node or socket */
    bool    locked;      /* a locked (atomic) access */
    uint8_t hops;        /* PERF_MEM_HOPS_*, 0 when not reported */
} tf_mem_source;

/* Decodes a perf_mem_data_src value.  0 (no data source) gives an unknown
 * level and nothing known.  Async-signal-safe. */
void tf_mem_source_decode(uint64_t data_src, tf_mem_source *out);

/* The tf_sample flags the source implies: TF_SAMPLE_TLB_MISS, and
 * TF_SAMPLE_HIT for a store the hardware reported as a hit. */
uint8_t tf_mem_source_flags(const tf_mem_source *src);

/* Short name of a level ("L1", "LFB", "local DRAM", ...); "unknown" for
 * values outside the enum. */
const char *tf_mem_level_name(int level);

#endif
