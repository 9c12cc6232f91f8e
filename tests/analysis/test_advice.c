/* SPDX-License-Identifier: BSD-3-Clause */
/* The advice rules (docs/algorithms.md, "Advice") on analyses built with a
 * known truth: each rule fires on the pattern of a "before" program with
 * its evidence and a bound computed from it, and not on the "after" one
 * (the change made) nor on weaker evidence; the rules that compare with
 * the machine's caches say so when no profile is given. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/advice.h"
#include "formats/trace.h"

/* A machine like the AMD Zen 3 VM the tests run on: 32 KiB, 512 KiB and
 * 4 MiB caches, 100 ns to memory, 4 KiB pages, a TLB reaching 256 KiB; a
 * sequential walk takes 0.3 ns a line in L1, 0.5 in L2, 1 in L3 and 2.5
 * from memory (25 GB/s). */
static const tf_analysis_machine zen = {
    .nlevels = 3,
    .cache_bytes = { 32 * 1024, 512 * 1024, 4 * 1024 * 1024 },
    .hit_ns = { 1, 4, 12 },
    .memory_ns = 100,
    .page_bytes = 4096,
    .tlb_reach_bytes = 256 * 1024,
    .tlb_miss_ns = 9,
    .nline_walk = 5,
    .line_walk_bytes = { 16 << 10, 256 << 10, 2 << 20, 8 << 20, 64 << 20 },
    .line_walk_ns = { 0.3, 0.5, 1.0, 2.5, 2.5 },
};

static void *grow(void *p, size_t n, size_t size)
{
    void *q = realloc(p, (n + 1) * size);
    assert_non_null(q);
    return q;
}

static uint32_t add_object(tf_analysis *a, const char *name, uint8_t kind, uint64_t size,
                           size_t allocations)
{
    a->objects = grow(a->objects, a->nobjects, sizeof *a->objects);
    a->objects[a->nobjects] = (tf_analysis_object){ .name = strdup(name), .kind = kind, .size = size,
                                                    .allocations = allocations };
    return (uint32_t)a->nobjects++;
}

/* n loads of object o, evenly over [x0, x1). */
static void add_loads(tf_analysis *a, uint32_t o, double x0, double x1, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        a->samples = grow(a->samples, a->nsamples, sizeof *a->samples);
        double x = x0 + (x1 - x0) * ((double)i + 0.5) / (double)n;
        a->samples[a->nsamples++] = (tf_analysis_sample){ .x = x, .object = o,
                                                          .routine = TF_ANALYSIS_NONE,
                                                          .kind = TF_SAMPLE_LOAD,
                                                          .level = TF_LEVEL_UNKNOWN };
        a->objects[o].refs++;
        a->objects[o].loads++;
    }
}

static int by_x(const void *pa, const void *pb)
{
    const tf_analysis_sample *x = pa, *y = pb;
    return (x->x > y->x) - (x->x < y->x);
}

static uint32_t add_phase(tf_analysis *a, double x0, double x1)
{
    a->phases = grow(a->phases, a->nphases, sizeof *a->phases);
    a->phases[a->nphases] = (tf_analysis_phase){ .parent = TF_ANALYSIS_NONE, .x0 = x0, .x1 = x1,
                                                 .routine = TF_ANALYSIS_NONE, .mips = NAN, .ipc = NAN };
    snprintf(a->phases[a->nphases].label, sizeof a->phases[a->nphases].label, "%zu",
             a->nphases + 1);
    return (uint32_t)a->nphases++;
}

static void add_stream(tf_analysis *a, tf_analysis_stream st)
{
    a->streams = grow(a->streams, a->nstreams, sizeof *a->streams);
    a->streams[a->nstreams++] = st;
}

static void start(tf_analysis *a)
{
    memset(a, 0, sizeof *a);
    a->region = strdup("iteration");
    a->duration_ns = 1e7;
}

/* The advice of a (samples sorted first), printed. */
static tf_analysis_advice *advise(tf_analysis *a, const tf_analysis_machine *m, size_t *n,
                                  unsigned *untried)
{
    qsort(a->samples, a->nsamples, sizeof *a->samples, by_x);
    tf_analysis_params p;
    tf_analysis_params_default(&p);
    p.machine = m;
    tf_analysis_advice *list;
    tf_error err;
    assert_int_equal(tf_analysis_advice_find(a, &p, &list, n, untried, &err), 0);
    for (size_t k = 0; k < *n; k++)
        print_message("%s: %s; %s; gain %.4f\n", list[k].finding, list[k].suggestion,
                      list[k].evidence, list[k].expected_gain);
    return list;
}

/* Not inlined: gcc's -Wstringop-overread otherwise takes the NULL of an
 * empty list for the advice's evidence. */
static __attribute__((noinline)) const tf_analysis_advice *find(const tf_analysis_advice *list, size_t n,
                                                                const char *finding)
{
    for (size_t k = 0; k < n; k++)
        if (!strcmp(list[k].finding, finding))
            return &list[k];
    return NULL;
}

