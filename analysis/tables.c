/* SPDX-License-Identifier: BSD-3-Clause */
/* CSV (RFC 4180 quoting: a field with a comma or quote is quoted, quotes
 * doubled, control characters escaped as tf_escape.h says; a missing number
 * is an empty field) and Markdown.  The
 * objects tables list the referenced objects only (a process has hundreds
 * of statics the iteration never touches); fold.h5 keeps them all. */
#include "tables.h"
#include "advice.h"

#include "formats/csv_write.h"
#include "extract/sampling_advice.h"
#include "common/tf_escape.h"
#include "fold/rate_check.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void put_number(FILE *f, double v)
{
    tf_csv_number(f, v, 6);
}

static const char *direction_name(int d)
{
    return d > 0 ? "up" : d < 0 ? "down" : "none";
}

static const char *phase_label(const tf_analysis *a, uint32_t ph)
{
    return ph == TF_ANALYSIS_NONE ? "all" : a->phases[ph].label;
}

static const char *routine_name(const tf_analysis *a, uint32_t r)
{
    return r == TF_ANALYSIS_NONE ? "" : a->routines[r].function;
}

static const char *routine_file(const tf_analysis *a, uint32_t r)
{
    return r == TF_ANALYSIS_NONE ? "" : a->routines[r].file;
}

static void modes_text(const tf_analysis_level *l, char *buf, size_t size, const char *sep)
{
    buf[0] = '\0';
    size_t used = 0;
    for (unsigned m = 0; m < l->nmodes && used < size; m++)
        used += (size_t)snprintf(buf + used, size - used, "%s%.0f", m ? sep : "", l->modes[m]);
}

/* The rate columns: the union of the counters over the analyses, each
 * per instruction when its first analysis has an instructions counter,
 * else per second; the instructions counter itself is the mips column. */
struct rate_columns {
    const char **names;
    bool        *per_instr;
    size_t       n;
};

static int rate_columns(const tf_analysis *const *a, size_t n, struct rate_columns *rc)
{
    size_t max = 0;
    for (size_t i = 0; i < n; i++)
        max += a[i]->ncounters;
    rc->names = malloc((max + 1) * sizeof *rc->names);
    rc->per_instr = malloc((max + 1) * sizeof *rc->per_instr);
    rc->n = 0;
    if (!rc->names || !rc->per_instr)
        return -1;
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < a[i]->ncounters; c++) {
            const char *name = a[i]->counter_names[c];
            bool seen = tf_analysis_is_instructions(name);
            for (size_t j = 0; j < rc->n && !seen; j++)
                seen = !strcmp(rc->names[j], name);
            if (seen)
                continue;
            rc->per_instr[rc->n] = a[i]->per_instruction;
            rc->names[rc->n++] = name;
        }
    return 0;
}

static double phase_rate(const tf_analysis *a, const tf_analysis_phase *ph, const char *name,
                         bool per_instr)
{
    if (!ph->per_unit || a->per_instruction != per_instr)
        return NAN;
    for (size_t c = 0; c < a->ncounters; c++)
        if (!strcmp(a->counter_names[c], name))
            return ph->per_unit[c];
    return NAN;
}

static void write_phases(FILE *f, const tf_analysis *const *a, size_t n,
                         const struct rate_columns *rc)
{
    fputs("region,group,phase,x_begin,x_end,begin_ns,end_ns,routine,file,line,share,waiting,"
          "mips,ipc", f);
    for (size_t c = 0; c < rc->n; c++) {
        fputc(',', f);
        char col[512];
        snprintf(col, sizeof col, "%s_%s", rc->names[c], rc->per_instr[c] ? "per_instr" : "per_s");
        tf_csv_text(f, col);
    }
    fputc('\n', f);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < a[i]->nphases; k++) {
            const tf_analysis_phase *ph = &a[i]->phases[k];
            tf_csv_text(f, a[i]->region);
            fprintf(f, ",%u,%s,%.6f,%.6f,%.0f,%.0f,", a[i]->group, ph->label, ph->x0, ph->x1,
                    ph->x0 * a[i]->duration_ns, ph->x1 * a[i]->duration_ns);
            tf_csv_text(f, routine_name(a[i], ph->routine));
            fputc(',', f);
            tf_csv_text(f, routine_file(a[i], ph->routine));
            /* no line information: an empty line, never line 0 */
            fputc(',', f);
            if (ph->line)
                fprintf(f, "%u", ph->line);
            fprintf(f, ",%.6f,%.6f,", ph->share, ph->waiting);
            put_number(f, ph->mips);
            fputc(',', f);
            put_number(f, ph->ipc);
            for (size_t c = 0; c < rc->n; c++) {
                fputc(',', f);
                put_number(f, phase_rate(a[i], ph, rc->names[c], rc->per_instr[c]));
            }
            fputc('\n', f);
        }
}

