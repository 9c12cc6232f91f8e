/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared pieces of the gnuplot scripts. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gnuplot_script.h"
#include "palette.h"
#include "common/tf_escape.h"

FILE *tf_gp_open(const tf_gp_dir *d, const char *name, tf_error *err)
{
    char path[4096 + 256];
    snprintf(path, sizeof path, "%s/%s", d->tmp, name);
    FILE *f = fopen(path, "w");
    if (!f)
        tf_fail(err, TF_ERR_IO, "%s/%s: cannot create: %s", d->final, name, strerror(errno));
    return f;
}

int tf_gp_close(FILE *f, const tf_gp_dir *d, const char *name, tf_error *err)
{
    bool bad = ferror(f) != 0;
    if (fclose(f) != 0 || bad)
        return tf_fail(err, TF_ERR_IO, "%s/%s: write error: %s", d->final, name,
                       strerror(errno ? errno : EIO));
    return 0;
}

void tf_gp_quote(FILE *f, const char *s)
{
    /* A trace's names may hold control characters: escaped as \xNN like
     * every other sink (tf_escape.h), the escape's backslash then doubled
     * like any other, since in double quotes gnuplot reads backslash
     * escapes (the terminals are noenhanced, so no other character is
     * special). */
    char *shown = tf_escape_dup(s);
    fputc('"', f);
    for (const char *p = shown ? shown : ""; *p; p++) {
        if (*p == '"' || *p == '\\')
            fputc('\\', f);
        fputc(*p, f);
    }
    fputc('"', f);
    free(shown);
}

/* One colour list: NAME = "#rrggbb #rrggbb ..." (gnuplot's word() picks one). */
static void colour_list(FILE *f, const char *name, const tf_rgb *c, size_t n, const char *why)
{
    fprintf(f, "if (!exists(\"%s\")) %s = \"", name, name);
    for (size_t i = 0; i < n; i++) {
        char hex[8];
        tf_rgb_hex(c[i], hex);
        fprintf(f, "%s%s", i ? " " : "", hex);
    }
    fprintf(f, "\"   # %s\n", why);
}

static void colour_one(FILE *f, const char *name, tf_rgb c, const char *why)
{
    colour_list(f, name, &c, 1, why);
}

int tf_gp_style(const tf_gp_dir *d, tf_error *err)
{
    FILE *f = tf_gp_open(d, TF_GP_STYLE, err);
    if (!f)
        return -err->code;
    fputs("# The fonts and colours of every script in this folder, in one place:\n"
          "# change a value here, or give it on the command line, which wins:\n"
          "#   gnuplot -e \"font_name='Helvetica'; font_size=9\" timeline.gp\n"
          "# Every script loads this file; sizes of titles and notes follow font_size.\n"
          "if (!exists(\"font_name\")) font_name = \"DejaVu Sans\"\n"
          "if (!exists(\"font_mono\")) font_mono = \"DejaVu Sans Mono\"   # tables, addresses\n"
          "if (!exists(\"font_size\")) font_size = 7   # points; the layout is made for 6 to 9\n"
          "# Colours as '#rrggbb'; lists are read with word(list, k).\n",
          f);
    tf_rgb routines[TF_PALETTE_ROUTINES + 1], series[TF_PALETTE_SERIES], cost[5];
    for (uint32_t i = 0; i <= TF_PALETTE_ROUTINES; i++)
        routines[i] = tf_palette_routine(i);
    for (size_t i = 0; i < TF_PALETTE_SERIES; i++)
        series[i] = tf_palette_series(i);
    for (int i = 0; i < 5; i++)
        cost[i] = tf_cost_ramp(i / 4.0);
    colour_list(f, "colour_routines", routines, TF_PALETTE_ROUTINES + 1,
                "routines, most sampled first; the last one for all other routines");
    colour_list(f, "colour_series", series, TF_PALETTE_SERIES, "counter curves, in legend order");
    colour_one(f, "colour_mips", (tf_rgb){0, 0, 0}, "MIPS (right axis)");
    colour_list(f, "colour_cost", cost, 5, "load cost, cheap to costly (log scale)");
    colour_one(f, "colour_stores", tf_palette_store, "stores");
    colour_one(f, "colour_nocost", tf_palette_nocost, "loads without a cost (decoded in software)");
    colour_one(f, "colour_phase", tf_palette_phase, "phase boundaries");
    colour_one(f, "colour_band", (tf_rgb){0.949, 0.949, 0.949}, "data object bands");
    colour_one(f, "colour_cut", (tf_rgb){0.929, 0.929, 0.929}, "cuts of the source-line axis");
    colour_one(f, "colour_note", (tf_rgb){0.349, 0.349, 0.349}, "notes of empty panels");
    colour_one(f, "colour_waiting", tf_palette_waiting, "samples waiting for other threads");
    colour_one(f, "colour_waiting_band", tf_palette_waiting_band, "their lane in the code panel");
    colour_one(f, "colour_used", tf_palette_routine(0), "histogram: folded instances");
    colour_one(f, "colour_excluded", tf_palette_routine(5), "histogram: excluded instances");
    fputs("# Line styles of the counter curves, in legend order (dashed in grey scale).\n", f);
    for (size_t i = 0; i < TF_PALETTE_SERIES; i++) {
        double dash[4];
        int n;
        tf_palette_series_dash(i, dash, &n);
        fprintf(f, "set dashtype %d ", TF_GP_DASH_BASE + (int)i);
        if (n == 0)
            fputs("solid", f);
        for (int k = 0; k < n; k++)
            fprintf(f, "%s%g", k ? "," : "(", dash[k]);
        fputs(n ? ")\n" : "\n", f);
    }
    fputs("# Derived from the above; the scripts use these.\n"
          "font_body = sprintf(\"%s,%g\", font_name, font_size)\n"
          "font_small = sprintf(\"%s,%g\", font_name, font_size * 6.5 / 7)\n"
          "font_panel = sprintf(\"%s Bold,%g\", font_name, font_size * 8 / 7)\n"
          "font_title = sprintf(\"%s Bold,%g\", font_name, font_size * 11 / 7)\n"
          "font_note = sprintf(\"%s Oblique,%g\", font_name, font_size)\n"
          "font_table = sprintf(\"%s,%g\", font_mono, font_size)\n"
          "font_table_head = sprintf(\"%s Bold,%g\", font_mono, font_size)\n"
          "font_address = sprintf(\"%s,%g\", font_mono, font_size * 6.5 / 7)\n"
          "# The side margins hold the axis labels: they grow with the font.\n"
          "margin_scale = font_size / 7.0\n"
          "# Colour k (from 0) of a list, as a number for `lc rgb variable`.\n"
          "colour_number(list, k) = int(\"0x\" . word(list, int(k) < words(list) ? int(k) + 1 : words(list))[2:7])\n"
          "# How many legend entries of `chars` characters fit in `width` points.\n"
          "key_columns(width, chars) = int(width / ((chars + 3) * 0.55 * font_size)) < 1 ? 1 : "
          "int(width / ((chars + 3) * 0.55 * font_size))\n",
          f);
    return tf_gp_close(f, d, TF_GP_STYLE, err);
}

