/* SPDX-License-Identifier: BSD-3-Clause */
/* Address space on the five-phase scenario: object shares exact to the
 * sampling, per phase × object direction, stride, stream count and pattern
 * exact, bytes and bandwidth within 10 %; threads on their own slices. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "an_fixture.h"
#include "formats/trace.h"

static const tf_analysis_stream *find_stream(const tf_analysis *a, size_t leaf_phase, uint32_t object)
{
    /* leaf phases in x order: top phases 1-3, then sub-phases 4.1 and 4.2 */
    const char *labels[FX_PHASES] = { "1", "2", "3", "4.1", "4.2" };
    for (size_t s = 0; s < a->nstreams; s++) {
        const tf_analysis_stream *st = &a->streams[s];
        if (st->object == object && !strcmp(a->phases[st->phase].label, labels[leaf_phase]))
            return st;
    }
    return NULL;
}

static void check_streams(unsigned threads, uint64_t seed)
{
    tf_analysis a;
    tf_error err;
    const double duration = 1e7;
    fx_build(&a, 300, 13, 40, threads, duration, seed);
    assert_int_equal(tf_analysis_compute(&a, NULL, 0, NULL, 0, NULL, &err), 0);
    for (size_t k = 0; k < FX_PHASES; k++) {
        for (size_t q = 0; q < fx_phases[k].nstreams; q++) {
            const struct fx_stream *want = &fx_phases[k].stream[q];
            const tf_analysis_stream *got = find_stream(&a, k, want->object);
            assert_non_null(got);
            print_message("phase %zu object %s: %s dir %d stride %llu streams %u R2 %.3f "
                          "bytes %.0f bw %.0f\n", k, a.objects[want->object].name,
                          tf_analysis_pattern_name(got->pattern), got->direction,
                          (unsigned long long)got->stride, got->streams, got->ordered_r2,
                          got->bytes, got->bandwidth);
            assert_int_equal(got->pattern, want->pattern);
            assert_int_equal(got->direction, want->direction);
            assert_int_equal(got->stride, want->stride);
            assert_int_equal(got->streams, want->streams);
            assert_int_equal(got->stride_from, want->pattern == TF_ANALYSIS_PATTERN_RANDOM
                                                   ? TF_ANALYSIS_STRIDE_NONE
                                                   : TF_ANALYSIS_STRIDE_SAMPLES);
            assert_true(fabs(got->bytes - (double)want->bytes) <= 0.1 * (double)want->bytes);
            if (want->pattern == TF_ANALYSIS_PATTERN_LINEAR ||
                want->pattern == TF_ANALYSIS_PATTERN_STRIDED) {
                /* strided: the 64-byte lines touched, one every stride */
                double moved = want->pattern == TF_ANALYSIS_PATTERN_LINEAR
                                   ? (double)want->bytes
                                   : (double)want->bytes * 64 / (double)want->stride;
                double mbps = moved / (fx_phases[k].share * duration) * 1e3;
                assert_true(fabs(got->bandwidth - mbps) <= 0.1 * mbps);
            } else {
                assert_true(isnan(got->bandwidth));
            }
        }
    }
    tf_analysis_clear(&a);
}

static void streams_one_thread(void **state)
{
    check_streams(1, 3);
    check_streams(1, 4);
}

static void streams_per_thread_slices(void **state)
{
    check_streams(3, 5);
}

/* Tags the memory samples of object o well inside leaf phase k (away from
 * its boundaries, which shifted iterations blur) with code stride cs, one
 * in `every` of them (every >= 1); returns how many. */
static size_t tag_code_stride(tf_analysis *a, size_t k, uint32_t o, int32_t cs, size_t every)
{
    double x0 = fx_boundary(k) + 0.01, x1 = fx_boundary(k + 1) - 0.01;
    size_t seen = 0, tagged = 0;
    for (size_t i = 0; i < a->nsamples; i++) {
        tf_analysis_sample *sm = &a->samples[i];
        if (sm->kind == TF_SAMPLE_TIMER || sm->object != o || sm->x < x0 || sm->x >= x1)
            continue;
        if (seen++ % every == 0) {
            sm->code_stride = cs;
            tagged++;
        }
    }
    return tagged;
}

