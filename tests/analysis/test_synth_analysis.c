/* SPDX-License-Identifier: BSD-3-Clause */
/* The analysis end to end on `tracefold synth` traces against their /truth:
 * two processes with shifted address layouts (--aslr), their samples
 * folded here by hand (x = (t − begin)/duration, the fold engine's rule),
 * then symbolised through the trace's symbols table and mapped to objects
 * by address and lifetime.  Checks phases and routines (boundaries within
 * ±1 %), objects and shares, per phase × object direction, stride, streams
 * and pattern exactly, bytes and bandwidth within 10 %, and the files. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "analysis/analysis_h5.h"
#include "analysis/analysis_run.h"
#include "analysis/from_fold.h"
#include "formats/fold_h5.h"
#include "formats/h5util.h"
#include "extract/instances.h"
#include "tests/fold/points_fixture.h"
#include "synth/synth.h"

struct fixture {
    char dir[64], trace[128];
    tf_trace *tr;
    tf_fold_result res;
    tf_fold_region reg;
    tf_fold_group grp;
    double *truth_curve, *truth_totals;
};

static void fold_by_hand(struct fixture *fx)
{
    tf_trace *tr = fx->tr;
    uint32_t region;
    assert_true(tf_trace_find_string(tr, "iteration", &region));
    tf_instance *inst;
    size_t ni;
    assert_int_equal(tf_instances_find(tr, region, &inst, &ni, NULL), 0);
    tf_fold_region *reg = &fx->reg;
    reg->name = "iteration";
    reg->ninstances = ni;
    reg->instances = calloc(ni, sizeof *reg->instances);
    double total = 0;
    for (size_t i = 0; i < ni; i++) {
        reg->instances[i] = (tf_fold_instance){ .proc = inst[i].proc, .thread = inst[i].thread,
                                                .begin = inst[i].begin, .end = inst[i].end,
                                                .duration = inst[i].end - inst[i].begin };
        total += (double)reg->instances[i].duration;
    }
    tf_fold_group *g = &fx->grp;
    g->mean_duration_ns = total / (double)ni;
    size_t cap = 1 << 16;
    tf_fold_points *p = &g->points;
    p->instance = malloc(cap * sizeof *p->instance);
    p->x = malloc(cap * sizeof *p->x);
    p->kind = malloc(cap);
    p->ip = malloc(cap * sizeof *p->ip);
    p->addr = malloc(cap * sizeof *p->addr);
    p->level = malloc(cap);
    p->weight = malloc(cap * sizeof *p->weight);
    size_t cur = 0;
    for (uint32_t pr = 0; pr < tf_trace_nprocesses(tr); pr++)
        for (uint32_t th = 0; th < tf_trace_process(tr, pr)->nthreads; th++) {
            tf_sample_cursor *c;
            assert_int_equal(tf_samples_open(tr, pr, th, &c, NULL), 0);
            tf_sample buf[1024];
            size_t n;
            while (tf_samples_read(c, buf, NULL, 1024, &n, NULL) == 0 && n) {
                for (size_t k = 0; k < n; k++) {
                    while (cur < ni && (reg->instances[cur].proc < pr ||
                                        (reg->instances[cur].proc == pr &&
                                         (reg->instances[cur].thread < th ||
                                          (reg->instances[cur].thread == th &&
                                           reg->instances[cur].end <= buf[k].time)))))
                        cur++;
                    if (cur >= ni || reg->instances[cur].proc != pr ||
                        reg->instances[cur].thread != th || buf[k].time < reg->instances[cur].begin)
                        continue;
                    if (p->n == cap) {
                        cap *= 2;
                        p->instance = realloc(p->instance, cap * sizeof *p->instance);
                        p->x = realloc(p->x, cap * sizeof *p->x);
                        p->kind = realloc(p->kind, cap);
                        p->ip = realloc(p->ip, cap * sizeof *p->ip);
                        p->addr = realloc(p->addr, cap * sizeof *p->addr);
                        p->level = realloc(p->level, cap);
                        p->weight = realloc(p->weight, cap * sizeof *p->weight);
                    }
                    const tf_fold_instance *in = &reg->instances[cur];
                    p->instance[p->n] = (uint32_t)cur;
                    p->x[p->n] = (float)((double)(buf[k].time - in->begin) / (double)in->duration);
                    p->kind[p->n] = buf[k].kind;
                    p->ip[p->n] = buf[k].ip;
                    p->addr[p->n] = buf[k].addr;
                    p->level[p->n] = buf[k].level;
                    p->weight[p->n] = buf[k].weight;
                    p->n++;
                }
            }
            tf_samples_close(c);
        }
    free(inst);
    /* the truth's mean curves stand for the fitted ones */
    int64_t truth;
    assert_int_equal(tf_h5_group_open(tf_trace_file(tr), "truth", &truth, NULL), 0);
    size_t rows, cols;
    assert_int_equal(tf_h5_read_array(truth, "curve", TF_H5_DOUBLE, (void **)&fx->truth_curve,
                                      &rows, &cols, NULL), 0);
    size_t ntotals, one;
    assert_int_equal(tf_h5_read_array(truth, "mean_totals", TF_H5_DOUBLE,
                                      (void **)&fx->truth_totals, &ntotals, &one, NULL), 0);
    char **names;
    size_t nn;
    assert_int_equal(tf_h5_read_strings(truth, "counter_names", &names, &nn, NULL), 0);
    tf_h5_close(truth);
    reg->ncounters = (uint32_t)nn;
    reg->counter_names = names;
    g->grid = (uint32_t)cols;
    g->curve = fx->truth_curve;
    g->mean_total = fx->truth_totals;
    reg->ngroups = 1;
    reg->groups = g;
    fx->res.nregions = 1;
    fx->res.regions = reg;
}

