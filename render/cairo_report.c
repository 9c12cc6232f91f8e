/* SPDX-License-Identifier: BSD-3-Clause */
/* The cairo back end's output: PDF (all pages in one file), SVG and PNG
 * (one file per page), written under temporary names and renamed only when
 * the whole report is complete. */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cairo-pdf.h>
#include <cairo-svg.h>

#include "cairo_output.h"
#include "cairo_page.h"
#include "render.h"
#include "common/tf_output.h"

static const char *const format_names[] = {
    [TF_FORMAT_PDF] = "pdf", [TF_FORMAT_SVG] = "svg", [TF_FORMAT_PNG] = "png",
};

bool tf_render_format_parse(const char *name, enum tf_render_format *format)
{
    for (size_t i = 0; i < sizeof format_names / sizeof format_names[0]; i++)
        if (!strcmp(name, format_names[i])) {
            *format = (enum tf_render_format)i;
            return true;
        }
    return false;
}

const char *tf_render_format_name(enum tf_render_format format)
{
    return format_names[format];
}

/* Which report pages' keys go on a page of their own (key_next, may be
 * NULL), and the number of output pages: each timeline page is drawn out
 * of sight first, to see whether its key fits below the plots. */
static int plan_pages(const tf_report *r, const tf_render_options *o, bool *key_next,
                      size_t *npages, tf_error *err)
{
    tf_page_size size = o->size.w > 0 ? o->size : (tf_page_size){TF_PAGE_WIDTH, TF_PAGE_HEIGHT};
    *npages = 2 * r->npages;
    int rc = 0;
    for (size_t i = 0; i < r->npages && rc == 0; i++) {
        cairo_surface_t *s = cairo_recording_surface_create(CAIRO_CONTENT_COLOR_ALPHA, NULL);
        cairo_t *cr = cairo_create(s);
        unsigned over = 0;
        tf_page_ctx pc = {1, NULL, o->max_phase_labels, size, &over, TF_KEY_HERE};
        rc = tf_page_timeline(cr, &r->pages[i], &pc, err);
        cairo_destroy(cr);
        cairo_surface_destroy(s);
        if (key_next)
            key_next[i] = over > 0;
        *npages += over > 0;
    }
    return rc;
}

int tf_render_cairo_pages(const tf_report *r, const tf_render_options *o, size_t *npages,
                          tf_error *err)
{
    tf_palette_use(o->grayscale ? TF_PALETTE_GRAY : TF_PALETTE_COLOUR);
    int rc = plan_pages(r, o, NULL, npages, err);
    tf_palette_use(TF_PALETTE_COLOUR);
    return rc;
}

int tf_render_page_path(const char *path, size_t k, char *buf, size_t len, tf_error *err)
{
    int n;
    if (k == 0) {
        n = snprintf(buf, len, "%s", path);
    } else {
        const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
        if (!dot || (slash && dot < slash) || dot == (slash ? slash + 1 : path))
            dot = path + strlen(path);
        n = snprintf(buf, len, "%.*s-%zu%s", (int)(dot - path), path, k + 1, dot);
    }
    if (n < 0 || (size_t)n >= len)
        return tf_fail(err, TF_ERR_USAGE, "%s: output name too long", path);
    return 0;
}

/* A file being written through cairo's stream interface, so that a write
 * error is reported with its errno and the file's name. */
typedef struct out_file {
    char  path[4096];
    char  tmp[4096 + 32];
    FILE *f;
    int   errnum;
} out_file;

static cairo_status_t stream_write(void *closure, const unsigned char *data, unsigned int len)
{
    out_file *o = closure;
    if (o->errnum)
        return CAIRO_STATUS_WRITE_ERROR;
    if (fwrite(data, 1, len, o->f) != len) {
        o->errnum = errno ? errno : EIO;
        return CAIRO_STATUS_WRITE_ERROR;
    }
    return CAIRO_STATUS_SUCCESS;
}

