/* SPDX-License-Identifier: BSD-3-Clause */
#include "an_fixture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "formats/trace.h"

#define MiB (1024ull * 1024)

/* objects: A, B, idx, grid */
enum { OBJ_A, OBJ_B, OBJ_IDX, OBJ_GRID, OBJ_N };
static const char *const fx_object_names[OBJ_N] = { "main.c:41", "main.c:42", "main.c:45", "grid" };
static const uint64_t fx_object_slice[OBJ_N] = { 8 * MiB, 8 * MiB, 2 * MiB, 12 * MiB };

const struct fx_phase fx_phases[FX_PHASES] = {
    { "stream_copy", "stream.c", 214, 0.18, 2,
      { { OBJ_A, TF_SAMPLE_LOAD, TF_ANALYSIS_PATTERN_LINEAR, -1, 8, 8 * MiB, 1 },
        { OBJ_B, TF_SAMPLE_STORE, TF_ANALYSIS_PATTERN_LINEAR, -1, 8, 8 * MiB, 1 } } },
    { "stencil_apply", "stencil.c", 57, 0.22, 2,
      { { OBJ_GRID, TF_SAMPLE_LOAD, TF_ANALYSIS_PATTERN_LINEAR, 1, 8, 12 * MiB, 3 },
        { OBJ_B, TF_SAMPLE_STORE, TF_ANALYSIS_PATTERN_STRIDED, 1, 256, 8 * MiB, 1 } } },
    { "spmv_gather", "spmv.c", 112, 0.20, 2,
      { { OBJ_A, TF_SAMPLE_LOAD, TF_ANALYSIS_PATTERN_RANDOM, 0, 0, 8 * MiB, 1 },
        { OBJ_IDX, TF_SAMPLE_LOAD, TF_ANALYSIS_PATTERN_LINEAR, 1, 8, 2 * MiB, 1 } } },
    { "symgs", "symgs.c", 64, 0.22, 2,
      { { OBJ_A, TF_SAMPLE_LOAD, TF_ANALYSIS_PATTERN_LINEAR, 1, 8, 8 * MiB, 1 },
        { OBJ_B, TF_SAMPLE_STORE, TF_ANALYSIS_PATTERN_LINEAR, 1, 8, 8 * MiB, 1 } } },
    { "symgs", "symgs.c", 91, 0.18, 2,
      { { OBJ_A, TF_SAMPLE_LOAD, TF_ANALYSIS_PATTERN_LINEAR, -1, 8, 8 * MiB, 1 },
        { OBJ_B, TF_SAMPLE_STORE, TF_ANALYSIS_PATTERN_LINEAR, -1, 8, 8 * MiB, 1 } } },
};

