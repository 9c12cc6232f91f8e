/* SPDX-License-Identifier: BSD-3-Clause */
/* The CSV outputs of a fold (docs/commands/fold.md): instances.csv,
 * curves.csv, totals.csv and, when an instructions counter exists,
 * ratios.csv.  A counter that moves in one step per instance
 * (fold_steps.h) has no rate: its rate fields are empty, its total per
 * iteration is in totals.csv.  RFC 4180
 * quoting for names; empty fields for values that do not exist (NaN). */
#include "fold_csv.h"

#include "formats/csv_write.h"
#include "fold_steps.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const status_names[] = { "used", "excluded", "incomplete" };
static const char *const reason_names[] = { "", "duration", "shape", "no_end", "mismatched",
                                            "empty", "preempted" };

/* A leading comma and the value: the curve tables' fields. */
static void put_number(FILE *f, double v)
{
    fputc(',', f);
    tf_csv_number(f, v, 9);
}

static int write_instances(const tf_fold_result *res, const char *dir, tf_error *err)
{
    static const char name[] = "instances.csv";
    FILE *f;
    int rc = tf_out_open(dir, name, &f, err);
    if (rc)
        return rc;
    fputs("region,group,process,thread,begin_ns,duration_ns,status,reason,samples,score,"
          "threads\n", f);
    for (uint32_t r = 0; r < res->nregions; r++) {
        const tf_fold_region *reg = &res->regions[r];
        for (size_t i = 0; i < reg->ninstances; i++) {
            const tf_fold_instance *in = &reg->instances[i];
            tf_csv_text(f, reg->name);
            fputc(',', f);
            if (in->group >= 0)
                fprintf(f, "%d", in->group);
            fprintf(f, ",%u,%u,%llu,%llu,%s,%s,%llu", in->proc, in->thread,
                    (unsigned long long)in->begin, (unsigned long long)in->duration,
                    in->status < 3 ? status_names[in->status] : "?",
                    in->reason < TF_FOLD_NREASONS ? reason_names[in->reason] : "?",
                    (unsigned long long)in->samples);
            put_number(f, in->score);
            fprintf(f, ",%u\n", in->threads);
        }
    }
    return tf_out_close(f, dir, name, err);
}

/* step[c]: whether counter c of group g moves in one step per instance. */
static int group_steps(const tf_fold_region *reg, const tf_fold_group *g, bool *step,
                       tf_error *err)
{
    if (reg->ncounters > TF_MAX_COUNTERS)
        return tf_fail(err, TF_ERR_FORMAT, "region %s has %u counters, more than %d", reg->name,
                       reg->ncounters, TF_MAX_COUNTERS);
    return tf_fold_group_steps(reg, g, step, err);
}

/* One row per counter and grid point; with `ratios`, the per-instruction
 * table instead of the curves. */
static int write_grid_table(const tf_fold_result *res, const char *dir, bool ratios,
                            tf_error *err)
{
    const char *name = ratios ? "ratios.csv" : "curves.csv";
    FILE *f;
    int rc = tf_out_open(dir, name, &f, err);
    if (rc)
        return rc;
    fputs(ratios ? "region,group,counter,x,per_instruction,instances\n"
                 : "region,group,counter,x,y,y_lo,y_hi,rate,rate_lo,rate_hi,instances\n",
          f);
    for (uint32_t r = 0; r < res->nregions; r++) {
        const tf_fold_region *reg = &res->regions[r];
        for (uint32_t gi = 0; gi < reg->ngroups; gi++) {
            const tf_fold_group *g = &reg->groups[gi];
            if (ratios && !g->ratio)
                continue;
            bool step[TF_MAX_COUNTERS];
            if ((rc = group_steps(reg, g, step, err)) < 0)
                goto fail;
            for (uint32_t c = 0; c < reg->ncounters; c++) {
                if (ratios && (int32_t)c == g->instructions)
                    continue;
                size_t off = (size_t)c * g->grid;
                /* a step has no rate (fold_steps.h) */
                double no_rate = step[c] ? NAN : 1;
                for (uint32_t j = 0; j < g->grid; j++) {
                    tf_csv_text(f, reg->name);
                    fprintf(f, ",%u,", g->index);
                    tf_csv_text(f, reg->counter_names[c]);
                    put_number(f, g->x[j]);
                    if (ratios) {
                        put_number(f, no_rate * g->ratio[off + j]);
                    } else {
                        put_number(f, g->curve[off + j]);
                        put_number(f, g->curve_lo[off + j]);
                        put_number(f, g->curve_hi[off + j]);
                        put_number(f, no_rate * g->rate[off + j]);
                        put_number(f, no_rate * g->rate_lo[off + j]);
                        put_number(f, no_rate * g->rate_hi[off + j]);
                    }
                    fprintf(f, ",%u\n", g->counter_instances[c]);
                }
            }
        }
    }
    return tf_out_close(f, dir, name, err);
fail:
    fclose(f);
    return rc;
}

/* Every counter's mean total per iteration of each group, and whether it
 * moves in one step per iteration (its only figure, then). */
static int write_totals(const tf_fold_result *res, const char *dir, tf_error *err)
{
    static const char name[] = "totals.csv";
    FILE *f;
    int rc = tf_out_open(dir, name, &f, err);
    if (rc)
        return rc;
    fputs("region,group,counter,total_per_iteration,instances,step\n", f);
    for (uint32_t r = 0; r < res->nregions; r++) {
        const tf_fold_region *reg = &res->regions[r];
        for (uint32_t gi = 0; gi < reg->ngroups; gi++) {
            const tf_fold_group *g = &reg->groups[gi];
            bool step[TF_MAX_COUNTERS];
            if ((rc = group_steps(reg, g, step, err)) < 0)
                goto fail;
            for (uint32_t c = 0; c < reg->ncounters; c++) {
                size_t n;
                double total = tf_fold_group_total(reg, g, c, &n);
                tf_csv_text(f, reg->name);
                fprintf(f, ",%u,", g->index);
                tf_csv_text(f, reg->counter_names[c]);
                put_number(f, total);
                fprintf(f, ",%zu,%d\n", n, step[c]);
            }
        }
    }
    return tf_out_close(f, dir, name, err);
fail:
    fclose(f);
    return rc;
}

bool tf_fold_has_ratios(const tf_fold_result *res)
{
    for (uint32_t r = 0; r < res->nregions; r++)
        for (uint32_t g = 0; g < res->regions[r].ngroups; g++)
            if (res->regions[r].groups[g].ratio)
                return true;
    return false;
}

int tf_fold_write_csv(const tf_fold_result *res, const char *dir, tf_error *err)
{
    int rc = write_instances(res, dir, err);
    if (rc == 0)
        rc = write_grid_table(res, dir, false, err);
    if (rc == 0)
        rc = write_totals(res, dir, err);
    if (rc == 0 && tf_fold_has_ratios(res))
        rc = write_grid_table(res, dir, true, err);
    return rc;
}
