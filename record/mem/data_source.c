/* SPDX-License-Identifier: BSD-3-Clause */
#include "data_source.h"

#include <linux/perf_event.h>
#include <stddef.h>

/* Field widths of union perf_mem_data_src (linux/perf_event.h); the
 * shifts come from the same header. */
#define FIELD(v, shift, bits) (((v) >> (shift)) & ((1ull << (bits)) - 1))
#define MEM_OP(v)      FIELD(v, PERF_MEM_OP_SHIFT, 5)
#define MEM_LVL(v)     FIELD(v, PERF_MEM_LVL_SHIFT, 14)
#define MEM_LOCK(v)    FIELD(v, PERF_MEM_LOCK_SHIFT, 2)
#define MEM_TLB(v)     FIELD(v, PERF_MEM_TLB_SHIFT, 7)
#define MEM_LVLNUM(v)  FIELD(v, PERF_MEM_LVLNUM_SHIFT, 4)
#define MEM_REMOTE(v)  FIELD(v, PERF_MEM_REMOTE_SHIFT, 1)
#define MEM_HOPS(v)    FIELD(v, PERF_MEM_HOPS_SHIFT, 3)

typedef struct tf_bit_level {
    uint32_t bit;
    uint8_t  level;
} tf_bit_level;

/* mem_lvl bits, nearest first: the first one set names the level. */
static const tf_bit_level lvl_bits[] = {
    { PERF_MEM_LVL_L1, TF_LEVEL_L1 },
    { PERF_MEM_LVL_LFB, TF_LEVEL_LFB },
    { PERF_MEM_LVL_L2, TF_LEVEL_L2 },
    { PERF_MEM_LVL_L3, TF_LEVEL_L3 },
    { PERF_MEM_LVL_REM_CCE1, TF_LEVEL_REMOTE_CACHE_1 },
    { PERF_MEM_LVL_REM_CCE2, TF_LEVEL_REMOTE_CACHE_2 },
    { PERF_MEM_LVL_LOC_RAM, TF_LEVEL_DRAM },
    { PERF_MEM_LVL_REM_RAM1, TF_LEVEL_REMOTE_DRAM_1 },
    { PERF_MEM_LVL_REM_RAM2, TF_LEVEL_REMOTE_DRAM_2 },
    { PERF_MEM_LVL_UNC, TF_LEVEL_UNCACHED },
    { PERF_MEM_LVL_IO, TF_LEVEL_UNCACHED },
};

/* mem_lvl_num values (newer kernels, and AMD IBS): local level, and the
 * levels used when mem_remote is set (one hop: same socket; two: beyond). */
typedef struct tf_num_level {
    uint8_t num;
    uint8_t local, remote_near, remote_far;
} tf_num_level;

static const tf_num_level lvlnum_levels[] = {
    { PERF_MEM_LVLNUM_L1, TF_LEVEL_L1, TF_LEVEL_L1, TF_LEVEL_L1 },
    { PERF_MEM_LVLNUM_L2, TF_LEVEL_L2, TF_LEVEL_REMOTE_CACHE_1, TF_LEVEL_REMOTE_CACHE_2 },
    { PERF_MEM_LVLNUM_L3, TF_LEVEL_L3, TF_LEVEL_REMOTE_CACHE_1, TF_LEVEL_REMOTE_CACHE_2 },
    { PERF_MEM_LVLNUM_ANY_CACHE, TF_LEVEL_UNKNOWN, TF_LEVEL_REMOTE_CACHE_1,
      TF_LEVEL_REMOTE_CACHE_2 },
    { PERF_MEM_LVLNUM_LFB, TF_LEVEL_LFB, TF_LEVEL_LFB, TF_LEVEL_LFB },
    { PERF_MEM_LVLNUM_RAM, TF_LEVEL_DRAM, TF_LEVEL_REMOTE_DRAM_1, TF_LEVEL_REMOTE_DRAM_2 },
    { PERF_MEM_LVLNUM_PMEM, TF_LEVEL_DRAM, TF_LEVEL_REMOTE_DRAM_1, TF_LEVEL_REMOTE_DRAM_2 },
    { PERF_MEM_LVLNUM_CXL, TF_LEVEL_REMOTE_DRAM_1, TF_LEVEL_REMOTE_DRAM_1,
      TF_LEVEL_REMOTE_DRAM_2 },
    { PERF_MEM_LVLNUM_IO, TF_LEVEL_UNCACHED, TF_LEVEL_UNCACHED, TF_LEVEL_UNCACHED },
};

