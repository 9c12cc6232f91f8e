/* SPDX-License-Identifier: BSD-3-Clause */
/* The synthetic traces against their own ground truth: the counters in the
 * trace are the exact integrals of the stored rates, the truth curves are
 * proper cumulative curves, the outliers are as many as asked, the samples
 * and memory references follow the documented model, and a seed always
 * gives the same trace. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "formats/h5util.h"
#include "extract/instances.h"
#include "synth/synth.h"

#define P 2
#define T 2
#define I 40
#define S 13

static char dir[256];

static void trace_path(char *buf, size_t size, const char *name)
{
    snprintf(buf, size, "%s/%s.h5", dir, name);
}

static void small_options(tf_synth_options *o)
{
    tf_synth_defaults(o);
    o->processes = P;
    o->threads = T;
    o->iterations = I;
    o->samples_per_iteration = S;
    o->grid = 101;
}

static tf_trace *generate(const tf_synth_options *o, const char *name)
{
    char path[300];
    tf_error err;
    tf_trace *tr;
    trace_path(path, sizeof path, name);
    if (tf_synth_write(o, path, true, NULL, NULL, &err) < 0)
        fail_msg("synth: %s", err.msg);
    if (tf_trace_open(&tr, path, &err) < 0)
        fail_msg("open: %s", err.msg);
    return tr;
}

struct truth {
    int64_t group;
    uint64_t *outlier, *begin, *duration, *phase_begin, *stall, *totals;
    double *rate, *curve, *boundaries, *grid;
    size_t n, K, C, G;
};

static void *read_array(int64_t g, const char *name, enum tf_h5_type type, size_t *rows,
                        size_t *cols)
{
    void *data;
    size_t r, c;
    tf_error err;
    if (tf_h5_read_array(g, name, type, &data, &r, &c, &err) < 0)
        fail_msg("%s", err.msg);
    if (rows)
        *rows = r;
    if (cols)
        *cols = c;
    return data;
}

static void read_truth(tf_trace *tr, struct truth *t)
{
    tf_error err;
    size_t cols, rows;
    if (tf_h5_group_open(tf_trace_file(tr), "truth", &t->group, &err) < 0)
        fail_msg("%s", err.msg);
    t->outlier = read_array(t->group, "instance_outlier", TF_H5_UINT64, &t->n, NULL);
    t->begin = read_array(t->group, "instance_begin_ns", TF_H5_UINT64, NULL, NULL);
    t->duration = read_array(t->group, "instance_duration_ns", TF_H5_UINT64, NULL, NULL);
    t->phase_begin = read_array(t->group, "instance_phase_begin_ns", TF_H5_UINT64, NULL, &cols);
    t->K = cols - 1;
    t->stall = read_array(t->group, "instance_stall_ns", TF_H5_UINT64, NULL, NULL);
    t->totals = read_array(t->group, "instance_totals", TF_H5_UINT64, NULL, &t->C);
    t->rate = read_array(t->group, "instance_rate", TF_H5_DOUBLE, &rows, &cols);
    assert_int_equal(cols, t->K * t->C);
    t->curve = read_array(t->group, "curve", TF_H5_DOUBLE, &rows, &t->G);
    assert_int_equal(rows, t->C);
    t->boundaries = read_array(t->group, "boundaries", TF_H5_DOUBLE, &rows, NULL);
    assert_int_equal(rows, t->K + 1);
    t->grid = read_array(t->group, "grid", TF_H5_DOUBLE, &rows, NULL);
    assert_int_equal(rows, t->G);
}

static void free_truth(struct truth *t)
{
    tf_h5_close(t->group);
    free(t->outlier);
    free(t->begin);
    free(t->duration);
    free(t->phase_begin);
    free(t->stall);
    free(t->totals);
    free(t->rate);
    free(t->curve);
    free(t->boundaries);
    free(t->grid);
}

/* The total of counter c in instance i, integrated from the stored rates,
 * phase boundaries and stall (docs/commands/synth.md). */
