/* SPDX-License-Identifier: BSD-3-Clause */
/* The STREAM-shaped report model. */
#include "config.h"

#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_fixture.h"
#include "render/report_tables.h"
#include "formats/trace.h"

enum { COPY, SCALE, ADD, TRIAD, NKERNELS };
static const char *const kernels[NKERNELS] = {"Copy", "Scale", "Add", "Triad"};
static const uint32_t first_line[NKERNELS] = {310, 320, 330, 340};
static const double phase_end[NKERNELS] = {0.22, 0.40, 0.70, 1.0};
#define OBJ_SIZE (152ull << 20)

/* Small deterministic generator (xorshift), so pages are reproducible. */
static double uniform(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (double)(*s >> 11) / 9007199254740992.0;
}

static int kernel_at(double x)
{
    int k = 0;
    while (k < NKERNELS - 1 && x >= phase_end[k])
        k++;
    return k;
}

static void memory_point(tf_report_page *p, size_t i, double x, uint64_t *rng, unsigned flags)
{
    int k = kernel_at(x);
    double start = k ? phase_end[k - 1] : 0, f = (x - start) / (phase_end[k] - start);
    tf_report_mem_point *m = &p->mem[i];
    memset(m, 0, sizeof *m);
    m->x = (float)x;
    double r = uniform(rng);
    /* object 0 = a, 1 = b, 2 = c; which one and where by kernel. */
    uint32_t obj;
    double pos;
    switch (k) {
    case COPY:   obj = r < 0.5 ? 0 : 2; pos = 1 - f; m->access = r < 0.5 ? TF_REPORT_LOAD : TF_REPORT_STORE; break;
    case SCALE:  obj = r < 0.6 ? 2 : 1; pos = r < 0.6 ? uniform(rng) : f * 0.6; m->access = r < 0.6 ? TF_REPORT_LOAD : TF_REPORT_STORE; break;
    case ADD:    obj = r < 0.4 ? 0 : r < 0.8 ? 1 : 2; pos = f; m->access = r < 0.8 ? TF_REPORT_LOAD : TF_REPORT_STORE; break;
    default:     obj = r < 0.4 ? 1 : r < 0.8 ? 2 : 0; pos = f; m->access = r < 0.8 ? TF_REPORT_LOAD : TF_REPORT_STORE; break;
    }
    m->object = obj;
    m->addr = p->objects[obj].start + (uint64_t)(pos * (double)(OBJ_SIZE - 64));
    if (flags & TF_FIXTURE_SOFTWARE) {
        m->flags = TF_REPORT_MEM_SOFTWARE;
        m->level = TF_LEVEL_UNKNOWN;
    } else if (m->access == TF_REPORT_LOAD) {
        /* Random loads are costly (DRAM), streams cheap (prefetched). */
        bool random = k == SCALE && obj == 2;
        m->cost = random ? (uint32_t)(250 + 500 * uniform(rng))
                         : (uint32_t)(8 + 40 * uniform(rng) * uniform(rng));
        m->level = random ? TF_LEVEL_DRAM : m->cost < 12 ? TF_LEVEL_L1 : TF_LEVEL_LFB;
    }
}

static int rates(tf_report_page *p, unsigned flags, tf_error *err)
{
    static const char *const names[] = {"L1D misses", "L2 misses", "L3 misses"};
    static const double level[NKERNELS][3] = {
        {0.030, 0.012, 0.004}, {0.060, 0.045, 0.030}, {0.035, 0.015, 0.006}, {0.032, 0.014, 0.005},
    };
    const size_t n = 200;
    p->nrates = 3;
    p->rates = calloc(3, sizeof *p->rates);
    if (!p->rates)
        return tf_fail(err, TF_ERR_NOMEM, "fixture: rates");
    bool ins = !(flags & TF_FIXTURE_NO_INSTRUCTIONS);
    double scale = ins ? 1.0 : 2400.0;    /* per instruction, or M events/s */
    for (size_t s = 0; s < 3; s++) {
        if (tf_report_series_init(&p->rates[s], names[s], n, true, err) < 0)
            return -err->code;
        for (size_t i = 0; i < n; i++) {
            double x = (double)i / (double)(n - 1);
            double v = level[kernel_at(x)][s] * scale;
            p->rates[s].x[i] = x;
            p->rates[s].y[i] = v;
            p->rates[s].lo[i] = v * 0.9;
            p->rates[s].hi[i] = v * 1.1;
        }
    }
    if (!ins) {
        p->rates_unit = tf_report_strdup("rate [M events/s]");
        return 0;
    }
    p->rates_unit = tf_report_strdup("misses per instruction");
    p->mips = calloc(1, sizeof *p->mips);
    if (!p->mips || tf_report_series_init(p->mips, "MIPS", n, true, err) < 0)
        return tf_fail(err, TF_ERR_NOMEM, "fixture: MIPS");
    static const double mips[NKERNELS] = {2900, 800, 2500, 2700};
    for (size_t i = 0; i < n; i++) {
        double x = (double)i / (double)(n - 1);
        p->mips->x[i] = x;
        p->mips->y[i] = mips[kernel_at(x)];
        p->mips->lo[i] = p->mips->y[i] - 120;
        p->mips->hi[i] = p->mips->y[i] + 120;
    }
    return 0;
}

