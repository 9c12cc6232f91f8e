/* SPDX-License-Identifier: BSD-3-Clause */
/* The CSV outputs of a fold (docs/commands/fold.md): instances.csv,
 * curves.csv and, when an instructions counter exists, ratios.csv.  RFC 4180
 * quoting for names; empty fields for values that do not exist (NaN). */
#include "fold_csv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const status_names[] = { "used", "excluded", "incomplete" };
static const char *const reason_names[] = { "", "duration", "shape", "no_end", "mismatched",
                                            "empty" };

static void put_text(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void put_number(FILE *f, double v)
{
    fputc(',', f);
    if (!isnan(v))
        fprintf(f, "%.9g", v);
}

static FILE *open_csv(const char *dir, const char *name, char *path, size_t size,
                      tf_error *err)
{
    snprintf(path, size, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f)
        tf_fail(err, TF_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    return f;
}

static int close_csv(FILE *f, const char *path, tf_error *err)
{
    bool bad = ferror(f);
    if (fclose(f) != 0 || bad)
        return tf_fail(err, TF_ERR_IO, "%s: write error: %s", path, strerror(errno));
    return 0;
}

static int write_instances(const tf_fold_result *res, const char *dir, tf_error *err)
{
    char path[4096];
    FILE *f = open_csv(dir, "instances.csv", path, sizeof path, err);
    if (!f)
        return -TF_ERR_IO;
    fputs("region,group,process,thread,begin_ns,duration_ns,status,reason,samples,score\n", f);
    for (uint32_t r = 0; r < res->nregions; r++) {
        const tf_fold_region *reg = &res->regions[r];
        for (size_t i = 0; i < reg->ninstances; i++) {
            const tf_fold_instance *in = &reg->instances[i];
            put_text(f, reg->name);
            fputc(',', f);
            if (in->group >= 0)
                fprintf(f, "%d", in->group);
            fprintf(f, ",%u,%u,%llu,%llu,%s,%s,%llu", in->proc, in->thread,
                    (unsigned long long)in->begin, (unsigned long long)in->duration,
                    in->status < 3 ? status_names[in->status] : "?",
                    in->reason < 6 ? reason_names[in->reason] : "?",
                    (unsigned long long)in->samples);
            put_number(f, in->score);
            fputc('\n', f);
        }
    }
    return close_csv(f, path, err);
}

/* One row per counter and grid point; with `ratios`, the per-instruction
 * table instead of the curves. */
static int write_grid_table(const tf_fold_result *res, const char *dir, bool ratios,
                            tf_error *err)
{
    char path[4096];
    FILE *f = open_csv(dir, ratios ? "ratios.csv" : "curves.csv", path, sizeof path, err);
    if (!f)
        return -TF_ERR_IO;
    fputs(ratios ? "region,group,counter,x,per_instruction,instances\n"
                 : "region,group,counter,x,y,y_lo,y_hi,rate,rate_lo,rate_hi,instances\n",
          f);
    for (uint32_t r = 0; r < res->nregions; r++) {
        const tf_fold_region *reg = &res->regions[r];
        for (uint32_t gi = 0; gi < reg->ngroups; gi++) {
            const tf_fold_group *g = &reg->groups[gi];
            if (ratios && !g->ratio)
                continue;
            for (uint32_t c = 0; c < reg->ncounters; c++) {
                if (ratios && (int32_t)c == g->instructions)
                    continue;
                size_t off = (size_t)c * g->grid;
                for (uint32_t j = 0; j < g->grid; j++) {
                    put_text(f, reg->name);
                    fprintf(f, ",%u,", g->index);
                    put_text(f, reg->counter_names[c]);
                    put_number(f, g->x[j]);
                    if (ratios) {
                        put_number(f, g->ratio[off + j]);
                    } else {
                        put_number(f, g->curve[off + j]);
                        put_number(f, g->curve_lo[off + j]);
                        put_number(f, g->curve_hi[off + j]);
                        put_number(f, g->rate[off + j]);
                        put_number(f, g->rate_lo[off + j]);
                        put_number(f, g->rate_hi[off + j]);
                    }
                    fprintf(f, ",%u\n", g->counter_instances[c]);
                }
            }
        }
    }
    return close_csv(f, path, err);
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
    if (rc == 0 && tf_fold_has_ratios(res))
        rc = write_grid_table(res, dir, true, err);
    return rc;
}
