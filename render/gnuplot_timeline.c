/* SPDX-License-Identifier: BSD-3-Clause */
/* The triple timeline for gnuplot: one script per panel (code.gp,
 * memory.gp, rates.gp) with its data, and timeline.gp, which sets the
 * terminal and loads the three into one multiplot page laid out as the
 * cairo page.  The panel scripts also plot alone. */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "address_bands.h"
#include "axis_ticks.h"
#include "gnuplot_script.h"
#include "key_mark.h"
#include "report_phases.h"
#include "time_units.h"
#include "line_axis.h"

/* Rough width of a character of the 7.5 pt label font, for keeping phase
 * labels apart (gnuplot cannot measure text before drawing it). */
#define CHAR_W 4.3
/* The phase key: side margin, its last row's distance from the page's
 * bottom, row height (points). */
#define KEY_MARGIN 8.0
#define KEY_BOTTOM 8.0
#define KEY_ROW 8.0

#define MIPS_TITLE "MIPS (right axis)"

/* Transparency of cloud points: as the cairo back end's vector dots. */
static unsigned cloud_transparency(size_t n)
{
    double a = n ? sqrt(1500.0 / (double)n) : 1.0;
    return tf_gp_transparency(a > 0.9 ? 0.9 : a < 0.15 ? 0.15 : a);
}

/* The word of style.gp's colour_routines for a routine: its own colour
 * for the first TF_PALETTE_ROUTINES, the last word for the others. */
static unsigned routine_word(uint32_t routine)
{
    return (routine < TF_PALETTE_ROUTINES ? routine : TF_PALETTE_ROUTINES) + 1;
}

/* Longest legend title, in characters, for key_columns in style.gp. */
static size_t longest(const char *const *titles, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        m = titles[i] && strlen(titles[i]) > m ? strlen(titles[i]) : m;
    return m;
}

/* The start of a panel script: its box, fonts, time axis, title and
 * legend.  The legend ends at the right end of the strip above the panel
 * and takes as many columns of its longest title as fit between `key_x`
 * points into the strip and its end (estimated from font_size: gnuplot
 * cannot measure text first), more rows otherwise, so a larger font never
 * pushes it off the page. */
static void panel_start(FILE *f, const tf_gp_dir *d, const char *what, const tf_timeline_layout *l, int panel,
                        double bottom_room, double key_x, size_t key_chars, double span)
{
    tf_rect plot = l->plot[panel], head = l->head[panel];
    fprintf(f,
            "reset\n"
            "load '%s'\n"
            "if (!exists(\"duration\")) duration = %.9g\n",
            TF_GP_STYLE, span);
    tf_gp_panel_box(f, d, head.y - 4, plot.y + plot.h + bottom_room);
    tf_gp_margins(f, d, plot);
    fprintf(f,
            "if (!exists(\"page_layout\")) set termoption font font_body\n"
            "set tics font font_body\n"
            "set xrange [0:duration]\n"
            "set format x \"\"\n"
            "set xtics out scale 0.5 nomirror\n"
            "set mxtics 1\n"
            "# The legend ends at the right of the strip above the panel.\n"
            "set key horizontal reverse Left right top samplen 1 font font_body "
            "maxcols key_columns(%.1f, %zu) maxrows 99 at screen %.4f, screen panel_y(%.1f)\n"
            "set label 100 \"%s\" at screen %.4f, screen panel_y(%.1f) left font font_panel\n",
            head.w - key_x, key_chars, tf_gp_sx(d, head.x + head.w), head.y + 1, what,
            tf_gp_sx(d, head.x), head.y + 7);
}

/* Run alone, a panel without its own time labels gets them. */
static void time_axis_alone(FILE *f, tf_time_unit u)
{
    fprintf(f, "if (!exists(\"page_layout\")) set format x \"%%g\"; "
               "set xlabel \"time in the synthetic iteration [%s]\" font font_body\n",
            u.name);
}

static void phase_lines(FILE *f, const tf_report_page *p, double span)
{
    fprintf(f, "# Phase boundaries: thin dashed lines through every panel.\n");
    for (size_t i = 0; i < p->nphases; i++)
        if (p->phases[i].x0 > 0.001 && p->phases[i].x0 < 0.999)
            fprintf(f,
                    "set arrow %zu from %.9g, graph 0 to %.9g, graph 1 nohead lw 0.5 dt (2,1.5) "
                    "lc rgb colour_phase front\n",
                    i + 1, p->phases[i].x0 * span, p->phases[i].x0 * span);
}

