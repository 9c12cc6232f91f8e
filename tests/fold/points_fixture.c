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
    if (p->name_frame && q->name_frame)   /* fold.h5 does not keep them */
        assert_memory_equal(p->name_frame, q->name_frame, n * sizeof *p->name_frame);
    assert_memory_equal(p->y, q->y, n * nc * sizeof *p->y);
}

struct collect {
    tf_fold_points *out;
    unsigned nc;
};

static int collect_part(void *arg, const tf_fold_points *p, size_t at, tf_error *err)
{
    (void)err;
    const struct collect *c = arg;
    tf_fold_points *o = c->out;
    size_t n = p->n;
    memcpy(o->instance + at, p->instance, n * sizeof *p->instance);
    memcpy(o->x + at, p->x, n * sizeof *p->x);
    memcpy(o->kind + at, p->kind, n * sizeof *p->kind);
    memcpy(o->ip + at, p->ip, n * sizeof *p->ip);
    memcpy(o->addr + at, p->addr, n * sizeof *p->addr);
    memcpy(o->level + at, p->level, n * sizeof *p->level);
    memcpy(o->weight + at, p->weight, n * sizeof *p->weight);
    if (p->name_frame)
        memcpy(o->name_frame + at, p->name_frame, n * sizeof *p->name_frame);
    else   /* points made without them name nothing */
        memset(o->name_frame + at, 0, n * sizeof *o->name_frame);
    for (unsigned k = 0; k < c->nc; k++)
        memcpy(o->y + k * o->n + at, p->y + k * n, n * sizeof *p->y);
    return 0;
}

int points_of_parts(const tf_fold_group *g, unsigned nc, tf_fold_points *out, tf_error *err)
{
    int rc = tf_fold_points_alloc(out, tf_fold_group_npoints(g), nc, err);
    struct collect c = { out, nc };
    if (rc == 0 && (rc = tf_fold_group_each_part(g, TF_FOLD_COL_ALL, collect_part, &c, err)) < 0)
        tf_fold_points_free(out);
    return rc;
}

static int take(void *ctx, size_t k, unsigned columns, tf_fold_points *room,
                tf_fold_points *p, tf_error *err)
{
    (void)columns;   /* every column */
    split_parts *s = ctx;
    const tf_fold_points *a = s->all;
    size_t at = s->cuts[k], n = s->cuts[k + 1] - at;
    tf_fold_points_free(room);
    int rc = tf_fold_points_alloc(room, n, s->ncounters, err);
    if (rc < 0)
        return rc;
    *p = *room;
    memcpy(p->instance, a->instance + at, n * sizeof *p->instance);
    memcpy(p->x, a->x + at, n * sizeof *p->x);
    memcpy(p->kind, a->kind + at, n * sizeof *p->kind);
    memcpy(p->ip, a->ip + at, n * sizeof *p->ip);
    memcpy(p->addr, a->addr + at, n * sizeof *p->addr);
    memcpy(p->level, a->level + at, n * sizeof *p->level);
    memcpy(p->weight, a->weight + at, n * sizeof *p->weight);
    if (a->name_frame)
        memcpy(p->name_frame, a->name_frame + at, n * sizeof *p->name_frame);
    else
        memset(p->name_frame, 0, n * sizeof *p->name_frame);
    for (unsigned c = 0; a->y && c < s->ncounters; c++)
        memcpy(p->y + c * n, a->y + c * a->n + at, n * sizeof *p->y);
    s->taken++;
    return 0;
}

void split_parts_init(split_parts *s, const tf_fold_points *all, unsigned ncounters,
                      const size_t *cuts, size_t nparts)
{
    *s = (split_parts){
        .parts = { .n = nparts, .npoints = all->n, .take = take },
        .all = all, .ncounters = ncounters, .cuts = cuts,
    };
    s->parts.ctx = s;
}