/* Strides from the code (docs/algorithms.md, streams step 7): a gather whose
 * instruction walks 2048 bytes a time becomes a strided walk up; a linear
 * sweep keeps its direction and bandwidth with the code's stride; a stride
 * only a minority of the samples have changes nothing. */
static void code_strides(void **state)
{
    tf_analysis a;
    fx_build(&a, 300, 13, 40, 1, 1e7, 3);
    const uint32_t gathered = fx_phases[2].stream[0].object, copied = fx_phases[0].stream[0].object,
                   strided = fx_phases[1].stream[1].object;
    assert_true(tag_code_stride(&a, 2, gathered, 2048, 1) > 100);
    assert_true(tag_code_stride(&a, 0, copied, -8, 1) > 100);
    assert_true(tag_code_stride(&a, 1, strided, 512, 3) > 30);
    assert_int_equal(tf_analysis_compute(&a, NULL, 0, NULL, 0, NULL, NULL), 0);

    const tf_analysis_stream *g = find_stream(&a, 2, gathered);
    assert_non_null(g);
    assert_int_equal(g->pattern, TF_ANALYSIS_PATTERN_STRIDED);
    assert_int_equal(g->direction, 1);
    assert_int_equal(g->stride, 2048);
    assert_int_equal(g->stride_from, TF_ANALYSIS_STRIDE_CODE);
    assert_true(g->ordered_r2 < 0.9);     /* the samples alone still look random */
    assert_true(isnan(g->bandwidth));

    const tf_analysis_stream *c = find_stream(&a, 0, copied);
    assert_non_null(c);
    assert_int_equal(c->pattern, TF_ANALYSIS_PATTERN_LINEAR);
    assert_int_equal(c->direction, -1);
    assert_int_equal(c->stride, 8);
    assert_int_equal(c->stride_from, TF_ANALYSIS_STRIDE_CODE);
    assert_false(isnan(c->bandwidth));

    const tf_analysis_stream *st = find_stream(&a, 1, strided);
    assert_non_null(st);
    assert_int_equal(st->pattern, TF_ANALYSIS_PATTERN_STRIDED);
    assert_int_equal(st->stride, 256);
    assert_int_equal(st->stride_from, TF_ANALYSIS_STRIDE_SAMPLES);

    /* untouched: the gather's index array, from its samples */
    const tf_analysis_stream *idx = find_stream(&a, 2, fx_phases[2].stream[1].object);
    assert_non_null(idx);
    assert_int_equal(idx->stride_from, TF_ANALYSIS_STRIDE_SAMPLES);
    tf_analysis_clear(&a);
}

/* An iteration of one routine whose memory samples, n of them, are loads
 * of one 32 MiB object at x = (i + 0.5) / n and offset offset(x, rng),
 * from instructions with the given code stride and access width. */
static void one_object(tf_analysis *a, size_t n, uint64_t (*offset)(double, uint64_t *),
                       int32_t code_stride, uint8_t width)
{
    memset(a, 0, sizeof *a);
    a->region = strdup("iteration");
    a->duration_ns = 1e7;
    uint32_t routine;
    assert_int_equal(tf_analysis_add_routine(a, "sweep", "sweep.c", &routine, NULL), 0);
    a->nobjects = 1;
    a->objects = calloc(1, sizeof *a->objects);
    a->objects[0] = (tf_analysis_object){ .name = strdup("x"), .size = 32u << 20,
                                          .kind = TF_OBJECT_HEAP };
    const size_t ntimer = 100;
    a->samples = calloc(ntimer + n, sizeof *a->samples);
    for (size_t i = 0; i < ntimer; i++)
        a->samples[a->nsamples++] = (tf_analysis_sample){ .x = (i + 0.5) / ntimer, .routine = routine,
                                                          .line = 10, .object = TF_ANALYSIS_NONE,
                                                          .kind = TF_SAMPLE_TIMER };
    uint64_t rng = 0x2545f4914f6cdd1dull;
    for (size_t i = 0; i < n; i++) {
        double x = (i + 0.5) / (double)n;
        a->samples[a->nsamples++] = (tf_analysis_sample){
            .x = x, .routine = routine, .line = 11, .object = 0, .offset = offset(x, &rng),
            .code_stride = code_stride, .access_bytes = width, .kind = TF_SAMPLE_LOAD };
    }
}