/* An empty panel saying why; the plot command is left open for more
 * legend entries. */
static void missing(FILE *f, const char *note)
{
    fputs("set label 101 ", f);
    tf_gp_quote(f, note);
    fputs(" at graph 0.5, graph 0.5 center font font_note tc rgb colour_note\n"
          "set yrange [0:1]\nunset ytics\nplot NaN notitle", f);
}

/* The page's numbered key of phase labels that found no room (the
 * cairo pages' key, for the phase labels). */
typedef struct phase_key {
    char  *text;          /* "¹ label\n² label\n..." (malloc'ed), NULL: none */
    size_t len;
} phase_key;

static int key_append(phase_key *k, const char *mark, const char *label, tf_error *err)
{
    size_t add = strlen(mark) + strlen(label) + 5;
    char *t = realloc(k->text, k->len + add);
    if (!t)
        return tf_fail(err, TF_ERR_NOMEM, "gnuplot: no memory for the phase key");
    k->text = t;
    k->len += (size_t)snprintf(t + k->len, add, "%s %s\n", mark, label);
    return 0;
}

/* Phase labels above the code panel, on two rows, the phases that get one
 * chosen as the cairo pages choose them (report_phases.h); a label that
 * fits on neither row (widths estimated) gets its key mark there instead,
 * the label going into the page's key; only a phase too narrow even for
 * its mark is left without. */
static int phase_labels(FILE *f, const tf_report_page *p, const tf_timeline_layout *l,
                        double span, phase_key *key, tf_error *err)
{
    bool *keep = calloc(p->nphases ? p->nphases : 1, sizeof *keep);
    if (!keep)
        return tf_fail(err, TF_ERR_NOMEM, "gnuplot: no memory for %zu phase labels", p->nphases);
    tf_report_phase_labels_choose(p, 0, keep);
    double row_end[2] = {-1e9, -1e9};
    unsigned nkeys = 0;
    int rc = 0;
    for (size_t i = 0; i < p->nphases && rc == 0; i++) {
        if (!keep[i])
            continue;
        const tf_report_phase *ph = &p->phases[i];
        char label[200], mark[64];
        tf_report_phase_label(p, ph, label, sizeof label);
        tf_key_mark(nkeys + 1, mark, sizeof mark);
        double cx = l->plot[TF_PANEL_CODE].x + (ph->x0 + ph->x1) / 2 * l->plot[TF_PANEL_CODE].w;
        /* The label on the first row with room, else its mark (about two
         * characters wide) on the first with room for that. */
        for (int try = 0; try < 4; try++) {
            int row = 1 - try % 2;
            bool as_mark = try >= 2;
            double w = as_mark ? 2 * CHAR_W : (double)strlen(label) * CHAR_W;
            if (cx - w / 2 < row_end[row] + 4)
                continue;
            row_end[row] = cx + w / 2;
            fprintf(f, "set label %zu ", 200 + i);
            tf_gp_quote(f, as_mark ? mark : label);
            fprintf(f, " at first %.9g, screen panel_y(%.1f) center font font_body\n",
                    (ph->x0 + ph->x1) / 2 * span, l->labels.y + l->labels.h / 2 * (row + 0.5));
            if (as_mark) {
                nkeys++;
                rc = key_append(key, mark, label, err);
            }
            break;
        }
    }
    free(keep);
    return rc;
}

