/* SPDX-License-Identifier: BSD-3-Clause */
#include "prv_out.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "prv_types.h"
#include "common/tf_outfile.h"
#include "common/tf_output.h"

/* An event type and its field text ":TYPE" (at most 11 characters). */
typedef struct type_field {
    uint32_t type;
    uint8_t  len;
    char     text[11];
} type_field;

struct tf_prv_out {
    char         *path, *tmp_path, *body_path;
    char         *pcf_path, *pcf_tmp, *row_path, *row_tmp;
    tf_outfile   *body;
    tf_prv_header hdr;
    tf_pcf       *pcf;
    tf_row        row;
    uint64_t      last_time, end_time;
    uint64_t      records;
    /* Bytes of header at the start of the body (0: none) and the end time
     * it gives; see start_body. */
    long          header_len;
    uint64_t      header_end;
    /* The event types written, an open-addressing set (0 marks a free slot;
     * type 0 is tracked apart), each with its field ":TYPE" already in
     * decimal: millions of records repeat a handful of types. */
    type_field   *types;
    size_t        ntypes, captypes;
    bool          type0;
    /* The object fields ":CPU:APPL:TASK:THREAD" of the last record, kept
     * in text too: consecutive records are mostly of one thread. */
    tf_prv_object last_obj;
    char          obj_text[48];
    size_t        obj_len;
};

char *tf_prv_sibling(const char *prv_path, const char *ext)
{
    size_t n = strlen(prv_path);
    if (n > 3 && !memcmp(prv_path + n - 3, ".gz", 3))
        n -= 3;
    if (n > 4 && !memcmp(prv_path + n - 4, ".prv", 4))
        n -= 4;
    char *s = malloc(n + strlen(ext) + 1);
    if (s) {
        memcpy(s, prv_path, n);
        memcpy(s + n, ext, strlen(ext) + 1);
    }
    return s;
}

static char *tmp_name(const char *path)
{
    char *s;
    return asprintf(&s, "%s.tmp-%ld", path, (long)getpid()) < 0 ? NULL : s;
}

static int copy_header(tf_prv_header *dst, const tf_prv_header *src)
{
    *dst = *src;
    dst->node_cpus = NULL;
    dst->appls = NULL;
    dst->comms = NULL;
    if (src->nnodes &&
        !(dst->node_cpus = malloc(src->nnodes * sizeof *dst->node_cpus)))
        return -1;
    if (src->nnodes)
        memcpy(dst->node_cpus, src->node_cpus, src->nnodes * sizeof *dst->node_cpus);
    if (!(dst->appls = calloc(src->nappls, sizeof *dst->appls)))
        return -1;
    for (uint32_t a = 0; a < src->nappls; a++) {
        dst->appls[a].ntasks = src->appls[a].ntasks;
        if (!(dst->appls[a].tasks = malloc(src->appls[a].ntasks * sizeof *dst->appls[a].tasks)))
            return -1;
        memcpy(dst->appls[a].tasks, src->appls[a].tasks,
               src->appls[a].ntasks * sizeof *dst->appls[a].tasks);
    }
    if (src->ncomms && !(dst->comms = calloc(src->ncomms, sizeof *dst->comms)))
        return -1;
    for (uint32_t i = 0; i < src->ncomms; i++)
        if (!(dst->comms[i] = strdup(src->comms[i])))
            return -1;
    return 0;
}