#define TF_NELEM(a) (sizeof(a) / sizeof((a)[0]))

static uint8_t level_from_lvlnum(unsigned num, bool remote, unsigned hops)
{
    for (size_t i = 0; i < TF_NELEM(lvlnum_levels); i++) {
        const tf_num_level *e = &lvlnum_levels[i];
        if (e->num != num)
            continue;
        if (!remote)
            return e->local;
        /* Hops 0 and 1 stay in the socket; 2 and 3 leave it. */
        return hops >= PERF_MEM_HOPS_2 ? e->remote_far : e->remote_near;
    }
    return TF_LEVEL_UNKNOWN;
}

static uint8_t level_from_lvl(unsigned lvl)
{
    for (size_t i = 0; i < TF_NELEM(lvl_bits); i++)
        if (lvl & lvl_bits[i].bit)
            return lvl_bits[i].level;
    return TF_LEVEL_UNKNOWN;
}

static uint8_t op_from_bits(unsigned op)
{
    if (op & PERF_MEM_OP_LOAD)
        return TF_MEM_OP_LOAD;
    if (op & PERF_MEM_OP_STORE)
        return TF_MEM_OP_STORE;
    if (op & PERF_MEM_OP_PFETCH)
        return TF_MEM_OP_PREFETCH;
    if (op & PERF_MEM_OP_EXEC)
        return TF_MEM_OP_EXEC;
    return TF_MEM_OP_UNKNOWN;
}

void tf_mem_source_decode(uint64_t v, tf_mem_source *out)
{
    unsigned lvl = (unsigned)MEM_LVL(v), num = (unsigned)MEM_LVLNUM(v);
    unsigned tlb = (unsigned)MEM_TLB(v);
    *out = (tf_mem_source){ .level = TF_LEVEL_UNKNOWN };
    out->op = op_from_bits((unsigned)MEM_OP(v));
    out->hit_known = (lvl & (PERF_MEM_LVL_HIT | PERF_MEM_LVL_MISS)) != 0;
    out->hit = (lvl & PERF_MEM_LVL_HIT) != 0;
    out->remote = MEM_REMOTE(v) != 0;
    out->hops = (uint8_t)MEM_HOPS(v);
    out->locked = (MEM_LOCK(v) & PERF_MEM_LOCK_LOCKED) != 0;
    out->tlb_known = (tlb & (PERF_MEM_TLB_HIT | PERF_MEM_TLB_MISS)) != 0;
    out->tlb_miss = (tlb & PERF_MEM_TLB_MISS) != 0;
    /* A miss names the level that missed, not the one that served. */
    if (out->hit_known && !out->hit)
        return;
    if (num != 0 && num != PERF_MEM_LVLNUM_NA)
        out->level = level_from_lvlnum(num, out->remote, out->hops);
    else if (!(lvl & PERF_MEM_LVL_NA))
        out->level = level_from_lvl(lvl);
}

uint8_t tf_mem_source_flags(const tf_mem_source *src)
{
    uint8_t f = 0;
    if (src->tlb_known && src->tlb_miss)
        f |= TF_SAMPLE_TLB_MISS;
    if (src->op == TF_MEM_OP_STORE && src->hit_known && src->hit)
        f |= TF_SAMPLE_HIT;
    return f;
}

const char *tf_mem_level_name(int level)
{
    static const char *const names[] = {
        [TF_LEVEL_UNCACHED] = "uncached", [TF_LEVEL_L1] = "L1", [TF_LEVEL_LFB] = "LFB",
        [TF_LEVEL_L2] = "L2", [TF_LEVEL_L3] = "L3",
        [TF_LEVEL_REMOTE_CACHE_1] = "remote cache (1 hop)",
        [TF_LEVEL_REMOTE_CACHE_2] = "remote cache (2 hops)",
        [TF_LEVEL_DRAM] = "local DRAM", [TF_LEVEL_REMOTE_DRAM_1] = "remote DRAM (1 hop)",
        [TF_LEVEL_REMOTE_DRAM_2] = "remote DRAM (2 hops)",
    };
    if (level >= 0 && (size_t)level < TF_NELEM(names) && names[level])
        return names[level];
    return "unknown";
}