static int code_panel(const tf_gp_dir *d, const tf_report_page *p, const char *prefix,
                      const tf_timeline_layout *l, phase_key *key, tf_error *err)
{
    char name[256], data[256], waiting[256];
    tf_time_unit u = tf_time_unit_for(p->duration_ns);
    double span = p->duration_ns / u.ns;
    tf_line_axis axis;
    if (tf_line_axis_build(p, &axis, err) < 0)
        return -err->code;
    snprintf(data, sizeof data, "%scode.dat", prefix);
    snprintf(waiting, sizeof waiting, "%swaiting.dat", prefix);
    /* The waiting lane (cairo_waiting.h) below the line axis, 9 points
     * tall: the y range starts at -lane. */
    double lane = p->nwaiting && p->ncode ? 9.0 / (l->plot[TF_PANEL_CODE].h - 9.0) : 0;
    if (lane > 0) {
        FILE *w = tf_gp_open(d, waiting, err);
        if (!w) {
            tf_line_axis_free(&axis);
            return -err->code;
        }
        fprintf(w, "# time [%s]  height in the waiting lane (below 0 on code.gp's y axis)\n", u.name);
        for (size_t i = 0; i < p->nwaiting; i++)
            fprintf(w, "%.6g %.6g\n", p->waiting[i] * span, -lane * tf_report_waiting_height(i));
        if (tf_gp_close(w, d, waiting, err) < 0) {
            tf_line_axis_free(&axis);
            return -err->code;
        }
    }
    if (p->ncode) {
        FILE *f = tf_gp_open(d, data, err);
        if (!f) {
            tf_line_axis_free(&axis);
            return -err->code;
        }
        fprintf(f, "# time [%s]  height on the line axis (0..1, see code.gp)  source line  "
                   "routine (index in the legend, from 0)\n", u.name);
        for (size_t i = 0; i < p->ncode; i++) {
            double y = tf_line_axis_place(&axis, &p->code[i]);
            if (y >= 0)
                fprintf(f, "%.6g %.6g %u %u\n", p->code[i].x * span, y, p->code[i].line,
                        p->code[i].routine);
        }
        if (tf_gp_close(f, d, data, err) < 0) {
            tf_line_axis_free(&axis);
            return -err->code;
        }
    }
    /* Only the segments, bands and lines not drawn are used below. */
    tf_line_axis_free(&axis);
    snprintf(name, sizeof name, "%scode.gp", prefix);
    FILE *f = tf_gp_open(d, name, err);
    if (!f)
        return -err->code;
    fprintf(f,
            "# Panel 1 of the triple timeline: the source line executing over the\n"
            "# synthetic iteration; one dot per folded sample, coloured by routine,\n"
            "# top of the file at the top; phases labelled routine[most observed line].\n"
            "# The line axis is cut where routines lie far apart (other files): each\n"
            "# segment has its own line ticks, the cuts are grey strips.\n"
            "# Loaded by %stimeline.gp; alone: gnuplot -e \"set terminal pdfcairo; set output 'code.pdf'\" %s\n"
            "# Data: %s (time [%s], height, line, routine index).  Fonts and\n"
            "# colours: %s.\n",
            prefix, name, data, u.name, TF_GP_STYLE);
    size_t shown = p->nroutines < TF_PALETTE_ROUTINES ? p->nroutines : TF_PALETTE_ROUTINES;
    size_t key_chars = 0;
    for (size_t i = 0; i < shown; i++) {
        char label[600];
        tf_report_routine_label(p, i, label, sizeof label);
        key_chars = strlen(label) > key_chars ? strlen(label) : key_chars;
    }
    if (p->nroutines > shown && key_chars < strlen("other routines"))
        key_chars = strlen("other routines");
    panel_start(f, d, "Source code", l, TF_PANEL_CODE, 28, 80, key_chars, span);
    time_axis_alone(f, u);
    phase_lines(f, p, span);
    if (p->ncode == 0) {
        missing(f, p->code_missing ? p->code_missing : "no code-line samples in this fold");
        fputc('\n', f);
        return tf_gp_close(f, d, name, err);
    }
    char title[300];
    tf_line_axis_title(&axis, title, sizeof title);
    fprintf(f, "set yrange [%.4f:1]\nset ylabel ", -lane);
    tf_gp_quote(f, title);
    fputs("\nset ytics out scale 0.5 nomirror (", f);
    bool first = true;
    for (size_t k = 0; k < axis.n; k++) {
        const tf_line_segment *s = &axis.seg[k];
        tf_ticks t;
        double h = (s->y1 - s->y0) * l->plot[TF_PANEL_CODE].h;
        tf_ticks_compute(s->lo, s->hi, h / 28 < 2 ? 2 : h / 28 > 7 ? 7 : (int)(h / 28), &t);
        for (size_t i = 0; i < t.n; i++) {
            double f01 = (t.value[i] - s->lo) / (s->hi - s->lo);
            fprintf(f, "%s\"%.*f\" %.4f", first ? "" : ", ", t.decimals, t.value[i],
                    s->y1 - f01 * (s->y1 - s->y0));
            first = false;
        }
    }
    fputs(")\n", f);
    for (size_t k = 0; k + 1 < axis.n; k++)
        fprintf(f, "set object %zu rect from graph 0, first %.4f to graph 1, first %.4f "
                   "fc rgb colour_cut fs solid 1.0 noborder behind\n",
                k + 1, axis.seg[k + 1].y1, axis.seg[k].y0);
    /* One band per file, titled in a grey strip above its lines, and the
     * lines not drawn listed, as on the cairo page (line_axis.h). */
    for (size_t b = 0; axis.nbands > 1 && b < axis.nbands; b++) {
        const tf_line_band *bd = &axis.band[b];
        fprintf(f, "set object %zu rect from graph 0, first %.4f to graph 1, first %.4f "
                   "fc rgb colour_cut fs solid 1.0 noborder behind\n",
                110 + b, bd->y1, bd->title_y1);
        fprintf(f, "set label %zu ", 110 + b);
        tf_gp_quote(f, *bd->file ? bd->file : "(unknown file)");
        fprintf(f, " at graph 0.005, first %.4f left font font_small front\n",
                (bd->y1 + bd->title_y1) / 2);
    }
    char dropped[600];
    if (tf_line_axis_dropped_note(&axis, dropped, sizeof dropped)) {
        fputs("set label 119 ", f);
        tf_gp_quote(f, dropped);
        fputs(" at graph 0.995, graph 0.03 right font font_small front\n", f);
    }
    if (lane > 0)
        fprintf(f, "set object 299 rect from graph 0, first %.4f to graph 1, first 0 "
                   "fc rgb colour_waiting_band fs solid 1.0 noborder behind\n", -lane);
    /* The strip along the top: each phase in its routine's colour. */
    for (size_t i = 0; i < p->nphases; i++)
        if (p->phases[i].routine < p->nroutines)
            fprintf(f, "set object %zu rect from %.9g, graph 1 to %.9g, graph 0.984 "
                       "fc rgb word(colour_routines, %u) fs solid 1.0 noborder front\n",
                    300 + i, p->phases[i].x0 * span, p->phases[i].x1 * span, routine_word(p->phases[i].routine));
    if (phase_labels(f, p, l, span, key, err) < 0) {
        fclose(f);
        return -err->code;
    }
    /* Dots see-through as the cairo back end's: 0xAA000000 over the colour. */
    fprintf(f, "cloud_alpha = %u * 2**24\n"
               "plot '%s' using 1:2:(cloud_alpha + colour_number(colour_routines, $4)) "
               "with points pt 7 ps 0.25 lc rgb variable notitle",
            cloud_transparency(p->ncode), data);
    for (size_t i = 0; i < shown; i++) {
        fprintf(f, ", \\\n     NaN with points pt 7 ps 0.6 lc rgb word(colour_routines, %u) title ",
                routine_word((uint32_t)i));
        char label[600];
        tf_report_routine_label(p, i, label, sizeof label);
        tf_gp_quote(f, label);
    }
    if (p->nroutines > shown)
        fprintf(f, ", \\\n     NaN with points pt 7 ps 0.6 lc rgb word(colour_routines, %u) "
                   "title \"other routines\"",
                routine_word(TF_PALETTE_ROUTINES));
    if (lane > 0) {
        char label[96];
        tf_report_waiting_label(p, label, sizeof label);
        fprintf(f, ", \\\n     '%s' using 1:2 with points pt 7 ps 0.25 lc rgb colour_waiting "
                   "notitle, \\\n     NaN with points pt 7 ps 0.6 lc rgb colour_waiting title ",
                waiting);
        tf_gp_quote(f, label);
    }
    fputc('\n', f);
    return tf_gp_close(f, d, name, err);
}

