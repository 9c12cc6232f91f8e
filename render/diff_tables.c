/* SPDX-License-Identifier: BSD-3-Clause */
/* diff.csv and diff.md of `tracefold diff` (docs/commands/diff.md). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/csv_write.h"
#include "report_diff.h"

/* CSV column stems of the memory levels (enum tf_mem_level). */
static const char *const level_key[TF_REPORT_LEVELS] = {
    "uncached", "l1", "lfb", "l2", "l3", "remote_cache_1", "remote_cache_2", "dram",
    "remote_dram_1", "remote_dram_2",
};

static const char *match_name(enum tf_diff_match m)
{
    return m == TF_DIFF_ROUTINE ? "routine" : m == TF_DIFF_SPAN ? "span" : "order";
}

static const char *yes_no(bool b)
{
    return b ? "yes" : "no";
}

/* The fold's own labels of a side's phases: "2.1", "2.1-3" for a span. */
static void labels(const tf_report_page *p, const tf_diff_side *s, bool total, char *buf,
                   size_t len)
{
    if (total)
        snprintf(buf, len, "all");
    else if (s->first == s->last)
        buf[0] = '\0';
    else if (s->last - s->first == 1)
        snprintf(buf, len, "%s", p->phases[s->first].label[0] ? p->phases[s->first].label : "-");
    else
        snprintf(buf, len, "%s-%s", p->phases[s->first].label, p->phases[s->last - 1].label);
}

static double level_share(const tf_diff_side *s, size_t l)
{
    return s->loads ? (double)s->level_loads[l] / (double)s->loads : NAN;
}

static void csv_row(FILE *f, const tf_diff *d, const tf_diff_row *r, bool total)
{
    char la[64], lb[64];
    labels(d->a, &r->a, total, la, sizeof la);
    labels(d->b, &r->b, total, lb, sizeof lb);
    tf_csv_text(f, r->phase);
    fprintf(f, ",%s,", match_name(r->match));
    tf_csv_text(f, la);
    fputc(',', f);
    tf_csv_text(f, lb);
    fputc(',', f);
    tf_csv_text(f, total ? "" : r->a.name);
    fputc(',', f);
    tf_csv_text(f, total ? "" : r->b.name);
    const double num[] = {r->a.time_ns, r->b.time_ns, r->ratio, r->ratio_lo, r->ratio_hi};
    for (size_t k = 0; k < sizeof num / sizeof num[0]; k++) {
        fputc(',', f);
        tf_csv_number(f, num[k], k < 2 ? 10 : 5);
    }
    fprintf(f, ",%s,", yes_no(r->significant));
    tf_csv_number(f, r->a.mips, 6);
    fputc(',', f);
    tf_csv_number(f, r->b.mips, 6);
    fprintf(f, ",%s,", yes_no(r->mips_significant));
    tf_csv_number(f, r->a.bandwidth, 6);
    fputc(',', f);
    tf_csv_number(f, r->b.bandwidth, 6);
    fprintf(f, ",%s", yes_no(r->bandwidth_significant));
    for (size_t l = 0; l < TF_REPORT_LEVELS; l++) {
        if (!d->levels[l])
            continue;
        fputc(',', f);
        tf_csv_number(f, level_share(&r->a, l), 4);
        fputc(',', f);
        tf_csv_number(f, level_share(&r->b, l), 4);
        fprintf(f, ",%s", yes_no(r->level_significant[l]));
    }
    fputc('\n', f);
}

static int write_csv(const tf_diff *d, const char *dir, tf_error *err)
{
    FILE *f;
    if (tf_out_open(dir, "diff.csv", &f, err) < 0)
        return -err->code;
    fputs("phase,match,phase_a,phase_b,routine_a,routine_b,time_a_ns,time_b_ns,ratio,ratio_lo,"
          "ratio_hi,significant,mips_a,mips_b,mips_significant,bandwidth_a_mbs,"
          "bandwidth_b_mbs,bandwidth_significant", f);
    for (size_t l = 0; l < TF_REPORT_LEVELS; l++)
        if (d->levels[l])
            fprintf(f, ",%s_share_a,%s_share_b,%s_significant", level_key[l], level_key[l],
                    level_key[l]);
    fputc('\n', f);
    for (size_t k = 0; k < d->nrows; k++)
        csv_row(f, d, &d->rows[k], k + 1 == d->nrows);
    return tf_out_close(f, dir, "diff.csv", err);
}

/* "1.52x slower", "noise", "only in A" for the time column of diff.md. */
static void verdict(const tf_diff_row *r, char *buf, size_t len)
{
    if (!isfinite(r->ratio))
        snprintf(buf, len, "only in %s", r->a.first == r->a.last ? "B" : "A");
    else if (!r->significant)
        snprintf(buf, len, "noise");
    else if (r->ratio < 1)
        snprintf(buf, len, "%.3gx faster", 1 / r->ratio);
    else
        snprintf(buf, len, "%.3gx slower", r->ratio);
}