/* matmul's mm_naive: x written along rows, y read along rows, z walked
 * down its columns (stride a row, from the code) again for every column
 * of x: 3 matrices of N x N doubles.  z: `share` of the samples. */
static void matmul(tf_analysis *a, uint64_t n, uint64_t z_stride, double z_r2)
{
    start(a);
    uint64_t bytes = n * n * 8;
    uint32_t x = add_object(a, "matmul.c:165:17", TF_OBJECT_HEAP, bytes, 1);
    uint32_t y = add_object(a, "matmul.c:165:51", TF_OBJECT_HEAP, bytes, 1);
    uint32_t z = add_object(a, "matmul.c:166:17", TF_OBJECT_HEAP, bytes, 1);
    uint32_t ph = add_phase(a, 0, 1);
    add_loads(a, x, 0, 1, 100);
    add_loads(a, y, 0, 1, 300);
    add_loads(a, z, 0, 1, 600);
    add_stream(a, (tf_analysis_stream){ .phase = ph, .object = x, .samples = 100, .direction = 1,
                                        .stride = 8, .stride_from = TF_ANALYSIS_STRIDE_CODE,
                                        .pattern = TF_ANALYSIS_PATTERN_LINEAR, .ordered_r2 = 0.99,
                                        .bytes = (double)bytes });
    add_stream(a, (tf_analysis_stream){ .phase = ph, .object = y, .samples = 300, .direction = 1,
                                        .stride = 8, .stride_from = TF_ANALYSIS_STRIDE_CODE,
                                        .pattern = TF_ANALYSIS_PATTERN_LINEAR, .ordered_r2 = 0.98,
                                        .bytes = (double)bytes });
    add_stream(a, (tf_analysis_stream){ .phase = ph, .object = z, .samples = 600, .direction = 1,
                                        .stride = z_stride, .stride_from = TF_ANALYSIS_STRIDE_CODE,
                                        .pattern = z_stride >= 64 ? TF_ANALYSIS_PATTERN_STRIDED
                                                            : TF_ANALYSIS_PATTERN_LINEAR,
                                  .ordered_r2 = z_r2, .bytes = (double)bytes });
}

static void column_walk(void **state)
{
    tf_analysis a;
    size_t n;
    unsigned untried;
    matmul(&a, 256, 2048, 0.05);
    tf_analysis_advice *list = advise(&a, NULL, &n, &untried);
    const tf_analysis_advice *ad = find(list, n, "column walk");
    assert_non_null(ad);
    assert_int_equal(ad->object, 2);
    assert_non_null(strstr(ad->evidence, "stride 2048 B (32 cache lines; from the code)"));
    assert_true(fabs(ad->expected_gain - 0.6) < 1e-9);     /* the whole phase, z's 60 % */
    free(list);
    tf_analysis_clear(&a);
    /* interchanged (mm_ikj): z walked along its rows */
    matmul(&a, 256, 8, 0.05);
    list = advise(&a, NULL, &n, &untried);
    assert_null(find(list, n, "column walk"));
    free(list);
    tf_analysis_clear(&a);
}

/* A fixed-seed uniform number in [0, 1). */
static double uniform(uint64_t *state)
{
    *state = *state * 6364136223846793005u + 1442695040888963407u;
    return (double)(*state >> 11) * 0x1.0p-53;
}

/* How a simulated object's offsets move within an instance (x in [0, 1)). */
enum model {
    SWEEP,      /* once over the phase, up */
    AGAIN,      /* walked again far faster than the sampling: anywhere at any time */
    PASSES,     /* `passes` sweeps up over the phase */
    STAIRS,     /* `passes` tiles one after the other, each walked again fast */
    DRIFTING,   /* `passes` sweeps up, from where the instance starts it: a walk
                   too fast for its passes to keep their place from one
                   instance to the next */
};

typedef struct sim_object {
    const char *name;
    uint64_t    size;
    enum model  model;
    double      passes;
    double      weight;     /* share of the memory samples */
    uint32_t    line;       /* source line of its references */
    int32_t     stride;     /* from the code */
} sim_object;

/* `instances` instances of `duration_ns` (one phase, the whole iteration),
 * each with `per_instance` memory samples of one thread, evenly spaced with
 * a jitter, in the order the thread took them. */
/* How much of its slot (an instance's duration over its samples) a
 * sample's time may move: 1, anywhere in it; near 0, a timer that ticks
 * on time, its gaps whole periods (a sampler with a whole CPU). */
static double sim_jitter = 1;

