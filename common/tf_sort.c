/* SPDX-License-Identifier: BSD-3-Clause */
#include "tf_sort.h"

#include <stdlib.h>
#include <string.h>

bool tf_sort_u32(uint32_t *v, size_t n)
{
    if (n < 2)
        return true;
    uint32_t *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return false;
    uint32_t *from = v, *to = tmp;
    for (unsigned shift = 0; shift < 32; shift += 8) {
        size_t count[257] = { 0 };
        for (size_t i = 0; i < n; i++)
            count[((from[i] >> shift) & 0xff) + 1]++;
        if (count[((from[0] >> shift) & 0xff) + 1] == n)
            continue;   /* every key has this byte */
        for (unsigned d = 1; d <= 256; d++)
            count[d] += count[d - 1];
        for (size_t i = 0; i < n; i++)
            to[count[(from[i] >> shift) & 0xff]++] = from[i];
        uint32_t *t = from;
        from = to;
        to = t;
    }
    if (from != v)
        memcpy(v, from, n * sizeof *v);
    free(tmp);
    return true;
}

bool tf_sort_u64(uint64_t *key, uint32_t *payload, size_t n)
{
    if (n < 2)
        return true;
    uint64_t *ktmp = malloc(n * sizeof *ktmp);
    uint32_t *ptmp = payload ? malloc(n * sizeof *ptmp) : NULL;
    if (!ktmp || (payload && !ptmp)) {
        free(ktmp);
        free(ptmp);
        return false;
    }
    uint64_t *kfrom = key, *kto = ktmp;
    uint32_t *pfrom = payload, *pto = ptmp;
    for (unsigned shift = 0; shift < 64; shift += 8) {
        size_t count[257] = { 0 };
        for (size_t i = 0; i < n; i++)
            count[((kfrom[i] >> shift) & 0xff) + 1]++;
        if (count[((kfrom[0] >> shift) & 0xff) + 1] == n)
            continue;   /* every key has this byte */
        for (unsigned d = 1; d <= 256; d++)
            count[d] += count[d - 1];
        for (size_t i = 0; i < n; i++) {
            size_t at = count[(kfrom[i] >> shift) & 0xff]++;
            kto[at] = kfrom[i];
            if (payload)
                pto[at] = pfrom[i];
        }
        uint64_t *kt = kfrom;
        kfrom = kto;
        kto = kt;
        uint32_t *pt = pfrom;
        pfrom = pto;
        pto = pt;
    }
    if (kfrom != key) {
        memcpy(key, kfrom, n * sizeof *key);
        if (payload)
            memcpy(payload, pfrom, n * sizeof *payload);
    }
    free(ktmp);
    free(ptmp);
    return true;
}

static int double_order(const void *pa, const void *pb)
{
    double x = *(const double *)pa, y = *(const double *)pb;
    return (x > y) - (x < y);
}

void tf_sort_double(double *v, size_t n)
{
    qsort(v, n, sizeof *v, double_order);
}

double tf_median_sorted(double *v, size_t n)
{
    tf_sort_double(v, n);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
