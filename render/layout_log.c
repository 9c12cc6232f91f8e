/* SPDX-License-Identifier: BSD-3-Clause */
/* The layout record and its JSON. */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layout_log.h"
#include "common/tf_array.h"
#include "common/tf_escape.h"
#include "common/tf_output.h"

static tf_layout_box *add(tf_layout_log *l, tf_layout_box **v, size_t *n, size_t *cap)
{
    if (l->failed)
        return NULL;
    tf_layout_box *nv = tf_array_room(*v, *n, cap, sizeof **v, 64);
    if (!nv) {
        l->failed = 1;
        return NULL;
    }
    *v = nv;
    tf_layout_box *b = &nv[(*n)++];
    memset(b, 0, sizeof *b);
    return b;
}

static char *dup_or_fail(tf_layout_log *l, const char *s)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        l->failed = 1;
    return d;
}

void tf_layout_log_text(tf_layout_log *l, unsigned page, double x, double y, double w, double h,
                        const char *text, const char *full, unsigned key, const char *role,
                        const char *panel)
{
    tf_layout_box *b = add(l, &l->text, &l->ntext, &l->text_cap);
    if (!b)
        return;
    *b = (tf_layout_box){page, x, y, w, h, dup_or_fail(l, text), dup_or_fail(l, full), role, panel,
                         key};
}

void tf_layout_log_panel(tf_layout_log *l, unsigned page, double x, double y, double w, double h,
                         const char *name)
{
    tf_layout_box *b = add(l, &l->panel, &l->npanel, &l->panel_cap);
    if (b)
        *b = (tf_layout_box){page, x, y, w, h, NULL, NULL, NULL, name, 0};
}

static void write_box(FILE *f, const tf_layout_box *b, bool text)
{
    fprintf(f, "{\"page\": %u, \"x\": %.2f, \"y\": %.2f, \"width\": %.2f, \"height\": %.2f, ",
            b->page, b->x, b->y, b->w, b->h);
    fputs("\"panel\": ", f);
    tf_escape_json(f, b->panel);
    if (text) {
        fputs(", \"role\": ", f);
        tf_escape_json(f, b->role);
        fputs(", \"text\": ", f);
        tf_escape_json(f, b->text);
        if (b->full) {
            fputs(", \"full\": ", f);
            tf_escape_json(f, b->full);
            fprintf(f, ", \"key\": %u", b->key);
        }
    }
    fputc('}', f);
}

int tf_layout_log_write(const tf_layout_log *l, const char *path, tf_error *err)
{
    if (l->failed)
        return tf_fail(err, TF_ERR_NOMEM, "%s: no memory for the layout record", path);
    char tmp[4200];
    if (snprintf(tmp, sizeof tmp, "%s.tmp-%ld", path, (long)getpid()) >= (int)sizeof tmp)
        return tf_fail(err, TF_ERR_USAGE, "%s: name too long", path);
    FILE *f = fopen(tmp, "w");
    if (!f)
        return tf_fail(err, TF_ERR_IO, "%s: cannot create: %s", path, strerror(errno));
    fprintf(f, "{\"unit\": \"pt\", \"page_width\": %.2f, \"page_height\": %.2f,\n \"panels\": [",
            l->page_w, l->page_h);
    for (size_t i = 0; i < l->npanel; i++) {
        fputs(i ? ",\n  " : "\n  ", f);
        write_box(f, &l->panel[i], false);
    }
    fputs("],\n \"texts\": [", f);
    for (size_t i = 0; i < l->ntext; i++) {
        fputs(i ? ",\n  " : "\n  ", f);
        write_box(f, &l->text[i], true);
    }
    fputs("]}\n", f);
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
        int e = errno ? errno : EIO;
        unlink(tmp);
        return tf_fail(err, TF_ERR_IO, "%s: write error: %s", path, strerror(e));
    }
    if (tf_output_commit(tmp, path, err) < 0) {
        unlink(tmp);
        return -err->code;
    }
    return 0;
}

void tf_layout_log_truncate(tf_layout_log *l, size_t ntext, size_t npanel)
{
    for (size_t i = ntext; i < l->ntext; i++) {
        free(l->text[i].text);
        free(l->text[i].full);
    }
    l->ntext = ntext < l->ntext ? ntext : l->ntext;
    l->npanel = npanel < l->npanel ? npanel : l->npanel;
}

void tf_layout_log_free(tf_layout_log *l)
{
    for (size_t i = 0; i < l->ntext; i++) {
        free(l->text[i].text);
        free(l->text[i].full);
    }
    free(l->text);
    free(l->panel);
    memset(l, 0, sizeof *l);
}
