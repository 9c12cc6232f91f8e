/* SPDX-License-Identifier: BSD-3-Clause */
#include "scenario.h"

#include <stdio.h>
#include <string.h>

#include "formats/trace.h"

#define MiB (UINT64_C(1) << 20)

static const char *const counter_names[TF_SYNTH_NAMED_COUNTERS] = {
    "instructions", "cycles", "L1D_misses", "L2_misses",
    "LLC_misses", "branch_misses", "dTLB_misses", "stores",
};

enum { OBJ_A, OBJ_B, OBJ_IDX, OBJ_GRID };

static const tf_synth_object hpc_objects[] = {
    [OBJ_A] = {"", "main.c:41", TF_OBJECT_HEAP},
    [OBJ_B] = {"", "main.c:42", TF_OBJECT_HEAP},
    [OBJ_IDX] = {"", "main.c:45", TF_OBJECT_HEAP},
    [OBJ_GRID] = {"grid", "", TF_OBJECT_STATIC},
};

#define LINEAR(obj, st, dir, mib) {obj, st, TF_PATTERN_LINEAR, dir, 8, 1, (mib) * MiB}

/* An iteration shaped like HPCG's: a copy that runs downwards, a stencil with
 * three concurrent streams and a strided store, a random gather, and a
 * symmetric Gauss-Seidel that sweeps up then down in one routine.  The
 * instruction rates span 300 to 4200 MIPS with abrupt changes. */
static const tf_synth_phase hpc_phases[] = {
    {"copy", "stream_copy", "stream.c", 214, 0.18,
     {2.0e9, 2.5e9, 6.0e7, 2.0e7, 8.0e6, 1.0e6, 2.0e5, 3.0e8},
     2, {LINEAR(OBJ_A, false, -1, 8), LINEAR(OBJ_B, true, -1, 8)}},
    {"stencil", "stencil_apply", "stencil.c", 57, 0.22,
     {4.2e9, 2.5e9, 1.5e7, 3.0e6, 5.0e5, 2.0e5, 5.0e4, 6.0e8},
     2, {{OBJ_GRID, false, TF_PATTERN_LINEAR, 1, 8, 3, 12 * MiB},
         {OBJ_B, true, TF_PATTERN_STRIDED, 1, 256, 1, 8 * MiB}}},
    {"gather", "spmv_gather", "spmv.c", 112, 0.20,
     {3.0e8, 2.5e9, 9.0e7, 6.0e7, 4.0e7, 1.2e7, 6.0e6, 2.0e7},
     2, {{OBJ_A, false, TF_PATTERN_RANDOM, 0, 0, 1, 8 * MiB},
         LINEAR(OBJ_IDX, false, 1, 2)}},
    {"symgs_fwd", "symgs", "symgs.c", 64, 0.22,
     {2.6e9, 2.5e9, 4.0e7, 1.2e7, 3.0e6, 3.0e6, 4.0e5, 3.0e8},
     2, {LINEAR(OBJ_A, false, 1, 8), LINEAR(OBJ_B, true, 1, 8)}},
    {"symgs_bwd", "symgs", "symgs.c", 91, 0.18,
     {1.4e9, 2.5e9, 4.5e7, 1.5e7, 4.0e6, 3.0e6, 4.0e5, 2.5e8},
     2, {LINEAR(OBJ_A, false, -1, 8), LINEAR(OBJ_B, true, -1, 8)}},
};

/* Slow and fast phases in turn, each change about tenfold (300 to 4200
 * MIPS), with boundaries at about 0.14, 0.34, 0.53 and 0.71 of the
 * iteration: the truth traces of issue 30, on which a fit must keep the
 * kink where a slow phase meets a fast one. */
static const tf_synth_phase sharp_phases[] = {
    {"pack", "halo_pack", "halo.c", 33, 0.14,
     {3.0e9, 2.5e9, 3.0e7, 8.0e6, 2.0e6, 5.0e5, 1.0e5, 6.0e8},
     1, {LINEAR(OBJ_A, false, 1, 8)}},
    {"exchange", "halo_wait", "halo.c", 78, 0.20,
     {3.0e8, 2.5e9, 6.0e6, 2.0e6, 1.0e6, 4.0e5, 8.0e4, 3.0e7},
     1, {LINEAR(OBJ_B, true, 1, 8)}},
    {"compute", "stencil_apply", "stencil.c", 57, 0.19,
     {4.2e9, 2.5e9, 1.5e7, 3.0e6, 5.0e5, 2.0e5, 5.0e4, 6.0e8},
     1, {{OBJ_GRID, false, TF_PATTERN_LINEAR, 1, 8, 3, 12 * MiB}}},
    {"reduce", "dot_reduce", "dot.c", 19, 0.18,
     {4.2e8, 2.5e9, 9.0e7, 6.0e7, 4.0e7, 1.2e7, 6.0e6, 2.0e7},
     1, {{OBJ_A, false, TF_PATTERN_RANDOM, 0, 0, 1, 8 * MiB}}},
    {"update", "axpy_update", "axpy.c", 12, 0.29,
     {3.6e9, 2.5e9, 4.0e7, 1.2e7, 3.0e6, 3.0e6, 4.0e5, 9.0e8},
     2, {LINEAR(OBJ_A, false, -1, 8), LINEAR(OBJ_B, true, -1, 8)}},
};

