/* SPDX-License-Identifier: BSD-3-Clause */
/* Means are taken over the ordinary instances only, because folding is meant
 * to recover the ordinary iteration and to leave the stalled ones out; with
 * two kinds of instance, also per kind, as a fold that groups them sees. */
#include "truth.h"

#include <stdio.h>
#include <stdlib.h>

#include "formats/h5util.h"
#include "formats/trace.h"

#define MAX_GROUPS 2

/* Sums over the ordinary instances of a group, or of all of them. */
struct means {
    uint64_t n;
    double   duration;
    double  *totals;      /* [C] */
    double  *bounds;      /* [K+1] normalised */
    double  *phase_ns;    /* [K] */
    double  *phase_rate;  /* [K][C] */
    double  *curve;       /* [C][G] */
    double  *slope;       /* [C][G]: r·d/T, d in s */
};

struct tf_synth_truth {
    const tf_synth_options *o;
    const tf_synth_scenario *sc;
    uint32_t K, C, G, ngroups;
    uint64_t ninstances, next;
    struct means all, group[MAX_GROUPS];
    double *curve, *slope;   /* [C][G] of the instance being added */
    /* one row per instance */
    uint64_t *outlier, *group_of, *begin, *duration, *phase_begin, *stall, *totals;
    double   *rates;
};

static void means_free(struct means *m)
{
    free(m->totals);
    free(m->bounds);
    free(m->phase_ns);
    free(m->phase_rate);
    free(m->curve);
    free(m->slope);
}

static bool means_alloc(struct means *m, size_t K, size_t C, size_t G)
{
    m->totals = calloc(C, sizeof(double));
    m->bounds = calloc(K + 1, sizeof(double));
    m->phase_ns = calloc(K, sizeof(double));
    m->phase_rate = calloc(K * C, sizeof(double));
    m->curve = calloc(C * G, sizeof(double));
    m->slope = calloc(C * G, sizeof(double));
    return m->totals && m->bounds && m->phase_ns && m->phase_rate && m->curve && m->slope;
}

void tf_synth_truth_free(tf_synth_truth *t)
{
    if (!t)
        return;
    means_free(&t->all);
    for (uint32_t g = 0; g < MAX_GROUPS; g++)
        means_free(&t->group[g]);
    free(t->curve);
    free(t->slope);
    free(t->outlier);
    free(t->group_of);
    free(t->begin);
    free(t->duration);
    free(t->phase_begin);
    free(t->stall);
    free(t->totals);
    free(t->rates);
    free(t);
}

int tf_synth_truth_create(tf_synth_truth **out, const tf_synth_options *o,
                          const tf_synth_scenario *sc, tf_error *err)
{
    tf_synth_truth *t = calloc(1, sizeof *t);
    if (!t)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the synthetic truth");
    t->o = o;
    t->sc = sc;
    t->K = sc->nphases;
    t->C = o->counters;
    t->G = o->grid;
    t->ngroups = sc->second ? 2 : 1;
    t->ninstances = (uint64_t)o->processes * o->threads * o->iterations;
    size_t N = t->ninstances, K = t->K, C = t->C, G = t->G;
    bool ok = means_alloc(&t->all, K, C, G);
    for (uint32_t g = 0; g < t->ngroups && ok; g++)
        ok = means_alloc(&t->group[g], K, C, G);
    t->curve = malloc(C * G * sizeof(double));
    t->slope = malloc(C * G * sizeof(double));
    t->outlier = calloc(N, sizeof(uint64_t));
    t->group_of = calloc(N, sizeof(uint64_t));
    t->begin = calloc(N, sizeof(uint64_t));
    t->duration = calloc(N, sizeof(uint64_t));
    t->phase_begin = calloc(N * (K + 1), sizeof(uint64_t));
    t->stall = calloc(N * 2, sizeof(uint64_t));
    t->totals = calloc(N * C, sizeof(uint64_t));
    t->rates = calloc(N * K * C, sizeof(double));
    if (!ok || !t->curve || !t->slope || !t->outlier || !t->group_of || !t->begin ||
        !t->duration || !t->phase_begin || !t->stall || !t->totals || !t->rates) {
        tf_synth_truth_free(t);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the synthetic truth");
    }
    *out = t;
    return 0;
}