static bool has_cost(const tf_report_mem_point *m)
{
    return m->access == TF_REPORT_LOAD && m->cost > 0 && !(m->flags & TF_REPORT_MEM_SOFTWARE);
}

/* Memory points of one class into a data file: 0 loads with a cost,
 * 1 loads without, 2 stores.  *n gets their number. */
static int memory_data(const tf_gp_dir *d, const tf_report_page *p, const tf_bands *b,
                       const char *name, int cls, size_t *n, tf_error *err)
{
    tf_time_unit u = tf_time_unit_for(p->duration_ns);
    double span = p->duration_ns / u.ns;
    FILE *f = tf_gp_open(d, name, err);
    if (!f)
        return -err->code;
    fprintf(f, "# time [%s]  height in the address axis (0..1, see memory.gp)  cost [cycles]\n",
            u.name);
    *n = 0;
    for (size_t i = 0; i < p->nmem; i++) {
        const tf_report_mem_point *m = &p->mem[i];
        int c = m->access == TF_REPORT_STORE ? 2 : has_cost(m) ? 0 : 1;
        double y;
        if (c != cls || !tf_bands_place(b, p, m, &y))
            continue;
        fprintf(f, "%.6g %.6g %u\n", m->x * span, y, m->cost);
        (*n)++;
    }
    return tf_gp_close(f, d, name, err);
}

