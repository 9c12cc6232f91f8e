/* SPDX-License-Identifier: BSD-3-Clause */
/* Band layout of the address-space panel. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "address_bands.h"

/* Share of the panel height left empty between bands. */
#define BAND_GAP 0.02

/* Bands in address order; relative (offset) bands after absolute ones. */
static int band_cmp(const void *pa, const void *pb, void *page)
{
    const tf_band *a = pa, *b = pb;
    const tf_report_object *objects = ((const tf_report_page *)page)->objects;
    if (a->relative != b->relative)
        return a->relative ? 1 : -1;
    uint64_t sa = objects[a->object].start, sb = objects[b->object].start;
    return sa < sb ? -1 : sa > sb;
}

static int refs_cmp(const void *pa, const void *pb)
{
    const tf_band *a = pa, *b = pb;
    return a->refs < b->refs ? 1 : a->refs > b->refs ? -1 : 0;
}

int tf_bands_build(const tf_report_page *p, tf_bands *b, tf_error *err)
{
    memset(b, 0, sizeof *b);
    size_t nobj = p->nobjects;
    tf_band *cand = calloc(nobj ? nobj : 1, sizeof *cand);
    b->band_of_object = malloc((nobj ? nobj : 1) * sizeof *b->band_of_object);
    if (!cand || !b->band_of_object) {
        free(cand);
        tf_bands_free(b);
        return tf_fail(err, TF_ERR_NOMEM, "report: no memory for %zu object bands", nobj);
    }
    for (size_t i = 0; i < nobj; i++) {
        cand[i].object = (uint32_t)i;
        b->band_of_object[i] = TF_REPORT_NONE;
    }
    for (size_t i = 0; i < p->nmem; i++) {
        const tf_report_mem_point *m = &p->mem[i];
        if (m->object < nobj) {
            cand[m->object].refs++;
            if (m->flags & TF_REPORT_MEM_OFFSET)
                cand[m->object].relative = true;
        }
    }
    qsort(cand, nobj, sizeof *cand, refs_cmp);
    size_t nsel = 0;
    while (nsel < nobj && nsel < TF_BANDS_MAX && cand[nsel].refs > 0)
        nsel++;
    qsort_r(cand, nsel, sizeof *cand, band_cmp, (void *)p);

    /* Unattributed references (and those of objects past the limit). */
    uint64_t olo = UINT64_MAX, ohi = 0;
    size_t orefs = 0;
    for (size_t i = 0; i < nsel; i++)
        b->band_of_object[cand[i].object] = (uint32_t)i;
    for (size_t i = 0; i < p->nmem; i++) {
        const tf_report_mem_point *m = &p->mem[i];
        if ((m->object < nobj && b->band_of_object[m->object] != TF_REPORT_NONE)
            || (m->flags & TF_REPORT_MEM_OFFSET))
            continue;
        orefs++;
        olo = m->addr < olo ? m->addr : olo;
        ohi = m->addr > ohi ? m->addr : ohi;
    }
    size_t n = nsel + (orefs > 0);
    if (n == 0) {
        free(cand);
        return 0;
    }

    /* Heights: half shared equally (small objects stay visible), half by
     * the square root of the size (big objects look big). */
    double weight[TF_BANDS_MAX + 1], sum_sqrt = 0, total = 0;
    for (size_t i = 0; i < nsel; i++) {
        const tf_report_object *o = &p->objects[cand[i].object];
        weight[i] = sqrt((double)(o->size ? o->size : 1));
        sum_sqrt += weight[i];
    }
    if (orefs) {
        weight[nsel] = nsel ? sum_sqrt / (double)nsel : 1.0;
        sum_sqrt += weight[nsel];
    }
    for (size_t i = 0; i < n; i++) {
        weight[i] = 0.5 / (double)n + 0.5 * weight[i] / sum_sqrt;
        total += weight[i];
    }
    double avail = 1.0 - BAND_GAP * (double)(n - 1), y = 0;
    for (size_t i = 0; i < n; i++) {
        tf_band *d = &b->band[i];
        if (i < nsel) {
            *d = cand[i];
            const tf_report_object *o = &p->objects[d->object];
            d->lo = d->relative ? 0 : o->start;
            d->hi = d->lo + (o->size ? o->size : 1);
        } else {
            d->object = TF_REPORT_NONE;
            d->lo = olo;
            d->hi = ohi > olo ? ohi : olo + 1;
            d->refs = orefs;
        }
        d->y0 = y;
        d->y1 = y + avail * weight[i] / total;
        y = d->y1 + BAND_GAP;
    }
    b->n = n;
    free(cand);
    return 0;
}

bool tf_bands_place(const tf_bands *b, const tf_report_page *p, const tf_report_mem_point *m,
                    double *y)
{
    const tf_band *d;
    uint64_t a = m->addr;
    if (m->object < p->nobjects && b->band_of_object[m->object] != TF_REPORT_NONE) {
        d = &b->band[b->band_of_object[m->object]];
        if (d->relative && !(m->flags & TF_REPORT_MEM_OFFSET))
            a -= p->objects[m->object].start;
    } else {
        if (m->flags & TF_REPORT_MEM_OFFSET || b->n == 0
            || b->band[b->n - 1].object != TF_REPORT_NONE)
            return false;
        d = &b->band[b->n - 1];
    }
    double f = a <= d->lo ? 0.0 : a >= d->hi ? 1.0 : (double)(a - d->lo) / (double)(d->hi - d->lo);
    *y = d->y0 + f * (d->y1 - d->y0);
    return true;
}

void tf_bands_label(const tf_bands *b, const tf_report_page *p, size_t band, char *buf,
                    size_t len)
{
    const tf_band *d = &b->band[band];
    if (d->object == TF_REPORT_NONE) {
        snprintf(buf, len, "other | %zu refs", d->refs);
        return;
    }
    const tf_report_object *o = &p->objects[d->object];
    char size[32];
    tf_report_format_size(o->size, size, sizeof size);
    snprintf(buf, len, "%s | %s", o->name && *o->name ? o->name : "(unnamed)", size);
}

void tf_bands_address(uint64_t addr, bool relative, char *buf, size_t len)
{
    snprintf(buf, len, relative ? "+0x%" PRIx64 : "0x%" PRIx64, addr);
}

void tf_bands_free(tf_bands *b)
{
    free(b->band_of_object);
    b->band_of_object = NULL;
    b->n = 0;
}
