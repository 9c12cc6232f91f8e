/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared pieces of the gnuplot scripts. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gnuplot_script.h"
#include "tf_escape.h"

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

void tf_gp_terminal(FILE *f, const tf_gp_dir *d, const char *output)
{
    /* Sizes match the cairo pages: 510 x 720 points. */
    switch (d->format) {
    case TF_FORMAT_PDF:
        fprintf(f, "set terminal pdfcairo size %.2fin,%.2fin noenhanced font \"DejaVu Sans,7\" linewidth 0.8\n",
                TF_PAGE_WIDTH / 72, TF_PAGE_HEIGHT / 72);
        fprintf(f, "set output '%s.pdf'\n", output);
        break;
    case TF_FORMAT_PNG:
        /* pngcairo sizes fonts for 96 pixels per inch: scale them with the dpi. */
        fprintf(f, "set terminal pngcairo size %ld,%ld noenhanced font \"DejaVu Sans,7\" fontscale %.3f "
                   "linewidth %.3f\n",
                lround(TF_PAGE_WIDTH * d->dpi / 72), lround(TF_PAGE_HEIGHT * d->dpi / 72),
                d->dpi / 96, 0.8 * d->dpi / 72);
        fprintf(f, "set output '%s.png'\n", output);
        break;
    case TF_FORMAT_SVG:
        fprintf(f, "set terminal svg size %.0f,%.0f noenhanced font \"DejaVu Sans,7\" linewidth 0.8\n",
                TF_PAGE_WIDTH, TF_PAGE_HEIGHT);
        fprintf(f, "set output '%s.svg'\n", output);
        break;
    }
}

void tf_gp_margins(FILE *f, tf_rect plot)
{
    fprintf(f,
            "set lmargin at screen %.4f; set rmargin at screen %.4f\n"
            "set tmargin at screen %.4f; set bmargin at screen %.4f\n",
            tf_gp_sx(plot.x), tf_gp_sx(plot.x + plot.w), tf_gp_sy(plot.y),
            tf_gp_sy(plot.y + plot.h));
}

unsigned tf_gp_transparency(double alpha)
{
    double a = alpha < 0 ? 0 : alpha > 1 ? 1 : alpha;
    return (unsigned)lround((1 - a) * 255);
}