static int memory_panel(const tf_gp_dir *d, const tf_report_page *p, const char *prefix,
                        const tf_timeline_layout *l, tf_error *err)
{
    char name[256], files[3][256];
    tf_time_unit u = tf_time_unit_for(p->duration_ns);
    double span = p->duration_ns / u.ns;
    snprintf(name, sizeof name, "%smemory.gp", prefix);
    static const char *const suffix[3] = {"mem-loads.dat", "mem-nocost.dat", "mem-stores.dat"};
    for (int c = 0; c < 3; c++)
        snprintf(files[c], sizeof files[c], "%s%s", prefix, suffix[c]);
    tf_bands b = {0};
    size_t n[3] = {0, 0, 0};
    if (p->nmem) {
        if (tf_bands_build(p, &b, err) < 0)
            return -err->code;
        for (int c = 0; c < 3; c++)
            if (memory_data(d, p, &b, files[c], c, &n[c], err) < 0) {
                tf_bands_free(&b);
                return -err->code;
            }
    }
    FILE *f = tf_gp_open(d, name, err);
    if (!f) {
        tf_bands_free(&b);
        return -err->code;
    }
    fprintf(f,
            "# Panel 2 of the triple timeline: the address space over the synthetic\n"
            "# iteration.  Each data object is a band (lowest address at the bottom,\n"
            "# the gaps between objects cut out), labelled name | size on the left and\n"
            "# with its first and last address on the right.  Loads are coloured by\n"
            "# cost (green cheap, blue costly, log scale), stores black, loads\n"
            "# without a cost (decoded in software) grey.\n"
            "# Data: %s, %s, %s (time [%s], height 0..1, cost).  Fonts and\n"
            "# colours: %s.\n",
            files[0], files[1], files[2], u.name, TF_GP_STYLE);
    static const char *const key_titles[] = {"loads, no cost (decoded)", "stores"};
    panel_start(f, d, "Address space", l, TF_PANEL_MEMORY, 28, n[0] ? 280 : 80,
                longest(key_titles, 2), span);
    time_axis_alone(f, u);
    phase_lines(f, p, span);
    if (p->nmem == 0) {
        missing(f, p->mem_missing ? p->mem_missing : "no memory samples in this trace");
        fputc('\n', f);
        return tf_gp_close(f, d, name, err);
    }
    fprintf(f, "set yrange [0:1]\nset y2range [0:1]\nset ytics scale 0 nomirror (");
    char buf[200];
    for (size_t i = 0; i < b.n; i++) {
        tf_bands_label(&b, p, i, buf, sizeof buf);
        fputs(i ? ", " : "", f);
        tf_gp_quote(f, buf);
        fprintf(f, " %.4f", (b.band[i].y0 + b.band[i].y1) / 2);
    }
    fprintf(f, ")\nset y2tics out scale 0.5 (");
    for (size_t i = 0; i < b.n; i++) {
        /* The last address of each band at its top, and the first address
         * of the lowest band: gnuplot cannot move tick labels apart, and
         * the first address of a band would sit on the last of the band
         * below. */
        tf_bands_address(b.band[i].hi, b.band[i].relative, buf, sizeof buf);
        fprintf(f, "%s\"%s\" %.4f", i ? ", " : "", buf, b.band[i].y1);
        if (i == 0) {
            tf_bands_address(b.band[i].lo, b.band[i].relative, buf, sizeof buf);
            fprintf(f, ", \"%s\" %.4f", buf, b.band[i].y0);
        }
    }
    /* gnuplot sets a y2label past its estimate of the tick labels' width,
     * made with the body font, not the narrower address font: off the page
     * at larger sizes.  A label one font size from the page edge stays on. */
    fprintf(f, ")\nset y2tics font font_address\n"
               "set label 103 \"address\" at screen 1 - font_size / %.1f, graph 0.5 center rotate by -90 "
               "font font_body\n", d->size.w);
    fprintf(f, "set ylabel \"data object | size\" font font_body\n");
    for (size_t i = 0; i < b.n; i++)
        fprintf(f,
                "set object %zu rect from graph 0, first %.4f to graph 1, first %.4f "
                "fc rgb colour_band fs solid 1.0 noborder behind\n",
                i + 1, b.band[i].y0, b.band[i].y1);
    double lo = 0, hi = 0;
    for (size_t i = 0; i < p->nmem; i++)
        if (has_cost(&p->mem[i])) {
            lo = lo == 0 || p->mem[i].cost < lo ? p->mem[i].cost : lo;
            hi = p->mem[i].cost > hi ? p->mem[i].cost : hi;
        }
    fprintf(f, "set palette defined (");
    for (int i = 0; i <= 4; i++)
        fprintf(f, "%s%d word(colour_cost, %d)", i ? ", " : "", i, i + 1);
    fprintf(f, ")\n");
    if (n[0]) {
        tf_rect head = l->head[TF_PANEL_MEMORY];
        fprintf(f,
                "set logscale cb\nset cbrange [%.6g:%.6g]\n"
                "set cbtics scale 0.5 font font_small offset 0,0.6\n"
                "set colorbox horizontal user origin screen %.4f, screen panel_y(%.1f) "
                "size screen %.4f, screen panel_y(0) - panel_y(4)\n"
                "set label 102 \"load cost [cycles]\" at screen %.4f, screen panel_y(%.1f) right "
                "font font_body\n",
                lo, hi > lo ? hi : lo + 1, tf_gp_sx(d, head.x + 200), head.y + 10, tf_gp_sx(d, 60),
                tf_gp_sx(d, head.x + 196), head.y + 8);
    } else {
        fputs("unset colorbox\n", f);
    }
    fprintf(f, "plot NaN notitle");
    if (n[0])
        fprintf(f, ", \\\n     '%s' using 1:2:3 with points pt 7 ps 0.25 lc palette notitle", files[0]);
    if (n[1])
        fprintf(f, ", \\\n     '%s' using 1:2 with points pt 7 ps 0.25 lc rgb colour_nocost "
                   "title \"%s\"", files[1], key_titles[0]);
    if (n[2])
        fprintf(f, ", \\\n     '%s' using 1:2 with points pt 7 ps 0.25 lc rgb colour_stores title \"%s\"",
                files[2], key_titles[1]);
    fputc('\n', f);
    tf_bands_free(&b);
    return tf_gp_close(f, d, name, err);
}