double fx_boundary(size_t k)
{
    double b = 0;
    for (size_t i = 0; i < k; i++)
        b += fx_phases[i].share;
    return k >= FX_PHASES ? 1 : b;
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

static double uniform(uint64_t *s)
{
    return (double)(rng_next(s) >> 11) / 9007199254740992.0;
}

static uint32_t level_cost(uint8_t pattern, uint64_t *s, uint8_t *level)
{
    double u = uniform(s);
    switch (pattern) {
    case TF_ANALYSIS_PATTERN_LINEAR:
        if (u < 0.8) {
            *level = TF_LEVEL_L1;
            return 4 + (uint32_t)(uniform(s) * 3);
        }
        if (u < 0.9) {
            *level = TF_LEVEL_LFB;
            return 30 + (uint32_t)(uniform(s) * 11);
        }
        *level = TF_LEVEL_L2;
        return 12 + (uint32_t)(uniform(s) * 5);
    case TF_ANALYSIS_PATTERN_STRIDED:
        if (u < 0.5) {
            *level = TF_LEVEL_L2;
            return 12 + (uint32_t)(uniform(s) * 5);
        }
        if (u < 0.8) {
            *level = TF_LEVEL_L3;
            return 40 + (uint32_t)(uniform(s) * 11);
        }
        *level = TF_LEVEL_DRAM;
        return 280 + (uint32_t)(uniform(s) * 41);
    default:
        if (u < 0.3) {
            *level = TF_LEVEL_L3;
            return 40 + (uint32_t)(uniform(s) * 11);
        }
        *level = TF_LEVEL_DRAM;
        return uniform(s) < 0.5 ? 330 + (uint32_t)(uniform(s) * 41)
                                : 760 + (uint32_t)(uniform(s) * 81);
    }
}

static uint64_t stream_offset(const struct fx_stream *st, double p, uint64_t *s)
{
    uint64_t span = st->bytes / st->streams;
    uint64_t part = st->streams > 1 ? (rng_next(s) % st->streams) * span : 0;
    switch (st->pattern) {
    case TF_ANALYSIS_PATTERN_RANDOM:
        return 8 * (rng_next(s) % (st->bytes / 8));
    case TF_ANALYSIS_PATTERN_STRIDED:
        return part + (uint64_t)(p * (double)(span / st->stride)) * st->stride;
    default:
        if (st->direction < 0)
            return part + span - 8 - (uint64_t)(p * (double)(span / 8)) * 8;
        return part + (uint64_t)(p * (double)(span / 8)) * 8;
    }
}

void fx_build(tf_analysis *a, size_t instances, size_t timer_per_instance,
              size_t memory_per_instance, unsigned threads, double duration_ns, uint64_t seed)
{
    memset(a, 0, sizeof *a);
    a->region = strdup("iteration");
    a->duration_ns = duration_ns;
    uint32_t routine[FX_PHASES];
    for (size_t k = 0; k < FX_PHASES; k++)
        tf_analysis_add_routine(a, fx_phases[k].routine, fx_phases[k].file, &routine[k], NULL);
    a->nobjects = OBJ_N;
    a->objects = calloc(OBJ_N, sizeof *a->objects);
    for (size_t o = 0; o < OBJ_N; o++) {
        a->objects[o].name = strdup(fx_object_names[o]);
        a->objects[o].kind = o == OBJ_GRID ? TF_OBJECT_STATIC : TF_OBJECT_HEAP;
        a->objects[o].size = fx_object_slice[o] * threads;
    }
    size_t total = instances * threads * (timer_per_instance + memory_per_instance);
    a->samples = calloc(total, sizeof *a->samples);
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
    size_t n = 0;
    for (unsigned t = 0; t < threads; t++) {
        for (size_t i = 0; i < instances; i++) {
            double b[FX_PHASES + 1];
            for (size_t k = 0; k <= FX_PHASES; k++)
                b[k] = fx_boundary(k) + (k && k < FX_PHASES ? 0.01 * (2 * uniform(&s) - 1) : 0);
            double offset = uniform(&s);
            for (size_t j = 0; j < timer_per_instance; j++) {
                double x = ((double)j + offset) / (double)timer_per_instance;
                size_t k = 0;
                while (k + 1 < FX_PHASES && x >= b[k + 1])
                    k++;
                double u = uniform(&s);
                a->samples[n++] = (tf_analysis_sample){
                    .x = x, .routine = routine[k], .object = TF_ANALYSIS_NONE, .group = t,
                    .line = fx_phases[k].line + (u < 0.7 ? 0 : u < 0.9 ? 1 : 2),
                    .kind = TF_SAMPLE_TIMER, .level = TF_LEVEL_UNKNOWN };
            }
            for (size_t j = 0; j < memory_per_instance; j++) {
                double x = uniform(&s);
                size_t k = 0;
                while (k + 1 < FX_PHASES && x >= b[k + 1])
                    k++;
                const struct fx_phase *ph = &fx_phases[k];
                uint64_t all = 0;
                for (size_t q = 0; q < ph->nstreams; q++)
                    all += ph->stream[q].bytes;
                double pick = uniform(&s) * (double)all;
                size_t q = 0;
                while (q + 1 < ph->nstreams && pick >= (double)ph->stream[q].bytes) {
                    pick -= (double)ph->stream[q].bytes;
                    q++;
                }
                const struct fx_stream *st = &ph->stream[q];
                double p = (x - b[k]) / (b[k + 1] - b[k]);
                tf_analysis_sample *sm = &a->samples[n++];
                *sm = (tf_analysis_sample){
                    .x = x, .routine = routine[k], .line = ph->line, .group = t,
                    .object = st->object, .kind = st->kind, .level = TF_LEVEL_UNKNOWN,
                    .offset = t * fx_object_slice[st->object] + stream_offset(st, p, &s) };
                if (st->kind == TF_SAMPLE_LOAD)
                    sm->weight = level_cost(st->pattern, &s, &sm->level);
            }
        }
    }
    a->nsamples = n;
}
