/* SPDX-License-Identifier: BSD-3-Clause */
/* Memory levels on the five-phase scenario: shares of loads per level,
 * mean costs, and the two-mode DRAM cost of the random gather reported as
 * two modes while the one-mode levels stay one mode. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "an_fixture.h"
#include "formats/trace.h"

static const tf_analysis_level *find_level(const tf_analysis *a, const char *phase, uint8_t level)
{
    for (size_t i = 0; i < a->nlevels; i++) {
        const tf_analysis_level *l = &a->levels[i];
        bool ph = phase ? l->phase != TF_ANALYSIS_NONE && !strcmp(a->phases[l->phase].label, phase)
                        : l->phase == TF_ANALYSIS_NONE;
        if (ph && l->level == level)
            return l;
    }
    return NULL;
}

static void levels_per_phase(void **state)
{
    tf_analysis a;
    fx_build(&a, 300, 13, 40, 1, 1e7, 21);
    assert_int_equal(tf_analysis_compute(&a, NULL, 0, NULL, 0, NULL, NULL), 0);
    /* copy (phase 1): linear loads only */
    const tf_analysis_level *l1 = find_level(&a, "1", TF_LEVEL_L1);
    assert_non_null(l1);
    assert_true(fabs(l1->share - 0.8) < 0.05);
    assert_true(fabs(l1->mean_cost - 5) < 0.3);
    assert_int_equal(l1->nmodes, 1);
    const tf_analysis_level *lfb = find_level(&a, "1", TF_LEVEL_LFB);
    assert_non_null(lfb);
    assert_int_equal(lfb->nmodes, 1);
    /* gather (phase 3): random loads of A (DRAM two modes) and linear idx */
    const tf_analysis_level *dram = find_level(&a, "3", TF_LEVEL_DRAM);
    assert_non_null(dram);
    assert_int_equal(dram->nmodes, 2);
    print_message("gather DRAM modes %.0f, %.0f; mean %.0f\n", dram->modes[0], dram->modes[1],
                  dram->mean_cost);
    assert_true(fabs(dram->modes[0] - 350) < 20);
    assert_true(fabs(dram->modes[1] - 800) < 40);
    /* 8 MiB random of 10 MiB read in the gather: 0.8 × 0.7 of loads in DRAM */
    assert_true(fabs(dram->share - 0.8 * 0.7) < 0.05);
    /* stencil (phase 2): the strided stores have no level and the grid's
     * loads are linear: DRAM loads only from iterations whose gather began
     * early (boundaries jitter by ±1 %) */
    const tf_analysis_level *stencil_dram = find_level(&a, "2", TF_LEVEL_DRAM);
    assert_true(!stencil_dram || stencil_dram->share < 0.03);
    /* whole iteration: shares sum to one */
    double sum = 0;
    for (size_t i = 0; i < a.nlevels; i++)
        if (a.levels[i].phase == TF_ANALYSIS_NONE)
            sum += a.levels[i].share;
    assert_true(fabs(sum - 1) < 1e-9);
    tf_analysis_clear(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(levels_per_phase),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