static double integrate(const struct truth *t, size_t i, size_t c, double stall_factor)
{
    const uint64_t *pb = t->phase_begin + i * (t->K + 1);
    uint64_t at = t->stall[2 * i], len = t->stall[2 * i + 1];
    double sum = 0;
    for (size_t k = 0; k < t->K; k++) {
        double r = t->rate[i * t->K * t->C + k * t->C + c];
        double span = (double)(pb[k + 1] - pb[k]);
        if (len && at >= pb[k] && at < pb[k + 1]) {
            span -= (double)len;
            sum += r * stall_factor * (double)len * 1e-9;
        }
        sum += r * span * 1e-9;
    }
    return sum;
}

/* Every instance's counter deltas in the trace equal the stored totals,
 * which are the integrals of the stored rates, rounded. */
static void check_totals(const tf_synth_options *o, const char *name)
{
    tf_trace *tr = generate(o, name);
    struct truth t;
    read_truth(tr, &t);
    double stall_factor;
    tf_error err;
    assert_int_equal(tf_h5_attr_read_double(t.group, "stall_factor", &stall_factor, &err), 0);

    uint32_t region;
    assert_true(tf_trace_find_string(tr, "iteration", &region));
    tf_instance *in;
    size_t n;
    assert_int_equal(tf_instances_find(tr, region, &in, &n, &err), 0);
    assert_int_equal(n, (size_t)o->processes * o->threads * o->iterations);
    assert_int_equal(t.n, n);
    assert_int_equal(t.C, o->counters);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(in[i].status, TF_INSTANCE_COMPLETE);
        assert_int_equal(in[i].begin, t.begin[i]);
        assert_int_equal(in[i].end - in[i].begin, t.duration[i]);
        const tf_process *proc = tf_trace_process(tr, in[i].proc);
        const tf_thread *th = &proc->threads[in[i].thread];
        const uint64_t *c0 = th->event_counters + in[i].begin_event * proc->ncounters;
        const uint64_t *c1 = th->event_counters + in[i].end_event * proc->ncounters;
        for (size_t c = 0; c < t.C; c++) {
            assert_int_equal(c1[c] - c0[c], t.totals[i * t.C + c]);
            double exact = integrate(&t, i, c, stall_factor);
            /* Rounding to whole events, with a hair of float slack. */
            if (fabs((double)t.totals[i * t.C + c] - exact) > 0.5 + 1e-9 * exact)
                fail_msg("instance %zu counter %zu: total %llu, integral %.3f", i, c,
                         (unsigned long long)t.totals[i * t.C + c], exact);
        }
    }
    free(in);
    free_truth(&t);
    tf_trace_close(tr);
}

static void test_totals_are_integrals(void **state)
{
    tf_synth_options o;
    small_options(&o);
    check_totals(&o, "totals");
    o.scenario = "twokinds";
    o.counters = 11;
    o.nested = true;
    check_totals(&o, "totals2");
}

/* With two kinds of instance, each kind has its own truth, and the kinds
 * come in the documented pattern. */
static void test_two_kinds(void **state)
{
    tf_synth_options o;
    small_options(&o);
    o.scenario = "twokinds";
    o.processes = 1;
    o.threads = 1;
    o.iterations = 60;
    tf_trace *tr = generate(&o, "kinds");
    struct truth t;
    read_truth(tr, &t);
    tf_error err;
    uint64_t groups, ordinary[2], all;
    double duration[2];
    uint64_t *group = read_array(t.group, "instance_group", TF_H5_UINT64, NULL, NULL);
    for (size_t i = 0; i < t.n; i++)
        assert_int_equal(group[i], i % 3 == 2);
    assert_int_equal(tf_h5_attr_read_uint64(t.group, "groups", &groups, &err), 0);
    assert_int_equal(groups, 2);
    assert_int_equal(tf_h5_attr_read_uint64(t.group, "ordinary", &all, &err), 0);
    for (int g = 0; g < 2; g++) {
        int64_t sub;
        char name[16];
        size_t rows, cols;
        snprintf(name, sizeof name, "group%d", g);
        assert_int_equal(tf_h5_group_open(t.group, name, &sub, &err), 0);
        assert_int_equal(tf_h5_attr_read_uint64(sub, "ordinary", &ordinary[g], &err), 0);
        assert_int_equal(tf_h5_attr_read_double(sub, "mean_duration_ns", &duration[g], &err), 0);
        double *curve = read_array(sub, "curve", TF_H5_DOUBLE, &rows, &cols);
        assert_int_equal(rows * cols, t.C * t.G);
        for (size_t c = 0; c < t.C; c++) {
            assert_true(curve[c * t.G + t.G - 1] > 1 - 1e-12);
            for (size_t j = 1; j < t.G; j++)
                assert_true(curve[c * t.G + j] >= curve[c * t.G + j - 1]);
        }
        double *b = read_array(sub, "boundaries", TF_H5_DOUBLE, &rows, NULL);
        /* group1 spends 0.12 then 0.14 of its time in the first two phases. */
        assert_true(fabs(b[2] - (g ? 0.26 : 0.40)) < 0.005);
        free(b);
        free(curve);
        tf_h5_close(sub);
    }
    assert_int_equal(ordinary[0] + ordinary[1], all);
    assert_true(fabs(duration[1] / duration[0] - 1.6) < 0.02);
    free(group);
    free_truth(&t);
    tf_trace_close(tr);
}