static double series_top(const tf_report_series *s)
{
    double m = 0;
    for (size_t i = 0; i < s->n; i++) {
        double v = s->hi ? s->hi[i] : s->y[i];
        m = isfinite(v) && v > m ? v : m;
    }
    return m;
}

/* Counters added once per iteration have no curve: their totals per
 * iteration as legend text; ends the plot command. */
static void totals_key(FILE *f, const tf_report_page *p)
{
    for (size_t i = 0; i < p->ntotals; i++) {
        char label[160];
        tf_report_total_label(&p->totals[i], label, sizeof label);
        fputs(", \\\n     NaN with lines lt nodraw title ", f);
        tf_gp_quote(f, label);
    }
    fputc('\n', f);
}

static int rates_panel(const tf_gp_dir *d, const tf_report_page *p, const char *prefix,
                       const tf_timeline_layout *l, tf_error *err)
{
    char name[256], data[256];
    tf_time_unit u = tf_time_unit_for(p->duration_ns);
    double span = p->duration_ns / u.ns;
    snprintf(name, sizeof name, "%srates.gp", prefix);
    snprintf(data, sizeof data, "%srates.dat", prefix);
    size_t nseries = p->nrates + (p->mips != NULL);
    if (nseries) {
        FILE *f = tf_gp_open(d, data, err);
        if (!f)
            return -err->code;
        fprintf(f, "# One block per series (blank lines between), columns: time [%s], value, band low, "
                   "band high\n", u.name);
        for (size_t s = 0; s < nseries; s++) {
            const tf_report_series *ser = s < p->nrates ? &p->rates[s] : p->mips;
            fprintf(f, "# %s\n", ser->name);
            for (size_t i = 0; i < ser->n; i++)
                fprintf(f, "%.6g %.6g %.6g %.6g\n", ser->x[i] * span, ser->y[i],
                        ser->lo ? ser->lo[i] : NAN, ser->hi ? ser->hi[i] : NAN);
            fputs("\n\n", f);
        }
        if (tf_gp_close(f, d, data, err) < 0)
            return -err->code;
    }
    FILE *f = tf_gp_open(d, name, err);
    if (!f)
        return -err->code;
    fprintf(f,
            "# Panel 3 of the triple timeline: counters per instruction (left axis)\n"
            "# and MIPS (right axis, black), confidence bands shaded.\n"
            "# Data: %s (index k = series k, in the order of the plot command).\n"
            "# Fonts and colours: %s.\n",
            data, TF_GP_STYLE);
    size_t key_chars = strlen(MIPS_TITLE);
    for (size_t s = 0; s < p->nrates; s++)
        key_chars = strlen(p->rates[s].name) > key_chars ? strlen(p->rates[s].name) : key_chars;
    for (size_t i = 0; i < p->ntotals; i++) {
        char label[160];
        tf_report_total_label(&p->totals[i], label, sizeof label);
        key_chars = strlen(label) > key_chars ? strlen(label) : key_chars;
    }
    panel_start(f, d, "Performance", l, TF_PANEL_RATES, 34, 80, key_chars, span);
    phase_lines(f, p, span);
    fprintf(f, "set format x \"%%g\"\nset xlabel \"time in the synthetic iteration [%s]\" font font_body\n",
            u.name);
    if (nseries == 0) {
        missing(f, p->rates_missing ? p->rates_missing : "no counter rates in this fold");
        totals_key(f, p);
        return tf_gp_close(f, d, name, err);
    }
    double top = 0;
    for (size_t s = 0; s < p->nrates; s++)
        top = fmax(top, series_top(&p->rates[s]));
    fprintf(f, "set style fill transparent solid 0.18 noborder\nset ytics out scale 0.5 nomirror\n");
    if (p->nrates) {
        fprintf(f, "set yrange [0:%.6g]\nset ylabel ", top > 0 ? top * 1.05 : 1);
        tf_gp_quote(f, p->rates_unit ? p->rates_unit
                       : p->mips   ? "events per instruction" : "rate [M events/s]");
        fputs(" font font_body\n", f);
    } else {
        fputs("unset ytics\n", f);
    }
    if (p->mips) {
        double mt = series_top(p->mips);
        fprintf(f, "set y2range [0:%.6g]\nset y2tics out scale 0.5\nset y2label \"MIPS\" font font_body\n",
                mt > 0 ? mt * 1.05 : 1);
    }
    fprintf(f, "plot NaN notitle");
    for (size_t s = 0; s < nseries; s++) {
        const tf_report_series *ser = s < p->nrates ? &p->rates[s] : p->mips;
        char colour[48];
        if (s < p->nrates)
            snprintf(colour, sizeof colour, "word(colour_series, %zu)", s % TF_PALETTE_SERIES + 1);
        else
            snprintf(colour, sizeof colour, "colour_mips");
        const char *axes = s < p->nrates ? "x1y1" : "x1y2";
        if (ser->lo)
            fprintf(f, ", \\\n     '%s' index %zu using 1:3:4 axes %s with filledcurves lc rgb %s notitle",
                    data, s, axes, colour);
        /* Counter k's dash type, TF_GP_DASH_BASE + k of style.gp (solid in colour). */
        fprintf(f, ", \\\n     '%s' index %zu using 1:2 axes %s with lines lw 1.4 lc rgb %s dt %d title ",
                data, s, axes, colour, s < p->nrates ? TF_GP_DASH_BASE + (int)(s % TF_PALETTE_SERIES) : 1);
        tf_gp_quote(f, s < p->nrates ? ser->name : MIPS_TITLE);
    }
    totals_key(f, p);
    return tf_gp_close(f, d, name, err);
}