static void write_objects(FILE *f, const tf_analysis *const *a, size_t n)
{
    fputs("region,group,object,kind,size_bytes,share,loads,stores,allocations,routine\n", f);
    for (size_t i = 0; i < n; i++)
        for (size_t o = 0; o < a[i]->nobjects; o++) {
            const tf_analysis_object *ob = &a[i]->objects[o];
            if (!ob->refs)
                continue;
            tf_csv_text(f, a[i]->region);
            fprintf(f, ",%u,", a[i]->group);
            tf_csv_text(f, ob->name);
            fprintf(f, ",%s,%llu,%.6f,%zu,%zu,%zu,", tf_analysis_object_kind_name(ob->kind),
                    (unsigned long long)ob->size, ob->share, ob->loads, ob->stores,
                    ob->allocations);
            tf_csv_text(f, ob->routine ? ob->routine : "");
            fputc('\n', f);
        }
}

static void write_streams(FILE *f, const tf_analysis *const *a, size_t n)
{
    fputs("region,group,phase,object,direction,stride_bytes,streams,pattern,bytes,bandwidth_MBps,"
          "stride_from\n",
          f);
    for (size_t i = 0; i < n; i++)
        for (size_t s = 0; s < a[i]->nstreams; s++) {
            const tf_analysis_stream *st = &a[i]->streams[s];
            tf_csv_text(f, a[i]->region);
            fprintf(f, ",%u,%s,", a[i]->group, phase_label(a[i], st->phase));
            tf_csv_text(f, a[i]->objects[st->object].name);
            fprintf(f, ",%s,%llu,%u,%s,%.0f,", direction_name(st->direction),
                    (unsigned long long)st->stride, st->streams, tf_analysis_pattern_name(st->pattern),
                    st->bytes);
            put_number(f, st->bandwidth);
            fprintf(f, ",%s\n", tf_analysis_stride_from_name(st->stride_from));
        }
}

static void write_levels(FILE *f, const tf_analysis *const *a, size_t n)
{
    fputs("region,group,phase,level,share,mean_cost,cost_modes\n", f);
    for (size_t i = 0; i < n; i++)
        for (size_t l = 0; l < a[i]->nlevels; l++) {
            const tf_analysis_level *lv = &a[i]->levels[l];
            char modes[128];
            modes_text(lv, modes, sizeof modes, ";");
            tf_csv_text(f, a[i]->region);
            fprintf(f, ",%u,%s,%s,%.6f,", a[i]->group, phase_label(a[i], lv->phase),
                    tf_analysis_level_name(lv->level), lv->share);
            put_number(f, lv->mean_cost);
            fprintf(f, ",%s\n", modes);
        }
}

/* Markdown cells: control characters escaped (tf_escape.h); '|' would end
 * the cell. */
static void md_text(FILE *f, const char *s)
{
    tf_escape_put_marked(f, s, '|', '\\');
}

static void md_number(FILE *f, int decimals, double v)
{
    if (isnan(v))
        fputs("–", f);
    else
        fprintf(f, "%.*f", decimals, v);
}

static void write_advice(FILE *f, const tf_analysis *const *a, size_t n)
{
    fputs("region,group,phase,object,finding,suggestion,evidence,expected_gain\n", f);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < a[i]->nadvice; k++) {
            const tf_analysis_advice *ad = &a[i]->advice[k];
            tf_csv_text(f, a[i]->region);
            fprintf(f, ",%u,%s,", a[i]->group, phase_label(a[i], ad->phase));
            tf_csv_text(f, a[i]->objects[ad->object].name);
            fprintf(f, ",%s,", ad->finding);
            tf_csv_text(f, ad->suggestion);
            fputc(',', f);
            tf_csv_text(f, ad->evidence);
            fprintf(f, ",%.4f\n", ad->expected_gain);
        }
}

/* The advice section of summary.md: each piece with its evidence, or why
 * there is none, and the rules a machine profile would have let run. */
static void summary_advice(FILE *f, const tf_analysis *a)
{
    fputs("### Advice\n\n", f);
    if (a->nadvice == 0)
        fputs("None: no rule's evidence is strong enough (thresholds in docs/algorithms.md, "
              "\"Advice\").\n\n", f);
    for (size_t k = 0; k < a->nadvice; k++) {
        const tf_analysis_advice *ad = &a->advice[k];
        fprintf(f, "- phase %s, `", phase_label(a, ad->phase));
        md_text(f, a->objects[ad->object].name);
        fprintf(f, "`: **%s** → %s. Evidence: ", ad->finding, ad->suggestion);
        md_text(f, ad->evidence);
        fprintf(f, ". Saves at most %.1f %% of the iteration.\n", 100 * ad->expected_gain);
    }
    if (a->nadvice)
        fputc('\n', f);
    char untried[512];
    tf_analysis_advice_untried_text(a->advice_untried, untried, sizeof untried);
    if (untried[0])
        fprintf(f, "%s\n\n", untried);
}