static void test_curves_and_boundaries(void **state)
{
    tf_synth_options o;
    small_options(&o);
    tf_trace *tr = generate(&o, "curves");
    struct truth t;
    read_truth(tr, &t);
    for (size_t c = 0; c < t.C; c++) {
        const double *y = t.curve + c * t.G;
        assert_true(fabs(y[0]) < 1e-12);
        assert_true(fabs(y[t.G - 1] - 1) < 1e-12);
        for (size_t j = 1; j < t.G; j++)
            assert_true(y[j] >= y[j - 1]);
    }
    assert_true(t.boundaries[0] == 0.0);
    assert_true(fabs(t.boundaries[t.K] - 1) < 1e-12);
    for (size_t k = 1; k <= t.K; k++)
        assert_true(t.boundaries[k] > t.boundaries[k - 1]);
    /* The default scenario's first boundary sits at its nominal 0.18. */
    assert_true(fabs(t.boundaries[1] - 0.18) < 0.005);
    free_truth(&t);
    tf_trace_close(tr);
}

static void test_outlier_share(void **state)
{
    tf_synth_options o;
    small_options(&o);
    o.outliers = 0.1;
    tf_trace *tr = generate(&o, "outliers");
    struct truth t;
    read_truth(tr, &t);
    uint64_t per_thread[P * T] = {0};
    for (size_t i = 0; i < t.n; i++) {
        per_thread[i / I] += t.outlier[i];
        /* A stall exactly when flagged, and the instance is longer by it. */
        assert_int_equal(t.outlier[i] != 0, t.stall[2 * i + 1] != 0);
        if (t.outlier[i])
            assert_true(t.duration[i] > o.duration_ns * 1.2);
    }
    for (size_t k = 0; k < P * T; k++)
        assert_int_equal(per_thread[k], 4);   /* round(0.1 * 40) */
    uint64_t outliers;
    tf_error err;
    assert_int_equal(tf_h5_attr_read_uint64(t.group, "outliers", &outliers, &err), 0);
    assert_int_equal(outliers, 4 * P * T);
    free_truth(&t);
    tf_trace_close(tr);
}

/* Reads every sample and counter row of every thread. */
static void read_samples(tf_trace *tr, uint32_t p, uint32_t th, tf_sample **s, uint64_t **c,
                         size_t *n)
{
    const tf_process *proc = tf_trace_process(tr, p);
    size_t max = proc->threads[th].nsamples;
    tf_sample_cursor *cur;
    tf_error err;
    *s = malloc((max + 1) * sizeof **s);
    *c = malloc((max + 1) * proc->ncounters * sizeof **c);
    assert_non_null(*s);
    assert_non_null(*c);
    assert_int_equal(tf_samples_open(tr, p, th, &cur, &err), 0);
    size_t got = 0, k;
    while (tf_samples_read(cur, *s + got, *c + got * proc->ncounters, max + 1 - got, &k, &err) == 0 &&
           k > 0)
        got += k;
    tf_samples_close(cur);
    assert_int_equal(got, max);
    *n = got;
}

