/* SPDX-License-Identifier: BSD-3-Clause */
/* Paraver event types: the numbers Extrae uses (reused where the meaning is
 * the same, so existing Paraver configurations apply) and the numbers this
 * project adds.  docs/paraver.md documents every one of them. */
#ifndef TF_PRV_TYPES_H
#define TF_PRV_TYPES_H

#include <stdint.h>

/* ---- Extrae's ------------------------------------------------------------ */
#define TF_PRV_APPLICATION        40000001u  /* 1 begin, 0 end */
#define TF_PRV_FLUSHING           40000003u
#define TF_PRV_DYNMEM_CALL        40000040u  /* allocation call, 0 = end */
#define TF_PRV_DYNMEM_SIZE        40000041u
#define TF_PRV_DYNMEM_IN_PTR      40000042u  /* pointer given (free, realloc) */
#define TF_PRV_DYNMEM_OUT_PTR     40000043u  /* pointer returned */
#define TF_PRV_USER_FUNCTION      60000019u  /* value: function id, 0 = end */
#define TF_PRV_USER_FUNCTION_LINE 60000119u
#define TF_PRV_SAMPLED_CALLER     30000000u  /* + depth (0: the sampled function) */
#define TF_PRV_SAMPLED_LINE       30000100u  /* + depth */
#define TF_PRV_MAX_DEPTH          100u
#define TF_PRV_COUNTER_SET        41999999u
#define TF_PRV_PAPI_BASE          42000000u  /* + (PAPI preset code & 0xFFFF) */
#define TF_PRV_MEM_LOAD_ADDR      32000000u
#define TF_PRV_MEM_STORE_ADDR     32000001u
#define TF_PRV_MEM_LEVEL          32000002u  /* enum tf_mem_level */
#define TF_PRV_MEM_HIT            32000003u  /* 1 hit, 0 miss */
#define TF_PRV_MEM_TLB_LEVEL      32000004u
#define TF_PRV_MEM_TLB_HIT        32000005u
#define TF_PRV_MEM_COST           32000006u  /* cycles */
#define TF_PRV_MEM_OBJECT         32000007u  /* object id + 1, 0 = none */

/* Extrae writes hardware counters in these ranges: PAPI presets and older
 * natives (42000000..42999999) and newer natives (44000000..44999999). */
static inline int tf_prv_is_counter(uint32_t type)
{
    return (type >= 42000000u && type <= 42999999u) || (type >= 44000000u && type <= 44999999u);
}

static inline int tf_prv_is_sampled_caller(uint32_t type)
{
    return type >= TF_PRV_SAMPLED_CALLER && type < TF_PRV_SAMPLED_CALLER + TF_PRV_MAX_DEPTH;
}

static inline int tf_prv_is_sampled_line(uint32_t type)
{
    return type >= TF_PRV_SAMPLED_LINE && type < TF_PRV_SAMPLED_LINE + TF_PRV_MAX_DEPTH;
}

/* ---- tracefold's ----------------------------------------------------------
 * Nine digits (Extrae's types all have eight), in one block of 100000 so a
 * filter on 780000000..780099999 selects them all. */
#define TF_PRV_OWN_BASE           780000000u
#define TF_PRV_SAMPLE_IP          780000001u  /* sampled instruction address */
#define TF_PRV_MEM_RMW_ADDR       780000002u  /* address of a read-modify-write sample */
#define TF_PRV_USER_EVENT         780000003u  /* generic event: its type; see the next */
#define TF_PRV_USER_EVENT_VALUE   780000004u  /* ... and its value */
#define TF_PRV_SAMPLE_FLAGS       780000005u  /* enum tf_sample_flags bits */
#define TF_PRV_OTHER_COUNTER      780001000u  /* + counter index: counters without a PAPI preset */
/* The synthetic (folded) trace. */
#define TF_PRV_FOLD_PHASE         780002000u  /* phase number + 1, 0 = end */
#define TF_PRV_FOLD_PHASE_ROUTINE 780002001u  /* dominant routine of the phase */
#define TF_PRV_FOLD_PHASE_LINE    780002002u  /* most observed line of the phase */
#define TF_PRV_FOLD_MIPS          780002010u  /* instructions rate: MIPS x 1000 */
#define TF_PRV_FOLD_RATE          780003000u  /* + counter index: rate in events per ms */
#define TF_PRV_FOLD_PER_INS       780004000u  /* + counter index: events per instruction x 10^6 */
#define TF_PRV_FOLD_INSTANCE      780005000u  /* instance a folded sample comes from, + 1 */
#define TF_PRV_FOLD_WAITING       780005001u  /* 1: the samples from here on wait for other
                                                 threads (barrier, MPI progress), 0: they run
                                                 the iteration's code */

/* PAPI presets by name: the counter types Extrae gives them. */
typedef struct tf_prv_papi {
    const char *name;
    uint32_t    code;   /* preset code & 0xFFFF */
} tf_prv_papi;

extern const tf_prv_papi tf_prv_papi_presets[];
extern const unsigned tf_prv_npapi_presets;

/* The Paraver type of a counter: its PAPI preset (also found through the
 * perf/tracefold generic names, e.g. "instructions"), or
 * TF_PRV_OTHER_COUNTER + index. */
uint32_t tf_prv_counter_type(const char *name, uint32_t index);

#endif
