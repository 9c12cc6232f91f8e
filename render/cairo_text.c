/* SPDX-License-Identifier: BSD-3-Clause */
/* pango text in page units, and label claims. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cairo_text.h"
#include "key_mark.h"
#include "page_size.h"
#include "common/tf_array.h"
#include "common/tf_escape.h"

/* Sizes chosen for a figure printed about 18 cm wide (a journal's full
 * width): 7 pt ticks are the smallest size most journals accept. */
static const char *const font_names[TF_NFONTS] = {
    [TF_FONT_TICK] = "DejaVu Sans 6.5",
    [TF_FONT_LABEL] = "DejaVu Sans 7.5",
    [TF_FONT_NOTE] = "DejaVu Sans Oblique 8",
    [TF_FONT_HEAD] = "DejaVu Sans Bold 8",
    [TF_FONT_TITLE] = "DejaVu Sans Bold 11",
    [TF_FONT_MONO] = "DejaVu Sans Mono 6.5",
};

/* Space kept free around a claimed label. */
#define CLAIM_MARGIN 1.5

int tf_text_init(tf_text *t, cairo_t *cr, tf_error *err)
{
    memset(t, 0, sizeof *t);
    t->cr = cr;
    t->page_w = TF_PAGE_WIDTH;
    t->page_h = TF_PAGE_HEIGHT;
    t->layout = pango_cairo_create_layout(cr);
    if (!t->layout)
        return tf_fail(err, TF_ERR_NOMEM, "report: cannot create a text layout");
    PangoContext *ctx = pango_layout_get_context(t->layout);
    /* One point per page unit, and no hinting, so text measures the same
     * on every surface (PDF, SVG, PNG at any dpi). */
    pango_cairo_context_set_resolution(ctx, 72.0);
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_NONE);
    pango_cairo_context_set_font_options(ctx, fo);
    cairo_font_options_destroy(fo);
    pango_layout_context_changed(t->layout);
    for (int i = 0; i < TF_NFONTS; i++)
        t->font[i] = pango_font_description_from_string(font_names[i]);
    return 0;
}

void tf_text_fini(tf_text *t)
{
    for (size_t i = 0; i < t->nkeys; i++)
        free(t->keys[i]);
    free(t->keys);
    for (int i = 0; i < TF_NFONTS; i++)
        if (t->font[i])
            pango_font_description_free(t->font[i]);
    if (t->layout)
        g_object_unref(t->layout);
    memset(t, 0, sizeof *t);
}

static const char *const font_roles[TF_NFONTS] = {
    [TF_FONT_TICK] = "tick", [TF_FONT_LABEL] = "label", [TF_FONT_NOTE] = "note",
    [TF_FONT_HEAD] = "heading", [TF_FONT_TITLE] = "title", [TF_FONT_MONO] = "address",
};

/* Wrapped to wrap_w (> 0), else on one line. */
static void set_text(tf_text *t, int font, const char *s, double wrap_w)
{
    pango_layout_set_font_description(t->layout, t->font[font]);
    pango_layout_set_ellipsize(t->layout, PANGO_ELLIPSIZE_NONE);
    pango_layout_set_width(t->layout, wrap_w > 0 ? (int)(wrap_w * PANGO_SCALE) : -1);
    pango_layout_set_wrap(t->layout, PANGO_WRAP_WORD_CHAR);
    /* Names from the trace may hold control characters or bytes that are
     * not UTF-8, which pango refuses (the whole page would fail). */
    char *shown = tf_escape_dup(s);
    pango_layout_set_text(t->layout, shown ? shown : "", -1);
    free(shown);
}

static double width_of(tf_text *t, int font, const char *s)
{
    set_text(t, font, s, 0);
    PangoRectangle logical;
    pango_layout_get_extents(t->layout, NULL, &logical);
    return (double)logical.width / PANGO_SCALE;
}

/* Key numbers as superscripts, so that they read apart from a routine's
 * [line]. */
static unsigned key_of(const tf_text *t, const char *full)
{
    for (size_t i = 0; i < t->nkeys; i++)
        if (!strcmp(t->keys[i], full))
            return (unsigned)i + 1;
    return (unsigned)t->nkeys + 1;
}