static void test_samples_follow_model(void **state)
{
    tf_synth_options o;
    small_options(&o);
    o.processes = 1;
    tf_trace *tr = generate(&o, "samples");
    const tf_process *proc = tf_trace_process(tr, 0);
    for (uint32_t th = 0; th < proc->nthreads; th++) {
        tf_sample *s;
        uint64_t *c;
        size_t n, timer = 0, memory = 0;
        read_samples(tr, 0, th, &s, &c, &n);
        const uint64_t *last = NULL;
        for (size_t i = 0; i < n; i++) {
            const uint64_t *row = c + i * proc->ncounters;
            if (s[i].kind == TF_SAMPLE_TIMER) {
                timer++;
                assert_int_equal(s[i].addr, 0);
                /* The ip is on a symbolised line. */
                bool found = false;
                for (size_t y = 0; y < proc->nsymbols; y++)
                    found |= s[i].ip >= proc->symbols[y].start && s[i].ip < proc->symbols[y].end;
                assert_true(found);
                if (last)
                    for (uint32_t k = 0; k < proc->ncounters; k++)
                        assert_true(row[k] >= last[k]);
                last = row;
                continue;
            }
            memory++;
            assert_true(s[i].kind == TF_SAMPLE_LOAD || s[i].kind == TF_SAMPLE_STORE);
            for (uint32_t k = 0; k < proc->ncounters; k++)
                assert_true(row[k] == TF_NOVALUE);
            bool inside = false;
            for (size_t y = 0; y < proc->nobjects; y++)
                inside |= s[i].addr >= proc->objects[y].start &&
                          s[i].addr < proc->objects[y].start + proc->objects[y].size;
            assert_true(inside);
        }
        /* Periodic sampling: S per nominal instance, stalls add a few. */
        assert_true(timer >= (size_t)(S * I) && timer <= (size_t)(S * I * 1.1));
        /* Poisson memory samples: 40 per instance, within 5 sigma. */
        double mean = 40.0 * I, sd = sqrt(mean);
        assert_true(fabs((double)memory - mean) < 5 * sd + 0.1 * mean);
        free(s);
        free(c);
    }
    tf_trace_close(tr);
}

/* The truth curve at x, linearly interpolated on its grid. */
static double curve_at(const struct truth *t, size_t c, double x)
{
    double pos = x * (double)(t->G - 1);
    size_t j = (size_t)pos;
    if (j >= t->G - 1)
        return t->curve[c * t->G + t->G - 1];
    double f = pos - (double)j;
    return (1 - f) * t->curve[c * t->G + j] + f * t->curve[c * t->G + j + 1];
}

#define BINS 20

/* Folding the timer samples of the ordinary instances by hand gives points
 * scattered around the truth curve and centred on it in every stretch of
 * the iteration: the curve is what folding estimates. */