static double uniform(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return (double)(*state >> 11) / 9007199254740992.0;
}

#define MiB (1u << 20)

/* A backward sweep over 16 MiB in the middle of the object, blurred by
 * ±6 MiB of jitter (R² about 0.6, rank correlation about −0.8). */
static uint64_t blurred_descent(double x, uint64_t *rng)
{
    double at = 8.0 * MiB + (1 - x) * 16 * MiB + (2 * uniform(rng) - 1) * 6 * MiB;
    return (uint64_t)at / 8 * 8;
}

static uint64_t anywhere(double x, uint64_t *rng)
{
    (void)x;
    return (uint64_t)(uniform(rng) * 32 * MiB) / 8 * 8;
}

/* A copy moving 64 bytes per access, upwards over 16 MiB, whose samples
 * land on every 64-byte block. */
static uint64_t copied_up(double x, uint64_t *rng)
{
    (void)rng;
    return (uint64_t)(x * 16 * MiB) / 64 * 64;
}

static const tf_analysis_stream *only_stream(const tf_analysis *a)
{
    assert_int_equal(a->nstreams, 1);
    const tf_analysis_stream *st = &a->streams[0];
    print_message("%s %s stride %llu (%s) R2 %.3f bytes %.0f bw %.1f\n",
                  tf_analysis_pattern_name(st->pattern),
                  st->direction > 0 ? "up" : st->direction < 0 ? "down" : "none",
                  (unsigned long long)st->stride, tf_analysis_stride_from_name(st->stride_from),
                  st->ordered_r2, st->bytes, st->bandwidth);
    return st;
}

/* Issue 30: the samples of a backward sweep descend clearly though their
 * R² is low, and the loop around the instruction steps up (a row read
 * forward inside a backward sweep over the rows): the direction is the
 * samples', down; the code gives the stride. */
static void samples_direction_beats_code(void **state)
{
    tf_analysis a;
    one_object(&a, 400, blurred_descent, 8, 8);
    assert_int_equal(tf_analysis_compute(&a, NULL, 0, NULL, 0, NULL, NULL), 0);
    const tf_analysis_stream *st = only_stream(&a);
    assert_true(st->ordered_r2 >= 0.5 && st->ordered_r2 < 0.9);
    assert_int_equal(st->direction, -1);
    assert_int_equal(st->pattern, TF_ANALYSIS_PATTERN_LINEAR);
    assert_int_equal(st->stride, 8);
    assert_int_equal(st->stride_from, TF_ANALYSIS_STRIDE_CODE);
    /* the 16 MiB swept, not the 28 MiB the blur spreads the offsets over */
    assert_true(fabs(st->bytes - 16.0 * MiB) <= 0.1 * 16 * MiB);
    assert_true(fabs(st->bandwidth - st->bytes / 1e7 * 1e3) <= 1e-6 * st->bandwidth);
    tf_analysis_clear(&a);
}

/* Offsets with no order are never linear, whatever stride the code gives
 * their instruction: random, with the code's stride, and no direction. */
