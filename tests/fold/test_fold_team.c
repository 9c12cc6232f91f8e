/* SPDX-License-Identifier: BSD-3-Clause */
/* The fits of a group's counters shared by a team (fold/fold_team.c), with
 * the team's members as threads talking through pipes instead of MPI ranks:
 * every counter's curves, bands and totals equal the fit alone bit for bit,
 * whatever the team's size, also with members that get no counter, and
 * whatever the number of threads fitting them; the members end with the
 * status the leader sends. */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fold_team.h"

#define MAX_MEMBERS 4
#define NINST 150
#define NPOINTS 11
#define MAX_COUNTERS 5
#define GRID 101

/* ---- a team over pipes -------------------------------------------------- */

struct pipes {
    int to_member[MAX_MEMBERS][2], to_leader[MAX_MEMBERS][2];
};

struct endpoint {
    struct pipes *p;
    int rank;
};

static int write_all(int fd, const void *buf, size_t bytes)
{
    for (size_t at = 0; at < bytes;) {
        ssize_t n = write(fd, (const char *)buf + at, bytes - at);
        if (n <= 0)
            return -1;
        at += (size_t)n;
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t bytes)
{
    for (size_t at = 0; at < bytes;) {
        ssize_t n = read(fd, (char *)buf + at, bytes - at);
        if (n <= 0)
            return -1;
        at += (size_t)n;
    }
    return 0;
}

static int pipe_send(void *ctx, int to, const void *buf, size_t bytes)
{
    const struct endpoint *e = ctx;
    int fd = e->rank == 0 ? e->p->to_member[to][1] : e->p->to_leader[e->rank][1];
    return write_all(fd, buf, bytes);
}

static int pipe_recv(void *ctx, int from, void *buf, size_t bytes)
{
    const struct endpoint *e = ctx;
    int fd = e->rank == 0 ? e->p->to_leader[from][0] : e->p->to_member[e->rank][0];
    return read_all(fd, buf, bytes);
}

struct member {
    pthread_t thread;
    struct endpoint end;
    tf_fold_team team;
    int status;
};

static void *serve(void *arg)
{
    struct member *m = arg;
    tf_error err;
    m->status = tf_fold_team_serve(&m->team, NULL, 0, NULL, &err);
    return NULL;
}

static tf_fold_team team_of(struct endpoint *e, int size)
{
    return (tf_fold_team){
        .size = size, .rank = e->rank, .ctx = e, .send = pipe_send, .recv = pipe_recv,
        .send_idle = pipe_send, .recv_idle = pipe_recv,
    };
}

/* ---- clouds ------------------------------------------------------------- */

/* Counter c of instance i: a kinked curve whose kink moves with c and
 * wanders with i, samples at staggered times; some instances lack some
 * counters. */
struct clouds {
    uint32_t rows[NINST];
    size_t first[NINST + 1];
    float x[NINST * NPOINTS], y[MAX_COUNTERS][NINST * NPOINTS];
    uint8_t valid[MAX_COUNTERS][NINST];
    double total[MAX_COUNTERS][NINST], duration[NINST];
};

static void make_clouds(struct clouds *d)
{
    for (size_t i = 0; i < NINST; i++) {
        d->rows[i] = (uint32_t)(3 * i + 1);
        d->first[i] = i * NPOINTS;
        d->duration[i] = 1e7 * (1 + 0.01 * (double)(i % 5));
        for (size_t k = 0; k < NPOINTS; k++)
            d->x[i * NPOINTS + k] =
                (float)(((double)k + 0.5 + 0.61 * (double)(i % 9) / 9) / NPOINTS);
        for (size_t c = 0; c < MAX_COUNTERS; c++) {
            double kink = 0.3 + 0.1 * (double)c + 0.01 * (double)(i % 7) / 7;
            double a = 0.2 + 0.15 * (double)c;   /* share of the counter before the kink */
            d->valid[c][i] = (i + c) % 17 != 0;
            d->total[c][i] = 1e8 * (double)(c + 1) + (double)(i % 11);
            for (size_t k = 0; k < NPOINTS; k++) {
                double x = d->x[i * NPOINTS + k];
                double y = x < kink ? a * x / kink : a + (1 - a) * (x - kink) / (1 - kink);
                d->y[c][i * NPOINTS + k] = (float)y;
            }
        }
    }
    d->first[NINST] = NINST * NPOINTS;
}

static void view(void *arg, unsigned slot, uint32_t c, tf_fold_cloud *cl)
{
    const struct clouds *d = arg;
    *cl = (tf_fold_cloud){
        .ninst = NINST, .rows = d->rows, .first = d->first, .x = d->x, .y = d->y[c],
        .valid = d->valid[c], .total = d->total[c], .duration = d->duration,
    };
}

/* ---- fits --------------------------------------------------------------- */

struct fits {
    double rows[MAX_COUNTERS][6][GRID];
    tf_fit_output out[MAX_COUNTERS];
};

static void outputs(struct fits *f)
{
    for (size_t c = 0; c < MAX_COUNTERS; c++)
        f->out[c] = (tf_fit_output){
            .curve = f->rows[c][0], .curve_lo = f->rows[c][1], .curve_hi = f->rows[c][2],
            .rate = f->rows[c][3], .rate_lo = f->rows[c][4], .rate_hi = f->rows[c][5],
        };
}

static const double bend[] = { 0.3, 0.4, 0.5, 0.6, 0.7 };
static const tf_fit_options options = {
    .grid = GRID, .bootstrap = 30, .confidence = 0.9, .seed = 7, .window = 0.015,
};

/* Fits nc counters with a team of size members (1: alone), the leader on
 * `threads` threads, into f; the members' exit statuses (the leader sends
 * 5) into status. */
static void fit_with(int size, unsigned threads, uint32_t nc, const struct clouds *d,
                     struct fits *f, int *status)
{
    static struct pipes p;
    struct member m[MAX_MEMBERS];
    struct endpoint leader = { &p, 0 };
    tf_fold_team team = team_of(&leader, size);
    for (int w = 1; w < size; w++) {
        assert_int_equal(pipe(p.to_member[w]), 0);
        assert_int_equal(pipe(p.to_leader[w]), 0);
        m[w].end = (struct endpoint){ &p, w };
        m[w].team = team_of(&m[w].end, size);
        assert_int_equal(pthread_create(&m[w].thread, NULL, serve, &m[w]), 0);
    }
    outputs(f);
    tf_error err;
    /* Twice: a team serves any number of fits. */
    for (int round = 0; round < 2; round++)
        assert_int_equal(tf_fold_team_fit(size > 1 ? &team : NULL, nc, threads, view, (void *)d, bend,
                                          sizeof bend / sizeof bend[0], &options, f->out, &err),
                         0);
    if (size > 1)
        assert_int_equal(tf_fold_team_end(&team, 5), 0);
    for (int w = 1; w < size; w++) {
        assert_int_equal(pthread_join(m[w].thread, NULL), 0);
        status[w] = m[w].status;
        close(p.to_member[w][0]);
        close(p.to_member[w][1]);
        close(p.to_leader[w][0]);
        close(p.to_leader[w][1]);
    }
}

static void assert_same(const struct fits *a, const struct fits *b, uint32_t nc)
{
    for (uint32_t c = 0; c < nc; c++) {
        /* Bit for bit: memcmp also tells NaN rows apart from numbers. */
        if (memcmp(a->rows[c], b->rows[c], sizeof a->rows[c]) != 0)
            fail_msg("counter %u: the team's rows differ from the fit alone", c);
        assert_int_equal(a->out[c].instances, b->out[c].instances);
        assert_memory_equal(&a->out[c].mean_total, &b->out[c].mean_total, sizeof(double));
        assert_memory_equal(&a->out[c].mean_duration_ns, &b->out[c].mean_duration_ns,
                            sizeof(double));
    }
}

static void test_team_equals_alone(void **state)
{
    static struct clouds d;
    static struct fits alone, shared;
    int status[MAX_MEMBERS];
    make_clouds(&d);
    fit_with(1, 1, MAX_COUNTERS, &d, &alone, status);
    /* The fit is a real one: bands around increasing curves. */
    for (uint32_t c = 0; c < MAX_COUNTERS; c++) {
        assert_true(alone.out[c].instances > 100 && alone.out[c].instances < NINST);
        assert_true(alone.rows[c][0][GRID - 1] == 1.0 && alone.rows[c][0][GRID / 2] > 0.2);
        assert_true(alone.rows[c][1][GRID / 2] < alone.rows[c][2][GRID / 2]);
    }
    for (int size = 2; size <= MAX_MEMBERS; size++) {
        memset(&shared, 0, sizeof shared);
        fit_with(size, 1, MAX_COUNTERS, &d, &shared, status);
        assert_same(&alone, &shared, MAX_COUNTERS);
        for (int w = 1; w < size; w++)
            assert_int_equal(status[w], 5);
    }
}

/* Counters fitted on threads (more threads than counters too, and with a
 * team), bit for bit the fit on one thread. */
static void test_threads_equal_one(void **state)
{
    static struct clouds d;
    static struct fits one, threaded;
    int status[MAX_MEMBERS];
    make_clouds(&d);
    fit_with(1, 1, MAX_COUNTERS, &d, &one, status);
    static const struct { int size; unsigned threads; } runs[] = {
        { 1, 2 }, { 1, 3 }, { 1, MAX_COUNTERS + 2 }, { 2, 2 }, { MAX_MEMBERS, 3 },
    };
    for (size_t k = 0; k < sizeof runs / sizeof runs[0]; k++) {
        memset(&threaded, 0, sizeof threaded);
        fit_with(runs[k].size, runs[k].threads, MAX_COUNTERS, &d, &threaded, status);
        assert_same(&one, &threaded, MAX_COUNTERS);
    }
}

static void test_members_without_counters(void **state)
{
    static struct clouds d;
    static struct fits alone, shared;
    int status[MAX_MEMBERS];
    make_clouds(&d);
    fit_with(1, 1, 2, &d, &alone, status);
    fit_with(MAX_MEMBERS, 2, 2, &d, &shared, status);   /* members 2 and 3 get nothing */
    assert_same(&alone, &shared, 2);
    for (int w = 1; w < MAX_MEMBERS; w++)
        assert_int_equal(status[w], 5);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_team_equals_alone),
        cmocka_unit_test(test_threads_equal_one),
        cmocka_unit_test(test_members_without_counters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