static void test_curve_is_what_folding_sees(void **state)
{
    tf_synth_options o;
    small_options(&o);
    o.processes = 1;
    o.samples_per_iteration = 50;
    tf_trace *tr = generate(&o, "fold");
    struct truth t;
    read_truth(tr, &t);
    uint32_t region;
    tf_instance *in;
    size_t n;
    tf_error err;
    assert_true(tf_trace_find_string(tr, "iteration", &region));
    assert_int_equal(tf_instances_find(tr, region, &in, &n, &err), 0);
    const tf_process *proc = tf_trace_process(tr, 0);
    double sum[BINS] = {0};
    size_t count[BINS] = {0};
    size_t i = 0;   /* the instance of the current sample, across threads */
    for (uint32_t th = 0; th < proc->nthreads; th++) {
        tf_sample *s;
        uint64_t *c;
        size_t ns;
        read_samples(tr, 0, th, &s, &c, &ns);
        const tf_thread *thr = &proc->threads[th];
        for (size_t k = 0; k < ns; k++) {
            if (s[k].kind != TF_SAMPLE_TIMER)
                continue;
            while (i < n && in[i].thread == th && in[i].end <= s[k].time)
                i++;
            if (i == n || in[i].thread != th || s[k].time < in[i].begin || t.outlier[i])
                continue;
            double x = (double)(s[k].time - in[i].begin) / (double)(in[i].end - in[i].begin);
            const uint64_t *c0 = thr->event_counters + in[i].begin_event * proc->ncounters;
            const uint64_t *c1 = thr->event_counters + in[i].end_event * proc->ncounters;
            size_t b = (size_t)(x * BINS);
            for (size_t q = 0; q < t.C; q++) {
                double y = (double)(c[k * proc->ncounters + q] - c0[q]) / (double)(c1[q] - c0[q]);
                assert_true(y >= 0 && y <= 1);
                sum[b] += y - curve_at(&t, q, x);
            }
            count[b] += t.C;
        }
        while (i < n && in[i].thread == th)
            i++;
        free(s);
        free(c);
    }
    for (size_t b = 0; b < BINS; b++) {
        assert_true(count[b] >= 50 * t.C);
        if (fabs(sum[b] / (double)count[b]) > 0.005)
            fail_msg("bin %zu: mean residual %.4f over %zu points", b,
                     sum[b] / (double)count[b], count[b]);
    }
    free(in);
    free_truth(&t);
    tf_trace_close(tr);
}

static void test_nested_regions(void **state)
{
    tf_synth_options o;
    small_options(&o);
    o.nested = true;
    o.processes = 1;
    o.threads = 1;
    tf_trace *tr = generate(&o, "nested");
    tf_instance *in;
    size_t n;
    tf_error err;
    assert_int_equal(tf_instances_find(tr, UINT32_MAX, &in, &n, &err), 0);
    assert_int_equal(n, (size_t)I * 6);
    uint32_t copy;
    assert_true(tf_trace_find_string(tr, "copy", &copy));
    size_t ncopy = 0;
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(in[i].status, TF_INSTANCE_COMPLETE);
        if (in[i].region == copy) {
            ncopy++;
            assert_int_equal(in[i].depth, 1);
            /* copy opens its iteration. */
            assert_int_equal(in[i].begin, in[i - 1].begin);
        }
    }
    assert_int_equal(ncopy, I);
    free(in);
    tf_trace_close(tr);
}

/* Every event and sample of two traces, compared. */
static bool same_data(tf_trace *a, tf_trace *b)
{
    if (tf_trace_nprocesses(a) != tf_trace_nprocesses(b))
        return false;
    for (uint32_t p = 0; p < tf_trace_nprocesses(a); p++) {
        const tf_process *pa = tf_trace_process(a, p), *pb = tf_trace_process(b, p);
        if (pa->nthreads != pb->nthreads || pa->ncounters != pb->ncounters)
            return false;
        for (uint32_t th = 0; th < pa->nthreads; th++) {
            const tf_thread *ta = &pa->threads[th], *tb = &pb->threads[th];
            if (ta->nevents != tb->nevents || ta->nsamples != tb->nsamples ||
                memcmp(ta->event_counters, tb->event_counters,
                       ta->nevents * pa->ncounters * sizeof(uint64_t)))
                return false;
            for (size_t e = 0; e < ta->nevents; e++)
                if (ta->events[e].time != tb->events[e].time)
                    return false;
            tf_sample *sa, *sb;
            uint64_t *ca, *cb;
            size_t na, nb;
            read_samples(a, p, th, &sa, &ca, &na);
            read_samples(b, p, th, &sb, &cb, &nb);
            bool same = na == nb && !memcmp(ca, cb, na * pa->ncounters * sizeof *ca);
            for (size_t i = 0; same && i < na; i++)
                same = sa[i].time == sb[i].time && sa[i].ip == sb[i].ip &&
                       sa[i].addr == sb[i].addr && sa[i].kind == sb[i].kind &&
                       sa[i].weight == sb[i].weight && sa[i].level == sb[i].level;
            free(sa);
            free(sb);
            free(ca);
            free(cb);
            if (!same)
                return false;
        }
    }
    return true;
}

