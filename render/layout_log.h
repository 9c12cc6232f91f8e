/* SPDX-License-Identifier: BSD-3-Clause */
/* The record of where a drawn report put its text and panels (tracefold
 * render --layout-json): every text box with the text shown, the full text
 * when the shown one is shortened and the number of its key, and every
 * panel's box, so that tests can check that nothing overlaps, leaves its
 * page or panel, or is cut without a key. */
#ifndef TF_RENDER_LAYOUT_LOG_H
#define TF_RENDER_LAYOUT_LOG_H

#include <stddef.h>

#include "common/tf_error.h"

typedef struct tf_layout_box {
    unsigned page;            /* 1-based output page */
    double   x, y, w, h;      /* points, y downwards */
    char    *text;            /* shown; for a panel, its name */
    char    *full;            /* the whole text when shortened, else NULL */
    const char *role;         /* what the text is ("tick", "legend", ...) */
    const char *panel;        /* the panel it belongs to */
    unsigned key;             /* number of the key that gives `full`, 0 none */
} tf_layout_box;

typedef struct tf_layout_log {
    tf_layout_box *text, *panel;
    size_t ntext, npanel, text_cap, panel_cap;
    double page_w, page_h;
    int    failed;            /* out of memory on the way: the log is not written */
} tf_layout_log;

/* Adds a text box; full and key only for a shortened text. */
void tf_layout_log_text(tf_layout_log *l, unsigned page, double x, double y, double w, double h,
                        const char *text, const char *full, unsigned key, const char *role,
                        const char *panel);
/* Adds a panel's box: the region of the page its text must stay in. */
void tf_layout_log_panel(tf_layout_log *l, unsigned page, double x, double y, double w, double h,
                         const char *name);
/* Forgets the boxes added after the log held ntext texts and npanel
 * panels (a page drawn again with another layout). */
void tf_layout_log_truncate(tf_layout_log *l, size_t ntext, size_t npanel);
/* Writes the log as JSON to path (through a temporary name). */
int tf_layout_log_write(const tf_layout_log *l, const char *path, tf_error *err);
void tf_layout_log_free(tf_layout_log *l);

#endif
