/* SPDX-License-Identifier: BSD-3-Clause */
/* Colour tables and the cost ramp. */
#include "config.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "palette.h"

#define RGB(hex) {((hex) >> 16 & 0xff) / 255.0, ((hex) >> 8 & 0xff) / 255.0, ((hex) & 0xff) / 255.0}

/* Okabe & Ito (2008), ordered so the colours that read best on white come
 * first; yellow, the weakest on paper, last. */
static const tf_rgb routine_colours[TF_PALETTE_ROUTINES] = {
    RGB(0x0072B2), RGB(0xE69F00), RGB(0x009E73), RGB(0xCC79A7),
    RGB(0x56B4E9), RGB(0xD55E00), RGB(0xF0E442),
};
static const tf_rgb other_routines = RGB(0x7F7F7F);

/* Miss ratios: warm colours first, as the L1/L2/L3 red-orange order of the
 * reference figure, without its unreadable yellow. */
static const tf_rgb series_colours[TF_PALETTE_SERIES] = {
    RGB(0xD55E00), RGB(0xE69F00), RGB(0xCC79A7), RGB(0x56B4E9),
    RGB(0x009E73), RGB(0x0072B2),
};

/* Grey levels far enough apart on paper (at least 0.1 in lightness from
 * each other), neighbours in legend order far apart; the lightest still
 * clear on white.  Routines 0 and 5 are also the histogram's used and
 * excluded instances. */
#define GREY(v) {(v), (v), (v)}
static const tf_rgb routine_greys[TF_PALETTE_ROUTINES] = {
    GREY(0.0), GREY(0.50), GREY(0.25), GREY(0.72), GREY(0.38), GREY(0.62), GREY(0.12),
};
static const tf_rgb other_routines_grey = GREY(0.84);
/* Series differ by dash pattern first, so their greys need not be many;
 * none is solid, the solid black line being MIPS. */
static const tf_rgb series_greys[TF_PALETTE_SERIES] = {
    GREY(0.0), GREY(0.35), GREY(0.0), GREY(0.35), GREY(0.0), GREY(0.35),
};
static const double series_dashes[TF_PALETTE_SERIES][4] = {
    {4, 1.5}, {1, 1.5}, {4, 1.5, 1, 1.5}, {2, 2}, {6, 2, 1, 2}, {8, 2},
};
static const int series_ndash[TF_PALETTE_SERIES] = {2, 2, 4, 2, 4, 2};
/* Grey to black: the cost ramp's lightness order kept. */
static const tf_rgb cost_greys[] = {
    GREY(0.80), GREY(0.58), GREY(0.36), GREY(0.12),
};

static enum tf_palette_kind in_use = TF_PALETTE_COLOUR;

void tf_palette_use(enum tf_palette_kind kind)
{
    in_use = kind;
}

enum tf_palette_kind tf_palette_in_use(void)
{
    return in_use;
}

const tf_rgb tf_palette_store = RGB(0x000000);
const tf_rgb tf_palette_nocost = RGB(0xA0A0A0);
const tf_rgb tf_palette_phase = RGB(0x606060);
const tf_rgb tf_palette_waiting = RGB(0x404040);
const tf_rgb tf_palette_waiting_band = RGB(0xEBEBEB);

/* Green to dark blue, perceptually ordered (light to dark), so the cost
 * also reads in grey scale. */
static const tf_rgb cost_stops[] = {
    RGB(0x7FC97F), RGB(0x41B6C4), RGB(0x2C7FB8), RGB(0x253494),
};

tf_rgb tf_palette_routine(uint32_t routine)
{
    bool grey = in_use == TF_PALETTE_GRAY;
    if (routine >= TF_PALETTE_ROUTINES)
        return grey ? other_routines_grey : other_routines;
    return grey ? routine_greys[routine] : routine_colours[routine];
}

tf_rgb tf_palette_series(size_t index)
{
    return (in_use == TF_PALETTE_GRAY ? series_greys : series_colours)[index % TF_PALETTE_SERIES];
}

void tf_palette_series_dash(size_t index, double dash[static 4], int *n)
{
    *n = in_use == TF_PALETTE_GRAY ? series_ndash[index % TF_PALETTE_SERIES] : 0;
    for (int i = 0; i < *n; i++)
        dash[i] = series_dashes[index % TF_PALETTE_SERIES][i];
}

double tf_cost_position(const tf_cost_scale *s, double cycles)
{
    if (!(s->hi > s->lo) || cycles <= s->lo)
        return 0.0;
    if (cycles >= s->hi)
        return 1.0;
    return (log(cycles) - log(s->lo)) / (log(s->hi) - log(s->lo));
}

tf_rgb tf_cost_ramp(double position)
{
    const tf_rgb *stops = in_use == TF_PALETTE_GRAY ? cost_greys : cost_stops;
    const size_t last = sizeof cost_stops / sizeof cost_stops[0] - 1;
    double p = position < 0 ? 0 : position > 1 ? 1 : position;
    double f = p * (double)last;
    size_t i = (size_t)f;
    if (i >= last)
        return stops[last];
    double t = f - (double)i;
    tf_rgb a = stops[i], b = stops[i + 1];
    return (tf_rgb){a.r + t * (b.r - a.r), a.g + t * (b.g - a.g), a.b + t * (b.b - a.b)};
}

void tf_rgb_hex(tf_rgb c, char buf[static 8])
{
    snprintf(buf, 8, "#%02x%02x%02x", (unsigned)lround(c.r * 255), (unsigned)lround(c.g * 255),
             (unsigned)lround(c.b * 255));
}