static int out_open(out_file *o, const char *path, size_t k, tf_error *err)
{
    memset(o, 0, sizeof *o);
    if (tf_render_page_path(path, k, o->path, sizeof o->path, err) < 0)
        return -err->code;
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp-%ld", o->path, (long)getpid());
    o->f = fopen(o->tmp, "wb");
    if (!o->f)
        return tf_fail(err, TF_ERR_IO, "%s: cannot create: %s", o->path, strerror(errno));
    return 0;
}

/* Closes o, returning an error if anything failed on the way. */
static int out_close(out_file *o, tf_error *err)
{
    if (!o->f)
        return 0;
    if (fclose(o->f) != 0 && !o->errnum)
        o->errnum = errno;
    o->f = NULL;
    if (o->errnum)
        return tf_fail(err, TF_ERR_IO, "%s: write error: %s", o->path, strerror(o->errnum));
    return 0;
}

typedef struct report_doc {
    const tf_report *report;
    tf_layout_log   *log;
    unsigned         max_phase_labels;
    tf_page_size     size;
    unsigned        *overflowed;
    const bool      *key_next;    /* per report page: its key on a page of its own */
} report_doc;

static int draw_page(cairo_t *cr, const void *ctx, size_t k, tf_error *err)
{
    const report_doc *d = ctx;
    /* Per report page: the timeline, its key's page when it has one, the
     * tables. */
    size_t i = 0, first = 0;
    while (first + 2 + d->key_next[i] <= k)
        first += 2 + d->key_next[i++];
    size_t j = k - first;
    const tf_report_page *page = &d->report->pages[i];
    tf_page_ctx pc = {(unsigned)k + 1, d->log, d->max_phase_labels, d->size, d->overflowed,
                      !d->key_next[i] ? TF_KEY_HERE : j == 0 ? TF_KEY_NEXT_PAGE : TF_KEY_ONLY};
    return j == 0 || (j == 1 && d->key_next[i]) ? tf_page_timeline(cr, page, &pc, err)
                                                 : tf_page_tables(cr, page, &pc, err);
}

static int check_cairo(cairo_t *cr, const out_file *o, tf_error *err)
{
    cairo_status_t st = cairo_status(cr);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(cairo_get_target(cr));
    if (st == CAIRO_STATUS_SUCCESS)
        return 0;
    if (o->errnum)
        return tf_fail(err, TF_ERR_IO, "%s: write error: %s", o->path, strerror(o->errnum));
    return tf_fail(err, TF_ERR_INTERNAL, "%s: drawing failed: %s", o->path,
                   cairo_status_to_string(st));
}

/* Pages [first, last) on one vector surface (PDF: all, SVG: one). */
static int write_vector(const tf_cairo_doc *d, out_file *o, enum tf_render_format format,
                        size_t first, size_t last, tf_error *err)
{
    cairo_surface_t *s = format == TF_FORMAT_PDF
        ? cairo_pdf_surface_create_for_stream(stream_write, o, d->width, d->height)
        : cairo_svg_surface_create_for_stream(stream_write, o, d->width, d->height);
    if (format == TF_FORMAT_PDF) {
        cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR, "tracefold " PACKAGE_VERSION);
        if (d->title)
            cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_TITLE, d->title);
    } else {
        cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PT);
    }
    cairo_t *cr = cairo_create(s);
    int rc = 0;
    for (size_t k = first; k < last && rc == 0; k++) {
        rc = d->draw(cr, d->ctx, k, err);
        if (rc == 0)
            cairo_show_page(cr);
        if (rc == 0)
            rc = check_cairo(cr, o, err);
    }
    cairo_surface_finish(s);
    if (rc == 0)
        rc = check_cairo(cr, o, err);
    cairo_destroy(cr);
    cairo_surface_destroy(s);
    return rc;
}