/* Flows the phase key's entries side by side in rows from y down (widths
 * estimated, in the small font), writing them to f unless f is NULL;
 * returns the number of rows. */
static int key_flow(FILE *f, const tf_gp_dir *d, const phase_key *key, double y)
{
    double x = KEY_MARGIN, w_char = CHAR_W * 6.5 / 7;
    int rows = 1, tag = 3;
    for (const char *e = key->text; *e;) {
        size_t n = strcspn(e, "\n");
        double w = (double)n * w_char;
        if (x + w > d->size.w - KEY_MARGIN && x > KEY_MARGIN) {
            rows++;
            y += KEY_ROW;
            x = KEY_MARGIN;
        }
        if (f) {
            char entry[300];
            snprintf(entry, sizeof entry, "%.*s", (int)n, e);
            fprintf(f, "set label %d ", tag++);
            tf_gp_quote(f, entry);
            fprintf(f, " at screen %.4f, screen %.4f left font font_small\n", tf_gp_sx(d, x),
                    tf_gp_sy(d, y));
        }
        x += w + 8;
        e += n + (e[n] != 0);
    }
    return rows;
}

/* The phase key along the bottom of the page, its last row KEY_BOTTOM
 * above the page's bottom. */
static void key_labels(FILE *f, const tf_gp_dir *d, const phase_key *key)
{
    if (!key->text)
        return;
    fputs("# Key of the phase labels shown as a number above the code panel.\n", f);
    int rows = key_flow(NULL, d, key, 0);
    key_flow(f, d, key, d->size.h - KEY_BOTTOM - (rows - 1) * KEY_ROW);
}

