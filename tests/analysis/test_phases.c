/* SPDX-License-Identifier: BSD-3-Clause */
/* Code-line progression and phases on the five-phase scenario: routines
 * found, boundaries within ±1 % of the iteration, symgs split into its
 * forward and backward sub-phases by their lines, rates from the curves;
 * samples handed over grouped by coarse bucket sorted as the others. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <unistd.h>

#include "analysis/tables.h"

#include "an_fixture.h"
#include "analysis/analysis_steps.h"

static const char *routine_of(const tf_analysis *a, const tf_analysis_phase *ph)
{
    return ph->routine == TF_ANALYSIS_NONE ? "" : a->routines[ph->routine].function;
}

/* The leaves: top-level phases without sub-phases, and the sub-phases. */
static size_t leaves(const tf_analysis *a, const tf_analysis_phase **out)
{
    size_t n = 0;
    for (size_t k = 0; k < a->nphases; k++) {
        if (a->phases[k].parent != TF_ANALYSIS_NONE) {
            out[n++] = &a->phases[k];
            continue;
        }
        bool has_sub = false;
        for (size_t j = 0; j < a->nphases; j++)
            has_sub |= a->phases[j].parent == k;
        if (!has_sub)
            out[n++] = &a->phases[k];
    }
    return n;
}

static void check_scenario(uint64_t seed, size_t timer_per_instance)
{
    tf_analysis a;
    tf_error err;
    fx_build(&a, 300, timer_per_instance, 0, 1, 1e7, seed);
    assert_int_equal(tf_analysis_compute(&a, NULL, 0, NULL, 0, NULL, &err), 0);
    size_t ntop = 0;
    for (size_t k = 0; k < a.nphases; k++)
        ntop += a.phases[k].parent == TF_ANALYSIS_NONE;
    assert_int_equal(ntop, 4);
    const tf_analysis_phase *leaf[64];
    size_t nl = leaves(&a, leaf);
    assert_int_equal(nl, FX_PHASES);
    /* sub-phases come after the top level: order the leaves by x */
    for (size_t i = 0; i < nl; i++)
        for (size_t j = i + 1; j < nl; j++)
            if (leaf[j]->x0 < leaf[i]->x0) {
                const tf_analysis_phase *t = leaf[i];
                leaf[i] = leaf[j];
                leaf[j] = t;
            }
    for (size_t k = 0; k < FX_PHASES; k++) {
        assert_string_equal(routine_of(&a, leaf[k]), fx_phases[k].routine);
        assert_int_equal(leaf[k]->line, fx_phases[k].line);
        assert_true(fabs(leaf[k]->x0 - fx_boundary(k)) <= 0.01);
        assert_true(fabs(leaf[k]->x1 - fx_boundary(k + 1)) <= 0.01);
        assert_true(fabs(leaf[k]->share - fx_phases[k].share) <= 0.02);
    }
    assert_string_equal(leaf[3]->label, "4.1");
    assert_string_equal(leaf[4]->label, "4.2");
    tf_analysis_clear(&a);
}

static void phases_found_with_thirteen_samples(void **state)
{
    for (uint64_t seed = 1; seed <= 3; seed++)
        check_scenario(seed, 13);
}

static void phases_found_with_three_samples(void **state)
{
    check_scenario(7, 3);
}

static void progression_windows_follow_routines(void **state)
{
    tf_analysis a;
    fx_build(&a, 300, 13, 0, 1, 1e7, 5);
    assert_int_equal(tf_analysis_compute(&a, NULL, 0, NULL, 0, NULL, NULL), 0);
    assert_true(a.nwindows >= 10);
    for (size_t w = 0; w < a.nwindows; w++) {
        double c = (a.windows[w].x0 + a.windows[w].x1) / 2;
        size_t k = 0;
        while (k + 1 < FX_PHASES && c >= fx_boundary(k + 1))
            k++;
        /* windows straddling a jittered boundary may go either way */
        if (fabs(c - fx_boundary(k)) < 0.015 || fabs(c - fx_boundary(k + 1)) < 0.015)
            continue;
        assert_string_equal(a.routines[a.windows[w].routine].function, fx_phases[k].routine);
        assert_int_equal(a.windows[w].line, fx_phases[k].line);
    }
    tf_analysis_clear(&a);
}