int tf_prv_out_create(tf_prv_out **out, const char *path, const tf_prv_header *hdr,
                      tf_error *err)
{
    *out = NULL;
    if (hdr->nappls == 0)
        return tf_fail(err, TF_ERR_INTERNAL, "%s: a Paraver trace needs an application", path);
    tf_prv_out *w = calloc(1, sizeof *w);
    if (!w)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    int rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
    w->path = strdup(path);
    w->tmp_path = tmp_name(path);
    w->pcf_path = tf_prv_sibling(path, ".pcf");
    w->row_path = tf_prv_sibling(path, ".row");
    w->pcf = tf_pcf_new();
    if (!w->path || !w->tmp_path || !w->pcf_path || !w->row_path || !w->pcf ||
        asprintf(&w->body_path, "%s.body-%ld", path, (long)getpid()) < 0)
        goto fail;
    w->pcf_tmp = tmp_name(w->pcf_path);
    w->row_tmp = tmp_name(w->row_path);
    if (!w->pcf_tmp || !w->row_tmp || copy_header(&w->hdr, hdr) < 0)
        goto fail;
    if (!w->hdr.unit_ns)
        w->hdr.unit_ns = 1;
    w->end_time = hdr->end_time;
    if ((rc = tf_outfile_open(&w->body, w->body_path, err)) < 0)
        goto fail;
    tf_error_clear(err);
    *out = w;
    return 0;
fail:
    tf_prv_out_abort(w);
    return rc;
}

int tf_prv_out_set_header(tf_prv_out *w, const tf_prv_header *hdr, tf_error *err)
{
    if (w->records)
        return tf_fail(err, TF_ERR_INTERNAL, "%s: header replaced after records", w->path);
    tf_prv_header_free(&w->hdr);
    if (copy_header(&w->hdr, hdr) < 0)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    if (!w->hdr.unit_ns)
        w->hdr.unit_ns = 1;
    if (hdr->end_time > w->end_time)
        w->end_time = hdr->end_time;
    return 0;
}

void tf_prv_out_write_behind(tf_prv_out *w)
{
    tf_outfile_write_behind(w->body);
}

tf_pcf *tf_prv_out_pcf(tf_prv_out *w) { return w->pcf; }
tf_row *tf_prv_out_row(tf_prv_out *w) { return &w->row; }

static void out_free(tf_prv_out *w)
{
    tf_prv_header_free(&w->hdr);
    tf_pcf_free(w->pcf);
    tf_row_free(&w->row);
    free(w->types);
    free(w->path);
    free(w->tmp_path);
    free(w->body_path);
    free(w->pcf_path);
    free(w->pcf_tmp);
    free(w->row_path);
    free(w->row_tmp);
    free(w);
}

void tf_prv_out_abort(tf_prv_out *w)
{
    if (!w)
        return;
    tf_outfile_abort(w->body);
    const char *tmps[] = {w->body_path, w->tmp_path, w->pcf_tmp, w->row_tmp};
    for (size_t i = 0; i < sizeof tmps / sizeof tmps[0]; i++)
        if (tmps[i])
            unlink(tmps[i]);
    out_free(w);
}

static char *put_field(char *p, uint64_t v);

/* The field text of an event type, noting the type as written; NULL when
 * out of memory (err filled). */
static const type_field *type_text(tf_prv_out *w, uint32_t type, tf_error *err)
{
    static const type_field zero = {0, 2, ":0"};
    if (type == 0) {
        w->type0 = true;
        return &zero;
    }
    if (2 * (w->ntypes + 1) > w->captypes) {
        size_t cap = w->captypes ? 2 * w->captypes : 64;
        type_field *nt = calloc(cap, sizeof *nt);
        if (!nt) {
            tf_fail(err, TF_ERR_NOMEM, "out of memory");
            return NULL;
        }
        for (size_t i = 0; i < w->captypes; i++) {
            if (!w->types[i].type)
                continue;
            size_t h = (w->types[i].type * 2654435761u) & (cap - 1);
            while (nt[h].type)
                h = (h + 1) & (cap - 1);
            nt[h] = w->types[i];
        }
        free(w->types);
        w->types = nt;
        w->captypes = cap;
    }
    size_t h = (type * 2654435761u) & (w->captypes - 1);
    while (w->types[h].type && w->types[h].type != type)
        h = (h + 1) & (w->captypes - 1);
    type_field *t = &w->types[h];
    if (!t->type) {
        t->type = type;
        t->len = (uint8_t)(put_field(t->text, type) - t->text);
        w->ntypes++;
    }
    return t;
}