int tf_gp_timeline(const tf_gp_dir *d, const tf_report_page *page, const char *prefix,
                   tf_error *err)
{
    tf_timeline_layout l;
    tf_timeline_layout_get(&l, d->size);
    phase_key key = {0};
    if (code_panel(d, page, prefix, &l, &key, err) < 0 || memory_panel(d, page, prefix, &l, err) < 0
        || rates_panel(d, page, prefix, &l, err) < 0) {
        free(key.text);
        return -err->code;
    }
    char name[256], out[256];
    snprintf(name, sizeof name, "%stimeline.gp", prefix);
    snprintf(out, sizeof out, "%stimeline", prefix);
    FILE *f = tf_gp_open(d, name, err);
    if (!f) {
        free(key.text);
        return -err->code;
    }
    fprintf(f,
            "# The triple timeline of one synthetic iteration, as tracefold render draws\n"
            "# it: source line, address space and counters on one time axis.\n"
            "# Run: gnuplot %s   (writes %s.%s).  Restyle freely: each panel is its\n"
            "# own script, loaded below (each also plots alone); the terminal and the\n"
            "# page are set here; fonts and colours in %s.\n",
            name, out, tf_render_format_name(d->format), TF_GP_STYLE);
    tf_gp_terminal(f, d, out);
    fputs("page_layout = 1   # the panels keep their places on this page\n", f);
    tf_time_unit u = tf_time_unit_for(page->duration_ns);
    fprintf(f, "duration = %.9g   # mean duration of the folded instances [%s]\n",
            page->duration_ns / u.ns, u.name);
    fprintf(f, "set multiplot\n");
    fprintf(f, "# Title\nset label 1 ");
    tf_gp_quote(f, page->title ? page->title : "folded region");
    fprintf(f, " at screen %.4f, screen %.4f left font font_title\n",
            tf_gp_sx(d, l.title.x), tf_gp_sy(d, l.title.y + 7));
    if (page->subtitle) {
        fprintf(f, "set label 2 ");
        tf_gp_quote(f, page->subtitle);
        fprintf(f, " at screen %.4f, screen %.4f left font font_body\n", tf_gp_sx(d, l.title.x),
                tf_gp_sy(d, l.title.y + 22));
    }
    key_labels(f, d, &key);
    free(key.text);
    fprintf(f, "unset border; unset tics; set xrange [0:1]; set yrange [0:1]\nplot NaN notitle\n"
               "load '%scode.gp'\nload '%smemory.gp'\nload '%srates.gp'\nunset multiplot\n",
            prefix, prefix, prefix);
    return tf_gp_close(f, d, name, err);
}
