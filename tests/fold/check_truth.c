/* SPDX-License-Identifier: BSD-3-Clause */
/* fold_check_truth TRACE FOLD.h5: compares a fold of a `tracefold synth`
 * trace with the truth stored in the trace (/truth, docs/commands/synth.md)
 * and prints one "metric value" line per measure, for the accuracy tests to
 * assert and for docs/algorithms.md to quote:
 *
 *   curve_max_err      max |fitted − true| normalised curve, worst counter
 *   rate_mean_rel_err  mean relative rate error outside ±2 % windows around
 *                      the true phase boundaries, worst counter
 *   change_max_dist    largest distance from a true boundary to the nearest
 *                      boundary found (normalised time)
 *   change_spurious    boundaries found farther than 1 % from every true one
 *   outlier_recall     share of stalled instances excluded
 *   ordinary_kept      share of ordinary instances used
 *   mean_rate_rel_err  |mean of the rate curve − total/duration of the used
 *                      instances| / that, worst counter
 *   ratio_mean_rel_err mean relative error of the per-instruction ratios
 *                      outside the same windows, worst counter
 *   band_coverage      share of the truth's grid points where the true
 *                      curve lies within the fitted curve's band, worst
 *                      counter (0 when the fold has no bands)
 *   change_rate_err    mean |fitted − true| rate within the ±2 % windows
 *                      around the true boundaries where the counter's rate
 *                      changes by half or more, relative to the size of
 *                      the change, worst counter
 *   rate_band_coverage_near, rate_band_coverage_far
 *                      share of the grid where the rate band holds the
 *                      true rate, within the ±2 % windows and outside
 *                      them, worst counter
 *
 * plus per-counter lines "curve_max_err.NAME", "rate_mean_rel_err.NAME",
 * "band_coverage.NAME", "change_rate_err.NAME", "rate_band_coverage_near.NAME"
 * and "rate_band_coverage_far.NAME". */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fold/fold_result.h"
#include "formats/h5util.h"

#define WINDOW 0.02
#define SPURIOUS 0.01

struct truth {
    size_t nc, grid, nb, ninst;
    char **names;
    double *x, *curve, *rate, *boundaries;
    uint64_t *outlier;
};

static int load_truth(const char *path, struct truth *t, tf_error *err)
{
    int64_t file, grp;
    int rc = tf_h5_file_open(path, false, &file, err);
    if (rc < 0)
        return rc;
    size_t rows, cols;
    if ((rc = tf_h5_group_open(file, "truth", &grp, err)) == 0) {
        if ((rc = tf_h5_read_strings(grp, "counter_names", &t->names, &t->nc, err)) == 0 &&
            (rc = tf_h5_read_array(grp, "grid", TF_H5_DOUBLE, (void **)&t->x, &t->grid, &cols,
                                   err)) == 0 &&
            (rc = tf_h5_read_array(grp, "curve", TF_H5_DOUBLE, (void **)&t->curve, &rows, &cols,
                                   err)) == 0 &&
            (rc = tf_h5_read_array(grp, "rate", TF_H5_DOUBLE, (void **)&t->rate, &rows, &cols,
                                   err)) == 0 &&
            (rc = tf_h5_read_array(grp, "boundaries", TF_H5_DOUBLE, (void **)&t->boundaries,
                                   &t->nb, &cols, err)) == 0)
            rc = tf_h5_read_array(grp, "instance_outlier", TF_H5_UINT64, (void **)&t->outlier,
                                  &t->ninst, &cols, err);
        if (rc == 0 && (rows != t->nc || cols != 0))
            rc = tf_fail(err, TF_ERR_FORMAT, "%s: /truth shapes disagree", path);
        tf_h5_close(grp);
    }
    tf_h5_close(file);
    return rc;
}

static void free_truth(struct truth *t)
{
    free(t->names);
    free(t->x);
    free(t->curve);
    free(t->rate);
    free(t->boundaries);
    free(t->outlier);
}

/* The fitted row at x, by linear interpolation on the fold's grid. */
static double at(const double *row, uint32_t grid, double x)
{
    double pos = x * (grid - 1);
    size_t j = pos <= 0 ? 0 : pos >= grid - 1 ? grid - 2 : (size_t)pos;
    double f = pos - (double)j;
    return row[j] + f * (row[j + 1] - row[j]);
}

static bool near_boundary(const struct truth *t, double x)
{
    for (size_t k = 1; k + 1 < t->nb; k++)
        if (fabs(x - t->boundaries[k]) <= WINDOW)
            return true;
    return false;
}