static void low_r2_never_linear(void **state)
{
    tf_analysis a;
    one_object(&a, 400, anywhere, 8, 8);
    assert_int_equal(tf_analysis_compute(&a, NULL, 0, NULL, 0, NULL, NULL), 0);
    const tf_analysis_stream *st = only_stream(&a);
    assert_true(st->ordered_r2 < 0.5);
    assert_int_equal(st->pattern, TF_ANALYSIS_PATTERN_RANDOM);
    assert_int_equal(st->direction, 0);
    assert_int_equal(st->stride, 8);
    assert_int_equal(st->stride_from, TF_ANALYSIS_STRIDE_CODE);
    assert_true(isnan(st->bandwidth));
    tf_analysis_clear(&a);
}

/* glibc's AVX-512 memmove moves 64 bytes per instruction with a code
 * stride of 64: contiguous, so linear with the bandwidth of its 16 MiB
 * per 10 ms iteration.  Without the width, the 64-byte stride touches a
 * line every 64 bytes all the same: strided, with the same bandwidth. */
static void wide_copy_linear(void **state)
{
    const double mbps = 16.0 * MiB / 1e7 * 1e3;
    for (int known = 1; known >= 0; known--) {
        tf_analysis a;
        one_object(&a, 400, copied_up, 64, known ? 64 : 0);
        assert_int_equal(tf_analysis_compute(&a, NULL, 0, NULL, 0, NULL, NULL), 0);
        const tf_analysis_stream *st = only_stream(&a);
        assert_int_equal(st->pattern, known ? TF_ANALYSIS_PATTERN_LINEAR : TF_ANALYSIS_PATTERN_STRIDED);
        assert_int_equal(st->direction, 1);
        assert_int_equal(st->stride, 64);
        assert_true(fabs(st->bandwidth - mbps) <= 0.05 * mbps);
        tf_analysis_clear(&a);
    }
}

/* The span of random offsets leaves out the few that stand apart
 * (docs/algorithms.md, streams step 6): two of the gather's samples moved
 * 40 MiB above its 8 MiB do not make its bytes 48 MiB. */
static void random_span_outliers(void **state)
{
    tf_analysis a;
    fx_build(&a, 300, 13, 40, 1, 1e7, 3);
    const uint32_t gathered = fx_phases[2].stream[0].object;
    double x0 = fx_boundary(2) + 0.01, x1 = fx_boundary(3) - 0.01;
    size_t moved = 0;
    for (size_t i = 0; i < a.nsamples && moved < 2; i++) {
        tf_analysis_sample *sm = &a.samples[i];
        if (sm->kind != TF_SAMPLE_TIMER && sm->object == gathered && sm->x >= x0 && sm->x < x1) {
            sm->offset = (48 + moved) * (1u << 20);
            moved++;
        }
    }
    assert_int_equal(moved, 2);
    assert_int_equal(tf_analysis_compute(&a, NULL, 0, NULL, 0, NULL, NULL), 0);
    const tf_analysis_stream *g = find_stream(&a, 2, gathered);
    assert_non_null(g);
    assert_int_equal(g->pattern, TF_ANALYSIS_PATTERN_RANDOM);
    const double want = (double)fx_phases[2].stream[0].bytes;
    assert_true(fabs(g->bytes - want) <= 0.1 * want);
    tf_analysis_clear(&a);
}

/* A phase that is the whole iteration has no neighbour to bring samples
 * in: an object with under 3 % of its memory samples is still reported
 * once it has 8 (memmove: its loads take most samples, its stores a
 * twentieth).  Loads sweep a down, 12 stores of 500 sweep b down. */