/* Decimal digits of v at p, returning the end: fprintf dominates the cost of
 * writing large traces otherwise.  The digits are counted first and
 * written in place from the last, two a division, from a table. */
static char *put_u64(char *p, uint64_t v)
{
    static const char pairs[] =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
        "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
        "8081828384858687888990919293949596979899";
    unsigned n = 1;
    for (uint64_t bound = 10; n < 20 && v >= bound; bound *= 10)
        n++;
    char *end = p + n;
    char *q = end;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--q = pairs[d + 1];
        *--q = pairs[d];
    }
    if (v >= 10) {
        *--q = pairs[v * 2 + 1];
        *--q = pairs[v * 2];
    } else {
        *--q = (char)('0' + v);
    }
    return end;
}

static char *put_field(char *p, uint64_t v)
{
    *p++ = ':';
    return put_u64(p, v);
}

/* Values are signed in Paraver: the bits of a value above 2^63 are written
 * as the negative number they encode (docs/paraver.md). */
static char *put_value(char *p, uint64_t v)
{
    *p++ = ':';
    if ((int64_t)v < 0) {
        *p++ = '-';
        v = (uint64_t)0 - v;
    }
    return put_u64(p, v);
}

static char *put_object(char *p, const tf_prv_object *o)
{
    p = put_field(p, o->cpu);
    p = put_field(p, o->appl);
    p = put_field(p, o->task);
    return put_field(p, o->thread);
}

/* put_object through the text of the last object written. */
static char *put_record_object(tf_prv_out *w, char *p, const tf_prv_object *o)
{
    if (!w->obj_len || memcmp(&w->last_obj, o, sizeof *o)) {
        w->last_obj = *o;
        w->obj_len = (size_t)(put_object(w->obj_text, o) - w->obj_text);
    }
    memcpy(p, w->obj_text, w->obj_len);
    return p + w->obj_len;
}

static bool object_ok(const tf_prv_header *h, const tf_prv_object *o)
{
    if (o->appl == 0 || o->appl > h->nappls)
        return false;
    const tf_prv_appl *a = &h->appls[o->appl - 1];
    return o->task && o->task <= a->ntasks && o->thread &&
           o->thread <= a->tasks[o->task - 1].nthreads && o->cpu <= h->ncpus;
}

static bool is_gz(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && !strcmp(path + n - 3, ".gz");
}

static void format_header(const tf_prv_out *w, FILE *mem);

/* An uncompressed trace whose end time is given up front gets its header at
 * the start of the body, which then becomes the .prv itself: no copy of a
 * body of hundreds of MB.  Should a record end later, closing copies the
 * records behind a corrected header after all. */
static void start_body(tf_prv_out *w)
{
    w->header_end = w->end_time;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (mem)
        format_header(w, mem);
    /* header_len < 0: closing reports the failure */
    w->header_len = mem && fclose(mem) == 0 && tf_outfile_write(w->body, text, len) == 0
                        ? (long)tf_outfile_tell(w->body) : -1;
    free(text);
}

