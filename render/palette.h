/* SPDX-License-Identifier: BSD-3-Clause */
/* The report's colours, shared by the cairo and gnuplot back ends:
 * routines and counter series from the Okabe–Ito colour-blind-safe set,
 * load costs on a green (cheap) to blue (costly) ramp.  The grey palette
 * (tracefold render --grayscale) gives grey levels instead, and counter
 * series a dash pattern each, so curves stay apart without colour. */
#ifndef TF_RENDER_PALETTE_H
#define TF_RENDER_PALETTE_H

#include <stddef.h>
#include <stdint.h>

typedef struct tf_rgb {
    double r, g, b;        /* 0..1 */
} tf_rgb;

/* Routines past this many share the neutral "other routines" colour. */
#define TF_PALETTE_ROUTINES 7

/* Counter series cycle through this many colours. */
#define TF_PALETTE_SERIES 6

enum tf_palette_kind { TF_PALETTE_COLOUR, TF_PALETTE_GRAY };

/* The palette the functions below answer from, for the report being drawn:
 * a back end selects it when it starts a report and goes back to colour
 * when done (drawing is single-threaded). */
void tf_palette_use(enum tf_palette_kind kind);
enum tf_palette_kind tf_palette_in_use(void);

tf_rgb tf_palette_routine(uint32_t routine);
tf_rgb tf_palette_series(size_t index);
/* The dash pattern of counter series index: *n lengths (points, on/off)
 * into dash, 0 for a solid line (always, in colour). */
void tf_palette_series_dash(size_t index, double dash[static 4], int *n);
extern const tf_rgb tf_palette_store;     /* stores: black */
extern const tf_rgb tf_palette_nocost;    /* software-decoded / no cost: neutral grey */
extern const tf_rgb tf_palette_phase;     /* phase boundaries */
/* Samples of threads waiting for others (the code panel's waiting lane):
 * darker than "other routines", on a light band. */
extern const tf_rgb tf_palette_waiting;
extern const tf_rgb tf_palette_waiting_band;

/* The cost scale of the loads: logarithmic between lo and hi cycles. */
typedef struct tf_cost_scale {
    double lo, hi;         /* cycles; lo == hi == 0 when no load has a cost */
} tf_cost_scale;

/* Position 0..1 of a cost on the scale (clamped). */
double tf_cost_position(const tf_cost_scale *s, double cycles);
/* Colour of a position 0..1 on the green-to-blue ramp. */
tf_rgb tf_cost_ramp(double position);
/* "#rrggbb" for scripts; buf holds at least 8 bytes. */
void tf_rgb_hex(tf_rgb c, char buf[static 8]);

#endif