/* Instructions at rate[k] per second in phase k of the five-phase scenario
 * (x in [0.29, 0.40) of stencil at stencil_late instead): the normalised
 * cumulative curve on G points, its total per instance of 1e7 ns. */
enum { G = 1001 };
static double ins_curve(double *ins, double stencil_late)
{
    const double ins_rate[FX_PHASES] = { 2.0e9, 4.2e9, 3.0e8, 2.6e9, 1.4e9 };
    double acc = 0;
    for (size_t j = 0; j < G; j++) {
        double x = (double)j / (G - 1);
        ins[j] = acc;
        size_t k = 0;
        while (k + 1 < FX_PHASES && x >= fx_boundary(k + 1))
            k++;
        acc += (k == 1 && x >= 0.29 ? stencil_late : ins_rate[k]) * 1e-2 / (G - 1);
    }
    for (size_t j = 0; j < G; j++)
        ins[j] /= ins[G - 1];
    return acc;
}

static size_t subphases_of(const tf_analysis *a, uint32_t parent)
{
    size_t n = 0;
    for (size_t k = 0; k < a->nphases; k++)
        n += a->phases[k].parent == parent;
    return n;
}

/* A counter curve with a known rate per phase gives MIPS and IPC back; a
 * rate change inside one routine (stencil: 4.2e9 then 2.1e9 instructions
 * per second) splits it into sub-phases there, and a change point of the
 * fold where no rate changes (inside spmv_gather) splits nothing. */
static void rates_and_change_points(void **state)
{
    tf_analysis a;
    fx_build(&a, 300, 13, 0, 1, 1e7, 9);
    static double ins[G], cyc[G];
    double total_ins = ins_curve(ins, 2.1e9);
    for (size_t j = 0; j < G; j++)
        cyc[j] = (double)j / (G - 1);
    tf_analysis_counter c[2] = { { "instructions", total_ins, G, ins, NULL, NULL },
                                 { "cycles", 2.5e9 * 1e-2, G, cyc, NULL, NULL } };
    double cp[] = { fx_boundary(1), 0.29, 0.5 };
    assert_int_equal(tf_analysis_compute(&a, c, 2, cp, 3, NULL, NULL), 0);
    assert_true(a.per_instruction);
    const tf_analysis_phase *copy = &a.phases[0];
    assert_string_equal(a.routines[copy->routine].function, "stream_copy");
    assert_true(fabs(copy->mips - 2000) / 2000 < 0.03);
    assert_true(fabs(copy->ipc - 0.8) / 0.8 < 0.03);
    assert_int_equal(subphases_of(&a, 1), 2);
    assert_int_equal(subphases_of(&a, 2), 0);
    for (size_t k = 0; k < a.nphases; k++)
        if (a.phases[k].parent == 1 && a.phases[k].x0 > a.phases[1].x0) {
            assert_true(fabs(a.phases[k].x0 - 0.29) < 0.002);
            assert_true(fabs(a.phases[k].mips - 2100) / 2100 < 0.03);
        }
    tf_analysis_clear(&a);
}

