/* SPDX-License-Identifier: BSD-3-Clause */
/* The tables page for gnuplot: tables.gp writes the tables as
 * monospaced text and plots the histogram of instance durations from
 * hist.dat (bin centre, used, excluded). */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "axis_ticks.h"
#include "gnuplot_script.h"

#define MARGIN 40.0
#define LINE_H 9.5
#define MAX_ROWS 14
#define CELL_MAX 28

/* A table as lines of text with padded columns, one label per line. */
static double table_text(FILE *f, const tf_gp_dir *d, const tf_report_table *t, double y, int *tag)
{
    fprintf(f, "set label %d ", (*tag)++);
    tf_gp_quote(f, t->title ? t->title : "");
    fprintf(f, " at screen %.4f, screen %.4f left font font_panel\n", tf_gp_sx(d, MARGIN),
            tf_gp_sy(d, y));
    y += LINE_H + 2;
    if (t->note) {
        fprintf(f, "set label %d ", (*tag)++);
        tf_gp_quote(f, t->note);
        fprintf(f, " at screen %.4f, screen %.4f left font font_note\n",
                tf_gp_sx(d, MARGIN), tf_gp_sy(d, y));
        y += LINE_H;
    }
    if (t->ncols == 0 || t->nrows == 0)
        return y + LINE_H;
    size_t width[16] = {0}, ncols = t->ncols < 16 ? t->ncols : 16;
    size_t nrows = t->nrows < MAX_ROWS ? t->nrows : MAX_ROWS;
    for (size_t c = 0; c < ncols; c++)
        for (size_t r = 0; r <= nrows; r++) {
            const char *s = r ? t->cells[(r - 1) * t->ncols + c] : t->head[c];
            size_t w = s ? strlen(s) : 0;
            w = w > CELL_MAX ? CELL_MAX : w;
            width[c] = w > width[c] ? w : width[c];
        }
    for (size_t r = 0; r <= nrows; r++) {
        char line[16 * (CELL_MAX + 2) + 1];
        size_t len = 0;
        for (size_t c = 0; c < ncols; c++) {
            const char *s = r ? t->cells[(r - 1) * t->ncols + c] : t->head[c];
            len += (size_t)snprintf(line + len, sizeof line - len, "%-*.*s  ", (int)width[c],
                                    CELL_MAX, s ? s : "");
        }
        fprintf(f, "set label %d ", (*tag)++);
        tf_gp_quote(f, line);
        fprintf(f, " at screen %.4f, screen %.4f left font %s\n", tf_gp_sx(d, MARGIN), tf_gp_sy(d, y),
                r ? "font_table" : "font_table_head");
        y += LINE_H;
    }
    if (nrows < t->nrows) {
        fprintf(f, "set label %d \"... %zu more rows\" at screen %.4f, screen %.4f left\n", (*tag)++,
                t->nrows - nrows, tf_gp_sx(d, MARGIN), tf_gp_sy(d, y));
        y += LINE_H;
    }
    return y + LINE_H;
}

/* Histogram bins as the cairo page counts them. */
static int histogram_data(const tf_gp_dir *d, const tf_report_page *p, const char *name,
                          double *bin_w, size_t *nused, tf_error *err)
{
    FILE *f = tf_gp_open(d, name, err);
    if (!f)
        return -err->code;
    fprintf(f, "# bin centre [ms]  used instances  excluded instances\n");
    double lo = INFINITY, hi = -INFINITY;
    *nused = 0;
    for (size_t i = 0; i < p->ninstances; i++) {
        lo = fmin(lo, p->instance_ns[i] / 1e6);
        hi = fmax(hi, p->instance_ns[i] / 1e6);
        *nused += p->instance_used[i];
    }
    if (p->ninstances) {
        tf_range_pad(&lo, &hi, 0.02);
        size_t nbins = (size_t)ceil(sqrt((double)p->ninstances) * 2);
        nbins = nbins < 8 ? 8 : nbins > 60 ? 60 : nbins;
        size_t used[60] = {0}, excluded[60] = {0};
        for (size_t i = 0; i < p->ninstances; i++) {
            size_t b = (size_t)((p->instance_ns[i] / 1e6 - lo) / (hi - lo) * (double)nbins);
            b = b >= nbins ? nbins - 1 : b;
            (p->instance_used[i] ? used : excluded)[b]++;
        }
        *bin_w = (hi - lo) / (double)nbins;
        for (size_t b = 0; b < nbins; b++)
            fprintf(f, "%.6g %zu %zu\n", lo + (b + 0.5) * *bin_w, used[b], excluded[b]);
    }
    return tf_gp_close(f, d, name, err);
}

int tf_gp_tables(const tf_gp_dir *d, const tf_report_page *page, const char *prefix,
                 tf_error *err)
{
    char name[256], data[256], out[256];
    snprintf(name, sizeof name, "%stables.gp", prefix);
    snprintf(data, sizeof data, "%shist.dat", prefix);
    snprintf(out, sizeof out, "%stables", prefix);
    double bin_w = 1;
    size_t nused = 0;
    if (histogram_data(d, page, data, &bin_w, &nused, err) < 0)
        return -err->code;
    FILE *f = tf_gp_open(d, name, err);
    if (!f)
        return -err->code;
    fprintf(f,
            "# The tables page: phases, memory levels, top data objects, access\n"
            "# streams (as text), and\n"
            "# the histogram of instance durations from %s (used instances and those\n"
            "# the outlier filter excluded, stacked).\n"
            "# Run: gnuplot %s   (writes %s.%s).\n",
            data, name, out, tf_render_format_name(d->format));
    tf_gp_terminal(f, d, out);
    int tag = 1;
    fprintf(f, "set label %d ", tag++);
    tf_gp_quote(f, page->title ? page->title : "folded region");
    fprintf(f, " at screen %.4f, screen %.4f left font font_title\n", tf_gp_sx(d, MARGIN),
            tf_gp_sy(d, 15));
    double y = 48;
    for (int i = 0; i < TF_REPORT_NTABLES; i++)
        y = table_text(f, d, &page->tables[i], y, &tag);
    double top = y < 520 ? y + 10 : 530;
    fprintf(f, "set lmargin at screen %.4f; set rmargin at screen %.4f\n"
               "set tmargin at screen %.4f; set bmargin at screen %.4f\n",
            tf_gp_sx(d, MARGIN + 40), tf_gp_sx(d, d->size.w - MARGIN - 10), tf_gp_sy(d, top + 18),
            tf_gp_sy(d, top + 158));
    fprintf(f,
            "set title \"Instance durations\" font font_panel\n"
            "set xlabel \"instance duration [ms]\"\nset ylabel \"instances\"\n"
            "set yrange [0:*]\nset xtics out nomirror\nset ytics out nomirror\n"
            "set style fill solid 1.0 noborder\nset boxwidth %.6g absolute\n"
            "set key top right\n",
            bin_w * 0.9);
    if (page->ninstances == 0) {
        fprintf(f, "set label %d \"no instance durations in this fold\" at graph 0.5, graph 0.5 center\n"
                   "plot NaN notitle\n", tag);
    } else {
        fprintf(f,
                "plot '%s' using 1:($2+$3) with boxes lc rgb colour_excluded title \"excluded (%zu)\", \\\n"
                "     '' using 1:2 with boxes lc rgb colour_used title \"used (%zu)\"\n",
                data, page->ninstances - nused, nused);
    }
    return tf_gp_close(f, d, name, err);
}