/* One constant phase: every normalised curve is the diagonal. */
static const tf_synth_phase flat_phases[] = {
    {"compute", "compute", "compute.c", 10, 1.0,
     {2.6e9, 2.5e9, 4.0e7, 1.2e7, 3.0e6, 3.0e6, 4.0e5, 3.0e8},
     1, {LINEAR(OBJ_A, false, 1, 8)}},
};

/* Sixty short phases, as a proxy application's iteration of many small
 * kernels shows (issue 31: about 60 phase lines in one report): ten
 * routines of one solver file, each run six times at its own line, the
 * instruction rate alternating between slow and fast kernels so that every
 * boundary is a change. */
#define MANY_SHARE (1.0 / 60)
#define MANY(name, routine, line, mips)                                                        \
    {name, routine, "solver.cc", line, MANY_SHARE,                                              \
     {(mips) * 1e6, 2.5e9, 3.0e7, 8.0e6, 2.0e6, 5.0e5, 1.0e5, 3.0e8}, 1,                          \
     {LINEAR(OBJ_A, false, 1, 8)}}
#define MANY_ROUND(r)                                                                          \
    MANY("r" #r "_flux", "compute_flux", 100 + r, 3600), MANY("r" #r "_eos", "eval_eos", 200 + r, 500), \
    MANY("r" #r "_grad", "gradient", 300 + r, 3000), MANY("r" #r "_limit", "limiter", 400 + r, 800),   \
    MANY("r" #r "_visc", "viscosity", 500 + r, 2600), MANY("r" #r "_halo", "halo_wait", 600 + r, 300), \
    MANY("r" #r "_accel", "accelerate", 700 + r, 3800), MANY("r" #r "_bc", "boundary", 800 + r, 1000), \
    MANY("r" #r "_pos", "move_nodes", 900 + r, 3200), MANY("r" #r "_dt", "time_step", 1000 + r, 600)
static const tf_synth_phase many_phases[] = {
    MANY_ROUND(1), MANY_ROUND(2), MANY_ROUND(3), MANY_ROUND(4), MANY_ROUND(5), MANY_ROUND(6),
};

/* Every third iteration also runs a longer smoother: 1.6 times as long,
 * with most of the extra time in the two Gauss-Seidel sweeps. */
static const tf_synth_kind long_smoother = {3, 1.6, {0.12, 0.14, 0.12, 0.31, 0.31}};

#define NPHASES (sizeof hpc_phases / sizeof hpc_phases[0])
#define NOBJECTS (sizeof hpc_objects / sizeof hpc_objects[0])
static const tf_synth_scenario scenarios[] = {
    {"phases", NPHASES, hpc_phases, NOBJECTS, hpc_objects, NULL},
    {"flat", 1, flat_phases, 1, hpc_objects, NULL},
    {"twokinds", NPHASES, hpc_phases, NOBJECTS, hpc_objects, &long_smoother},
    {"sharp", sizeof sharp_phases / sizeof sharp_phases[0], sharp_phases, NOBJECTS, hpc_objects,
     NULL},
    {"many", sizeof many_phases / sizeof many_phases[0], many_phases, NOBJECTS, hpc_objects, NULL},
};

const tf_synth_scenario *tf_synth_scenario_find(const char *name)
{
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++)
        if (!strcmp(scenarios[i].name, name))
            return &scenarios[i];
    return NULL;
}

const char *tf_synth_scenario_names(void)
{
    return "phases, flat, twokinds, sharp, many";
}

uint32_t tf_synth_kind_of(const tf_synth_scenario *sc, uint32_t j)
{
    return sc->second && j % sc->second->every == sc->second->every - 1;
}

double tf_synth_share(const tf_synth_scenario *sc, uint32_t kind, uint32_t k)
{
    return kind ? sc->second->shares[k] : sc->phases[k].share;
}

double tf_synth_kind_duration(const tf_synth_scenario *sc, uint32_t kind)
{
    return kind ? sc->second->duration : 1.0;
}

const char *tf_synth_counter_name(uint32_t c, char *buf, unsigned size)
{
    if (c < TF_SYNTH_NAMED_COUNTERS)
        return counter_names[c];
    snprintf(buf, size, "counter%u", c);
    return buf;
}

double tf_synth_counter_rate(const tf_synth_phase *ph, uint32_t k, uint32_t c)
{
    if (c < TF_SYNTH_NAMED_COUNTERS)
        return ph->rates[c];
    return 1e6 * (1 + (7 * k + 3 * c) % 11);
}

const char *tf_synth_object_label(const tf_synth_object *o)
{
    return o->kind == TF_OBJECT_STATIC ? o->name : o->callsite;
}