/* Starts an item of summary_limits' paragraph: its head before the first. */
static void limits_item(FILE *f, bool *any)
{
    fputs(*any ? "; " : "**Rates at a thread's limits** (docs/algorithms.md, \"Impossible "
                        "rates\"): ", f);
    *any = true;
}

/* What the rates say beyond a thread's limits: a CPU-time rate above one
 * CPU-second per second (kept up to TF_RATE_MAX_CPU_SHARE, the clocks'
 * disagreement; left out beyond), IPC beyond TF_RATE_MAX_IPC, and the
 * fitted curves' grid points left out (docs/algorithms.md, "Impossible
 * rates").  Nothing when all rates are within them. */
static void summary_limits(FILE *f, const tf_analysis *a)
{
    bool any = false;
    /* the phases kept above 1, in one item */
    double lo = INFINITY, hi = 0;
    size_t kept = 0;
    for (size_t k = 0; k < a->nphases; k++)
        kept += a->phases[k].cpu_share > 1 && a->phases[k].cpu_share <= TF_RATE_MAX_CPU_SHARE;
    for (size_t k = 0; k < a->nphases; k++) {
        double share = a->phases[k].cpu_share;
        if (!(share > 1 && share <= TF_RATE_MAX_CPU_SHARE))
            continue;
        if (!any)
            limits_item(f, &any);
        fprintf(f, "%s%s", hi ? ", " : kept > 1 ? "phases " : "phase ", a->phases[k].label);
        lo = fmin(lo, share);
        hi = fmax(hi, share);
    }
    if (hi > 0) {
        fprintf(f, " ran %.3f", lo);
        if (hi - lo >= 0.0005)   /* apart as printed */
            fprintf(f, "–%.3f", hi);
        fputs(" CPU-seconds a second, kept: above 1 by no more than a thread's CPU clock and "
              "the wall clock disagree", f);
    }
    for (size_t k = 0; k < a->nphases; k++) {
        const tf_analysis_phase *ph = &a->phases[k];
        if (ph->cpu_share > TF_RATE_MAX_CPU_SHARE) {
            limits_item(f, &any);
            fprintf(f, "phase %s ran %.3f CPU-seconds a second, more than one thread can: its "
                    "CPU-time rate is left out", ph->label, ph->cpu_share);
        }
        if (ph->ipc_dropped) {
            limits_item(f, &any);
            fprintf(f, "phase %s retired more than %.0f instructions a cycle: its MIPS and IPC "
                    "are left out", ph->label, TF_RATE_MAX_IPC);
        }
    }
    for (size_t c = 0; a->rate_dropped && c < a->ncounters; c++) {
        if (!a->rate_dropped[c])
            continue;
        limits_item(f, &any);
        fputs("the fitted rate of `", f);
        md_text(f, a->counter_names[c]);
        fprintf(f, "` is left out at %u grid points (empty in curves.csv)", a->rate_dropped[c]);
    }
    if (any)
        fputs(".\n\n", f);
}

