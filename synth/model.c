/* SPDX-License-Identifier: BSD-3-Clause */
#include "model.h"

#include <math.h>

size_t tf_synth_instance_doubles(uint32_t nphases, uint32_t ncounters)
{
    return (size_t)ncounters * (nphases + TF_SYNTH_MAX_SEGMENTS + 1);
}

void tf_synth_instance_init(tf_synth_instance *in, uint32_t nphases, uint32_t ncounters,
                            double *mem)
{
    *in = (tf_synth_instance){.nphases = nphases, .ncounters = ncounters};
    in->rates = mem;
    in->seg_f0 = mem + (size_t)nphases * ncounters;
    in->total = in->seg_f0 + (size_t)TF_SYNTH_MAX_SEGMENTS * ncounters;
}

static void add_segment(tf_synth_instance *in, uint64_t t0, uint64_t t1, uint32_t phase,
                        bool stall)
{
    if (t1 > t0)
        in->seg[in->nseg++] = (tf_synth_segment){t0, t1, phase, stall};
}

double tf_synth_segment_rate(const tf_synth_instance *in, uint32_t s, uint32_t c)
{
    double r = in->rates[(size_t)in->seg[s].phase * in->ncounters + c];
    return in->seg[s].stall ? r * TF_SYNTH_STALL_FACTOR : r;
}

double tf_synth_integral(const tf_synth_instance *in, uint32_t s, double tau, uint32_t c)
{
    return in->seg_f0[(size_t)s * in->ncounters + c] +
           tf_synth_segment_rate(in, s, c) * (tau - (double)in->seg[s].t0) * 1e-9;
}

void tf_synth_instance_draw(tf_synth_instance *in, const tf_synth_scenario *sc,
                            const tf_synth_options *o, uint32_t kind, bool outlier, tf_rng *rng)
{
    uint32_t K = in->nphases, C = in->ncounters;

    in->kind = kind;
    double d = (double)o->duration_ns * tf_synth_kind_duration(sc, kind) *
               (1.0 + o->jitter * tf_rng_normal(rng, 3.0));
    uint64_t work = (uint64_t)llround(d);

    /* Inner boundaries move by at most boundary_shift, which tf_synth_check
     * keeps below half the shortest phase, so they stay in order. */
    double cum = 0.0;
    in->work_begin[0] = 0;
    for (uint32_t k = 1; k < K; k++) {
        cum += tf_synth_share(sc, kind, k - 1);
        double b = cum + o->boundary_shift * (2.0 * tf_rng_uniform(rng) - 1.0);
        in->work_begin[k] = (uint64_t)llround(b * (double)work);
    }
    in->work_begin[K] = work;

    for (uint32_t k = 0; k < K; k++)
        for (uint32_t c = 0; c < C; c++)
            in->rates[(size_t)k * C + c] = tf_synth_counter_rate(&sc->phases[k], k, c) *
                                           (1.0 + o->rate_noise * tf_rng_normal(rng, 3.0));

    in->stall_at = in->stall_len = 0;
    in->stall_phase = 0;
    if (outlier) {
        in->stall_at = (uint64_t)llround((0.05 + 0.9 * tf_rng_uniform(rng)) * (double)work);
        in->stall_len = (uint64_t)llround((0.3 + 0.7 * tf_rng_uniform(rng)) *
                                          (double)o->duration_ns);
        while (in->stall_phase + 1 < K && in->work_begin[in->stall_phase + 1] <= in->stall_at)
            in->stall_phase++;
    }
    in->duration = work + in->stall_len;

    /* Real time: everything after the stall point is later by its length. */
    in->nseg = 0;
    for (uint32_t k = 0; k <= K; k++) {
        uint64_t w = in->work_begin[k];
        in->phase_begin[k] = outlier && w > in->stall_at ? w + in->stall_len : w;
    }
    for (uint32_t k = 0; k < K; k++) {
        if (outlier && k == in->stall_phase) {
            add_segment(in, in->phase_begin[k], in->stall_at, k, false);
            add_segment(in, in->stall_at, in->stall_at + in->stall_len, k, true);
            add_segment(in, in->stall_at + in->stall_len, in->phase_begin[k + 1], k, false);
        } else {
            add_segment(in, in->phase_begin[k], in->phase_begin[k + 1], k, false);
        }
    }

    for (uint32_t c = 0; c < C; c++) {
        double f = 0.0;
        for (uint32_t s = 0; s < in->nseg; s++) {
            in->seg_f0[(size_t)s * C + c] = f;
            f += tf_synth_segment_rate(in, s, c) * (double)(in->seg[s].t1 - in->seg[s].t0) *
                 1e-9;
        }
        in->total[c] = f;
    }
}

uint32_t tf_synth_segment_at(const tf_synth_instance *in, double tau, uint32_t hint)
{
    uint32_t s = hint < in->nseg ? hint : 0;
    while (s > 0 && tau < (double)in->seg[s].t0)
        s--;
    while (s + 1 < in->nseg && tau >= (double)in->seg[s].t1)
        s++;
    return s;
}

uint64_t tf_synth_object_slice(const tf_synth_scenario *sc, uint32_t obj)
{
    uint64_t span = 0;
    for (uint32_t k = 0; k < sc->nphases; k++)
        for (uint32_t i = 0; i < sc->phases[k].nstreams; i++)
            if (sc->phases[k].streams[i].object == obj && sc->phases[k].streams[i].bytes > span)
                span = sc->phases[k].streams[i].bytes;
    return (span + 4095) & ~UINT64_C(4095);
}
