/* SPDX-License-Identifier: BSD-3-Clause */
#include "points_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

void assert_points_equal(const tf_fold_points *p, const tf_fold_points *q, unsigned nc)
{
    assert_int_equal(p->n, q->n);
    size_t n = p->n;
    assert_memory_equal(p->instance, q->instance, n * sizeof *p->instance);
    assert_memory_equal(p->x, q->x, n * sizeof *p->x);
    assert_memory_equal(p->kind, q->kind, n * sizeof *p->kind);
    assert_memory_equal(p->ip, q->ip, n * sizeof *p->ip);
    assert_memory_equal(p->addr, q->addr, n * sizeof *p->addr);
    assert_memory_equal(p->level, q->level, n * sizeof *p->level);
    assert_memory_equal(p->weight, q->weight, n * sizeof *p->weight);
    assert_memory_equal(p->y, q->y, n * nc * sizeof *p->y);
}

static int take(void *ctx, size_t k, tf_fold_points *p, tf_error *err)
{
    split_parts *s = ctx;
    const tf_fold_points *a = s->all;
    size_t at = s->cuts[k], n = s->cuts[k + 1] - at;
    int rc = tf_fold_points_alloc(p, n, s->ncounters, err);
    if (rc < 0)
        return rc;
    p->n = n;
    memcpy(p->instance, a->instance + at, n * sizeof *p->instance);
    memcpy(p->x, a->x + at, n * sizeof *p->x);
    memcpy(p->kind, a->kind + at, n * sizeof *p->kind);
    memcpy(p->ip, a->ip + at, n * sizeof *p->ip);
    memcpy(p->addr, a->addr + at, n * sizeof *p->addr);
    memcpy(p->level, a->level + at, n * sizeof *p->level);
    memcpy(p->weight, a->weight + at, n * sizeof *p->weight);
    for (unsigned c = 0; a->y && c < s->ncounters; c++)
        memcpy(p->y + c * n, a->y + c * a->n + at, n * sizeof *p->y);
    s->taken++;
    return 0;
}

static void release(void *ctx, size_t k, tf_fold_points *p)
{
    (void)k;
    split_parts *s = ctx;
    tf_fold_points_free(p);
    s->released++;
}

void split_parts_init(split_parts *s, const tf_fold_points *all, unsigned ncounters,
                      const size_t *cuts, size_t nparts)
{
    *s = (split_parts){
        .parts = { .n = nparts, .npoints = all->n, .take = take, .release = release },
        .all = all, .ncounters = ncounters, .cuts = cuts,
    };
    s->parts.ctx = s;
}
