/* SPDX-License-Identifier: BSD-3-Clause */
/* The check of a group's rates against what a thread can do (rate_check.h). */
#include "rate_check.h"

#include <math.h>
#include <stdlib.h>
#include <strings.h>

#include "preempt.h"

/* The cycles counter by name, -1 when none. */
static int cycles_counter(const tf_fold_region *r)
{
    static const char *const names[] = { "cycles", "cpu-cycles", "PAPI_TOT_CYC" };
    for (uint32_t c = 0; c < r->ncounters; c++)
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
            if (!strcasecmp(r->counter_names[c], names[k]))
                return (int)c;
    return -1;
}

/* Drops counter c's rate at grid point k. */
static void drop(tf_fold_group *g, uint32_t c, uint32_t k)
{
    size_t at = (size_t)c * g->grid + k;
    if (isnan(g->rate[at]))
        return;
    g->rate[at] = g->rate_lo[at] = g->rate_hi[at] = NAN;
    if (g->ratio)
        g->ratio[at] = NAN;
    g->rate_dropped[c]++;
}

int tf_fold_rates_check(const tf_fold_region *r, tf_fold_group *g, tf_error *err)
{
    g->rate_dropped = calloc(r->ncounters + 1, sizeof *g->rate_dropped);
    if (!g->rate_dropped)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory checking the rates");
    if (!g->rate || !g->rate_lo || !g->rate_hi)
        return 0;
    int ins = g->instructions, cyc = cycles_counter(r);
    /* events/s: the CPU-time counters count ns */
    double cpu_max = TF_RATE_MAX_CPU_SHARE * 1e9;
    for (uint32_t k = 0; k < g->grid; k++) {
        for (uint32_t c = 0; c < r->ncounters; c++) {
            size_t at = (size_t)c * g->grid + k;
            if (!tf_fold_is_cpu_time(r->counter_names[c]))
                continue;
            if (g->rate[at] > cpu_max)
                drop(g, c, k);
            else if (g->rate_hi[at] > cpu_max)
                g->rate_hi[at] = cpu_max;
        }
        if (ins >= 0 && cyc >= 0) {
            double ri = g->rate[(size_t)ins * g->grid + k], rc = g->rate[(size_t)cyc * g->grid + k];
            if (ri > TF_RATE_MAX_IPC * rc) {
                drop(g, (uint32_t)ins, k);
                drop(g, (uint32_t)cyc, k);
            }
        }
    }
    return 0;
}