static void summary_one(FILE *f, const tf_analysis *a)
{
    fputs("## Region `", f);
    md_text(f, a->region);
    fprintf(f, "`, group %u\n\nMean iteration: %.3f ms.\n\n", a->group, a->duration_ns / 1e6);
    if (a->nsamples < a->nfolded)
        fprintf(f, "The tables rest on %zu of the %zu folded samples, a uniform choice "
                "(`--analysis-samples`).\n\n", a->nsamples, a->nfolded);
    if (tf_sampling_coarse(&a->sampling)) {
        char advice[512];
        tf_sampling_advice(&a->sampling, advice, sizeof advice);
        fprintf(f, "**Sampling too coarse.** %zu of the %zu instances hold no sample: %s.\n\n",
                a->sampling.unsampled, a->sampling.instances, advice);
    }
    if (a->waiting > 0)
        fprintf(f, "Waiting: %.1f %% of the samples are in barriers, idle loops or MPI "
                "progress (the threads that wait for others); the phases rest on the "
                "others, and the waiting column gives each phase's share.\n\n",
                100 * a->waiting);
    fputs("### Phases\n\n| phase | span | time (µs) | routine | line | share | waiting | MIPS "
          "| IPC |\n|---|---|---|---|---|---|---|---|---|\n", f);
    for (size_t k = 0; k < a->nphases; k++) {
        const tf_analysis_phase *ph = &a->phases[k];
        fprintf(f, "| %s | %.3f–%.3f | %.1f–%.1f | ", ph->label, ph->x0, ph->x1,
                ph->x0 * a->duration_ns / 1e3, ph->x1 * a->duration_ns / 1e3);
        md_text(f, routine_name(a, ph->routine));
        fputs(" | ", f);
        const char *file = routine_file(a, ph->routine), *slash = strrchr(file, '/');
        md_text(f, slash ? slash + 1 : file);
        if (ph->line)
            fprintf(f, ":%u", ph->line);
        else
            fputs(" (no line information)", f);
        fprintf(f, " | %.1f %% | %.1f %% | ", 100 * ph->share, 100 * ph->waiting);
        md_number(f, 0, ph->mips);
        fputs(" | ", f);
        md_number(f, 2, ph->ipc);
        fputs(" |\n", f);
    }
    fputc('\n', f);
    summary_limits(f, a);
    fputs("### Data objects\n\n| object | kind | size | share | loads | stores |\n"
          "|---|---|---|---|---|---|\n", f);
    for (size_t o = 0; o < a->nobjects; o++) {
        const tf_analysis_object *ob = &a->objects[o];
        if (!ob->refs)
            continue;
        fputs("| ", f);
        md_text(f, ob->name);
        fprintf(f, " | %s | %.1f MB | %.1f %% | %zu | %zu |\n", tf_analysis_object_kind_name(ob->kind),
                (double)ob->size / 1e6, 100 * ob->share, ob->loads, ob->stores);
    }
    fputs("\n### Access streams\n\nPer thread; pattern from the streams' R² "
          "(ordered at 0.9 or more, or at 0.5 with a clear rank correlation and a stride "
          "from the code; never linear below 0.5), stride from the samples or, marked "
          "(code), from the sampled instructions' loops; MB/s moved (strided: the lines "
          "touched); see docs/algorithms.md.\n\n"
          "| phase | object | pattern | direction | stride | streams | R² | bytes | MB/s | samples |\n"
          "|---|---|---|---|---|---|---|---|---|---|\n", f);
    for (size_t s = 0; s < a->nstreams; s++) {
        const tf_analysis_stream *st = &a->streams[s];
        fprintf(f, "| %s | ", phase_label(a, st->phase));
        md_text(f, a->objects[st->object].name);
        fprintf(f, " | %s | %s | %llu%s | %u | ", tf_analysis_pattern_name(st->pattern),
                direction_name(st->direction), (unsigned long long)st->stride,
                st->stride_from == TF_ANALYSIS_STRIDE_CODE ? " (code)" : "", st->streams);
        md_number(f, 3, st->ordered_r2);
        fprintf(f, " | %.0f | ", st->bytes);
        md_number(f, 0, st->bandwidth);
        fprintf(f, " | %zu |\n", st->samples);
    }
    fputs("\n### Memory levels of the loads\n\n| phase | level | share | mean cost (cycles) | cost modes (cycles) |\n"
          "|---|---|---|---|---|\n", f);
    for (size_t l = 0; l < a->nlevels; l++) {
        const tf_analysis_level *lv = &a->levels[l];
        char modes[128];
        modes_text(lv, modes, sizeof modes, ", ");
        fprintf(f, "| %s | %s | %.1f %% | ", phase_label(a, lv->phase),
                tf_analysis_level_name(lv->level), 100 * lv->share);
        md_number(f, 0, lv->mean_cost);
        fprintf(f, " | %s |\n", modes);
    }
    fputc('\n', f);
    summary_advice(f, a);
}

int tf_analysis_write_tables(const tf_analysis *const *a, size_t n, const char *dir,
                             tf_error *err)
{
    struct rate_columns rc;
    if (rate_columns(a, n, &rc)) {
        free(rc.names);
        free(rc.per_instr);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory writing the analysis tables");
    }
    static const char *const files[] = { "phases.csv", "objects.csv", "streams.csv",
                                         "levels.csv", "advice.csv", "summary.md" };
    int ret = 0;
    for (size_t i = 0; i < sizeof files / sizeof *files && !ret; i++) {
        FILE *f;
        if ((ret = tf_out_open(dir, files[i], &f, err)))
            break;
        switch (i) {
        case 0: write_phases(f, a, n, &rc); break;
        case 1: write_objects(f, a, n); break;
        case 2: write_streams(f, a, n); break;
        case 3: write_levels(f, a, n); break;
        case 4: write_advice(f, a, n); break;
        default:
            fputs("# Phases, code lines and the address space\n\n", f);
            for (size_t j = 0; j < n; j++)
                summary_one(f, a[j]);
        }
        int crc = tf_out_close(f, dir, files[i], err);
        ret = ret ? ret : crc;
    }
    free(rc.names);
    free(rc.per_instr);
    return ret;
}