/* summary.md of a, written to a fresh folder, into buf. */
static void summary_of(const tf_analysis *a, char *buf, size_t size)
{
    char dir[] = "/tmp/tf-phases-XXXXXX", path[512];
    assert_non_null(mkdtemp(dir));
    tf_error err;
    if (tf_analysis_write_tables(&a, 1, dir, &err))
        fail_msg("%s", err.msg);
    snprintf(path, sizeof path, "%s/summary.md", dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    fclose(f);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.') {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* A phase's rate that no thread can reach is not given (issue 30): a
 * task clock running 1.5 CPU-seconds per second, and 12 instructions per
 * cycle in every phase; 0.9 CPU-seconds per second and 0.8 are given, and
 * so is 1.05, above 1 by what the clocks' disagreement can be.  summary.md
 * says which were left out, and which were kept above 1. */
static void impossible_phase_rates(void **state)
{
    (void)state;
    static double ins[G], lin[G];
    static char summary[1 << 16];
    double total_ins = ins_curve(ins, 2.1e9);
    for (size_t j = 0; j < G; j++)
        lin[j] = (double)j / (G - 1);
    for (int run = 0; run < 3; run++) {
        double share = run == 0 ? 1.5 : run == 1 ? 0.9 : 1.05, ipc = run ? 0.8 : 12;
        tf_analysis_counter c[3] = { { "instructions", total_ins, G, ins, NULL, NULL },
                                     { "cycles", total_ins / ipc, G, ins, NULL, NULL },
                                     { "task-clock", share * 1e7, G, lin, NULL, NULL } };
        tf_analysis a;
        fx_build(&a, 300, 13, 0, 1, 1e7, 9);
        assert_int_equal(tf_analysis_compute(&a, c, 3, NULL, 0, NULL, NULL), 0);
        assert_true(a.nphases > 0);
        /* as the fold's group says it (from_fold.c) */
        if (!run) {
            a.rate_dropped = calloc(3, sizeof *a.rate_dropped);
            assert_non_null(a.rate_dropped);
            a.rate_dropped[2] = 7;
        }
        for (size_t k = 0; k < a.nphases; k++) {
            const tf_analysis_phase *ph = &a.phases[k];
            assert_int_equal(isnan(ph->per_unit[2]), !run);
            assert_int_equal(isnan(ph->ipc), !run);
            assert_int_equal(isnan(ph->mips), !run);
            assert_int_equal(isnan(ph->per_unit[1]), !run);
            assert_true(fabs(ph->cpu_share - share) < 1e-6);
            assert_int_equal(ph->ipc_dropped, !run);
        }
        summary_of(&a, summary, sizeof summary);
        const char *note = strstr(summary, "**Rates at a thread's limits**");
        if (run == 1) {
            assert_null(note);
        } else {
            assert_non_null(note);
            bool left = strstr(note, "1.500 CPU-seconds a second, more than one thread can"),
                 many = strstr(note, "instructions a cycle: its MIPS and IPC are left out"),
                 curve = strstr(note, "`task-clock` is left out at 7 grid points"),
                 kept = strstr(note, "ran 1.050 CPU-seconds a second, kept");
            assert_true(left == !run && many == !run && curve == !run && kept == (run == 2));
        }
        tf_analysis_clear(&a);
    }
}

/* Rate changes below --min-change, or not beyond the fit's band, split
 * nothing: stencil's 4.2e9 then 3.6e9 (14 %) stays one phase at 25 %, and
 * is two at 10 %; at 10 %, a band wider than the change keeps it one. */
static void small_or_unsupported_changes(void **state)
{
    static double ins[G], lo[G], hi[G];
    double total_ins = ins_curve(ins, 3.6e9);
    tf_analysis_counter c = { "instructions", total_ins, G, ins, NULL, NULL };
    tf_analysis_params p;
    tf_analysis_params_default(&p);
    size_t expect[3] = { 0, 2, 0 };
    for (int run = 0; run < 3; run++) {
        tf_analysis a;
        fx_build(&a, 300, 13, 0, 1, 1e7, 9);
        p.min_change = run ? 0.10 : 0.25;
        if (run == 2) {
            /* a band of ±20 % around the rate everywhere */
            for (size_t j = 0; j < G; j++) {
                double x = (double)j / (G - 1);
                double r = x >= fx_boundary(1) && x < fx_boundary(2) ? 3.9e9 : 2e9;
                lo[j] = 0.8 * r;
                hi[j] = 1.2 * r;
            }
            c.rate_lo = lo;
            c.rate_hi = hi;
        }
        assert_int_equal(tf_analysis_compute(&a, &c, 1, NULL, 0, &p, NULL), 0);
        assert_int_equal(subphases_of(&a, 1), expect[run]);
        tf_analysis_clear(&a);
    }
}

/* A phase is never at line 0: the routine's most observed known line,
 * or no line at all when none of its samples has one. */
static void no_phase_at_line_zero(void **state)
{
    tf_analysis a;
    fx_build(&a, 300, 13, 0, 1, 1e7, 5);
    uint32_t copy = a.samples[0].routine, stencil = TF_ANALYSIS_NONE;
    for (size_t i = 0; i < a.nsamples; i++) {
        tf_analysis_sample *s = &a.samples[i];
        if (s->routine == copy && i % 3)
            s->line = 0;   /* two thirds unknown: 0 is the mode */
        else if (!strcmp(a.routines[s->routine].function, "stencil_apply")) {
            stencil = s->routine;
            s->line = 0;   /* no line information at all */
        }
    }
    assert_int_equal(tf_analysis_compute(&a, NULL, 0, NULL, 0, NULL, NULL), 0);
    bool seen_copy = false, seen_stencil = false;
    for (size_t k = 0; k < a.nphases; k++) {
        if (a.phases[k].routine == copy) {
            seen_copy = true;
            assert_true(a.phases[k].line >= fx_phases[0].line &&
                        a.phases[k].line <= fx_phases[0].line + 2);
        }
        if (a.phases[k].routine == stencil) {
            seen_stencil = true;
            assert_int_equal(a.phases[k].line, 0);
            assert_int_equal(a.phases[k].parent, TF_ANALYSIS_NONE);
        }
    }
    assert_true(seen_copy && seen_stencil);
    tf_analysis_clear(&a);
}

/* symgs forward and backward on the same lines: only the references to A
 * turning round tell the two sweeps apart. */
static void same_lines_split_by_direction(void **state)
{
    tf_analysis a;
    fx_build(&a, 300, 13, 40, 1, 1e7, 13);
    for (size_t i = 0; i < a.nsamples; i++)
        if (a.samples[i].line >= fx_phases[4].line && a.samples[i].line <= fx_phases[4].line + 2)
            a.samples[i].line -= fx_phases[4].line - fx_phases[3].line;
    assert_int_equal(tf_analysis_compute(&a, NULL, 0, NULL, 0, NULL, NULL), 0);
    const tf_analysis_phase *fwd = NULL, *bwd = NULL;
    for (size_t k = 0; k < a.nphases; k++) {
        if (!strcmp(a.phases[k].label, "4.1"))
            fwd = &a.phases[k];
        if (!strcmp(a.phases[k].label, "4.2"))
            bwd = &a.phases[k];
        /* no other phase turns round */
        assert_true(a.phases[k].parent == TF_ANALYSIS_NONE || a.phases[k].parent == 3);
    }
    assert_non_null(fwd);
    assert_non_null(bwd);
    assert_true(fabs(fwd->x1 - fx_boundary(4)) <= 0.01);
    assert_int_equal(fwd->line, fx_phases[3].line);
    assert_int_equal(bwd->line, fx_phases[3].line);
    int dir_fwd = 0, dir_bwd = 0;
    for (size_t s = 0; s < a.nstreams; s++) {
        if (strcmp(a.objects[a.streams[s].object].name, "main.c:41"))
            continue;
        if (&a.phases[a.streams[s].phase] == fwd)
            dir_fwd = a.streams[s].direction;
        if (&a.phases[a.streams[s].phase] == bwd)
            dir_bwd = a.streams[s].direction;
    }
    assert_int_equal(dir_fwd, 1);
    assert_int_equal(dir_bwd, -1);
    tf_analysis_clear(&a);
}

/* No sample at all: one phase spanning the iteration, nothing else. */
static void empty_input(void **state)
{
    tf_analysis a = { 0 };
    a.region = strdup("empty");
    a.duration_ns = 1e6;
    assert_int_equal(tf_analysis_compute(&a, NULL, 0, NULL, 0, NULL, NULL), 0);
    assert_int_equal(a.nphases, 1);
    assert_true(a.phases[0].x0 == 0 && a.phases[0].x1 == 1);
    assert_int_equal(a.phases[0].routine, TF_ANALYSIS_NONE);
    assert_int_equal(a.nstreams, 0);
    assert_int_equal(a.nlevels, 0);
    tf_analysis_clear(&a);
}

/* A sample outside [0, 1] is refused with a message. */
static void x_out_of_range(void **state)
{
    tf_analysis a = { 0 };
    a.samples = calloc(1, sizeof *a.samples);
    a.nsamples = 1;
    a.samples[0].x = 1.5;
    tf_error err;
    assert_int_equal(tf_analysis_compute(&a, NULL, 0, NULL, 0, NULL, &err), -TF_ERR_USAGE);
    assert_non_null(strstr(err.msg, "outside [0, 1]"));
    tf_analysis_clear(&a);
}

/* Samples in point order with crowds of equal x (the fold's float times)
 * are copied into coarse buckets; the same samples already grouped so are
 * sorted in place.  Both must give the same order, ties included. */
static void grouped_samples_sorted_alike(void **state)
{
    enum { N = 200000 };
    tf_analysis a = { 0 }, b = { 0 };
    a.samples = malloc(N * sizeof *a.samples);
    b.samples = malloc(N * sizeof *b.samples);
    size_t *next = calloc(TF_ANALYSIS_COARSE + 1, sizeof *next);
    assert_true(a.samples && b.samples && next);
    a.nsamples = b.nsamples = N;
    uint64_t r = 7;
    for (size_t i = 0; i < N; i++) {
        r = r * 6364136223846793005ull + 1442695040888963407ull;
        /* a few thousand distinct x: many equal, some crowds over 32 */
        double x = (double)(r >> 52) / 4095.0;
        a.samples[i] = (tf_analysis_sample){ .x = x, .routine = TF_ANALYSIS_NONE,
                                             .object = TF_ANALYSIS_NONE, .point = (uint32_t)i };
        next[tf_analysis_coarse_bucket(x) + 1]++;
    }
    for (size_t k = 1; k < TF_ANALYSIS_COARSE; k++)
        next[k] += next[k - 1];
    for (size_t i = 0; i < N; i++)
        b.samples[next[tf_analysis_coarse_bucket(a.samples[i].x)]++] = a.samples[i];
    assert_int_equal(tf_analysis_compute(&a, NULL, 0, NULL, 0, NULL, NULL), 0);
    assert_int_equal(tf_analysis_compute(&b, NULL, 0, NULL, 0, NULL, NULL), 0);
    for (size_t i = 0; i < N; i++) {
        assert_true(i == 0 || a.samples[i - 1].x <= a.samples[i].x);
        assert_true(a.samples[i].x == b.samples[i].x);
        assert_int_equal(a.samples[i].point, b.samples[i].point);
    }
    free(next);
    tf_analysis_clear(&a);
    tf_analysis_clear(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(phases_found_with_thirteen_samples),
        cmocka_unit_test(phases_found_with_three_samples),
        cmocka_unit_test(progression_windows_follow_routines),
        cmocka_unit_test(rates_and_change_points),
        cmocka_unit_test(impossible_phase_rates),
        cmocka_unit_test(small_or_unsupported_changes),
        cmocka_unit_test(no_phase_at_line_zero),
        cmocka_unit_test(same_lines_split_by_direction),
        cmocka_unit_test(empty_input),
        cmocka_unit_test(x_out_of_range),
        cmocka_unit_test(grouped_samples_sorted_alike),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