/* The normalised curve and its slope on the grid, from the exact integral:
 * what an infinitely sampled fold of this one instance would give. */
static void instance_curves(tf_synth_truth *t, const tf_synth_instance *in)
{
    double d = (double)in->duration;
    for (uint32_t c = 0; c < t->C; c++) {
        double *curve = t->curve + (size_t)c * t->G;
        double *slope = t->slope + (size_t)c * t->G;
        double scale = d * 1e-9 / in->total[c];
        uint32_t s = 0;
        for (uint32_t j = 0; j < t->G; j++) {
            double tau = d * j / (t->G - 1);
            s = tf_synth_segment_at(in, tau, s);
            curve[j] = tf_synth_integral(in, s, tau, c) / in->total[c];
            slope[j] = tf_synth_segment_rate(in, s, c) * scale;
        }
    }
}

static void means_add(const tf_synth_truth *t, struct means *m, const tf_synth_instance *in)
{
    size_t K = t->K, C = t->C;
    m->n++;
    m->duration += (double)in->duration;
    for (size_t c = 0; c < C; c++)
        m->totals[c] += in->total[c];
    for (size_t k = 0; k <= K; k++)
        m->bounds[k] += (double)in->phase_begin[k] / (double)in->duration;
    for (size_t k = 0; k < K; k++) {
        m->phase_ns[k] += (double)(in->phase_begin[k + 1] - in->phase_begin[k]);
        for (size_t c = 0; c < C; c++)
            m->phase_rate[k * C + c] += in->rates[k * C + c];
    }
    for (size_t x = 0; x < C * t->G; x++) {
        m->curve[x] += t->curve[x];
        m->slope[x] += t->slope[x];
    }
}

void tf_synth_truth_add(tf_synth_truth *t, const tf_synth_instance *in, uint64_t begin,
                        const uint64_t *totals)
{
    size_t i = t->next++, K = t->K, C = t->C;
    bool outlier = in->stall_len > 0;
    t->outlier[i] = outlier;
    t->group_of[i] = in->kind;
    t->begin[i] = begin;
    t->duration[i] = in->duration;
    for (size_t k = 0; k <= K; k++)
        t->phase_begin[i * (K + 1) + k] = in->phase_begin[k];
    t->stall[2 * i] = in->stall_at;
    t->stall[2 * i + 1] = in->stall_len;
    for (size_t x = 0; x < K * C; x++)
        t->rates[i * K * C + x] = in->rates[x];
    for (size_t c = 0; c < C; c++)
        t->totals[i * C + c] = totals[c];
    if (outlier)
        return;
    instance_curves(t, in);
    means_add(t, &t->all, in);
    if (t->ngroups > 1)
        means_add(t, &t->group[in->kind], in);
}

/* Turns the sums into means (in place: they are not used afterwards) and
 * writes them into g. */
static int means_write(const tf_synth_truth *t, struct means *m, int64_t g, tf_error *err)
{
    size_t K = t->K, C = t->C, G = t->G;
    if (m->n == 0)
        return tf_h5_fail(err, TF_ERR_DATA, g, NULL,
                          "no ordinary instance to compute the truth from");
    double n = (double)m->n;
    double mean_duration = m->duration / n;
    for (size_t c = 0; c < C; c++)
        m->totals[c] /= n;
    for (size_t k = 0; k <= K; k++)
        m->bounds[k] /= n;
    for (size_t k = 0; k < K; k++) {
        m->phase_ns[k] /= n;
        for (size_t c = 0; c < C; c++)
            m->phase_rate[k * C + c] /= n;
    }
    for (size_t c = 0; c < C; c++) {
        double to_rate = m->totals[c] / (mean_duration * 1e-9) / n;
        for (size_t j = 0; j < G; j++) {
            m->curve[c * G + j] /= n;
            m->slope[c * G + j] *= to_rate;
        }
    }
    int rc;
    if ((rc = tf_h5_attr_write_uint64(g, "ordinary", m->n, err)) < 0 ||
        (rc = tf_h5_attr_write_double(g, "mean_duration_ns", mean_duration, err)) < 0 ||
        (rc = tf_h5_write_matrix(g, "curve", TF_H5_DOUBLE, m->curve, C, G, err)) < 0 ||
        (rc = tf_h5_write_matrix(g, "rate", TF_H5_DOUBLE, m->slope, C, G, err)) < 0 ||
        (rc = tf_h5_write_array(g, "mean_totals", TF_H5_DOUBLE, m->totals, C, err)) < 0 ||
        (rc = tf_h5_write_array(g, "boundaries", TF_H5_DOUBLE, m->bounds, K + 1, err)) < 0 ||
        (rc = tf_h5_write_matrix(g, "phase_rate", TF_H5_DOUBLE, m->phase_rate, K, C, err)) < 0 ||
        (rc = tf_h5_write_array(g, "phase_duration_ns", TF_H5_DOUBLE, m->phase_ns, K,
                                err)) < 0)
        return rc;
    return 0;
}