static void simulate(tf_analysis *a, const sim_object *obj, size_t nobj, size_t instances,
                     size_t per_instance, double duration_ns)
{
    start(a);
    a->duration_ns = duration_ns;
    add_phase(a, 0, 1);
    for (size_t o = 0; o < nobj; o++)
        add_object(a, obj[o].name, TF_OBJECT_HEAP, obj[o].size, 1);
    uint64_t rng = 42;
    uint32_t point = 0;
    for (size_t in = 0; in < instances; in++) {
        double start = uniform(&rng);   /* where a DRIFTING walk starts the instance */
        for (size_t j = 0; j < per_instance; j++) {
            double x = ((double)j + 0.5 + sim_jitter * (uniform(&rng) - 0.5)) / (double)per_instance,
                   pick = uniform(&rng);
            size_t o = 0;
            while (o + 1 < nobj && pick >= obj[o].weight) {
                pick -= obj[o].weight;
                o++;
            }
            double size = (double)obj[o].size, at = 0;
            switch (obj[o].model) {
            case SWEEP:  at = x * size; break;
            case AGAIN:  at = uniform(&rng) * size; break;
            case PASSES: at = fmod(x * obj[o].passes, 1) * size; break;
            case DRIFTING: at = fmod(start + x * obj[o].passes, 1) * size; break;
            case STAIRS: at = (floor(x * obj[o].passes) + uniform(&rng)) / obj[o].passes * size;
                         break;
            }
            a->samples = grow(a->samples, a->nsamples, sizeof *a->samples);
            a->samples[a->nsamples++] = (tf_analysis_sample){
                .x = x, .offset = (uint64_t)at, .routine = 0, .line = obj[o].line,
                .object = (uint32_t)o, .point = point++, .code_stride = obj[o].stride,
                .kind = TF_SAMPLE_LOAD, .level = TF_LEVEL_UNKNOWN };
            a->objects[o].refs++;
            a->objects[o].loads++;
        }
    }
}

/* A stream of object o in phase 0 with its samples, as the analysis
 * finds it: ordered (R2 `r2`, up) or walked again. */
static void sim_stream(tf_analysis *a, uint32_t o, uint8_t pattern, double r2)
{
    size_t i = 0;
    while (a->samples[i].object != o)
        i++;
    add_stream(a, (tf_analysis_stream){ .phase = 0, .object = o, .samples = a->objects[o].refs,
                                        .direction = pattern == TF_ANALYSIS_PATTERN_RANDOM ? 0 : 1,
                                        .stride = (uint64_t)a->samples[i].code_stride,
                                        .stride_from = TF_ANALYSIS_STRIDE_CODE,
                                        .pattern = pattern, .ordered_r2 = r2,
                                        .bytes = (double)a->objects[o].size });
}

/* matmul_vec's mm_ikj with N = 512 (two doubles an instruction): x swept
 * once, z walked again for every row of x, far faster than the 0.5 ms
 * sampling; both on the line of the inner loop.  z_weight: z's share of
 * the memory samples (the stores to x that wait for its loads take most). */
static void ikj(tf_analysis *a, uint64_t n, double z_weight)
{
    const sim_object obj[] = {
        { "matmul.c:174:17", n * n * 8, SWEEP, 1, 1 - z_weight, 96, 16 },
        { "matmul.c:175:17", n * n * 8, AGAIN, 0, z_weight, 96, 16 },
    };
    simulate(a, obj, 2, 10, 200, 1e8);
    sim_stream(a, 0, TF_ANALYSIS_PATTERN_LINEAR, 0.99);
    sim_stream(a, 1, TF_ANALYSIS_PATTERN_RANDOM, 0.02);
}

/* Its blocked product, tiles of 128 x 128: z's tiles one after the
 * other (ordered), each walked again for every row of x; x walked once
 * per tile, 16 passes of 6.25 ms, each of its lines used 128 times a
 * pass. */
static void blocked(tf_analysis *a)
{
    const sim_object obj[] = {
        { "matmul.c:174:17", 512 * 512 * 8, PASSES, 16, 0.86, 96, 16 },
        { "matmul.c:175:17", 512 * 512 * 8, STAIRS, 16, 0.14, 96, 16 },
    };
    simulate(a, obj, 2, 10, 200, 1e8);
    sim_stream(a, 0, TF_ANALYSIS_PATTERN_RANDOM, 0.07);
    sim_stream(a, 1, TF_ANALYSIS_PATTERN_LINEAR, 0.95);
}

/* The same product as matmul_vec runs it (a kernel of 26.6 ms, one
 * sample every 0.5 ms): a pass of x lasts 1.66 ms, about the 1.5 ms
 * between two samples of x (a third of the samples, y's sweep and z's
 * tiles the rest).  The gaps vary by whole timer periods, so the advances
 * mod x's footprint spread over all of it, as a walk faster than the
 * sampling would; they line up with x's passes only (CI, 2026-12-07: the
 * rule took them for such a walk). */
static void blocked_sampled_coarsely(tf_analysis *a, double z_weight)
{
    const sim_object obj[] = {
        { "matmul.c:174:17", 512 * 512 * 8, PASSES, 16, 0.35, 96, 16 },
        { "matmul.c:175:17", 512 * 512 * 8, STAIRS, 16, z_weight, 96, 16 },
        { "matmul.c:173:20", 512 * 512 * 8, SWEEP, 1, 0.65 - z_weight, 94, 8 },
    };
    simulate(a, obj, 3, 12, 53, 26.6e6);
    sim_stream(a, 0, TF_ANALYSIS_PATTERN_RANDOM, 0.01);
    sim_stream(a, 1, TF_ANALYSIS_PATTERN_LINEAR, 0.85);
    sim_stream(a, 2, TF_ANALYSIS_PATTERN_LINEAR, 0.99);
}