static int write_png(const tf_cairo_doc *d, out_file *o, size_t k, double dpi, tf_error *err)
{
    int w = (int)lround(d->width * dpi / 72.0), h = (int)lround(d->height * dpi / 72.0);
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(s);
        return tf_fail(err, TF_ERR_NOMEM, "%s: cannot make a %dx%d image", o->path, w, h);
    }
    cairo_t *cr = cairo_create(s);
    cairo_scale(cr, (double)w / d->width, (double)h / d->height);
    int rc = d->draw(cr, d->ctx, k, err);
    if (rc == 0)
        rc = check_cairo(cr, o, err);
    cairo_destroy(cr);
    if (rc == 0 && cairo_surface_write_to_png_stream(s, stream_write, o) != CAIRO_STATUS_SUCCESS)
        rc = tf_fail(err, TF_ERR_IO, "%s: write error: %s", o->path,
                     strerror(o->errnum ? o->errnum : EIO));
    cairo_surface_destroy(s);
    return rc;
}

int tf_cairo_write(const tf_cairo_doc *d, const char *path, enum tf_render_format format,
                   double dpi, tf_error *err)
{
    size_t nfiles = format == TF_FORMAT_PDF ? 1 : d->npages;
    out_file *files = calloc(nfiles, sizeof *files);
    if (!files)
        return tf_fail(err, TF_ERR_NOMEM, "%s: no memory", path);
    int rc = 0;
    size_t opened = 0;
    for (size_t k = 0; k < nfiles && rc == 0; k++) {
        rc = out_open(&files[k], path, k, err);
        if (rc < 0)
            break;
        opened++;
        if (format == TF_FORMAT_PDF)
            rc = write_vector(d, &files[k], format, 0, d->npages, err);
        else if (format == TF_FORMAT_SVG)
            rc = write_vector(d, &files[k], format, k, k + 1, err);
        else
            rc = write_png(d, &files[k], k, dpi, err);
        int crc = out_close(&files[k], err);
        rc = rc < 0 ? rc : crc;
    }
    for (size_t k = 0; k < opened && rc == 0; k++)
        rc = tf_output_commit(files[k].tmp, files[k].path, err);
    if (rc < 0)
        for (size_t k = 0; k < opened; k++) {
            if (files[k].f)
                fclose(files[k].f);
            unlink(files[k].tmp);
        }
    free(files);
    return rc;
}

int tf_render_cairo_with(const tf_report *r, const char *path, enum tf_render_format format,
                         const tf_render_options *o, tf_error *err)
{
    if (r->npages == 0)
        return tf_fail(err, TF_ERR_DATA, "%s: no folded region to draw", r->source ? r->source : "report");
    tf_page_size size = o->size.w > 0 ? o->size : (tf_page_size){TF_PAGE_WIDTH, TF_PAGE_HEIGHT};
    tf_layout_log log = {.page_w = size.w, .page_h = size.h};
    unsigned overflowed = 0;
    bool *key_next = calloc(r->npages, sizeof *key_next);
    if (!key_next)
        return tf_fail(err, TF_ERR_NOMEM, "%s: no memory", path);
    size_t npages;
    tf_palette_use(o->grayscale ? TF_PALETTE_GRAY : TF_PALETTE_COLOUR);
    int rc = plan_pages(r, o, key_next, &npages, err);
    report_doc rd = {r, o->layout_json ? &log : NULL, o->max_phase_labels, size, &overflowed,
                     key_next};
    tf_cairo_doc d = {size.w, size.h, r->pages[0].title, npages, draw_page, &rd};
    if (rc == 0)
        rc = tf_cairo_write(&d, path, format, o->dpi, err);
    tf_palette_use(TF_PALETTE_COLOUR);
    free(key_next);
    if (o->overflowed)
        *o->overflowed = overflowed;
    if (rc == 0 && o->layout_json)
        rc = tf_layout_log_write(&log, o->layout_json, err);
    tf_layout_log_free(&log);
    return rc;
}

int tf_render_cairo(const tf_report *r, const char *path, enum tf_render_format format,
                    double dpi, tf_error *err)
{
    tf_render_options o = {.dpi = dpi};
    return tf_render_cairo_with(r, path, format, &o, err);
}