static int write_memory(const tf_synth_truth *t, int64_t truth, tf_error *err)
{
    const double *phase_ns = t->all.phase_ns;   /* already means */
    double mean_duration = t->all.duration / (double)t->all.n;
    const tf_synth_scenario *sc = t->sc;
    size_t M = 0;
    for (uint32_t k = 0; k < sc->nphases; k++)
        M += sc->phases[k].nstreams;
    uint64_t *u = calloc(5 * M + 2 * sc->nobjects, sizeof(uint64_t));
    double *f = calloc(2 * M + sc->nobjects, sizeof(double));
    const char **s = calloc(4 * M + 2 * sc->nobjects, sizeof(char *));
    int64_t mem = -1, obj = -1;
    int rc;
    if (!u || !f || !s) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for the synthetic truth");
        goto done;
    }
    uint64_t *phase = u, *object_id = u + M, *stride = u + 2 * M, *streams = u + 3 * M,
             *bytes = u + 4 * M, *ids = u + 5 * M, *sizes = ids + sc->nobjects;
    double *bandwidth = f, *share = f + M, *obj_share = f + 2 * M;
    const char **object = s, **access = s + M, **pattern = s + 2 * M,
               **direction = s + 3 * M, **obj_label = s + 4 * M,
               **obj_kind = obj_label + sc->nobjects;
    static const char *const pattern_names[] = {"linear", "strided", "random"};

    size_t m = 0;
    for (uint32_t k = 0; k < sc->nphases; k++) {
        const tf_synth_phase *ph = &sc->phases[k];
        uint64_t phase_bytes = 0;
        for (uint32_t i = 0; i < ph->nstreams; i++)
            phase_bytes += ph->streams[i].bytes;
        for (uint32_t i = 0; i < ph->nstreams; i++, m++) {
            const tf_synth_stream *st = &ph->streams[i];
            phase[m] = k;
            object_id[m] = TF_SYNTH_OBJECT_ID(st->object);
            object[m] = tf_synth_object_label(&sc->objects[st->object]);
            access[m] = st->store ? "store" : "load";
            pattern[m] = pattern_names[st->pattern];
            direction[m] = st->direction > 0 ? "up" : st->direction < 0 ? "down" : "none";
            stride[m] = st->stride;
            streams[m] = st->streams;
            bytes[m] = st->bytes;
            bandwidth[m] = (double)st->bytes / (phase_ns[k] * 1e-9) / 1e6;
            share[m] = phase_ns[k] / mean_duration * (double)st->bytes / (double)phase_bytes;
            obj_share[st->object] += share[m];
        }
    }
    for (uint32_t i = 0; i < sc->nobjects; i++) {
        ids[i] = TF_SYNTH_OBJECT_ID(i);
        sizes[i] = tf_synth_object_slice(sc, i) * t->o->threads;
        obj_label[i] = tf_synth_object_label(&sc->objects[i]);
        obj_kind[i] = sc->objects[i].kind == TF_OBJECT_STATIC ? "static" : "heap";
    }

    if ((rc = tf_h5_group_create(truth, "memory", &mem, err)) < 0 ||
        (rc = tf_h5_write_array(mem, "phase", TF_H5_UINT64, phase, M, err)) < 0 ||
        (rc = tf_h5_write_array(mem, "object_id", TF_H5_UINT64, object_id, M, err)) < 0 ||
        (rc = tf_h5_write_strings(mem, "object", object, M, err)) < 0 ||
        (rc = tf_h5_write_strings(mem, "access", access, M, err)) < 0 ||
        (rc = tf_h5_write_strings(mem, "pattern", pattern, M, err)) < 0 ||
        (rc = tf_h5_write_strings(mem, "direction", direction, M, err)) < 0 ||
        (rc = tf_h5_write_array(mem, "stride_bytes", TF_H5_UINT64, stride, M, err)) < 0 ||
        (rc = tf_h5_write_array(mem, "streams", TF_H5_UINT64, streams, M, err)) < 0 ||
        (rc = tf_h5_write_array(mem, "bytes", TF_H5_UINT64, bytes, M, err)) < 0 ||
        (rc = tf_h5_write_array(mem, "bandwidth_MBps", TF_H5_DOUBLE, bandwidth, M,
                                err)) < 0 ||
        (rc = tf_h5_write_array(mem, "share", TF_H5_DOUBLE, share, M, err)) < 0)
        goto done;
    if ((rc = tf_h5_group_create(truth, "objects", &obj, err)) < 0 ||
        (rc = tf_h5_write_array(obj, "id", TF_H5_UINT64, ids, sc->nobjects, err)) < 0 ||
        (rc = tf_h5_write_strings(obj, "label", obj_label, sc->nobjects, err)) < 0 ||
        (rc = tf_h5_write_strings(obj, "kind", obj_kind, sc->nobjects, err)) < 0 ||
        (rc = tf_h5_write_array(obj, "size", TF_H5_UINT64, sizes, sc->nobjects, err)) < 0 ||
        (rc = tf_h5_write_array(obj, "share", TF_H5_DOUBLE, obj_share, sc->nobjects,
                                err)) < 0)
        goto done;
    rc = 0;