/* The blocked product's z as CI saw it (2026-12-07): its successive
 * samples 5.8 ms apart, more than three tiles, line up with no pass (here
 * modelled as anywhere in z), while the fold orders its tiles (R2 0.86). */
static void blocked_z_untimed(tf_analysis *a)
{
    const sim_object obj[] = {
        { "matmul.c:175:17", 512 * 512 * 8, AGAIN, 0, 0.3, 96, 16 },
        { "matmul.c:173:20", 512 * 512 * 8, SWEEP, 1, 0.7, 94, 8 },
    };
    simulate(a, obj, 2, 12, 53, 26.6e6);
    sim_stream(a, 0, TF_ANALYSIS_PATTERN_LINEAR, 0.86);
    sim_stream(a, 1, TF_ANALYSIS_PATTERN_LINEAR, 0.99);
}

/* A dense matrix-vector product over rows of 32 doubles: the vector x
 * (256 bytes) used for every row, far faster than the sampling, while the
 * 2 MiB of rows stream by once an iteration. */
static void small_vector(tf_analysis *a)
{
    const sim_object obj[] = {
        { "vecrows.cc:27:33", 256, AGAIN, 0, 0.7, 31, 8 },
        { "vecrows.cc:18:28", 2 << 20, SWEEP, 1, 0.3, 31, 8 },
    };
    simulate(a, obj, 2, 10, 200, 1e8);
    sim_stream(a, 0, TF_ANALYSIS_PATTERN_RANDOM, 0.01);
    sim_stream(a, 1, TF_ANALYSIS_PATTERN_LINEAR, 0.99);
}

/* matmul_vec's mm_ikj as a steady walk (z: 512 passes of 87 us in an
 * instance of 44.6 ms), sampled every 0.5 ms by a timer that ticks on
 * time: z's 10 % of the samples are whole periods apart, and its pairs
 * line up at every alias of 87 us modulo the period. */
static void ikj_on_time(tf_analysis *a)
{
    const sim_object obj[] = {
        { "matmul.c:174:17", 512 * 512 * 8, SWEEP, 1, 0.9, 96, 16 },
        { "matmul.c:175:17", 512 * 512 * 8, DRIFTING, 512, 0.1, 96, 16 },
    };
    sim_jitter = 0.02;
    simulate(a, obj, 2, 30, 89, 44.6e6);
    sim_jitter = 1;
    sim_stream(a, 0, TF_ANALYSIS_PATTERN_LINEAR, 0.99);
    sim_stream(a, 1, TF_ANALYSIS_PATTERN_RANDOM, 0.02);
}

/* A Fortran loop nest whose inner index is the second (a(i,j), j inner)
 * over 1024 x 1024 doubles: each pass over j spans the 8 MiB array but
 * touches a line of each column, 1024 lines (64 KiB), which the next
 * pass over j uses again. */
static void column_sweeps(tf_analysis *a)
{
    const sim_object array[] = { { "colwalk.f90:8:18", 8 << 20, AGAIN, 0, 1, 15, 8192 } };
    simulate(a, array, 1, 10, 200, 1e8);
    sim_stream(a, 0, TF_ANALYSIS_PATTERN_STRIDED, 0.0);
}

/* examples/membench -w: a 16 MiB array swept 50 times in an iteration of
 * duration_ns, one double per line, 1000 samples an instance. */
static void sweeps(tf_analysis *a, double duration_ns)
{
    const sim_object array[] = { { "membench.c:75:17", 16 << 20, PASSES, 50, 1, 40, 64 } };
    simulate(a, array, 1, 4, 1000, duration_ns);
    sim_stream(a, 0, TF_ANALYSIS_PATTERN_RANDOM, 0.1);
}