void tf_gp_terminal(FILE *f, const tf_gp_dir *d, const char *output)
{
    fprintf(f, "load '%s'\n", TF_GP_STYLE);
    /* Sizes match the cairo pages (--size; 510 x 720 points by default). */
    switch (d->format) {
    case TF_FORMAT_PDF:
        fprintf(f, "set terminal pdfcairo size %.3fin,%.3fin noenhanced font font_body linewidth 0.8\n",
                d->size.w / 72, d->size.h / 72);
        fprintf(f, "set output '%s.pdf'\n", output);
        break;
    case TF_FORMAT_PNG:
        /* pngcairo sizes fonts for 96 pixels per inch: scale them with the dpi. */
        fprintf(f, "set terminal pngcairo size %ld,%ld noenhanced font font_body fontscale %.3f "
                   "linewidth %.3f\n",
                lround(d->size.w * d->dpi / 72), lround(d->size.h * d->dpi / 72),
                d->dpi / 96, 0.8 * d->dpi / 72);
        fprintf(f, "set output '%s.png'\n", output);
        break;
    case TF_FORMAT_SVG:
        fprintf(f, "set terminal svg size %.0f,%.0f noenhanced font font_body linewidth 0.8\n",
                d->size.w, d->size.h);
        fprintf(f, "set output '%s.svg'\n", output);
        break;
    }
}

void tf_gp_panel_box(FILE *f, const tf_gp_dir *d, double top, double bottom)
{
    fprintf(f,
            "# Placement: heights are given in page points from the top, through\n"
            "# panel_y.  Loaded by the page script (page_layout set), the panel keeps\n"
            "# its place on the page; run alone, the panel's box fills the terminal.\n"
            "panel_y(y) = exists(\"page_layout\") ? 1 - y / %.1f : (%.1f - y) / %.1f\n",
            d->size.h, bottom, bottom - top);
}

void tf_gp_margins(FILE *f, const tf_gp_dir *d, tf_rect plot)
{
    fprintf(f,
            "set lmargin at screen %.4f * margin_scale; set rmargin at screen 1 - %.4f * margin_scale\n"
            "set tmargin at screen panel_y(%.1f); set bmargin at screen panel_y(%.1f)\n",
            tf_gp_sx(d, plot.x), 1 - tf_gp_sx(d, plot.x + plot.w), plot.y, plot.y + plot.h);
}

unsigned tf_gp_transparency(double alpha)
{
    double a = alpha < 0 ? 0 : alpha > 1 ? 1 : alpha;
    return (unsigned)lround((1 - a) * 255);
}