done:
    tf_h5_close(obj);
    tf_h5_close(mem);
    free(u);
    free(f);
    free(s);
    return rc;
}

static int write_attributes(const tf_synth_truth *t, int64_t g, tf_error *err)
{
    const tf_synth_options *o = t->o;
    double period = o->period_ns ? (double)o->period_ns
                                 : (double)o->duration_ns / o->samples_per_iteration;
    int rc;
    if ((rc = tf_h5_attr_write_string(g, "scenario", t->sc->name, err)) < 0 ||
        (rc = tf_h5_attr_write_string(g, "region", o->region, err)) < 0 ||
        (rc = tf_h5_attr_write_uint64(g, "seed", o->seed, err)) < 0 ||
        (rc = tf_h5_attr_write_uint64(g, "processes", o->processes, err)) < 0 ||
        (rc = tf_h5_attr_write_uint64(g, "threads", o->threads, err)) < 0 ||
        (rc = tf_h5_attr_write_uint64(g, "iterations", o->iterations, err)) < 0 ||
        (rc = tf_h5_attr_write_uint64(g, "instances", t->ninstances, err)) < 0 ||
        (rc = tf_h5_attr_write_uint64(g, "outliers", t->ninstances - t->all.n, err)) < 0 ||
        (rc = tf_h5_attr_write_uint64(g, "groups", t->ngroups, err)) < 0 ||
        (rc = tf_h5_attr_write_uint64(g, "counters", t->C, err)) < 0 ||
        (rc = tf_h5_attr_write_uint64(g, "phases", t->K, err)) < 0 ||
        (rc = tf_h5_attr_write_uint64(g, "grid_points", t->G, err)) < 0 ||
        (rc = tf_h5_attr_write_double(g, "stall_factor", TF_SYNTH_STALL_FACTOR, err)) < 0 ||
        (rc = tf_h5_attr_write_double(g, "period_ns", period, err)) < 0 ||
        (rc = tf_h5_attr_write_uint64(g, "sample_cost_ns", o->sample_cost_ns, err)) < 0 ||
        (rc = tf_h5_attr_write_string(g, "sampling", o->poisson ? "poisson" : "periodic",
                                      err)) < 0)
        return rc;
    return 0;
}