static void reuse_distance(void **state)
{
    tf_analysis a;
    size_t n;
    unsigned untried;
    /* z (2 MiB) walked again faster than the sampling, past the L2 of
     * 512 KiB: its successive samples land anywhere in it */
    ikj(&a, 512, 0.4);
    tf_analysis_advice *list = advise(&a, &zen, &n, &untried);
    assert_int_equal(untried, 0);
    const tf_analysis_advice *ad = find(list, n, "reuse distance past a cache");
    assert_non_null(ad);
    assert_int_equal(ad->object, 1);
    assert_non_null(strstr(ad->evidence, "above L2's 512 KiB (profile): matmul.c:175:17 walked "
                                         "again over 2048 KiB (stride 16 B from the code, R2 "
                                         "0.02), faster than the sampling: "));
    /* a pass faster than the sampling: z's footprint alone (what x's
     * sweep adds during a pass is not known to be more than nothing);
     * tiles of half the L2 */
    assert_non_null(strstr(ad->evidence, "reuse distance 2048 KiB"));
    assert_non_null(strstr(ad->suggestion, "for L2: tiles of at most 256 KiB of matmul.c:175:17 "
                                           "(128 x 128 elements of 16 B)"));
    /* z and x on the inner loop's line: all of the phase's samples */
    assert_non_null(strstr(ad->evidence, "its loop 100 % of the phase's 2000 memory samples"));
    assert_true(fabs(ad->expected_gain - (1 - 1.0 / 100)) < 1e-9);
    /* z random at the fold's resolution, but walked a row at a time (16 B
     * steps from the code): 256 references a page, no TLB advice */
    assert_null(find(list, n, "pages beyond the TLB's reach"));
    free(list);
    tf_analysis_clear(&a);
    /* z with 3 % of the samples (matmul_vec at N = 512: 2-4 %), the
     * stores to x on its line holding the rest: its loop's share counts */
    ikj(&a, 512, 0.03);
    list = advise(&a, &zen, &n, &untried);
    assert_non_null((ad = find(list, n, "reuse distance past a cache")));
    assert_int_equal(ad->object, 1);
    assert_non_null(strstr(ad->evidence, "its loop 100 % of the phase's 2000 memory samples"));
    free(list);
    tf_analysis_clear(&a);
    /* with 0.5 %, too few pairs to time its passes: the fold's lack of
     * order stands */
    ikj(&a, 512, 0.005);
    list = advise(&a, &zen, &n, &untried);
    assert_non_null((ad = find(list, n, "reuse distance past a cache")));
    assert_non_null(strstr(ad->evidence, "too few to time a pass"));
    free(list);
    tf_analysis_clear(&a);
    /* N = 128: 128 KiB and the sweep's part fit the L2 */
    ikj(&a, 128, 0.4);
    list = advise(&a, &zen, &n, &untried);
    assert_null(find(list, n, "reuse distance past a cache"));
    free(list);
    tf_analysis_clear(&a);
    /* blocked: x walked again, but in passes the samples resolve, which
     * would fetch x's 32768 lines in 0.5 % of a pass (1 ns a line beyond
     * L2): not bound by fetching x */
    blocked(&a);
    list = advise(&a, &zen, &n, &untried);
    assert_null(find(list, n, "reuse distance past a cache"));
    free(list);
    tf_analysis_clear(&a);
    /* sampled on time, z's pairs line up at an alias of its passes too,
     * which the fold does not: faster than the sampling, advised (CI,
     * 2026-12-07: timed at an alias, no advice) */
    ikj_on_time(&a);
    list = advise(&a, &zen, &n, &untried);
    assert_non_null((ad = find(list, n, "reuse distance past a cache")));
    assert_non_null(strstr(ad->evidence, "faster than the sampling"));
    free(list);
    tf_analysis_clear(&a);
    /* a walk not timed whose samples the fold orders: its passes may be
     * local, the span no evidence of their footprint */
    blocked_z_untimed(&a);
    list = advise(&a, &zen, &n, &untried);
    assert_null(find(list, n, "reuse distance past a cache"));
    free(list);
    tf_analysis_clear(&a);
    /* the blocked product sampled on time: its 16 passes settled by the fold */
    sim_jitter = 0.02;
    blocked_sampled_coarsely(&a, 0.1);
    sim_jitter = 1;
    list = advise(&a, &zen, &n, &untried);
    assert_null(find(list, n, "reuse distance past a cache"));
    free(list);
    tf_analysis_clear(&a);
    /* a 256-byte vector used for every row: its reuse distance is not past
     * L2, whatever the rows stream in a sampling interval (580 KiB in a
     * C++ std::vector<std::vector<double>> product, 2026-12-07) */
    small_vector(&a);
    list = advise(&a, &zen, &n, &untried);
    assert_null(find(list, n, "reuse distance past a cache"));
    free(list);
    tf_analysis_clear(&a);
    /* a column walk: its passes span 8 MiB, but the lines they use again
     * hold 64 KiB, within L2 (loop interchange is the advice there) */
    column_sweeps(&a);
    list = advise(&a, &zen, &n, &untried);
    assert_null(find(list, n, "reuse distance past a cache"));
    /* but a page a reference, across 2048 pages: huge pages */
    assert_non_null((ad = find(list, n, "pages beyond the TLB's reach")));
    assert_non_null(strstr(ad->evidence, "stride 8192 B, 0.5 references per page over 8192 KiB"));
    free(list);
    tf_analysis_clear(&a);
    /* sampled as coarsely as x's passes: timed all the same (1.66 ms) */
    blocked_sampled_coarsely(&a, 0.1);
    list = advise(&a, &zen, &n, &untried);
    assert_null(find(list, n, "reuse distance past a cache"));
    free(list);
    tf_analysis_clear(&a);
    /* with z's tiles (2 MiB spanned) sampled too rarely to time them: the
     * fold orders them (R2 0.85), so their passes may be local */
    blocked_sampled_coarsely(&a, 0.01);
    list = advise(&a, &zen, &n, &untried);
    assert_null(find(list, n, "reuse distance past a cache"));
    free(list);
    tf_analysis_clear(&a);
    /* a 16 MiB array swept 50 times in 100 ms, sampled every 0.1 ms: the
     * passes resolved (2 ms), 262144 lines each, 2.5 ns a line beyond
     * L3: fetching them takes a third of a pass */
    sweeps(&a, 1e8);
    list = advise(&a, &zen, &n, &untried);
    assert_non_null((ad = find(list, n, "reuse distance past a cache")));
    assert_non_null(strstr(ad->evidence, "reuse distance 16384 KiB, above L3's 4096 KiB"));
    assert_non_null(strstr(ad->evidence, "a pass every 2.00 ms"));
    assert_non_null(strstr(ad->evidence, "its 262144 lines at 2.50 ns each beyond L3 (the "
                                         "profile's line walk) 33 % of it"));
    free(list);
    tf_analysis_clear(&a);
    /* the same sweeps 16 times slower: lines used many times a pass */
    sweeps(&a, 16e8);
    list = advise(&a, &zen, &n, &untried);
    assert_null(find(list, n, "reuse distance past a cache"));
    free(list);
    tf_analysis_clear(&a);
    /* no profile: not tried, and said so */
    ikj(&a, 512, 0.4);
    list = advise(&a, NULL, &n, &untried);
    assert_null(find(list, n, "reuse distance past a cache"));
    assert_true(untried & TF_ANALYSIS_RULE_REUSE_DISTANCE);
    char text[512];
    tf_analysis_advice_untried_text(untried, text, sizeof text);
    assert_non_null(strstr(text, "reuse distance past a cache (the cache sizes)"));
    assert_non_null(strstr(text, "--machine"));
    free(list);
    tf_analysis_clear(&a);
}

