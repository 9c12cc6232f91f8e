/* SPDX-License-Identifier: BSD-3-Clause */
#include "prv_types.h"

#include <stdlib.h>
#include <string.h>

/* PAPI preset codes (the low 16 bits of PAPI_*_idx), which Extrae adds to
 * 42000000 to type a counter. */
const tf_prv_papi tf_prv_papi_presets[] = {
    {"PAPI_L1_DCM", 0},   {"PAPI_L1_ICM", 1},   {"PAPI_L2_DCM", 2},   {"PAPI_L2_ICM", 3},
    {"PAPI_L3_DCM", 4},   {"PAPI_L3_ICM", 5},   {"PAPI_L1_TCM", 6},   {"PAPI_L2_TCM", 7},
    {"PAPI_L3_TCM", 8},   {"PAPI_L3_LDM", 14},  {"PAPI_L3_STM", 15},  {"PAPI_TLB_DM", 20},
    {"PAPI_TLB_IM", 21},  {"PAPI_L1_LDM", 23},  {"PAPI_L1_STM", 24},  {"PAPI_L2_LDM", 25},
    {"PAPI_L2_STM", 26},  {"PAPI_MEM_SCY", 34}, {"PAPI_STL_ICY", 37}, {"PAPI_BR_CN", 43},
    {"PAPI_BR_MSP", 46},  {"PAPI_FMA_INS", 48}, {"PAPI_TOT_INS", 50}, {"PAPI_INT_INS", 51},
    {"PAPI_FP_INS", 52},  {"PAPI_LD_INS", 53},  {"PAPI_SR_INS", 54},  {"PAPI_BR_INS", 55},
    {"PAPI_VEC_INS", 56}, {"PAPI_RES_STL", 57}, {"PAPI_TOT_CYC", 59}, {"PAPI_LST_INS", 60},
    {"PAPI_L1_DCA", 64},  {"PAPI_L2_DCA", 65},  {"PAPI_L3_DCA", 66},  {"PAPI_L2_TCA", 89},
    {"PAPI_L3_TCA", 90},  {"PAPI_FP_OPS", 102}, {"PAPI_SP_OPS", 103}, {"PAPI_DP_OPS", 104},
    {"PAPI_REF_CYC", 107},
};
const unsigned tf_prv_npapi_presets = sizeof tf_prv_papi_presets / sizeof tf_prv_papi_presets[0];

/* Generic (perf) and native counter names with the PAPI preset of the same
 * meaning. */
static const struct { const char *generic, *papi; } aliases[] = {
    {"instructions", "PAPI_TOT_INS"},          {"cycles", "PAPI_TOT_CYC"},
    {"cpu-cycles", "PAPI_TOT_CYC"},            {"ref-cycles", "PAPI_REF_CYC"},
    {"branches", "PAPI_BR_INS"},               {"branch-instructions", "PAPI_BR_INS"},
    {"branch-misses", "PAPI_BR_MSP"},          {"cache-misses", "PAPI_L3_TCM"},
    {"L1-dcache-load-misses", "PAPI_L1_LDM"},  {"L1-dcache-loads", "PAPI_LD_INS"},
    {"L1-icache-load-misses", "PAPI_L1_ICM"},  {"LLC-load-misses", "PAPI_L3_LDM"},
    {"dTLB-load-misses", "PAPI_TLB_DM"},       {"iTLB-load-misses", "PAPI_TLB_IM"},
    /* Intel's native name for the same count, as Extrae traces label it. */
    {"LLC_MISSES", "PAPI_L3_TCM"},
};

uint32_t tf_prv_counter_type(const char *name, uint32_t index)
{
    for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
        if (!strcmp(name, aliases[i].generic))
            name = aliases[i].papi;
    for (unsigned i = 0; i < tf_prv_npapi_presets; i++)
        if (!strcmp(name, tf_prv_papi_presets[i].name))
            return TF_PRV_PAPI_BASE + tf_prv_papi_presets[i].code;
    /* Counters imported from Paraver without a label keep their type. */
    if (!strncmp(name, "counter ", 8)) {
        char *end;
        unsigned long t = strtoul(name + 8, &end, 10);
        if (!*end && t <= UINT32_MAX && tf_prv_is_counter((uint32_t)t))
            return (uint32_t)t;
    }
    return TF_PRV_OTHER_COUNTER + index;
}
