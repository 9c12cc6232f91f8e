/* SPDX-License-Identifier: BSD-3-Clause */
/* TRACEFOLD_STATS=yes: the sampling handler times itself (two clock reads
 * per sample) into a per-thread histogram; threads merge theirs as they
 * exit, and the end of recording prints the sample count and the median
 * and 90th percentile of the handler's cost.  This is how bench/ measures
 * the recorder's cost inside the handler. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>

#include "tf_rec.h"

void tf_stats_merge(tf_rec_thread *t)
{
    for (uint32_t b = 0; b < TF_COST_BUCKETS; b++) {
        if (t->cost[b])
            atomic_fetch_add(&tf_rec_g.cost[b], t->cost[b]);
        t->cost[b] = 0;
    }
}

/* The upper edge of the bucket holding the q-quantile, in ns. */
static uint64_t quantile(const uint64_t *h, uint64_t n, double q)
{
    uint64_t want = (uint64_t)(q * (double)n), seen = 0;
    for (uint32_t b = 0; b < TF_COST_BUCKETS; b++) {
        seen += h[b];
        if (seen > want)
            return (uint64_t)(b + 1) * TF_COST_NS;
    }
    return (uint64_t)TF_COST_BUCKETS * TF_COST_NS;
}

void tf_stats_report(void)
{
    uint64_t h[TF_COST_BUCKETS], n = 0;
    for (uint32_t b = 0; b < TF_COST_BUCKETS; b++) {
        h[b] = atomic_load(&tf_rec_g.cost[b]);
        n += h[b];
    }
    if (!n && tf_rec_g.kernel_capture) {
        fprintf(stderr, "tracefold: stats: no samples through the handler (capture kernel: "
                        "the writer reports them)\n");
        return;
    }
    if (!n) {
        fprintf(stderr, "tracefold: stats: no samples\n");
        return;
    }
    fprintf(stderr,
            "tracefold: stats: %" PRIu64 " samples, handler cost median %" PRIu64
            " ns, 90th percentile %" PRIu64 " ns (sampler %s, unwind %s, %u counters)\n",
            n, quantile(h, n, 0.5), quantile(h, n, 0.9),
            tf_rec_g.sampler ? tf_rec_g.sampler->name : "none",
            tf_option_find("unwind")->choices[tf_rec_g.opt.unwind], tf_rec_g.nbase);
}