int tf_fixture_stream(tf_report *r, size_t npoints, unsigned flags, tf_error *err)
{
    tf_report_page *p;
    memset(r, 0, sizeof *r);
    r->source = tf_report_strdup("fixture/fold.h5");
    if (tf_report_add_page(r, &p, err) < 0)
        return -err->code;
    p->title = tf_report_strdup("region stream_iteration");
    p->subtitle = tf_report_strdup("stream.h5: 95 of 100 instances, %zu samples", npoints);
    p->duration_ns = 40e6;
    p->nroutines = NKERNELS;
    p->routines = calloc(NKERNELS, sizeof *p->routines);
    p->nphases = NKERNELS;
    p->phases = calloc(NKERNELS, sizeof *p->phases);
    p->ncode = npoints;
    p->code = malloc((npoints ? npoints : 1) * sizeof *p->code);
    p->nobjects = 3;
    p->objects = calloc(3, sizeof *p->objects);
    if (!p->routines || !p->phases || !p->code || !p->objects)
        return tf_fail(err, TF_ERR_NOMEM, "fixture: page");
    for (size_t k = 0; k < NKERNELS; k++) {
        p->routines[k] = tf_report_strdup("%s", kernels[k]);
        p->phases[k] = (tf_report_phase){.x0 = k ? phase_end[k - 1] : 0, .x1 = phase_end[k],
                                         .routine = (uint32_t)k, .line = first_line[k] + 1};
    }
    static const char *const names[] = {"a", "b", "c"};
    static const char *const kinds[] = {"static", "heap", "static"};
    static const uint64_t starts[] = {0x601040, 0x7f3a12c00000, 0x9e01080};
    for (size_t i = 0; i < 3; i++)
        p->objects[i] = (tf_report_object){tf_report_strdup("%s", names[i]),
                                           tf_report_strdup("%s", kinds[i]), starts[i], OBJ_SIZE};
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < npoints; i++) {
        double x = uniform(&rng);
        int k = kernel_at(x);
        p->code[i] = (tf_report_code_point){(float)x, (uint32_t)k,
                                            first_line[k] + (uint32_t)(uniform(&rng) * 3)};
    }
    if (flags & TF_FIXTURE_NO_MEMORY) {
        p->mem_missing = tf_report_strdup("no memory samples in this trace");
    } else {
        p->nmem = npoints;
        p->mem = malloc((npoints ? npoints : 1) * sizeof *p->mem);
        if (!p->mem)
            return tf_fail(err, TF_ERR_NOMEM, "fixture: memory points");
        for (size_t i = 0; i < npoints; i++)
            memory_point(p, i, uniform(&rng), &rng, flags);
    }
    if (rates(p, flags, err) < 0)
        return -err->code;
    p->ninstances = 100;
    p->instance_ns = malloc(100 * sizeof *p->instance_ns);
    p->instance_used = malloc(100 * sizeof *p->instance_used);
    if (!p->instance_ns || !p->instance_used)
        return tf_fail(err, TF_ERR_NOMEM, "fixture: instances");
    for (size_t i = 0; i < 100; i++) {
        bool outlier = i % 20 == 7;
        p->instance_ns[i] = 40e6 * (outlier ? 1.5 + 0.2 * uniform(&rng) : 0.95 + 0.1 * uniform(&rng));
        p->instance_used[i] = !outlier;
    }
    return tf_report_tables_fill(p, NULL, err);
}

int tf_fixture_tmpdir_make(char *dir)
{
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_entry(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
    return remove(path);
}

int tf_fixture_tmpdir_remove(const char *dir)
{
    return nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}