/* The size of the change of a true rate row (on the truth's grid) at the
 * true boundary within WINDOW of x: |rate after − rate before|, read just
 * outside the window; 0 when x is near none or the counter's change there
 * is less than half its larger rate (a change of another counter). */
static double change_size(const struct truth *t, const double *row, double x)
{
    for (size_t k = 1; k + 1 < t->nb; k++) {
        if (fabs(x - t->boundaries[k]) > WINDOW)
            continue;
        double a = t->boundaries[k] - 1.5 * WINDOW, b = t->boundaries[k] + 1.5 * WINDOW;
        size_t ja = (size_t)fmax(0, a * (double)(t->grid - 1));
        size_t jb = (size_t)fmin((double)(t->grid - 1), b * (double)(t->grid - 1));
        double step = fabs(row[jb] - row[ja]);
        return step >= 0.5 * fmax(row[ja], row[jb]) ? step : 0;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: fold_check_truth TRACE FOLD.h5\n");
        return 2;
    }
    tf_error err;
    struct truth t = { 0 };
    tf_fold_result *res;
    if (load_truth(argv[1], &t, &err) < 0 || tf_fold_result_load(argv[2], &res, &err) < 0) {
        fprintf(stderr, "fold_check_truth: %s\n", err.msg);
        free_truth(&t);
        return 1;
    }
    const tf_fold_region *r = &res->regions[0];
    const tf_fold_group *g = &r->groups[0];
    double curve_worst = 0, rate_worst = 0, mean_worst = 0, cover_worst = 1, change_worst = 0;
    double rate_far_worst = 1, rate_near_worst = 1;
    for (size_t tc = 0; tc < t.nc; tc++) {
        uint32_t c = 0;
        while (c < r->ncounters && strcmp(r->counter_names[c], t.names[tc]))
            c++;
        if (c == r->ncounters) {
            fprintf(stderr, "fold_check_truth: counter %s missing from the fold\n", t.names[tc]);
            tf_fold_result_free(res);
            free_truth(&t);
            return 1;
        }
        const double *curve = g->curve + (size_t)c * g->grid, *rate = g->rate + (size_t)c * g->grid;
        const double *lo = g->curve_lo + (size_t)c * g->grid;
        const double *hi = g->curve_hi + (size_t)c * g->grid;
        const double *rlo = g->rate_lo + (size_t)c * g->grid;
        const double *rhi = g->rate_hi + (size_t)c * g->grid;
        double cmax = 0, rsum = 0;
        size_t rn = 0, covered = 0, rcov_far = 0, rn_far = 0, rcov_near = 0, rn_near = 0;
        double tsum = 0;
        size_t tn = 0;
        for (size_t j = 0; j < t.grid; j++) {
            double x = t.x[j], truth = t.curve[tc * t.grid + j];
            cmax = fmax(cmax, fabs(at(curve, g->grid, x) - truth));
            /* a band of NaN covers nothing: the comparison is false */
            covered += at(lo, g->grid, x) <= truth && truth <= at(hi, g->grid, x);
            double tr = t.rate[tc * t.grid + j];
            bool rin = at(rlo, g->grid, x) <= tr && tr <= at(rhi, g->grid, x);
            if (near_boundary(&t, x)) {
                rcov_near += rin;
                rn_near++;
                double step = change_size(&t, t.rate + tc * t.grid, x);
                if (step > 0) {
                    tsum += fabs(at(rate, g->grid, x) - tr) / step;
                    tn++;
                }
            } else {
                rcov_far += rin;
                rn_far++;
            }
            if (!near_boundary(&t, x) && tr > 0) {
                rsum += fabs(at(rate, g->grid, x) - tr) / tr;
                rn++;
            }
        }
        double rerr = rn ? rsum / (double)rn : NAN;
        printf("curve_max_err.%s %.6g\nrate_mean_rel_err.%s %.6g\n", t.names[tc], cmax,
               t.names[tc], rerr);
        double cover = (double)covered / (double)t.grid;
        printf("band_coverage.%s %.6g\n", t.names[tc], cover);
        double terr = tn ? tsum / (double)tn : 0;
        printf("change_rate_err.%s %.6g\n", t.names[tc], terr);
        change_worst = fmax(change_worst, terr);
        double rfar = rn_far ? (double)rcov_far / (double)rn_far : 1.0;
        double rnear = rn_near ? (double)rcov_near / (double)rn_near : 1.0;
        printf("rate_band_coverage_far.%s %.6g\nrate_band_coverage_near.%s %.6g\n", t.names[tc],
               rfar, t.names[tc], rnear);
        rate_far_worst = fmin(rate_far_worst, rfar);
        rate_near_worst = fmin(rate_near_worst, rnear);
        cover_worst = fmin(cover_worst, cover);
        curve_worst = fmax(curve_worst, cmax);
        rate_worst = fmax(rate_worst, rerr);

        /* Mean of the rate curve (trapezoid) against total/duration. */
        double integral = 0;
        for (uint32_t j = 0; j + 1 < g->grid; j++)
            integral += (rate[j] + rate[j + 1]) / 2 * (g->x[j + 1] - g->x[j]);
        double tot = 0, dur = 0;
        for (size_t i = 0; i < r->ninstances; i++) {
            uint64_t d = r->counter_delta[i * r->ncounters + c];
            if (r->instances[i].status != TF_FOLD_USED || d == TF_NOVALUE || d == 0)
                continue;
            tot += (double)d;
            dur += (double)r->instances[i].duration * 1e-9;
        }
        mean_worst = fmax(mean_worst, fabs(integral - tot / dur) / (tot / dur));
    }

    /* Per-instruction ratios against the ratio of the true rates. */
    double ratio_worst = 0;
    size_t ti = 0;
    while (ti < t.nc && strcmp(t.names[ti], "instructions"))
        ti++;
    for (size_t tc = 0; g->ratio && ti < t.nc && tc < t.nc; tc++) {
        uint32_t c = 0;
        while (c < r->ncounters && strcmp(r->counter_names[c], t.names[tc]))
            c++;
        if (tc == ti || c == r->ncounters)
            continue;
        double sum = 0;
        size_t n = 0;
        for (size_t j = 0; j < t.grid; j++) {
            double ins = t.rate[ti * t.grid + j], truth = t.rate[tc * t.grid + j] / ins;
            if (near_boundary(&t, t.x[j]) || !(ins > 0) || !(truth > 0))
                continue;
            sum += fabs(at(g->ratio + (size_t)c * g->grid, g->grid, t.x[j]) - truth) / truth;
            n++;
        }
        ratio_worst = fmax(ratio_worst, n ? sum / (double)n : 0);
    }

    double far = 0;
    for (size_t k = 1; k + 1 < t.nb; k++) {
        double best = INFINITY;
        for (size_t b = 0; b < g->nboundaries; b++)
            best = fmin(best, fabs(g->boundaries[b] - t.boundaries[k]));
        far = fmax(far, best);
    }
    size_t spurious = 0;
    for (size_t b = 0; b < g->nboundaries; b++) {
        bool near = false;
        for (size_t k = 1; k + 1 < t.nb; k++)
            near |= fabs(g->boundaries[b] - t.boundaries[k]) <= SPURIOUS;
        spurious += !near;
    }

    if (t.ninst != r->ninstances) {
        fprintf(stderr, "fold_check_truth: %zu instances in the truth, %zu in the fold\n",
                t.ninst, r->ninstances);
        tf_fold_result_free(res);
        free_truth(&t);
        return 1;
    }
    size_t outliers = 0, caught = 0, ordinary = 0, kept = 0;
    for (size_t i = 0; i < t.ninst; i++) {
        bool used = r->instances[i].status == TF_FOLD_USED;
        if (t.outlier[i]) {
            outliers++;
            caught += !used;
        } else {
            ordinary++;
            kept += used;
        }
    }
    printf("curve_max_err %.6g\n", curve_worst);
    printf("rate_mean_rel_err %.6g\n", rate_worst);
    printf("change_max_dist %.6g\n", t.nb > 2 ? far : 0.0);
    printf("change_spurious %zu\n", spurious);
    printf("outlier_recall %.6g\n", outliers ? (double)caught / (double)outliers : 1.0);
    printf("ordinary_kept %.6g\n", ordinary ? (double)kept / (double)ordinary : 1.0);
    printf("mean_rate_rel_err %.6g\n", mean_worst);
    printf("ratio_mean_rel_err %.6g\n", ratio_worst);
    printf("band_coverage %.6g\n", cover_worst);
    printf("change_rate_err %.6g\n", change_worst);
    printf("rate_band_coverage_near %.6g\nrate_band_coverage_far %.6g\n", rate_near_worst,
           rate_far_worst);
    tf_fold_result_free(res);
    free_truth(&t);
    return 0;
}