static void test_determinism(void **state)
{
    tf_synth_options o;
    small_options(&o);
    o.iterations = 10;
    o.poisson = true;
    o.aslr = true;
    tf_trace *a = generate(&o, "seed1a");
    tf_trace *b = generate(&o, "seed1b");
    o.seed = 2;
    tf_trace *c = generate(&o, "seed2");
    assert_true(same_data(a, b));
    assert_false(same_data(a, c));
    tf_trace_close(a);
    tf_trace_close(b);
    tf_trace_close(c);
}

static void test_sampling_leaves_instances_alone(void **state)
{
    tf_synth_options o;
    small_options(&o);
    o.processes = 1;
    tf_trace *a = generate(&o, "sparse");
    o.samples_per_iteration = 50;
    tf_trace *b = generate(&o, "dense");
    struct truth ta, tb;
    read_truth(a, &ta);
    read_truth(b, &tb);
    assert_memory_equal(ta.totals, tb.totals, ta.n * ta.C * sizeof *ta.totals);
    assert_memory_equal(ta.duration, tb.duration, ta.n * sizeof *ta.duration);
    free_truth(&ta);
    free_truth(&tb);
    tf_trace_close(a);
    tf_trace_close(b);
}

static void test_aslr_shifts_objects(void **state)
{
    tf_synth_options o;
    small_options(&o);
    o.iterations = 4;
    o.aslr = true;
    tf_trace *tr = generate(&o, "aslr");
    const tf_process *p0 = tf_trace_process(tr, 0), *p1 = tf_trace_process(tr, 1);
    assert_int_equal(p0->nobjects, p1->nobjects);
    for (size_t i = 0; i < p0->nobjects; i++) {
        assert_int_equal(p0->objects[i].size, p1->objects[i].size);
        assert_int_not_equal(p0->objects[i].start, p1->objects[i].start);
    }
    tf_trace_close(tr);
}

static void test_refuses_existing_and_bad_options(void **state)
{
    tf_synth_options o;
    small_options(&o);
    o.iterations = 2;
    o.outliers = 0;
    char path[300];
    tf_error err;
    trace_path(path, sizeof path, "exists");
    assert_int_equal(tf_synth_write(&o, path, true, NULL, NULL, &err), 0);
    assert_int_equal(tf_synth_write(&o, path, false, NULL, NULL, &err), -TF_ERR_EXISTS);
    assert_non_null(strstr(err.msg, path));
    o.scenario = "nope";
    assert_int_equal(tf_synth_check(&o, &err), -TF_ERR_USAGE);
    assert_non_null(strstr(err.msg, "--scenario"));
    o.scenario = "phases";
    o.boundary_shift = 0.2;
    assert_int_equal(tf_synth_check(&o, &err), -TF_ERR_USAGE);
    /* A write that fails leaves nothing behind. */
    trace_path(path, sizeof path, "no-such-dir/x");
    o.boundary_shift = 0.01;
    assert_true(tf_synth_write(&o, path, true, NULL, NULL, &err) < 0);
    assert_int_equal(access(path, F_OK), -1);
}

static int make_dir(void **state)
{
    const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    snprintf(dir, sizeof dir, "%s/tf-synth-XXXXXX", tmp);
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    static const char *const names[] = {"totals", "curves", "outliers", "samples", "nested",
                                        "seed1a", "seed1b", "seed2", "sparse", "dense",
                                        "aslr", "exists", "fold", "totals2",
                                        "kinds"};
    char path[300];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        trace_path(path, sizeof path, names[i]);
        unlink(path);
    }
    return rmdir(dir);
}

int main(void)
{
    tf_h5_silence();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_totals_are_integrals),
        cmocka_unit_test(test_curves_and_boundaries),
        cmocka_unit_test(test_outlier_share),
        cmocka_unit_test(test_samples_follow_model),
        cmocka_unit_test(test_curve_is_what_folding_sees),
        cmocka_unit_test(test_two_kinds),
        cmocka_unit_test(test_nested_regions),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_sampling_leaves_instances_alone),
        cmocka_unit_test(test_aslr_shifts_objects),
        cmocka_unit_test(test_refuses_existing_and_bad_options),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