static bool key_add(tf_text *t, const char *full, unsigned key)
{
    if (key <= t->nkeys)
        return true;
    char **nk = tf_array_room(t->keys, t->nkeys, &t->keys_cap, sizeof *nk, 8);
    char *d = strdup(full);
    if (!nk || !d) {
        free(d);
        return false;
    }
    t->keys = nk;
    t->keys[t->nkeys++] = d;
    return true;
}

/* What of a routine's name is kept longest when it is shortened, as
 * character offsets in the text as drawn: its own name [own, own_end) (the
 * last "::" outside <>, () and [] and the identifier after it), then what
 * follows that (arguments, a line "[76]", a file " (cg.c)"); the namespace
 * and class before it go first.  own < 0: not a qualified name. */
typedef struct name_parts {
    long n, own, own_end;
} name_parts;

/* The own name of s as pointers into it (NULLs when s has no "::"). */
static void own_name(const char *s, const char **start, const char **end)
{
    int depth = 0;
    *start = *end = NULL;
    for (const char *c = s; *c; c++) {
        if (strchr("<([", *c))
            depth++;
        else if (strchr(">)]", *c) && depth > 0)
            depth--;
        else if (depth == 0 && c[0] == ':' && c[1] == ':')
            *start = c;
    }
    if (!*start)
        return;
    depth = 0;
    for (*end = *start + 2; **end && (depth > 0 || !strchr(" ([", **end)); (*end)++)
        depth += **end == '<' ? 1 : **end == '>' && depth > 0 ? -1 : 0;
}

/* Characters of s from p on, as drawn (escaping is per character, so the
 * escaped rest of s is the end of the escaped s); -1 out of memory. */
static long drawn_chars(const char *p)
{
    char *e = tf_escape_dup(p);
    long n = e ? g_utf8_strlen(e, -1) : -1;
    free(e);
    return n;
}

static int name_parts_of(const char *s, long n, name_parts *np)
{
    const char *start, *end;
    own_name(s, &start, &end);
    *np = (name_parts){n, -1, -1};
    if (!start)
        return 0;
    long from_own = drawn_chars(start), from_end = drawn_chars(end);
    if (from_own < 0 || from_end < 0)
        return -1;
    np->own = n - from_own;
    np->own_end = n - from_end;
    return 0;
}

/* s (drawn text) with `keep` of its characters kept and the key mark
 * after them: namespace and class shortened in the middle before the
 * whole own name and what follows ("Comp…::calc_self_energy (cg.c)"); when
 * that leaves no room, the namespace dropped and what follows the own name
 * shortened ("…::calc_self_energy (Co…e2.h)"); else (not a qualified name,
 * or no room for its own name) a third from the start, the rest from the
 * end. */
static char *middle(const char *s, const name_parts *np, long keep, const char *mark)
{
    long n = np->n, own = np->own_end - np->own, after = n - np->own_end;
    long h_end = keep / 3, t_start = n - (keep - h_end), cut = -1, cut_end = -1;
    if (np->own >= 0 && keep > own + after) {
        h_end = keep - own - after;
        t_start = np->own;
    } else if (np->own >= 0 && after > 0 && keep > own + 2) {
        /* "" … own + head of the rest … tail of the rest */
        h_end = 0;
        t_start = np->own;
        cut = np->own_end + (keep - own) / 3;
        cut_end = n - (keep - own - (keep - own) / 3);
    }
    const char *he = g_utf8_offset_to_pointer(s, h_end), *ts = g_utf8_offset_to_pointer(s, t_start);
    const char *ce = cut < 0 ? NULL : g_utf8_offset_to_pointer(s, cut);
    const char *cs = cut < 0 ? NULL : g_utf8_offset_to_pointer(s, cut_end);
    size_t len = (size_t)(he - s) + 2 * strlen("…") + strlen(ts) + strlen(mark) + 1;
    char *b = malloc(len);
    if (!b)
        return NULL;
    if (ce)
        snprintf(b, len, "%.*s…%.*s…%s%s", (int)(he - s), s, (int)(ce - ts), ts, cs, mark);
    else
        snprintf(b, len, "%.*s…%s%s", (int)(he - s), s, ts, mark);
    return b;
}