static void md_ms(FILE *f, double ns)
{
    if (isfinite(ns))
        fprintf(f, " %.4g |", ns / 1e6);
    else
        fputs(" |", f);
}

static void md_value(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, " %.4g |", v);
    else
        fputs(" |", f);
}

static int write_md(const tf_diff *d, const char *a_name, const char *b_name, const char *dir,
                    tf_error *err)
{
    FILE *f;
    if (tf_out_open(dir, "diff.md", &f, err) < 0)
        return -err->code;
    fprintf(f, "# tracefold diff\n\n- A (before): %s, %s (%s)\n- B (after): %s, %s (%s)\n\n",
            a_name, d->a->title, d->a->subtitle, b_name, d->b->title, d->b->subtitle);
    const tf_diff_row *t = &d->rows[d->nrows - 1];
    char v[64];
    verdict(t, v, sizeof v);
    fprintf(f, "The iteration took %.4g ms in A and %.4g ms in B: B/A = %.4g, band [%.4g, %.4g] "
            "(%s).\n\n", t->a.time_ns / 1e6, t->b.time_ns / 1e6, t->ratio, t->ratio_lo,
            t->ratio_hi, v);
    fprintf(f, "Bands of coverage %.3g: times Student's t standard errors for their degrees of "
            "freedom (%.3g for the iteration), rates and memory levels %.3g (docs/algorithms.md, "
            "\"Comparing two folds\"); a difference inside its band is noise.\n\n",
            d->confidence, t->t, d->z);
    fputs("| phase | A | B | matched by | A [ms] | B [ms] | B/A | band | change |\n"
          "| --- | --- | --- | --- | ---: | ---: | ---: | --- | --- |\n", f);
    for (size_t k = 0; k < d->nrows; k++) {
        const tf_diff_row *r = &d->rows[k];
        bool total = k + 1 == d->nrows;
        char la[64], lb[64];
        labels(d->a, &r->a, total, la, sizeof la);
        labels(d->b, &r->b, total, lb, sizeof lb);
        verdict(r, v, sizeof v);
        fprintf(f, "| %s | %s %s | %s %s | %s |", r->phase, la, total ? "" : r->a.name, lb,
                total ? "" : r->b.name, total ? "" : match_name(r->match));
        md_ms(f, r->a.time_ns);
        md_ms(f, r->b.time_ns);
        md_value(f, r->ratio);
        if (isfinite(r->ratio_lo))
            fprintf(f, " %.4g - %.4g |", r->ratio_lo, r->ratio_hi);
        else
            fputs(" |", f);
        fprintf(f, " %s |\n", v);
    }
    fputs("\n## Rates\n\n| phase | MIPS A | MIPS B | MIPS change | bandwidth A [MB/s] | "
          "bandwidth B [MB/s] | bandwidth change |\n| --- | ---: | ---: | --- | ---: | ---: | --- |\n",
          f);
    for (size_t k = 0; k < d->nrows; k++) {
        const tf_diff_row *r = &d->rows[k];
        fprintf(f, "| %s |", r->phase);
        md_value(f, r->a.mips);
        md_value(f, r->b.mips);
        fprintf(f, " %s |", isfinite(r->a.mips) && isfinite(r->b.mips)
                                ? (r->mips_significant ? "significant" : "noise") : "");
        md_value(f, r->a.bandwidth);
        md_value(f, r->b.bandwidth);
        fprintf(f, " %s |\n", r->a.bandwidth > 0 && r->b.bandwidth > 0
                                  ? (r->bandwidth_significant ? "significant" : "noise") : "");
    }
    bool any_level = false;
    for (size_t l = 0; l < TF_REPORT_LEVELS; l++)
        any_level |= d->levels[l];
    fputs("\n## Memory levels (share of the loads)\n\n", f);
    if (!any_level)
        fputs("Neither fold's loads carry a memory level (addresses decoded in software, or no "
              "level reported by the hardware).\n", f);
    for (size_t k = 0; any_level && k < d->nrows; k++) {
        const tf_diff_row *r = &d->rows[k];
        fprintf(f, "- phase %s:", r->phase);
        for (size_t l = 0; l < TF_REPORT_LEVELS; l++)
            if (d->levels[l])
                fprintf(f, " %s %.1f %% -> %.1f %% (%s);", tf_report_level_name((unsigned)l),
                        100 * level_share(&r->a, l), 100 * level_share(&r->b, l),
                        r->level_significant[l] ? "significant" : "noise");
        fputc('\n', f);
    }
    return tf_out_close(f, dir, "diff.md", err);
}

int tf_diff_write_tables(const tf_diff *d, const char *a_name, const char *b_name,
                         const char *dir, tf_error *err)
{
    int rc = write_csv(d, dir, err);
    return rc < 0 ? rc : write_md(d, a_name, b_name, dir, err);
}