int tf_prv_write(tf_prv_out *w, const tf_prv_record *rec, tf_error *err)
{
    if (w->records == 0 && w->end_time && !is_gz(w->path))
        start_body(w);
    if (rec->time < w->last_time)
        return tf_fail(err, TF_ERR_INTERNAL,
                       "%s: record %" PRIu64 ": time %" PRIu64 " before the previous %" PRIu64
                       " (records must be time-sorted)", w->path, w->records + 1, rec->time,
                       w->last_time);
    if (!object_ok(&w->hdr, &rec->obj) ||
        (rec->kind == TF_PRV_COMM && !object_ok(&w->hdr, &rec->partner)))
        return tf_fail(err, TF_ERR_INTERNAL,
                       "%s: record %" PRIu64 ": object %" PRIu32 ".%" PRIu32 ".%" PRIu32
                       " (CPU %" PRIu32 ") is not in the header", w->path, w->records + 1,
                       rec->obj.appl, rec->obj.task, rec->obj.thread, rec->obj.cpu);
    char small[512];
    /* Longest fields: 20 digits for times and values, 10 for the rest. */
    size_t need = 256 + (rec->kind == TF_PRV_EVENT ? 44 * rec->npairs : 0);
    char *line = need <= sizeof small ? small : malloc(need);
    if (!line)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    char *p = line;
    *p++ = (char)('0' + rec->kind);
    p = put_record_object(w, p, &rec->obj);
    p = put_field(p, rec->time);
    uint64_t last = rec->time;
    int rc = 0;
    switch (rec->kind) {
    case TF_PRV_STATE:
        p = put_field(p, rec->end);
        p = put_field(p, rec->state);
        last = rec->end;
        break;
    case TF_PRV_EVENT:
        if (rec->npairs == 0)
            rc = tf_fail(err, TF_ERR_INTERNAL, "%s: event record without events", w->path);
        for (size_t i = 0; i < rec->npairs && rc == 0; i++) {
            const type_field *f = type_text(w, rec->pairs[i].type, err);
            if (!f) {
                rc = -err->code;
                break;
            }
            /* the whole field array: a fixed-size copy, the value follows */
            memcpy(p, f->text, sizeof f->text);
            p = put_value(p + f->len, rec->pairs[i].value);
        }
        break;
    default:
        p = put_field(p, rec->psend);
        p = put_object(p, &rec->partner);
        p = put_field(p, rec->lrecv);
        p = put_field(p, rec->precv);
        p = put_field(p, rec->size);
        p = put_value(p, rec->tag);
        last = rec->precv > rec->lrecv ? rec->precv : rec->lrecv;
        break;
    }
    *p++ = '\n';
    if (rc == 0 && tf_outfile_write(w->body, line, (size_t)(p - line)) < 0)
        rc = tf_fail(err, TF_ERR_IO, "%s: write error: %s", w->body_path, strerror(errno));
    if (line != small)
        free(line);
    if (rc < 0)
        return rc;
    w->records++;
    w->last_time = rec->time;
    if (last > w->end_time)
        w->end_time = last;
    return 0;
}

static int check_labels(tf_prv_out *w, tf_error *err)
{
    for (size_t i = 0; i < w->captypes; i++)
        if (w->types[i].type && !tf_pcf_type_label(w->pcf, w->types[i].type))
            return tf_fail(err, TF_ERR_INTERNAL, "%s: event type %" PRIu32 " has no label in %s",
                           w->path, w->types[i].type, w->pcf_path);
    if (w->type0 && !tf_pcf_type_label(w->pcf, 0))
        return tf_fail(err, TF_ERR_INTERNAL, "%s: event type 0 has no label in %s", w->path,
                       w->pcf_path);
    return 0;
}

static void format_header(const tf_prv_out *w, FILE *mem)
{
    const tf_prv_header *h = &w->hdr;
    char date[64];
    if (h->date[0]) {
        snprintf(date, sizeof date, "%s", h->date);
    } else {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(date, sizeof date, "%d/%m/%Y at %H:%M", &tm);
    }
    const char *unit = h->unit_ns == 1 ? "_ns" : h->unit_ns == 1000000 ? "_ms" : "_us";
    fprintf(mem, "#Paraver (%s):%" PRIu64 "%s:%" PRIu32, date, w->end_time, unit, h->nnodes);
    for (uint32_t n = 0; n < h->nnodes; n++)
        fprintf(mem, "%c%" PRIu32, n ? ',' : '(', h->node_cpus[n]);
    fprintf(mem, "%s:%" PRIu32, h->nnodes ? ")" : "", h->nappls);
    for (uint32_t a = 0; a < h->nappls; a++) {
        fprintf(mem, ":%" PRIu32 "(", h->appls[a].ntasks);
        for (uint32_t t = 0; t < h->appls[a].ntasks; t++)
            fprintf(mem, "%s%" PRIu32 ":%" PRIu32, t ? "," : "", h->appls[a].tasks[t].nthreads,
                    h->appls[a].tasks[t].node ? h->appls[a].tasks[t].node : 1);
        fputc(')', mem);
    }
    fprintf(mem, ",%" PRIu32 "\n", h->ncomms);
    for (uint32_t i = 0; i < h->ncomms; i++)
        fprintf(mem, "%s\n", h->comms[i]);
}

