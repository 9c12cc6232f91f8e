/* SPDX-License-Identifier: BSD-3-Clause */
/* The fold engine on a written trace: a counter read in only some instances
 * (multiplexed counter sets, as PAPI_TOT_INS in 12 of the 38 iterations of
 * the namd Extrae trace) is folded over those instances and says so; an
 * instance without an end is incomplete; fold.h5 loads back to what was
 * saved, a group without points too.  The recording's cost per sample
 * (fold/observer.c) is measured where it is significant, below the jitter
 * too, and not otherwise; a region shorter than the sampling period, whose sampled
 * instances that cost stretches, folds with them kept, its durations and
 * counts net of the cost and its samples back where they were taken. */
#include <math.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <hdf5.h>

#include "fold/fold_engine.h"
#include "extract/fold_input.h"
#include "fold/fold_result.h"
#include "formats/fold_h5.h"
#include "formats/h5util.h"
#include "fold/observer.h"
#include "points_fixture.h"
#include "formats/trace.h"
#include "tests/formats/v1_trace.h"

#define ITERATIONS 38
#define WITH_INSTRUCTIONS 12
#define SAMPLES 16
#define DURATION 1000000ull   /* 1 ms */

/* instructions: 2e9/s in the first 40 % of an iteration, 0.5e9/s after;
 * cycles: 3e9/s throughout. */
static uint64_t instructions_at(uint64_t t)
{
    uint64_t k = t / DURATION, in = t % DURATION, split = DURATION * 4 / 10;
    uint64_t per = split * 2 + (DURATION - split) / 2;
    return k * per + (in < split ? in * 2 : split * 2 + (in - split) / 2);
}

static bool has_instructions(uint64_t k)
{
    return k % 3 == 0 && k / 3 < WITH_INSTRUCTIONS;
}

/* A new trace at path of one process and one thread with the counters
 * names[0..nc), and the region name interned: its trace output, ids in *proc,
 * *thread, *region. */
static tf_trace_out *one_thread_trace(const char *path, const char *const *names, uint32_t nc,
                                      const char *name, uint32_t *proc, uint32_t *thread,
                                      uint32_t *region)
{
    tf_error err;
    tf_trace_out *w;
    tf_trace_meta meta = { "CLOCK_MONOTONIC", "test", "test_fold_trace", "test", 0 };
    assert_int_equal(tf_trace_out_create(&w, path, &meta, 0, &err), 0);
    tf_process_desc d = { .pid = 1, .rank = -1, .executable = "app", .host = "test",
                          .build_id = "", .ncounters = nc, .counter_names = names };
    assert_int_equal(tf_trace_out_add_process(w, &d, proc, &err), 0);
    assert_int_equal(tf_trace_out_add_thread(w, *proc, 1, thread, &err), 0);
    assert_int_equal(tf_trace_out_intern(w, name, region, &err), 0);
    return w;
}

static void write_trace(const char *path)
{
    tf_error err;
    const char *names[] = { "instructions", "cycles" };
    uint32_t proc, thread, region;
    tf_trace_out *w = one_thread_trace(path, names, 2, "main", &proc, &thread, &region);
    for (uint64_t k = 0; k <= ITERATIONS; k++) {
        uint64_t begin = k * DURATION;
        /* The last iteration never ends. */
        size_t nev = k < ITERATIONS ? 2 : 1;
        tf_event ev[2] = {
            { begin, region, 0, TF_EVENT_ENTER },
            { begin + DURATION - 1, region, 0, TF_EVENT_EXIT },
        };
        uint64_t ec[4];
        for (size_t e = 0; e < 2; e++) {
            ec[2 * e] = has_instructions(k) ? instructions_at(ev[e].time) : TF_NOVALUE;
            ec[2 * e + 1] = ev[e].time * 3;
        }
        assert_int_equal(tf_trace_out_append_events(w, proc, thread, ev, ec, nev, &err), 0);
        tf_sample s[SAMPLES];
        uint64_t sc[2 * SAMPLES];
        for (size_t j = 0; j < SAMPLES; j++) {
            uint64_t t = begin + (j * DURATION + (k * 7919) % DURATION) / SAMPLES;
            if (t >= begin + DURATION - 1)
                t = begin + DURATION - 2;
            s[j] = (tf_sample){ .time = t, .ip = 0x400000 + j, .kind = TF_SAMPLE_TIMER,
                                .level = TF_LEVEL_UNKNOWN };
            sc[2 * j] = has_instructions(k) ? instructions_at(t) : TF_NOVALUE;
            sc[2 * j + 1] = t * 3;
        }
        /* keep sample times increasing within the thread */
        for (size_t j = 1; j < SAMPLES; j++)
            if (s[j].time <= s[j - 1].time)
                s[j].time = s[j - 1].time + 1;
        assert_int_equal(tf_trace_out_append_samples(w, proc, thread, s, sc, SAMPLES, &err), 0);
    }
    assert_int_equal(tf_trace_out_close(w, &err), 0);
}