static int setup(void **state)
{
    struct fixture *fx = calloc(1, sizeof *fx);
    snprintf(fx->dir, sizeof fx->dir, "/tmp/tf-an-XXXXXX");
    assert_non_null(mkdtemp(fx->dir));
    snprintf(fx->trace, sizeof fx->trace, "%s/synth.h5", fx->dir);
    tf_synth_options o;
    tf_synth_defaults(&o);
    o.processes = 2;
    o.iterations = 200;
    o.aslr = true;
    o.outliers = 0;   /* no fold filter here: stalled instances would smear x */
    o.seed = 3;
    tf_error err;
    if (tf_synth_write(&o, fx->trace, true, NULL, NULL, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(tf_trace_open(&fx->tr, fx->trace, NULL), 0);
    fold_by_hand(fx);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *fx = *state;
    tf_fold_points *p = &fx->grp.points;
    free(p->instance);
    free(p->x);
    free(p->kind);
    free(p->ip);
    free(p->addr);
    free(p->level);
    free(p->weight);
    free(fx->reg.instances);
    free(fx->reg.counter_names);
    free(fx->truth_curve);
    free(fx->truth_totals);
    tf_trace_close(fx->tr);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
    assert_int_equal(system(cmd), 0);
    free(fx);
    return 0;
}

static const tf_analysis_phase *leaf_at(const tf_analysis *a, double x)
{
    const tf_analysis_phase *best = NULL;
    for (size_t k = 0; k < a->nphases; k++) {
        const tf_analysis_phase *ph = &a->phases[k];
        if (x >= ph->x0 && x < ph->x1 && (!best || ph->parent != TF_ANALYSIS_NONE))
            best = ph;
    }
    return best;
}

/* The analysis a of fx's points against the trace's truth. */
static void check_truth(struct fixture *fx, const tf_analysis *an)
{
    tf_analysis a = *an;
    int64_t truth, mem, objs;
    assert_int_equal(tf_h5_group_open(tf_trace_file(fx->tr), "truth", &truth, NULL), 0);
    double *bounds;
    size_t nb, cols;
    assert_int_equal(tf_h5_read_array(truth, "boundaries", TF_H5_DOUBLE, (void **)&bounds, &nb,
                                      &cols, NULL), 0);
    char **routine, **label, **kind, **pattern, **direction;
    size_t nk, no, nm;
    assert_int_equal(tf_h5_read_strings(truth, "phase_routine", &routine, &nk, NULL), 0);
    uint64_t *line;
    assert_int_equal(tf_h5_read_array(truth, "phase_line", TF_H5_UINT64, (void **)&line, &nk,
                                      &cols, NULL), 0);
    /* phases: the leaf at the middle of every true phase has its routine,
     * line and both boundaries within ±1 % */
    for (size_t k = 0; k + 1 < nb; k++) {
        const tf_analysis_phase *ph = leaf_at(&a, (bounds[k] + bounds[k + 1]) / 2);
        assert_non_null(ph);
        assert_string_equal(a.routines[ph->routine].function, routine[k]);
        assert_int_equal(ph->line, line[k]);
        assert_true(fabs(ph->x0 - bounds[k]) <= 0.01);
        assert_true(fabs(ph->x1 - bounds[k + 1]) <= 0.01);
    }
    /* objects: the same four in both processes, despite their shifted
     * layouts, with the expected shares */
    assert_int_equal(tf_h5_group_open(truth, "objects", &objs, NULL), 0);
    double *share;
    assert_int_equal(tf_h5_read_strings(objs, "label", &label, &no, NULL), 0);
    assert_int_equal(tf_h5_read_strings(objs, "kind", &kind, &no, NULL), 0);
    assert_int_equal(tf_h5_read_array(objs, "share", TF_H5_DOUBLE, (void **)&share, &no, &cols,
                                      NULL), 0);
    assert_int_equal(a.nobjects, no);
    for (size_t o = 0; o < no; o++) {
        size_t j = 0;
        while (j < a.nobjects && strcmp(a.objects[j].name, label[o]))
            j++;
        assert_true(j < a.nobjects);
        assert_string_equal(tf_analysis_object_kind_name(a.objects[j].kind), kind[o]);
        assert_true(fabs(a.objects[j].share - share[o]) < 0.02);
    }
    /* streams */
    assert_int_equal(tf_h5_group_open(truth, "memory", &mem, NULL), 0);
    uint64_t *phase, *stride, *streams, *bytes;
    double *bw;
    char **object;
    assert_int_equal(tf_h5_read_strings(mem, "object", &object, &nm, NULL), 0);
    assert_int_equal(tf_h5_read_strings(mem, "pattern", &pattern, &nm, NULL), 0);
    assert_int_equal(tf_h5_read_strings(mem, "direction", &direction, &nm, NULL), 0);
    assert_int_equal(tf_h5_read_array(mem, "phase", TF_H5_UINT64, (void **)&phase, &nm, &cols, NULL), 0);
    assert_int_equal(tf_h5_read_array(mem, "stride_bytes", TF_H5_UINT64, (void **)&stride, &nm, &cols, NULL), 0);
    assert_int_equal(tf_h5_read_array(mem, "streams", TF_H5_UINT64, (void **)&streams, &nm, &cols, NULL), 0);
    assert_int_equal(tf_h5_read_array(mem, "bytes", TF_H5_UINT64, (void **)&bytes, &nm, &cols, NULL), 0);
    assert_int_equal(tf_h5_read_array(mem, "bandwidth_MBps", TF_H5_DOUBLE, (void **)&bw, &nm, &cols, NULL), 0);
    for (size_t m = 0; m < nm; m++) {
        const tf_analysis_phase *ph = leaf_at(&a, (bounds[phase[m]] + bounds[phase[m] + 1]) / 2);
        const tf_analysis_stream *st = NULL;
        for (size_t s = 0; s < a.nstreams && !st; s++)
            if (&a.phases[a.streams[s].phase] == ph &&
                !strcmp(a.objects[a.streams[s].object].name, object[m]))
                st = &a.streams[s];
        assert_non_null(st);
        print_message("phase %s %s: %s %s stride %llu streams %u bytes %.0f (%llu) bw %.0f (%.0f)\n",
                      ph->label, object[m], tf_analysis_pattern_name(st->pattern),
                      st->direction > 0 ? "up" : st->direction < 0 ? "down" : "none",
                      (unsigned long long)st->stride, st->streams, st->bytes,
                      (unsigned long long)bytes[m], st->bandwidth, bw[m]);
        assert_string_equal(tf_analysis_pattern_name(st->pattern), pattern[m]);
        assert_string_equal(st->direction > 0 ? "up" : st->direction < 0 ? "down" : "none",
                            direction[m]);
        assert_int_equal(st->stride, stride[m]);
        assert_int_equal(st->streams, streams[m]);
        assert_true(fabs(st->bytes - (double)bytes[m]) <= 0.1 * (double)bytes[m]);
        if (!strcmp(pattern[m], "linear"))
            assert_true(fabs(st->bandwidth - bw[m]) <= 0.1 * bw[m]);
    }
    tf_h5_close(mem);
    tf_h5_close(objs);
    tf_h5_close(truth);
    free(bounds);
    free(routine);
    free(line);
    free(label);
    free(kind);
    free(share);
    free(object);
    free(pattern);
    free(direction);
    free(phase);
    free(stride);
    free(streams);
    free(bytes);
    free(bw);
}

static void phases_objects_streams(void **state)
{
    struct fixture *fx = *state;
    tf_analysis a;
    tf_error err;
    if (tf_analysis_from_fold(&a, fx->tr, &fx->reg, 0, NULL, NULL, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(a.nsamples, a.nfolded);
    assert_int_equal(a.nfolded, fx->grp.points.n);
    check_truth(fx, &a);
    tf_analysis_clear(&a);
}

/* The places of the points pts (the group's, whole) that b gives in two
 * slabs of odd sizes are those a gives at once; returns how many have a
 * routine. */
static size_t same_places(const tf_analysis *a, const tf_analysis *b, const tf_fold_points *pts)
{
    size_t n = pts->n, cut = n / 3 + 1, placed = 0;
    int32_t *i32 = malloc(6 * n * sizeof *i32);
    uint64_t *u64 = malloc(2 * n * sizeof *u64);
    tf_analysis_point_columns c_a = { i32, i32 + n, i32 + 2 * n, u64 };
    tf_analysis_point_columns c_b = { i32 + 3 * n, i32 + 4 * n, i32 + 5 * n, u64 + n };
    tf_analysis_point_columns tail = { c_b.routine + cut, c_b.line + cut, c_b.object + cut,
                                       c_b.offset + cut };
    tf_error err;
    if (tf_analysis_point_places(a, pts, 0, 0, n, &c_a, &err) ||
        tf_analysis_point_places(b, pts, 0, 0, cut, &c_b, &err) ||
        tf_analysis_point_places(b, pts, 0, cut, n - cut, &tail, &err))
        fail_msg("%s", err.msg);
    assert_memory_equal(i32, i32 + 3 * n, 3 * n * sizeof *i32);
    assert_memory_equal(u64, u64 + n, n * sizeof *u64);
    for (size_t i = 0; i < n; i++)
        placed += c_a.routine[i] >= 0;
    free(i32);
    free(u64);
    return placed;
}

/* With --analysis-samples a quarter of the points: about that many are
 * analysed, the truth is still found within the same bounds, and fold.h5's
 * per-point columns, which cover every point, are those of the full
 * analysis. */
static void a_quarter_of_the_samples(void **state)
{
    struct fixture *fx = *state;
    size_t n = fx->grp.points.n;
    tf_analysis_params prm;
    tf_analysis_params_default(&prm);
    prm.max_samples = n / 4;
    tf_analysis all, part;
    tf_error err;
    if (tf_analysis_from_fold(&all, fx->tr, &fx->reg, 0, NULL, NULL, &err) ||
        tf_analysis_from_fold(&part, fx->tr, &fx->reg, 0, NULL, &prm, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(part.nfolded, n);
    /* binomial: 5 standard deviations either side */
    double want = (double)prm.max_samples, sd = sqrt(want * 0.75);
    print_message("%zu points, %zu analysed (about %zu)\n", n, part.nsamples, prm.max_samples);
    assert_true(fabs((double)part.nsamples - want) <= 5 * sd);
    check_truth(fx, &part);
    /* fold.h5 writes them in slabs: two of odd sizes here */
    assert_true(same_places(&all, &part, &fx->grp.points) > n / 2);
    /* the routines and objects the columns index are the same tables */
    assert_int_equal(part.nroutines, all.nroutines);
    assert_int_equal(part.nobjects, all.nobjects);
    tf_analysis_clear(&all);
    tf_analysis_clear(&part);
}

/* The four point columns fold.h5 gets from analysis a, read back into
 * cols[4] (malloc'ed). */
static void point_columns_of(const struct fixture *fx, const tf_analysis *a, const char *name,
                             size_t n, void *cols[4])
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", fx->dir, name);
    int64_t file;
    tf_error err;
    if (tf_h5_file_create(path, &file, &err) || tf_analysis_write_h5(a, &fx->grp, file, &err))
        fail_msg("%s", err.msg);
    static const char *const names[4] = { "analysis/points/routine", "analysis/points/line",
                                          "analysis/points/object", "analysis/points/offset" };
    for (int k = 0; k < 4; k++) {
        size_t rows, one;
        if (tf_h5_read_array(file, names[k], k == 3 ? TF_H5_UINT64 : TF_H5_INT32, &cols[k],
                             &rows, &one, &err))
            fail_msg("%s", err.msg);
        assert_int_equal(rows, n);
    }
    tf_h5_close(file);
}

/* The points served a part at a time, cut anywhere (an empty part among
 * them) and not held by the group meanwhile: the same samples are chosen
 * and placed, and fold.h5's point columns are the same, as from the
 * points whole. */
static void points_in_parts(void **state)
{
    struct fixture *fx = *state;
    tf_fold_points whole = fx->grp.points;
    size_t n = whole.n, cuts[] = { 0, 3, n / 2, n / 2, n - 5, n };
    tf_analysis_params prm;
    tf_analysis_params_default(&prm);
    prm.max_samples = n / 4;
    tf_analysis all, cut;
    tf_error err;
    if (tf_analysis_from_fold(&all, fx->tr, &fx->reg, 0, NULL, &prm, &err))
        fail_msg("%s", err.msg);
    void *want[4], *got[4];
    point_columns_of(fx, &all, "whole.h5", n, want);
    split_parts sp;
    split_parts_init(&sp, &whole, fx->reg.ncounters, cuts, 5);
    fx->grp.points = (tf_fold_points){ 0 };
    fx->grp.parts = &sp.parts;
    if (tf_analysis_from_fold(&cut, fx->tr, &fx->reg, 0, NULL, &prm, &err))
        fail_msg("%s", err.msg);
    point_columns_of(fx, &cut, "parts.h5", n, got);
    fx->grp.parts = NULL;
    fx->grp.points = whole;
    assert_int_equal(cut.nfolded, all.nfolded);
    assert_int_equal(cut.nsamples, all.nsamples);
    assert_true(cut.nsamples < n / 2);
    for (size_t i = 0; i < all.nsamples; i++) {
        const tf_analysis_sample *a = &all.samples[i], *b = &cut.samples[i];
        assert_int_equal(a->point, b->point);
        assert_true(a->x == b->x);
        assert_int_equal(a->routine, b->routine);
        assert_int_equal(a->line, b->line);
        assert_int_equal(a->object, b->object);
        assert_int_equal(a->offset, b->offset);
        assert_int_equal(a->code_stride, b->code_stride);
    }
    assert_int_equal(cut.nroutines, all.nroutines);
    assert_int_equal(cut.nobjects, all.nobjects);
    for (int k = 0; k < 4; k++) {
        assert_memory_equal(got[k], want[k], n * (k == 3 ? 8 : 4));
        free(want[k]);
        free(got[k]);
    }
    tf_analysis_clear(&all);
    tf_analysis_clear(&cut);
}

/* The analysis read back from fold.h5 is the one written: its tables, and
 * its points' places read from the file a slab at a time are those worked
 * out in memory. */
static void read_back(void **state)
{
    struct fixture *fx = *state;
    tf_analysis mem, back;
    tf_error err;
    char path[256], group[TF_FOLD_H5_PATH];
    snprintf(path, sizeof path, "%s/back.h5", fx->dir);
    int64_t file, grp;
    if (tf_analysis_from_fold(&mem, fx->tr, &fx->reg, 0, NULL, NULL, &err) ||
        tf_h5_file_create(path, &file, &err) ||
        tf_h5_group_create(file, tf_fold_h5_group_path(group, 0, 0, NULL), &grp, &err) ||
        tf_analysis_write_h5(&mem, &fx->grp, grp, &err))
        fail_msg("%s", err.msg);
    tf_h5_close(grp);
    tf_h5_close(file);
    bool present;
    if (tf_analysis_read_h5(path, 0, 0, &back, &present, &err))
        fail_msg("%s", err.msg);
    assert_true(present);
    assert_int_equal(back.nroutines, mem.nroutines);
    for (size_t i = 0; i < mem.nroutines; i++) {
        assert_string_equal(back.routines[i].function, mem.routines[i].function);
        assert_string_equal(back.routines[i].file, mem.routines[i].file);
        assert_int_equal(back.routines[i].waiting, mem.routines[i].waiting);
    }
    assert_int_equal(back.nobjects, mem.nobjects);
    for (size_t i = 0; i < mem.nobjects; i++) {
        assert_string_equal(back.objects[i].name, mem.objects[i].name);
        assert_int_equal(back.objects[i].kind, mem.objects[i].kind);
        assert_int_equal(back.objects[i].size, mem.objects[i].size);
    }
    assert_int_equal(back.nphases, mem.nphases);
    for (size_t i = 0; i < mem.nphases; i++) {
        assert_string_equal(back.phases[i].label, mem.phases[i].label);
        assert_int_equal(back.phases[i].parent, mem.phases[i].parent);
        assert_int_equal(back.phases[i].routine, mem.phases[i].routine);
        assert_true(back.phases[i].x0 == mem.phases[i].x0);
    }
    assert_int_equal(back.nstreams, mem.nstreams);
    for (size_t i = 0; i < mem.nstreams; i++) {
        assert_int_equal(back.streams[i].pattern, mem.streams[i].pattern);
        assert_int_equal(back.streams[i].stride_from, mem.streams[i].stride_from);
        assert_int_equal(back.streams[i].stride, mem.streams[i].stride);
    }
    assert_int_equal(back.nlevels, mem.nlevels);
    for (size_t i = 0; i < mem.nlevels; i++)
        assert_int_equal(back.levels[i].nmodes, mem.levels[i].nmodes);
    assert_int_equal(back.nadvice, mem.nadvice);
    assert_int_equal(back.ncounters, mem.ncounters);
    /* the places, from the file, in slabs */
    assert_non_null(back.places);
    assert_int_equal(back.places->npoints, fx->grp.points.n);
    same_places(&mem, &back, &fx->grp.points);
    tf_analysis_clear(&back);
    tf_analysis_clear(&mem);
    /* a group without an analysis: none, no error */
    if (tf_analysis_read_h5(path, 0, 1, &back, &present, &err))
        fail_msg("%s", err.msg);
    assert_false(present);
}

static void first_line(const char *dir, const char *name, char *buf, size_t size, size_t *rows)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_non_null(fgets(buf, (int)size, f));
    buf[strcspn(buf, "\n")] = '\0';
    char line[4096];
    *rows = 0;
    while (fgets(line, sizeof line, f))
        (*rows)++;
    fclose(f);
}

static void files_written(void **state)
{
    struct fixture *fx = *state;
    char out[128];
    snprintf(out, sizeof out, "%s/out", fx->dir);
    assert_int_equal(mkdir(out, 0700), 0);
    char h5[200];
    snprintf(h5, sizeof h5, "%s/fold.h5", out);
    int64_t file, grp;
    char path[TF_FOLD_H5_PATH];
    assert_int_equal(tf_h5_file_create(h5, &file, NULL), 0);
    assert_int_equal(tf_h5_group_create(file, tf_fold_h5_group_path(path, 0, 0, NULL), &grp,
                                        NULL), 0);
    tf_h5_close(grp);
    tf_h5_close(file);
    tf_error err;
    tf_analysis_set set;
    if (tf_analysis_run_groups(fx->tr, &fx->res, NULL, NULL, &set, &err) ||
        tf_analysis_save(&set, &fx->res, out, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(set.n, 1);
    tf_analysis_set_free(&set);
    char head[4096];
    size_t rows;
    first_line(out, "phases.csv", head, sizeof head, &rows);
    assert_int_equal(strncmp(head, "region,group,phase,x_begin,x_end,begin_ns,end_ns,routine,file,"
                             "line,share,waiting,mips,ipc,", 90), 0);
    assert_int_equal(rows, 6);   /* 4 routine phases, symgs split in 2 sub-phases */
    first_line(out, "objects.csv", head, sizeof head, &rows);
    assert_string_equal(head, "region,group,object,kind,size_bytes,share,loads,stores,"
                              "allocations,routine");
    assert_int_equal(rows, 4);
    first_line(out, "streams.csv", head, sizeof head, &rows);
    assert_string_equal(head, "region,group,phase,object,direction,stride_bytes,streams,"
                              "pattern,bytes,bandwidth_MBps,stride_from");
    /* exactly the truth's ten streams: none made of the few samples that
     * jittered boundaries carry over from a neighbouring phase */
    assert_int_equal(rows, 10);
    first_line(out, "levels.csv", head, sizeof head, &rows);
    assert_string_equal(head, "region,group,phase,level,share,mean_cost,cost_modes");
    first_line(out, "summary.md", head, sizeof head, &rows);
    assert_string_equal(head, "# Phases, code lines and the address space");
    /* fold.h5: one row per point, object-relative offsets of both processes */
    assert_int_equal(tf_h5_file_open(h5, false, &file, NULL), 0);
    int64_t *object;
    size_t n, cols;
    int64_t points;
    assert_int_equal(tf_h5_group_open(file, tf_fold_h5_group_path(path, 0, 0, TF_FOLD_H5_ANALYSIS),
                                      &grp, NULL), 0);
    assert_int_equal(tf_h5_group_open(grp, TF_FOLD_H5_POINTS, &points, NULL), 0);
    assert_int_equal(tf_h5_read_array(points, "object", TF_H5_INT64, (void **)&object, &n, &cols,
                                      NULL), 0);
    tf_h5_close(points);
    tf_h5_close(grp);
    assert_int_equal(n, fx->grp.points.n);
    size_t mapped = 0, memory = 0;
    for (size_t i = 0; i < n; i++) {
        memory += fx->grp.points.kind[i] != 0;
        mapped += object[i] >= 0;
    }
    assert_int_equal(mapped, memory);
    free(object);
    tf_h5_close(file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(phases_objects_streams),
        cmocka_unit_test(a_quarter_of_the_samples),
        cmocka_unit_test(points_in_parts),
        cmocka_unit_test(read_back),
        cmocka_unit_test(files_written),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