static int write_side(const char *tmp, tf_prv_out *w, bool pcf, tf_error *err)
{
    FILE *f = fopen(tmp, "w");
    if (!f)
        return tf_fail(err, TF_ERR_IO, "%s: cannot create: %s", tmp, strerror(errno));
    int bad = pcf ? tf_pcf_write(w->pcf, f) : tf_row_write(&w->row, f);
    if (fclose(f) != 0 || bad)
        return tf_fail(err, TF_ERR_IO, "%s: write error: %s", tmp, strerror(errno));
    return 0;
}

/* The final .prv: header, then the body copied behind it, through zlib when
 * the name ends in .gz. */
static int write_prv(tf_prv_out *w, tf_error *err)
{
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    format_header(w, mem);
    if (fclose(mem) != 0)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    bool gz = is_gz(w->path);
    int rc = 0;
    FILE *plain = NULL;
    gzFile z = NULL;
    if (gz)
        z = gzopen(w->tmp_path, "wb6");
    else
        plain = fopen(w->tmp_path, "w");
    FILE *in = fopen(w->body_path, "r");
    char *buf = malloc(1u << 20);
    if ((!z && !plain) || !in || !buf || fseek(in, w->header_len, SEEK_SET) != 0) {
        rc = tf_fail(err, TF_ERR_IO, "%s: cannot create: %s", w->tmp_path, strerror(errno));
        goto out;
    }
    bool ok = gz ? gzwrite(z, text, (unsigned)len) == (int)len
                 : fwrite(text, 1, len, plain) == len;
    size_t got;
    while (ok && (got = fread(buf, 1, 1u << 20, in)) > 0)
        ok = gz ? gzwrite(z, buf, (unsigned)got) == (int)got : fwrite(buf, 1, got, plain) == got;
    if (ferror(in))
        ok = false;
    if (gz) {
        ok = gzclose(z) == Z_OK && ok;
        z = NULL;
    } else {
        ok = fclose(plain) == 0 && ok;
        plain = NULL;
    }
    if (!ok)
        rc = tf_fail(err, TF_ERR_IO, "%s: write error: %s", w->tmp_path, strerror(errno));
out:
    if (z)
        gzclose(z);
    if (plain)
        fclose(plain);
    if (in)
        fclose(in);
    free(buf);
    free(text);
    return rc;
}

int tf_prv_out_close(tf_prv_out *w, tf_error *err)
{
    int rc = check_labels(w, err);
    if (rc == 0)
        rc = tf_outfile_close(w->body, err);
    else
        tf_outfile_abort(w->body);
    w->body = NULL;
    if (rc == 0)
        rc = write_side(w->pcf_tmp, w, true, err);
    if (rc == 0)
        rc = write_side(w->row_tmp, w, false, err);
    bool direct = w->header_len > 0 && w->end_time == w->header_end;
    if (rc == 0 && w->header_len < 0)
        rc = tf_fail(err, TF_ERR_IO, "%s: write error: %s", w->body_path, strerror(errno));
    if (rc == 0 && !direct)
        rc = write_prv(w, err);
    /* The .prv goes last: its presence means the three files are complete. */
    if (rc == 0)
        rc = tf_output_commit(w->pcf_tmp, w->pcf_path, err);
    if (rc == 0)
        rc = tf_output_commit(w->row_tmp, w->row_path, err);
    if (rc == 0)
        rc = tf_output_commit(direct ? w->body_path : w->tmp_path, w->path, err);
    if (rc < 0) {
        tf_prv_out_abort(w);
        return rc;
    }
    unlink(w->body_path);
    out_free(w);
    return 0;
}