/* The per-kind means, in /truth/group0 and /truth/group1, when the
 * scenario has two kinds of instance. */
static int write_groups(tf_synth_truth *t, int64_t truth, tf_error *err)
{
    for (uint32_t g = 0; g < t->ngroups && t->ngroups > 1; g++) {
        char name[16];
        int64_t sub = -1;
        snprintf(name, sizeof name, "group%u", g);
        int rc = tf_h5_group_create(truth, name, &sub, err);
        if (rc == 0)
            rc = means_write(t, &t->group[g], sub, err);
        tf_h5_close(sub);
        if (rc < 0)
            return rc;
    }
    return 0;
}

int tf_synth_truth_write(tf_synth_truth *t, int64_t file, tf_error *err)
{
    size_t N = t->ninstances, K = t->K, C = t->C, G = t->G;
    double *grid = malloc(G * sizeof *grid);
    const char **names = calloc(C + 3 * K, sizeof *names);
    char *namebuf = malloc((size_t)C * 16);
    uint64_t *lines = malloc(K * sizeof *lines);
    int64_t g = -1;
    int rc;
    if (!grid || !names || !namebuf || !lines) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for the synthetic truth");
        goto done;
    }
    for (size_t j = 0; j < G; j++)
        grid[j] = (double)j / (double)(G - 1);
    for (uint32_t c = 0; c < C; c++)
        names[c] = tf_synth_counter_name(c, namebuf + 16 * c, 16);
    const char **phase_name = names + C, **routine = phase_name + K, **source = routine + K;
    for (size_t k = 0; k < K; k++) {
        phase_name[k] = t->sc->phases[k].name;
        routine[k] = t->sc->phases[k].routine;
        source[k] = t->sc->phases[k].file;
        lines[k] = t->sc->phases[k].line;
    }

    if ((rc = tf_h5_group_create(file, "truth", &g, err)) < 0 ||
        (rc = write_attributes(t, g, err)) < 0 ||
        (rc = means_write(t, &t->all, g, err)) < 0 ||
        (rc = write_groups(t, g, err)) < 0 ||
        (rc = tf_h5_write_strings(g, "counter_names", names, C, err)) < 0 ||
        (rc = tf_h5_write_array(g, "grid", TF_H5_DOUBLE, grid, G, err)) < 0 ||
        (rc = tf_h5_write_strings(g, "phase_name", phase_name, K, err)) < 0 ||
        (rc = tf_h5_write_strings(g, "phase_routine", routine, K, err)) < 0 ||
        (rc = tf_h5_write_strings(g, "phase_file", source, K, err)) < 0 ||
        (rc = tf_h5_write_array(g, "phase_line", TF_H5_UINT64, lines, K, err)) < 0 ||
        (rc = tf_h5_write_array(g, "instance_outlier", TF_H5_UINT64, t->outlier, N,
                                err)) < 0 ||
        (rc = tf_h5_write_array(g, "instance_group", TF_H5_UINT64, t->group_of, N,
                                err)) < 0 ||
        (rc = tf_h5_write_array(g, "instance_begin_ns", TF_H5_UINT64, t->begin, N, err)) < 0 ||
        (rc = tf_h5_write_array(g, "instance_duration_ns", TF_H5_UINT64, t->duration, N,
                                err)) < 0 ||
        (rc = tf_h5_write_matrix(g, "instance_phase_begin_ns", TF_H5_UINT64, t->phase_begin, N,
                                 K + 1, err)) < 0 ||
        (rc = tf_h5_write_matrix(g, "instance_stall_ns", TF_H5_UINT64, t->stall, N, 2,
                                 err)) < 0 ||
        (rc = tf_h5_write_matrix(g, "instance_rate", TF_H5_DOUBLE, t->rates, N, K * C,
                                 err)) < 0 ||
        (rc = tf_h5_write_matrix(g, "instance_totals", TF_H5_UINT64, t->totals, N, C, err)) < 0)
        goto done;
    if (t->o->memory)
        rc = write_memory(t, g, err);
done:
    tf_h5_close(g);
    free(grid);
    free(names);
    free(namebuf);
    free(lines);
    return rc;
}