char *tf_text_shorten(tf_text *t, int font, const char *s, double max_w, unsigned *key)
{
    *key = 0;
    if (max_w <= 0 || width_of(t, font, s) <= max_w)
        return (char *)s;
    /* Counted on the text as it is drawn (escapes in), so that the cut
     * falls between whole characters. */
    char *e = tf_escape_dup(s);
    if (!e)
        return NULL;
    *key = key_of(t, s);
    char mark[64];
    tf_key_mark(*key, mark, sizeof mark);
    long n = g_utf8_strlen(e, -1), lo = 0, hi = n - 1;
    name_parts np;
    if (name_parts_of(s, n, &np) < 0) {
        free(e);
        return NULL;
    }
    /* The most characters that fit, by bisection (width grows with them). */
    while (lo < hi) {
        long mid = (lo + hi + 1) / 2;
        char *b = middle(e, &np, mid, mark);
        if (!b) {
            free(e);
            return NULL;
        }
        if (width_of(t, font, b) <= max_w)
            lo = mid;
        else
            hi = mid - 1;
        free(b);
    }
    char *b = middle(e, &np, lo, mark);
    free(e);
    return b;
}

static tf_rect place(tf_text *t, double x, double y, double ax, double ay)
{
    PangoRectangle logical;
    pango_layout_get_extents(t->layout, NULL, &logical);
    double w = (double)logical.width / PANGO_SCALE, h = (double)logical.height / PANGO_SCALE;
    return (tf_rect){x - ax * w, y - ay * h, w, h};
}

tf_rect tf_text_box(tf_text *t, int font, const char *s, double x, double y, double ax, double ay,
                    double max_w)
{
    unsigned key;
    char *shown = tf_text_shorten(t, font, s, max_w, &key);
    set_text(t, font, shown ? shown : "", 0);
    tf_rect r = place(t, x, y, ax, ay);
    if (shown != s)
        free(shown);
    return r;
}

static void show(tf_text *t, tf_rgb colour)
{
    cairo_set_source_rgb(t->cr, colour.r, colour.g, colour.b);
    pango_cairo_update_layout(t->cr, t->layout);
    pango_cairo_show_layout(t->cr, t->layout);
    /* The move_to before must not stay as the start of the next path (the
     * path is not part of the saved state). */
    cairo_new_path(t->cr);
}

static void record(tf_text *t, int font, tf_rect r, const char *shown, const char *full,
                   unsigned key)
{
    if (t->log)
        tf_layout_log_text(t->log, t->page, r.x, r.y, r.w, r.h, shown, full, key,
                           t->role ? t->role : font_roles[font], t->panel);
}

/* Draws `shown` placed at (x, y) and records it, with the full text
 * and its key when shown stands for it. */
static tf_rect draw_shown(tf_text *t, int font, const char *shown, const char *full, unsigned key,
                          double x, double y, double ax, double ay, tf_rgb colour)
{
    set_text(t, font, shown, 0);
    tf_rect r = place(t, x, y, ax, ay);
    cairo_save(t->cr);
    cairo_move_to(t->cr, r.x, r.y);
    show(t, colour);
    cairo_restore(t->cr);
    record(t, font, r, shown, full, key);
    return r;
}

/* s shortened to max_w with its key entered; out of memory, s itself
 * (the full text rather than none) with *key 0. */
static char *shorten_keyed(tf_text *t, int font, const char *s, double max_w, unsigned *key)
{
    char *shown = tf_text_shorten(t, font, s, max_w, key);
    if (!shown || (*key && !key_add(t, s, *key))) {
        if (shown != s)
            free(shown);
        shown = (char *)s;
        *key = 0;
    }
    return shown;
}

tf_rect tf_text_draw(tf_text *t, int font, const char *s, double x, double y, double ax, double ay,
                     double max_w, tf_rgb colour)
{
    unsigned key;
    char *shown = shorten_keyed(t, font, s, max_w, &key);
    tf_rect r = draw_shown(t, font, shown, key ? s : NULL, key, x, y, ax, ay, colour);
    if (shown != s)
        free(shown);
    return r;
}