/* A matrix of `rows` rows of `row_bytes`: a row per allocation (rows
 * objects of one call site, as families name them) or one allocation. */
static void rows_matrix(tf_analysis *a, size_t rows, uint64_t row_bytes, bool per_row)
{
    start(a);
    add_phase(a, 0.1, 0.9);
    uint32_t other = add_object(a, "rows.c:30:9", TF_OBJECT_HEAP, 1 << 20, 1);
    add_loads(a, other, 0, 1, 100);
    if (!per_row) {
        uint32_t m = add_object(a, "rows.c:12:15", TF_OBJECT_HEAP, rows * row_bytes, 1);
        add_loads(a, m, 0.1, 0.9, 4 * rows);
        return;
    }
    for (size_t r = 0; r < rows; r++) {
        char name[32];
        snprintf(name, sizeof name, r ? "rows.c:12:15#%zu" : "rows.c:12:15", r + 1);
        add_loads(a, add_object(a, name, TF_OBJECT_HEAP, row_bytes, 1), 0.1 + 0.8 * (double)r / (double)rows,
                  0.1 + 0.8 * (double)(r + 1) / (double)rows, 4);
    }
}

static void small_allocations(void **state)
{
    tf_analysis a;
    size_t n;
    unsigned untried;
    rows_matrix(&a, 64, 2048, true);
    tf_analysis_advice *list = advise(&a, NULL, &n, &untried);
    const tf_analysis_advice *ad = find(list, n, "many small allocations");
    assert_non_null(ad);
    assert_string_equal(a.objects[ad->object].name, "rows.c:12:15");
    assert_non_null(strstr(ad->evidence, "64 blocks from call site rows.c:12:15, at most 2.0 KiB "
                                         "each, 128.0 KiB together"));
    /* 256 of the phase's 256 + 80 memory samples, over 0.8 of the iteration */
    assert_true(fabs(ad->expected_gain - 0.8 * 256.0 / 336.0) < 1e-9);
    free(list);
    tf_analysis_clear(&a);
    /* one allocation */
    rows_matrix(&a, 64, 2048, false);
    list = advise(&a, NULL, &n, &untried);
    assert_null(find(list, n, "many small allocations"));
    free(list);
    tf_analysis_clear(&a);
    /* too few blocks to call it a family walked as one */
    rows_matrix(&a, 8, 2048, true);
    list = advise(&a, NULL, &n, &untried);
    assert_null(find(list, n, "many small allocations"));
    free(list);
    tf_analysis_clear(&a);
}

/* Rows below the recorder's heap threshold: all the blocks of the call
 * site are one object of kind small, its allocations the rows
 * (examples/row_sweep.c); the rule counts its blocks, not its objects. */
static void small_blocks_one_object(void **state)
{
    tf_analysis a;
    size_t n;
    unsigned untried;
    /* rows and their size; 8 rows: too few blocks */
    static const struct { size_t rows, bytes; const char *evidence; } cases[] = {
        { 2000, 1024, "2000 blocks from call site rows.c:12:15, 1.0 KiB each on average, "
                      "2000.0 KiB together" },
        /* below a KiB in bytes, not "0.2 KiB" */
        { 2000, 256, "2000 blocks from call site rows.c:12:15, 256 B each on average, "
                     "500.0 KiB together" },
        { 8, 1024, NULL },
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        size_t rows = cases[c].rows;
        start(&a);
        add_phase(&a, 0.1, 0.9);
        add_loads(&a, add_object(&a, "rows.c:30:9", TF_OBJECT_HEAP, 1 << 20, 1), 0, 1, 100);
        add_loads(&a, add_object(&a, "rows.c:12:15", TF_OBJECT_SMALL, rows * cases[c].bytes, rows),
                  0.1, 0.9, 240);
        tf_analysis_advice *list = advise(&a, NULL, &n, &untried);
        const tf_analysis_advice *ad = find(list, n, "many small allocations");
        if (rows < TF_ADVICE_MIN_BLOCKS) {
            assert_null(ad);
        } else {
            assert_non_null(ad);
            assert_non_null(strstr(ad->evidence, cases[c].evidence));
            /* 240 of the phase's 240 + 80 memory samples, over 0.8 of the iteration */
            assert_true(fabs(ad->expected_gain - 0.8 * 240.0 / 320.0) < 1e-9);
        }
        free(list);
        tf_analysis_clear(&a);
    }
}