/* The trace write(trace) writes into a new temporary file (trace: its
 * mkstemp template, which gets the name), its region `name` folded on a
 * grid of 101 points with `bootstrap` replicates. */
static tf_fold_result *fold_written(void (*write)(const char *), char *trace, const char *name,
                                    uint32_t bootstrap)
{
    int fd = mkstemp(trace);
    assert_true(fd >= 0);
    close(fd);
    write(trace);
    tf_error err;
    tf_trace *tr;
    if (tf_trace_open(&tr, trace, &err) < 0)
        fail_msg("%s", err.msg);
    uint32_t region;
    assert_true(tf_trace_find_string(tr, name, &region));
    tf_fold_params p;
    tf_fold_params_default(&p);
    p.grid = 101;
    p.bootstrap = bootstrap;
    tf_fold_result *res;
    if (tf_fold_trace(tr, region, &p, NULL, NULL, NULL, &res, &err) < 0)
        fail_msg("%s", err.msg);
    tf_trace_close(tr);
    return res;
}

static void test_multiplexed_and_roundtrip(void **state)
{
    char trace[] = "/tmp/tf-fold-trace-XXXXXX", saved[64];
    tf_fold_result *res = fold_written(write_trace, trace, "main", 30);
    snprintf(saved, sizeof saved, "%s.fold.h5", trace);
    tf_error err;

    const tf_fold_region *r = &res->regions[0];
    assert_int_equal(r->ninstances, ITERATIONS + 1);
    assert_int_equal(r->incomplete, 1);
    assert_int_equal(r->instances[ITERATIONS].status, TF_FOLD_INCOMPLETE);
    assert_int_equal(r->instances[ITERATIONS].reason, TF_FOLD_REASON_NO_END);
    assert_int_equal(r->used, ITERATIONS);
    const tf_fold_group *g = &r->groups[0];
    assert_int_equal(g->instructions, 0);
    assert_int_equal(g->counter_instances[0], WITH_INSTRUCTIONS);
    assert_int_equal(g->counter_instances[1], ITERATIONS);
    /* The instructions curve bends at 40 %: 0.8 of the total by then. */
    assert_true(fabs(g->curve[40] - 0.8 / 1.1) < 0.01);
    /* 2000 MIPS before the change, 500 after. */
    assert_true(fabs(g->rate[20] / 1e6 - 2000) < 40);
    assert_true(fabs(g->rate[80] / 1e6 - 500) < 10);
    /* cycles per instruction: 1.5 early, 6 late. */
    assert_true(fabs(g->ratio[g->grid + 20] - 1.5) < 0.05);
    assert_true(fabs(g->ratio[g->grid + 80] - 6) < 0.2);
    bool found = false;
    for (size_t k = 0; k < g->nchanges; k++)
        found |= g->changes[k].counter == 0 && fabs(g->changes[k].x - 0.4) < 0.01;
    assert_true(found);
    /* Points of the instances without instructions have NaN there. */
    size_t nan_points = 0;
    for (size_t k = 0; k < g->points.n; k++)
        nan_points += isnan(g->points.y[k]);
    assert_int_equal(nan_points, (size_t)(ITERATIONS - WITH_INSTRUCTIONS) * SAMPLES);

    if (tf_fold_result_save(res, saved, &err) < 0)
        fail_msg("%s", err.msg);
    tf_fold_result *back;
    if (tf_fold_result_load(saved, &back, &err) < 0)
        fail_msg("%s", err.msg);
    const tf_fold_region *b = &back->regions[0];
    assert_string_equal(b->name, "main");
    assert_int_equal(b->ncounters, 2);
    assert_string_equal(b->counter_names[1], "cycles");
    assert_int_equal(b->ninstances, r->ninstances);
    for (size_t i = 0; i < r->ninstances; i++) {
        assert_int_equal(b->instances[i].status, r->instances[i].status);
        assert_int_equal(b->instances[i].begin, r->instances[i].begin);
        assert_int_equal(b->counter_delta[2 * i], r->counter_delta[2 * i]);
    }
    const tf_fold_group *bg = &b->groups[0];
    assert_int_equal(bg->grid, g->grid);
    assert_int_equal(bg->nchanges, g->nchanges);
    assert_int_equal(bg->points.n, g->points.n);
    assert_int_equal(bg->counter_instances[0], WITH_INSTRUCTIONS);
    assert_memory_equal(bg->curve, g->curve, 2 * g->grid * sizeof *g->curve);
    assert_memory_equal(bg->rate_hi, g->rate_hi, 2 * g->grid * sizeof *g->rate_hi);
    assert_memory_equal(bg->ratio, g->ratio, 2 * g->grid * sizeof *g->ratio);
    assert_memory_equal(bg->points.ip, g->points.ip, g->points.n * sizeof *g->points.ip);
    for (size_t k = 0; k < 2 * g->points.n; k++)
        assert_true(bg->points.y[k] == g->points.y[k] ||
                    (isnan(bg->points.y[k]) && isnan(g->points.y[k])));
    assert_int_equal(back->params.grid, 101);
    assert_int_equal(back->params.filter, TF_FILTER_ROBUST);

    /* The same file in the version-1 layout (variable-length strings,
     * read without HDF5's global heap code) loads the same. */
    static const char *const tables[] = { "counter_names", "counter_units", NULL };
    char why[1200];
    if (v1_convert(saved, tables, why, sizeof why) < 0)
        fail_msg("%s", why);
    tf_fold_result *old;
    if (tf_fold_result_load(saved, &old, &err) < 0)
        fail_msg("%s", err.msg);
    assert_string_equal(old->regions[0].name, "main");
    assert_string_equal(old->regions[0].counter_names[1], "cycles");
    assert_string_equal(old->regions[0].counter_units[1], b->counter_units[1]);
    assert_string_equal(old->trace, back->trace);
    assert_int_equal(old->regions[0].groups[0].points.n, bg->points.n);
    tf_fold_result_free(old);

    /* The points served a part at a time (an empty part among them), and
     * not held by the group meanwhile, save as they do whole, each part
     * taken once. */
    tf_fold_group *pg = &res->regions[0].groups[0];
    tf_fold_points whole = pg->points;
    size_t n = whole.n, cuts[] = { 0, 1, n / 3, n / 3, n - 7, n };
    split_parts sp;
    split_parts_init(&sp, &whole, 2, cuts, 5);
    pg->points = (tf_fold_points){ 0 };
    pg->parts = &sp.parts;
    if (tf_fold_result_save(res, saved, &err) < 0)
        fail_msg("%s", err.msg);
    pg->parts = NULL;
    pg->points = whole;
    assert_int_equal(sp.taken, 5);
    tf_fold_result *cut;
    if (tf_fold_result_load(saved, &cut, &err) < 0)
        fail_msg("%s", err.msg);
    assert_points_equal(&cut->regions[0].groups[0].points, &bg->points, 2);
    tf_fold_result_free(cut);

    /* A group whose kept instances hold no sample (iterations shorter
     * than the sampling period): its points shrink to nothing, and it
     * saves without reading beyond them (the sanitizer build checks) and
     * loads back empty. */
    tf_fold_group *eg = &res->regions[0].groups[0];
    tf_fold_points_shrink(&eg->points, 0, eg->points.n, 2);
    if (tf_fold_result_save(res, saved, &err) < 0)
        fail_msg("%s", err.msg);
    tf_fold_result_free(back);
    if (tf_fold_result_load(saved, &back, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(back->regions[0].groups[0].points.n, 0);
    assert_int_equal(back->regions[0].groups[0].grid, g->grid);
    /* y is a 2 x 0 matrix; files written before 2026-12-03 stored it as 2
     * zeros, 1-D, and still load */
    int64_t file, pts;
    char path[TF_FOLD_H5_PATH];
    if (tf_h5_file_open(saved, true, &file, &err) < 0 ||
        tf_h5_group_open(file, tf_fold_h5_group_path(path, 0, 0, TF_FOLD_H5_POINTS), &pts,
                         &err) < 0)
        fail_msg("%s", err.msg);
    size_t rows, cols;
    void *y;
    if (tf_h5_read_array(pts, "y", TF_H5_DOUBLE, &y, &rows, &cols, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(rows, 2);
    assert_int_equal(cols, 0);
    assert_true(H5Ldelete((hid_t)pts, "y", H5P_DEFAULT) >= 0);
    const double zeros[2] = { 0, 0 };
    if (tf_h5_write_array(pts, "y", TF_H5_DOUBLE, zeros, 2, &err) < 0)
        fail_msg("%s", err.msg);
    tf_h5_close(pts);
    tf_h5_close(file);
    tf_fold_result_free(back);
    if (tf_fold_result_load(saved, &back, &err) < 0)
        fail_msg("%s", err.msg);
    assert_int_equal(back->regions[0].groups[0].points.n, 0);

    /* A file of another kind is refused with its name. */
    tf_fold_result *none;
    assert_true(tf_fold_result_load(trace, &none, &err) < 0);
    assert_non_null(strstr(err.msg, trace));
    tf_fold_result_free(back);
    tf_fold_result_free(res);
    unlink(trace);
    unlink(saved);
}

#define INSTANCES 400
#define LENGTH 30000u    /* ns of an instance without samples */
#define COST 20000u      /* ns each sample costs: half before its clock, half after */
#define JITTER 300u      /* ns, spread of the lengths */

/* A deterministic spread in [0, n). */
static uint64_t spread(uint64_t k, uint64_t n)
{
    return (k * 2654435761u) % n;
}

static void test_cost_measured(void **state)
{
    (void)state;
    static double value[INSTANCES], work[2 * INSTANCES];
    static uint64_t samples[INSTANCES];
    /* a fifth sampled, some twice */
    for (size_t i = 0; i < INSTANCES; i++) {
        samples[i] = i % 5 ? 0 : i % 15 ? 1 : 2;
        value[i] = LENGTH + (double)spread(i, JITTER) + (double)samples[i] * COST;
    }
    double varies;
    double cost = tf_fold_observer_cost(value, samples, INSTANCES, work, &varies);
    assert_true(fabs(cost - COST) < JITTER);
    assert_true(varies < JITTER);
    /* a third of the jitter, but 80 sampled instances tell it */
    for (size_t i = 0; i < INSTANCES; i++)
        value[i] = LENGTH + (double)spread(i, JITTER) + (double)samples[i] * JITTER / 3;
    cost = tf_fold_observer_cost(value, samples, INSTANCES, work, &varies);
    assert_true(fabs(cost - JITTER / 3) < JITTER / 6);
    /* no cost: nothing significant */
    for (size_t i = 0; i < INSTANCES; i++)
        value[i] = LENGTH + (double)spread(i, JITTER);
    assert_true(tf_fold_observer_cost(value, samples, INSTANCES, work, &varies) == 0);
    /* too few sampled instances to tell */
    for (size_t i = 0; i < INSTANCES; i++) {
        samples[i] = i < TF_OBSERVER_MIN_INSTANCES - 1;
        value[i] = LENGTH + (double)samples[i] * COST;
    }
    assert_true(tf_fold_observer_cost(value, samples, INSTANCES, work, &varies) == 0);
}

/* Instance k begins at k·1 ms; one in four holds a sample at a true
 * offset u, its clock read COST/2 after the program stopped and the
 * program resuming COST/2 after that; cycles tick 3 a ns, also while the
 * sample is taken (as cycles and task-clock do). */
static uint64_t offset_of(uint64_t k)
{
    return spread(k, LENGTH - 1) + 1;
}

static void write_short_trace(const char *path)
{
    tf_error err;
    const char *names[] = { "cycles" };
    uint32_t proc, thread, region;
    tf_trace_out *w = one_thread_trace(path, names, 1, "short", &proc, &thread, &region);
    for (uint64_t k = 0; k < INSTANCES; k++) {
        uint64_t begin = k * 1000000, sampled = k % 4 == 0;
        uint64_t end = begin + LENGTH + spread(k, JITTER) + sampled * COST;
        tf_event ev[2] = { { begin, region, 0, TF_EVENT_ENTER }, { end, region, 0, TF_EVENT_EXIT } };
        uint64_t ec[2] = { begin * 3, end * 3 };
        assert_int_equal(tf_trace_out_append_events(w, proc, thread, ev, ec, 2, &err), 0);
        if (!sampled)
            continue;
        tf_sample s = { .time = begin + offset_of(k) + COST / 2, .ip = 0x400000,
                        .kind = TF_SAMPLE_TIMER, .level = TF_LEVEL_UNKNOWN };
        uint64_t sc = s.time * 3;
        assert_int_equal(tf_trace_out_append_samples(w, proc, thread, &s, &sc, 1, &err), 0);
    }
    assert_int_equal(tf_trace_out_close(w, &err), 0);
}

static void test_short_region(void **state)
{
    (void)state;
    char trace[] = "/tmp/tf-fold-short-XXXXXX", saved[64];
    tf_fold_result *res = fold_written(write_short_trace, trace, "short", 0);
    snprintf(saved, sizeof saved, "%s.fold.h5", trace);

    const tf_fold_region *r = &res->regions[0];
    assert_true(fabs(r->observer_ns - COST) < JITTER);
    assert_true(fabs(r->observer_events[0] - 3.0 * COST) < 3.0 * JITTER);
    /* every sampled instance kept, at its length without the sample */
    size_t sampled = 0, kept = 0;
    for (size_t i = 0; i < r->ninstances; i++) {
        const tf_fold_instance *in = &r->instances[i];
        if (!in->samples)
            continue;
        sampled++;
        kept += in->status == TF_FOLD_USED;
        assert_true(in->duration < LENGTH + 2 * JITTER);
        uint64_t cycles = r->counter_delta[i];
        assert_true(cycles < 3 * (LENGTH + 2 * JITTER));
    }
    assert_int_equal(sampled, INSTANCES / 4);
    assert_int_equal(kept, sampled);
    /* each sample at its true place in the instance, in time and in cycles */
    const tf_fold_points *pts = &r->groups[0].points;
    assert_int_equal(pts->n, sampled);
    for (size_t j = 0; j < pts->n; j++) {
        const tf_fold_instance *in = &r->instances[pts->instance[j]];
        double truth = (double)offset_of(in->begin / 1000000) / (double)in->duration;
        assert_true(fabs(pts->x[j] - truth) < 0.02);
        assert_true(fabs(pts->y[j] - truth) < 0.02);
    }
    /* fold.h5 keeps the costs it took out */
    tf_error err;
    tf_fold_result *back;
    if (tf_fold_result_save(res, saved, &err) < 0 || tf_fold_result_load(saved, &back, &err) < 0)
        fail_msg("%s", err.msg);
    assert_true(back->regions[0].observer_ns == r->observer_ns);
    assert_true(back->regions[0].observer_spread_ns == r->observer_spread_ns);
    assert_true(back->regions[0].observer_events[0] == r->observer_events[0]);
    tf_fold_result_free(back);
    /* a file whose costs do not match its counters is refused, naming them */
    int64_t file, region;
    char path[TF_FOLD_H5_PATH];
    if (tf_h5_file_open(saved, true, &file, &err) < 0 ||
        tf_h5_group_open(file, tf_fold_h5_region_path(path, 0), &region, &err) < 0)
        fail_msg("%s", err.msg);
    assert_true(H5Ldelete((hid_t)region, "observer_events", H5P_DEFAULT) >= 0);
    double two[2] = { 1, 2 };
    if (tf_h5_write_array(region, "observer_events", TF_H5_DOUBLE, two, 2, &err) < 0)
        fail_msg("%s", err.msg);
    tf_h5_close(region);
    tf_h5_close(file);
    assert_true(tf_fold_result_load(saved, &back, &err) < 0);
    assert_non_null(strstr(err.msg, "observer_events"));
    tf_fold_result_free(res);
    unlink(trace);
    unlink(saved);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_multiplexed_and_roundtrip),
        cmocka_unit_test(test_cost_measured),
        cmocka_unit_test(test_short_region),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
