/* SPDX-License-Identifier: BSD-3-Clause */
#include "prv_check.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "prv_pcf.h"
#include "prv_reader.h"
#include "prv_row.h"
#include "prv_out.h"

/* A set of (type, value) keys already checked, so each is looked up once. */
typedef struct seen {
    uint64_t *keys;   /* type in the high 32 bits; value hashed with it */
    uint64_t *vals;
    bool     *used;
    size_t    n, cap;
} seen;

static int seen_add(seen *s, uint32_t type, uint64_t value, bool *added)
{
    if (2 * (s->n + 1) > s->cap) {
        seen g = {.cap = s->cap ? 2 * s->cap : 1024};
        g.keys = calloc(g.cap, sizeof *g.keys);
        g.vals = calloc(g.cap, sizeof *g.vals);
        g.used = calloc(g.cap, sizeof *g.used);
        if (!g.keys || !g.vals || !g.used) {
            free(g.keys);
            free(g.vals);
            free(g.used);
            return -1;
        }
        for (size_t i = 0; i < s->cap; i++)
            if (s->used[i]) {
                bool unused;
                seen_add(&g, (uint32_t)s->keys[i], s->vals[i], &unused);
            }
        free(s->keys);
        free(s->vals);
        free(s->used);
        *s = g;
    }
    size_t h = (size_t)(((uint64_t)type * 0x9E3779B97F4A7C15ull ^ value * 0xC2B2AE3D27D4EB4Full) >> 17) &
               (s->cap - 1);
    while (s->used[h] && !(s->keys[h] == type && s->vals[h] == value))
        h = (h + 1) & (s->cap - 1);
    *added = !s->used[h];
    if (*added) {
        s->used[h] = true;
        s->keys[h] = type;
        s->vals[h] = value;
        s->n++;
    }
    return 0;
}

/* Beyond the counts every reader checks, a .row that names no thread
 * leaves the threads without names in Paraver. */
static int check_row(const char *path, const tf_prv_header *h, const tf_row *row,
                     tf_error *err)
{
    int rc = tf_row_check_counts(row, path, h, err);
    if (rc == 0 && !row->n[TF_ROW_THREAD])
        rc = tf_fail(err, TF_ERR_FORMAT, "%s: no THREAD level: threads would have no names", path);
    return rc;
}

static int check_labels(const char *prv, tf_prv_reader *r, tf_pcf *pcf, const tf_prv_record *rec,
                        seen *s, tf_prv_check_report *rep, tf_error *err)
{
    bool added;
    if (rec->kind == TF_PRV_STATE) {
        if (seen_add(s, UINT32_MAX, rec->state, &added) < 0)
            return tf_fail(err, TF_ERR_NOMEM, "%s: line %" PRIu64 ": out of memory", prv,
                           tf_prv_line(r));
        if (added && !tf_pcf_state_label(pcf, rec->state))
            return tf_fail(err, TF_ERR_FORMAT, "%s: line %" PRIu64 ": state %" PRIu32
                           " has no label in the .pcf", prv, tf_prv_line(r), rec->state);
        return 0;
    }
    for (size_t i = 0; rec->kind == TF_PRV_EVENT && i < rec->npairs; i++) {
        uint32_t type = rec->pairs[i].type;
        bool values = tf_pcf_type_has_values(pcf, type);
        /* Unlabelled types are checked once; labelled ones once per value. */
        if (seen_add(s, type, values ? rec->pairs[i].value : UINT64_MAX, &added) < 0)
            return tf_fail(err, TF_ERR_NOMEM, "%s: line %" PRIu64 ": out of memory", prv,
                           tf_prv_line(r));
        if (!added)
            continue;
        if (!tf_pcf_type_label(pcf, type))
            return tf_fail(err, TF_ERR_FORMAT, "%s: line %" PRIu64 ": event type %" PRIu32
                           " has no label in the .pcf", prv, tf_prv_line(r), type);
        if (values && !tf_pcf_value_label(pcf, type, rec->pairs[i].value))
            return tf_fail(err, TF_ERR_FORMAT, "%s: line %" PRIu64 ": value %" PRId64
                           " of event type %" PRIu32 " (%s) has no label in the .pcf", prv,
                           tf_prv_line(r), (int64_t)rec->pairs[i].value, type,
                           tf_pcf_type_label(pcf, type));
        if (values)
            rep->values++;
        else
            rep->types++;
    }
    return 0;
}

int tf_prv_check(const char *prv_path, tf_prv_check_report *rep, tf_error *err)
{
    memset(rep, 0, sizeof *rep);
    tf_prv_reader *r = NULL;
    tf_pcf *pcf = NULL;
    tf_row row = {0};
    seen s = {0};
    char *pcf_path = tf_prv_sibling(prv_path, ".pcf");
    char *row_path = tf_prv_sibling(prv_path, ".row");
    int rc = pcf_path && row_path ? 0 : tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", prv_path);
    if (rc == 0)
        rc = tf_prv_open(&r, prv_path, false, err);
    if (rc == 0)
        rc = tf_pcf_read(pcf_path, &pcf, err);
    if (rc == 0)
        rc = tf_row_read(row_path, &row, err);
    const tf_prv_header *h = r ? tf_prv_get_header(r) : NULL;
    if (rc == 0)
        rc = check_row(row_path, h, &row, err);
    tf_prv_record rec;
    uint64_t last = 0;
    while (rc == 0 && (rc = tf_prv_next(r, &rec, err)) == 1) {
        rc = 0;
        rep->records++;
        if (rec.time < last)
            rc = tf_fail(err, TF_ERR_FORMAT, "%s: line %" PRIu64 ": time %" PRIu64
                         " before the previous record's %" PRIu64 " (not globally time-sorted)",
                         prv_path, tf_prv_line(r), rec.time, last);
        else
            rc = check_labels(prv_path, r, pcf, &rec, &s, rep, err);
        last = rec.time;
    }
    if (h)
        rep->threads = tf_prv_nthreads(h);
    free(s.keys);
    free(s.vals);
    free(s.used);
    tf_row_free(&row);
    tf_pcf_free(pcf);
    tf_prv_close(r);
    free(pcf_path);
    free(row_path);
    return rc;
}