/* A gather c[idx[j]] over an object of `bytes` (random, no stride in the
 * code), 70 % of the phase's samples; memory_share: the phase's loads
 * served from DRAM where levels are measured (NAN: not measured). */
static void gather(tf_analysis *a, double bytes, uint8_t pattern, double memory_share)
{
    start(a);
    uint32_t c = add_object(a, "gather.c:20:14", TF_OBJECT_HEAP, (uint64_t)bytes, 1);
    uint32_t idx = add_object(a, "gather.c:21:14", TF_OBJECT_HEAP, 1 << 20, 1);
    uint32_t ph = add_phase(a, 0, 0.5);
    add_phase(a, 0.5, 1);
    add_loads(a, c, 0, 0.5, 700);
    add_loads(a, idx, 0, 0.5, 300);
    add_stream(a, (tf_analysis_stream){ .phase = ph, .object = c, .samples = 700,
                                        .pattern = pattern,
                                        .stride = pattern == TF_ANALYSIS_PATTERN_RANDOM ? 0 : 8,
                                        .stride_from = pattern == TF_ANALYSIS_PATTERN_RANDOM
                                                           ? TF_ANALYSIS_STRIDE_NONE
                                                           : TF_ANALYSIS_STRIDE_SAMPLES,
                                  .ordered_r2 = 0.02, .bytes = bytes });
    if (!isnan(memory_share)) {
        a->levels = calloc(2, sizeof *a->levels);
        a->levels[0] = (tf_analysis_level){ .phase = ph, .level = TF_LEVEL_L1,
                                            .share = 1 - memory_share };
        a->levels[1] = (tf_analysis_level){ .phase = ph, .level = TF_LEVEL_DRAM,
                                            .share = memory_share };
        a->nlevels = 2;
    }
}

static void random_large(void **state)
{
    tf_analysis a;
    size_t n;
    unsigned untried;
    gather(&a, 64 << 20, TF_ANALYSIS_PATTERN_RANDOM, NAN);
    tf_analysis_advice *list = advise(&a, &zen, &n, &untried);
    const tf_analysis_advice *ad = find(list, n, "random over a large object");
    assert_non_null(ad);
    assert_non_null(strstr(ad->evidence, "random over 65536 KiB, 16.0 times the last-level "
                                         "cache's 4096 KiB (profile): uniform random loads miss "
                                         "it at least 94 %"));
    assert_true(fabs(ad->expected_gain - 0.5 * 0.7 * 0.99) < 1e-9);
    free(list);
    tf_analysis_clear(&a);
    /* measured: most loads hit the caches (a skewed index): no advice */
    gather(&a, 64 << 20, TF_ANALYSIS_PATTERN_RANDOM, 0.05);
    list = advise(&a, &zen, &n, &untried);
    assert_null(find(list, n, "random over a large object"));
    free(list);
    tf_analysis_clear(&a);
    /* measured and mostly from memory: advice */
    gather(&a, 64 << 20, TF_ANALYSIS_PATTERN_RANDOM, 0.6);
    list = advise(&a, &zen, &n, &untried);
    assert_non_null((ad = find(list, n, "random over a large object")));
    assert_non_null(strstr(ad->evidence, "60 % of the phase's loads served beyond the caches"));
    free(list);
    tf_analysis_clear(&a);
    /* an object of twice the LLC: too many loads may hit it */
    gather(&a, 8 << 20, TF_ANALYSIS_PATTERN_RANDOM, NAN);
    list = advise(&a, &zen, &n, &untried);
    assert_null(find(list, n, "random over a large object"));
    free(list);
    tf_analysis_clear(&a);
    /* prefetched into order (sorted indices): linear */
    gather(&a, 64 << 20, TF_ANALYSIS_PATTERN_LINEAR, NAN);
    list = advise(&a, &zen, &n, &untried);
    assert_null(find(list, n, "random over a large object"));
    assert_null(find(list, n, "pages beyond the TLB's reach"));
    free(list);
    tf_analysis_clear(&a);
    /* no profile */
    gather(&a, 64 << 20, TF_ANALYSIS_PATTERN_RANDOM, NAN);
    list = advise(&a, NULL, &n, &untried);
    assert_null(find(list, n, "random over a large object"));
    assert_true(untried & TF_ANALYSIS_RULE_RANDOM_LARGE);
    free(list);
    tf_analysis_clear(&a);
}