static void lone_phase_keeps_small_objects(void **state)
{
    tf_analysis a;
    memset(&a, 0, sizeof a);
    a.region = strdup("Copy");
    a.duration_ns = 1e6;
    uint32_t routine;
    assert_int_equal(tf_analysis_add_routine(&a, "memmove", "memmove.S", &routine, NULL), 0);
    a.nobjects = 2;
    a.objects = calloc(2, sizeof *a.objects);
    a.objects[0] = (tf_analysis_object){ .name = strdup("a"), .size = 16u << 20,
                                         .kind = TF_OBJECT_STATIC };
    a.objects[1] = (tf_analysis_object){ .name = strdup("b"), .size = 16u << 20,
                                         .kind = TF_OBJECT_STATIC };
    const size_t ntimer = 100, nload = 488, nstore = 12;
    a.samples = calloc(ntimer + nload + nstore, sizeof *a.samples);
    for (size_t i = 0; i < ntimer; i++)
        a.samples[a.nsamples++] = (tf_analysis_sample){ .x = (i + 0.5) / ntimer, .routine = routine,
                                                        .line = 10, .object = TF_ANALYSIS_NONE,
                                                        .kind = TF_SAMPLE_TIMER };
    for (size_t i = 0; i < nload + nstore; i++) {
        bool store = i % ((nload + nstore) / nstore) == 7 && i / ((nload + nstore) / nstore) < nstore;
        double x = (i + 0.5) / (double)(nload + nstore);
        a.samples[a.nsamples++] = (tf_analysis_sample){
            .x = x, .routine = routine, .line = 11, .object = store ? 1 : 0,
            .offset = (uint64_t)((1 - x) * (double)(16u << 20)) / 64 * 64,
            .kind = store ? TF_SAMPLE_STORE : TF_SAMPLE_LOAD };
    }
    assert_int_equal(tf_analysis_compute(&a, NULL, 0, NULL, 0, NULL, NULL), 0);
    assert_int_equal(a.nphases, 1);
    assert_int_equal(a.nstreams, 2);
    for (size_t k = 0; k < 2; k++) {
        assert_int_equal(a.streams[k].direction, -1);
        assert_true(a.streams[k].pattern == TF_ANALYSIS_PATTERN_LINEAR ||
                    a.streams[k].pattern == TF_ANALYSIS_PATTERN_STRIDED);
    }
    assert_true(a.streams[0].object != a.streams[1].object);
    tf_analysis_clear(&a);
}

/* Object shares: the expected share of each object is the sum over phases
 * of phase share × its streams' bytes / the phase's bytes. */
static void object_shares(void **state)
{
    tf_analysis a;
    fx_build(&a, 400, 13, 40, 1, 1e7, 11);
    assert_int_equal(tf_analysis_compute(&a, NULL, 0, NULL, 0, NULL, NULL), 0);
    double expect[8] = { 0 }, loads[8] = { 0 };
    for (size_t k = 0; k < FX_PHASES; k++) {
        double all = 0;
        for (size_t q = 0; q < fx_phases[k].nstreams; q++)
            all += (double)fx_phases[k].stream[q].bytes;
        for (size_t q = 0; q < fx_phases[k].nstreams; q++) {
            const struct fx_stream *st = &fx_phases[k].stream[q];
            double sh = fx_phases[k].share * (double)st->bytes / all;
            expect[st->object] += sh;
            if (st->kind == TF_SAMPLE_LOAD)
                loads[st->object] += sh;
        }
    }
    size_t refs = 0;
    for (size_t o = 0; o < a.nobjects; o++)
        refs += a.objects[o].refs;
    for (size_t o = 0; o < a.nobjects; o++) {
        const tf_analysis_object *ob = &a.objects[o];
        /* binomial standard error of a share over 16 000 samples is < 0.004 */
        assert_true(fabs(ob->share - expect[o]) < 0.015);
        assert_true(fabs((double)ob->loads / (double)refs - loads[o]) < 0.015);
        assert_int_equal(ob->loads + ob->stores, ob->refs);
    }
    tf_analysis_clear(&a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(streams_one_thread),
        cmocka_unit_test(streams_per_thread_slices),
        cmocka_unit_test(object_shares),
        cmocka_unit_test(code_strides),
        cmocka_unit_test(random_span_outliers),
        cmocka_unit_test(lone_phase_keeps_small_objects),
        cmocka_unit_test(samples_direction_beats_code),
        cmocka_unit_test(low_r2_never_linear),
        cmocka_unit_test(wide_copy_linear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