tf_rect tf_text_mark_box(tf_text *t, int font, const char *full, double x, double y, double ax,
                         double ay)
{
    char mark[64];
    tf_key_mark(key_of(t, full), mark, sizeof mark);
    set_text(t, font, mark, 0);
    return place(t, x, y, ax, ay);
}

tf_rect tf_text_mark_draw(tf_text *t, int font, const char *full, double x, double y, double ax,
                          double ay, tf_rgb colour)
{
    unsigned key = key_of(t, full);
    /* Out of memory: the full text, rather than a mark without its key. */
    if (!key_add(t, full, key))
        return tf_text_draw(t, font, full, x, y, ax, ay, 0, colour);
    char mark[64];
    tf_key_mark(key, mark, sizeof mark);
    return draw_shown(t, font, mark, full, key, x, y, ax, ay, colour);
}

void tf_text_draw_vertical(tf_text *t, int font, const char *full, double x, double y,
                           double max_len, tf_rgb colour)
{
    unsigned key;
    char *s = shorten_keyed(t, font, full, max_len, &key);
    set_text(t, font, s, 0);
    tf_rect r = place(t, 0, 0, 0.5, 0.5);
    cairo_save(t->cr);
    cairo_translate(t->cr, x, y);
    cairo_rotate(t->cr, -G_PI / 2);
    cairo_move_to(t->cr, r.x, r.y);
    show(t, colour);
    cairo_restore(t->cr);
    /* Turned a quarter: its box on the page is r's with width and height
     * swapped, around the same centre. */
    record(t, font, (tf_rect){x - r.h / 2, y - r.w / 2, r.h, r.w}, s, key ? full : NULL, key);
    if (s != full)
        free(s);
}

double tf_text_keys_draw(tf_text *t, tf_rect box)
{
    const char *role = t->role;
    t->role = "key";
    /* Entries side by side, a row full going on to the next; one wider
     * than the box wraps over lines of its own. */
    double x = box.x, y = box.y, row_h = 0, gap = 8;
    for (size_t i = 0; i < t->nkeys; i++) {
        char mark[64];
        tf_key_mark((unsigned)i + 1, mark, sizeof mark);
        char *line = g_strdup_printf("%s %s", mark, t->keys[i]);
        set_text(t, TF_FONT_TICK, line, box.w);
        tf_rect r = place(t, 0, 0, 0, 0);
        if (x > box.x && x + r.w > box.x + box.w) {
            x = box.x;
            y += row_h;
            row_h = 0;
        }
        r.x = x;
        r.y = y;
        cairo_save(t->cr);
        cairo_move_to(t->cr, r.x, r.y);
        show(t, (tf_rgb){0.1, 0.1, 0.1});
        cairo_restore(t->cr);
        record(t, TF_FONT_TICK, r, line, NULL, 0);
        g_free(line);
        x += r.w + gap;
        row_h = r.h > row_h ? r.h : row_h;
    }
    t->role = role;
    return y + row_h - box.y;
}

static bool overlap(tf_rect a, tf_rect b)
{
    return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

bool tf_claims_take(tf_claims *c, tf_rect r)
{
    /* Text boxes include the line spacing above and below the glyphs:
     * little extra room is needed vertically. */
    tf_rect g = {r.x - CLAIM_MARGIN, r.y - CLAIM_MARGIN / 6, r.w + 2 * CLAIM_MARGIN,
                 r.h + CLAIM_MARGIN / 3};
    if (c->bounds.w > 0 && (r.x < c->bounds.x || r.y < c->bounds.y ||
                            r.x + r.w > c->bounds.x + c->bounds.w ||
                            r.y + r.h > c->bounds.y + c->bounds.h))
        return false;
    for (size_t i = 0; i < c->n; i++)
        if (overlap(g, c->r[i]))
            return false;
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 32;
        tf_rect *nr = realloc(c->r, cap * sizeof *nr);
        if (!nr)
            return false;
        c->r = nr;
        c->cap = cap;
    }
    c->r[c->n++] = g;
    return true;
}

void tf_claims_free(tf_claims *c)
{
    free(c->r);
    memset(c, 0, sizeof *c);
}