static void tlb_reach(void **state)
{
    tf_analysis a;
    size_t n;
    unsigned untried;
    gather(&a, 64 << 20, TF_ANALYSIS_PATTERN_RANDOM, NAN);
    tf_analysis_advice *list = advise(&a, &zen, &n, &untried);
    const tf_analysis_advice *ad = find(list, n, "pages beyond the TLB's reach");
    assert_non_null(ad);
    assert_non_null(strstr(ad->evidence, "random over 65536 KiB, 16384 pages of 4 KiB, 256.0 "
                                         "times the TLB's reach of 256 KiB"));
    assert_true(fabs(ad->expected_gain - 0.5 * 0.7 * 9.0 / 10.0) < 1e-9);
    free(list);
    tf_analysis_clear(&a);
    /* within the reach */
    gather(&a, 128 << 10, TF_ANALYSIS_PATTERN_RANDOM, NAN);
    list = advise(&a, &zen, &n, &untried);
    assert_null(find(list, n, "pages beyond the TLB's reach"));
    free(list);
    tf_analysis_clear(&a);
    /* no profile */
    gather(&a, 64 << 20, TF_ANALYSIS_PATTERN_RANDOM, NAN);
    list = advise(&a, NULL, &n, &untried);
    assert_null(find(list, n, "pages beyond the TLB's reach"));
    assert_true(untried & TF_ANALYSIS_RULE_TLB_REACH);
    free(list);
    tf_analysis_clear(&a);
}

/* A temporary of `bytes` allocated `per_iteration` times per iteration
 * over 50 iterations, `faults` page faults per iteration in phase 2 of 3
 * (counter page-faults, rates per second). */
static void temporaries_case(tf_analysis *a, double bytes, double per_iteration, double faults)
{
    start(a);
    a->sampling.instances = 50;
    uint32_t t = add_object(a, "solver.c:40:18", TF_OBJECT_HEAP, (uint64_t)bytes,
                            (size_t)(50 * per_iteration));
    add_loads(a, t, 0.3, 0.6, 200);
    a->ncounters = 1;
    a->counter_names = calloc(1, sizeof *a->counter_names);
    a->counter_names[0] = strdup("page-faults");
    const double x[4] = { 0, 0.3, 0.6, 1 };
    for (int k = 0; k < 3; k++) {
        uint32_t ph = add_phase(a, x[k], x[k + 1]);
        a->phases[ph].per_unit = calloc(1, sizeof *a->phases[ph].per_unit);
        /* per second: faults over the phase's time */
        a->phases[ph].per_unit[0] = k == 1 ? faults / ((x[2] - x[1]) * a->duration_ns / 1e9) : 0;
    }
}

static void temporaries(void **state)
{
    tf_analysis a;
    size_t n;
    unsigned untried;
    /* 8 MiB every iteration, 2048 pages faulting */
    temporaries_case(&a, 8 << 20, 1, 2048);
    tf_analysis_advice *list = advise(&a, &zen, &n, &untried);
    const tf_analysis_advice *ad = find(list, n, "allocation in every iteration");
    assert_non_null(ad);
    assert_int_equal(ad->phase, 1);
    assert_non_null(strstr(ad->evidence, "50 allocations of up to 8192 KiB over 50 iterations "
                                         "(1.0 per iteration), 2048 pages of 4 KiB; 2048 page "
                                         "faults per iteration (counter page-faults)"));
    assert_true(fabs(ad->expected_gain - 0.3) < 1e-9);
    free(list);
    tf_analysis_clear(&a);
    /* allocated once: no advice */
    temporaries_case(&a, 8 << 20, 0.02, 2048);
    list = advise(&a, &zen, &n, &untried);
    assert_null(find(list, n, "allocation in every iteration"));
    free(list);
    tf_analysis_clear(&a);
    /* every iteration, but its pages do not fault (the allocator reuses
     * the block): no advice */
    temporaries_case(&a, 8 << 20, 1, 3);
    list = advise(&a, &zen, &n, &untried);
    assert_null(find(list, n, "allocation in every iteration"));
    free(list);
    tf_analysis_clear(&a);
}

/* Weak evidence: a phase too short, a stream with too few of its samples. */
static void weak_evidence(void **state)
{
    tf_analysis a;
    size_t n;
    unsigned untried;
    matmul(&a, 256, 2048, 0.05);
    a.phases[0].x1 = 0.04;
    for (size_t i = 0; i < a.nsamples; i++)
        a.samples[i].x *= 0.04;
    tf_analysis_advice *list = advise(&a, &zen, &n, &untried);
    assert_int_equal(n, 0);
    free(list);
    tf_analysis_clear(&a);
    matmul(&a, 256, 2048, 0.05);
    a.streams[2].samples = 90;     /* 9 % of the phase's memory samples */
    list = advise(&a, &zen, &n, &untried);
    assert_null(find(list, n, "column walk"));
    free(list);
    tf_analysis_clear(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(column_walk),
        cmocka_unit_test(reuse_distance),
        cmocka_unit_test(small_allocations),
        cmocka_unit_test(small_blocks_one_object),
        cmocka_unit_test(random_large),
        cmocka_unit_test(tlb_reach),
        cmocka_unit_test(temporaries),
        cmocka_unit_test(weak_evidence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
