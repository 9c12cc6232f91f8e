/* SPDX-License-Identifier: BSD-3-Clause */
/* The fits of a group's counters shared by a team (fold/fold_team*.c),
 * with the team's members as threads talking through pipes instead of MPI
 * ranks: every counter's curves, bands and totals equal the fit alone bit
 * for bit, whatever the team's size, also with members that get no
 * counter, and whatever the number of threads fitting them; the members
 * end with the status the leader sends.  The points of a trace read in
 * shares are, end to end, the points read alone, bit for bit, and the
 * leader gathers the members' counts of them; a member that could not
 * read, or read another region, is the leader's error, naming the member.
 * Folded by a team that keeps the points with their ranks, a trace gives
 * the fold alone's curves and points. */
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fold/fold_engine.h"
#include "extract/fold_input.h"
#include "fold/fold_team.h"
#include "fold/members.h"
#include "points_fixture.h"
#include "formats/trace.h"

#define MAX_MEMBERS 4
#define NINST 150
#define NPOINTS 11
#define MAX_COUNTERS 5
#define GRID 101

/* ---- a team over pipes -------------------------------------------------- */

/* link[from][to]: the pipe from one rank to another (the fits' points go
 * from member to member too). */
struct pipes {
    int link[MAX_MEMBERS][MAX_MEMBERS][2];
};

/* Opens the pipes between every two of size ranks. */
static void open_links(struct pipes *p, int size)
{
    for (int a = 0; a < size; a++)
        for (int b = 0; b < size; b++)
            if (a != b)
                assert_int_equal(pipe(p->link[a][b]), 0);
}

static void close_links(struct pipes *p, int size)
{
    for (int a = 0; a < size; a++)
        for (int b = 0; b < size; b++)
            if (a != b) {
                close(p->link[a][b][0]);
                close(p->link[a][b][1]);
            }
}

/* The sends on one link in the order they were made: each takes a ticket
 * and writes when its turn comes, so that started sends (on threads of
 * their own) and blocking ones keep their order. */
struct link_order {
    pthread_mutex_t lock;
    pthread_cond_t turn;
    unsigned next, serving;
};

struct endpoint {
    struct pipes *p;
    int rank;
    int size;                 /* set by team_of */
    struct link_order order[MAX_MEMBERS];   /* by destination */
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

static unsigned take_ticket(struct link_order *o)
{
    pthread_mutex_lock(&o->lock);
    unsigned t = o->next++;
    pthread_mutex_unlock(&o->lock);
    return t;
}

/* Writes the parts on the link to `to` when ticket t's turn comes. */
static int write_in_turn(struct endpoint *e, int to, unsigned t, const tf_team_part *parts,
                         size_t n)
{
    struct link_order *o = &e->order[to];
    pthread_mutex_lock(&o->lock);
    while (o->serving != t)
        pthread_cond_wait(&o->turn, &o->lock);
    pthread_mutex_unlock(&o->lock);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = write_all(e->p->link[e->rank][to][1], parts[i].buf, parts[i].bytes);
    pthread_mutex_lock(&o->lock);
    o->serving++;
    pthread_cond_broadcast(&o->turn);
    pthread_mutex_unlock(&o->lock);
    return rc;
}

static int pipe_send(void *ctx, int to, const void *buf, size_t bytes)
{
    struct endpoint *e = ctx;
    tf_team_part part = { buf, bytes };
    return write_in_turn(e, to, take_ticket(&e->order[to]), &part, 1);
}

static int pipe_recv(void *ctx, int from, void *buf, size_t bytes)
{
    const struct endpoint *e = ctx;
    return read_all(e->p->link[from][e->rank][0], buf, bytes);
}

static int pipe_sendv(void *ctx, int to, const tf_team_part *parts, size_t n)
{
    struct endpoint *e = ctx;
    return write_in_turn(e, to, take_ticket(&e->order[to]), parts, n);
}

/* A started send: a thread that writes the parts in their turn. */
#define MAX_PARTS 4
struct started_send {
    pthread_t thread;
    struct endpoint *e;
    int to, rc;
    unsigned ticket;
    size_t n;
    tf_team_part parts[MAX_PARTS];
};

static void *write_started(void *arg)
{
    struct started_send *st = arg;
    st->rc = write_in_turn(st->e, st->to, st->ticket, st->parts, st->n);
    return NULL;
}

static int pipe_sendv_start(void *ctx, int to, const tf_team_part *parts, size_t n,
                            void **started)
{
    struct endpoint *e = ctx;
    struct started_send *st = calloc(1, sizeof *st);
    assert_non_null(st);
    assert_true(n <= MAX_PARTS);
    *st = (struct started_send){ .e = e, .to = to, .n = n,
                                 .ticket = take_ticket(&e->order[to]) };
    memcpy(st->parts, parts, n * sizeof *parts);
    assert_int_equal(pthread_create(&st->thread, NULL, write_started, st), 0);
    *started = st;
    return 0;
}

static int pipe_sent_wait(void *ctx, void *started)
{
    struct started_send *st = started;
    assert_int_equal(pthread_join(st->thread, NULL), 0);
    int rc = st->rc;
    free(st);
    return rc;
}

static int pipe_recvv(void *ctx, int from, const tf_team_part *parts, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (pipe_recv(ctx, from, (void *)(uintptr_t)parts[i].buf, parts[i].bytes) < 0)
            return -1;
    return 0;
}

static int pipe_pending(void *ctx, int from)
{
    const struct endpoint *e = ctx;
    struct pollfd fd[MAX_MEMBERS];
    nfds_t n = 0;
    for (int w = 1; w < e->size; w++)
        if (e->rank != 0 ? w == e->rank : from == TF_TEAM_ANY || w == from)
            fd[n++] = (struct pollfd){
                .fd = e->rank == 0 ? e->p->link[w][0][0] : e->p->link[0][w][0],
                .events = POLLIN,
            };
    int ready = poll(fd, n, 0);
    return ready < 0 ? -1 : ready > 0;
}

/* A member thread: hands over its share of the points if asked (none for
 * the fits' tests), fits what it is given. */
struct member {
    pthread_t thread;
    struct endpoint end;
    tf_fold_team team;
    tf_fold_input share;
    int share_rc, status;
    tf_error share_err;
};

static void *serve(void *arg)
{
    struct member *m = arg;
    tf_error err;
    m->status = tf_fold_team_serve(&m->team, &m->share, m->share_rc, &m->share_err, NULL,
                                   &err);
    return NULL;
}

static tf_fold_team team_of(struct endpoint *e, int size)
{
    e->size = size;
    for (int w = 0; w < MAX_MEMBERS; w++) {
        e->order[w] = (struct link_order){ .next = 0, .serving = 0 };
        pthread_mutex_init(&e->order[w].lock, NULL);
        pthread_cond_init(&e->order[w].turn, NULL);
    }
    return (tf_fold_team){
        .size = size, .rank = e->rank, .ctx = e, .send = pipe_send, .recv = pipe_recv,
        .sendv = pipe_sendv, .recvv = pipe_recvv, .sendv_start = pipe_sendv_start,
        .sent_wait = pipe_sent_wait, .pending = pipe_pending,
    };
}

/* Members 1..size-1 of m serving the leader over p. */
static void start_members(struct pipes *p, struct member *m, int size)
{
    open_links(p, size);
    for (int w = 1; w < size; w++) {
        m[w].end = (struct endpoint){ .p = p, .rank = w };
        m[w].team = team_of(&m[w].end, size);
        assert_int_equal(pthread_create(&m[w].thread, NULL, serve, &m[w]), 0);
    }
}

/* Once the leader has ended the team: each member's exit status into
 * status[w], its pipes closed. */
static void join_members(struct pipes *p, struct member *m, int size, int *status)
{
    for (int w = 1; w < size; w++) {
        assert_int_equal(pthread_join(m[w].thread, NULL), 0);
        status[w] = m[w].status;
    }
    close_links(p, size);
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
    static struct member m[MAX_MEMBERS];
    struct endpoint leader = { .p = &p, .rank = 0 };
    tf_fold_team team = team_of(&leader, size);
    start_members(&p, m, size);
    outputs(f);
    tf_error err;
    /* Twice: a team serves any number of fits. */
    for (int round = 0; round < 2; round++)
        assert_int_equal(tf_fold_team_fit(size > 1 ? &team : NULL, NULL, nc, threads, view,
                                          (void *)d, bend, sizeof bend / sizeof bend[0],
                                          &options, f->out, &err),
                         0);
    if (size > 1)
        assert_int_equal(tf_fold_team_end(&team, 5), 0);
    join_members(&p, m, size, status);
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

/* ---- points read in shares -------------------------------------------- */

/* Five processes of one or two threads, some with two counters and some
 * with one (the region's counters are their union), 30 iterations of
 * "main" with "other" inside the first ten, samples at uneven times; every
 * time `shift` ns later. */
static void write_processes(const char *path, uint64_t shift)
{
    tf_error err;
    tf_trace_out *w;
    tf_trace_meta meta = { "CLOCK_MONOTONIC", "test", "test_fold_team", "test", 0 };
    assert_int_equal(tf_trace_out_create(&w, path, &meta, 0, &err), 0);
    const char *names[] = { "cycles", "instructions" };
    for (uint32_t p = 0; p < 5; p++) {
        uint32_t nc = p % 2 ? 1 : 2, proc, region, other;
        tf_process_desc d = { .pid = 10 + p, .rank = (int32_t)p, .executable = "app",
                              .host = "test", .build_id = "", .ncounters = nc,
                              .counter_names = names + (p == 1) };
        assert_int_equal(tf_trace_out_add_process(w, &d, &proc, &err), 0);
        assert_int_equal(tf_trace_out_intern(w, "main", &region, &err), 0);
        assert_int_equal(tf_trace_out_intern(w, "other", &other, &err), 0);
        for (uint32_t t = 0; t < 1 + p % 2; t++) {
            uint32_t thread;
            assert_int_equal(tf_trace_out_add_thread(w, proc, 100 + t, &thread, &err), 0);
            for (uint64_t k = 0; k < 30; k++) {
                uint64_t begin = k * 1000000 + p * 777 + shift;
                tf_event ev[4] = { { begin, region, 0, TF_EVENT_ENTER },
                                   { begin + 10, other, 0, TF_EVENT_ENTER },
                                   { begin + 400000, other, 0, TF_EVENT_EXIT },
                                   { begin + 900000 + k * 31, region, 0, TF_EVENT_EXIT } };
                uint64_t ec[8];
                for (size_t e = 0; e < 4; e++)
                    for (uint32_t c = 0; c < nc; c++)
                        ec[e * nc + c] = ev[e].time * (c + 2) + (k % 4) * e;
                size_t nev = k < 10 ? 4 : 2;
                if (nev == 2)
                    ev[1] = ev[3], memcpy(ec + nc, ec + 3 * nc, nc * sizeof *ec);
                assert_int_equal(tf_trace_out_append_events(w, proc, thread, ev, ec, nev, &err), 0);
                tf_sample s[9];
                uint64_t sc[18];
                for (size_t j = 0; j < 9; j++) {
                    s[j] = (tf_sample){ .time = begin + 20 + j * 99000 + (k * 7919 + j * p) % 500,
                                        .ip = 0x400000 + j + p, .kind = TF_SAMPLE_TIMER,
                                        .level = TF_LEVEL_UNKNOWN, .weight = (uint32_t)j };
                    for (uint32_t c = 0; c < nc; c++)
                        sc[j * nc + c] = s[j].time * (c + 2) + j * j;
                }
                assert_int_equal(tf_trace_out_append_samples(w, proc, thread, s, sc, 9, &err), 0);
            }
        }
    }
    assert_int_equal(tf_trace_out_close(w, &err), 0);
}

/* write_processes into a new file named from the template path, opened;
 * the id of "main" into *region unless NULL. */
static tf_trace *open_processes(char *path, uint64_t shift, uint32_t *region)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    write_processes(path, shift);
    tf_error err;
    tf_trace *tr;
    if (tf_trace_open(&tr, path, &err) < 0)
        fail_msg("%s", err.msg);
    if (region)
        assert_true(tf_trace_find_string(tr, "main", region));
    return tr;
}

/* The counts of samples gathered in `lead` are those of the input alone. */
static void assert_same_counts(const tf_fold_input *alone, const tf_fold_input *lead)
{
    assert_int_equal(alone->ninstances, lead->ninstances);
    assert_int_equal(alone->ncounters, lead->ncounters);
    assert_memory_equal(alone->samples, lead->samples, alone->ninstances * sizeof *alone->samples);
}

/* The points of shares[0..size), end to end, are those alone, each share
 * holding its own instances' points and counts. */
static void assert_shares_whole(const tf_fold_input *alone, const tf_fold_input *shares,
                                int size)
{
    tf_fold_points whole;
    tf_error err;
    assert_int_equal(tf_fold_points_alloc(&whole, alone->points.n, alone->ncounters, &err), 0);
    size_t at = 0;
    for (int w = 0; w < size; w++) {
        const tf_fold_input *sh = &shares[w];
        assert_true(at + sh->points.n <= whole.n);
        tf_fold_points_move(&whole, whole.n, at, &sh->points, sh->points.n, 0, sh->points.n,
                            alone->ncounters);
        at += sh->points.n;
        for (size_t i = 0; i < alone->ninstances; i++)
            assert_int_equal(sh->samples[i], sh->share[i] == (uint32_t)w ? alone->samples[i] : 0);
    }
    assert_int_equal(at, whole.n);
    assert_points_equal(&whole, &alone->points, alone->ncounters);
    tf_fold_points_free(&whole);
}

/* The members' reading, on this thread (HDF5 is not thread-safe): member
 * w reads share w of size of `region_of[w]` (NULL: main) of `trace_of[w]`
 * (NULL: tr), or fails with `fail_of[w]`. */
static void read_member_shares(tf_trace *tr, int size, const char *const *region_of,
                               tf_trace *const *trace_of, const char *const *fail_of,
                               const char *own_copy, struct member *m)
{
    for (int w = 1; w < size; w++) {
        uint32_t id;
        tf_error_clear(&m[w].share_err);
        tf_trace *mine = trace_of && trace_of[w] ? trace_of[w] : tr;
        /* as under mpirun: the member opens the file itself and closes it
         * once its share is read, before it serves the leader */
        if (own_copy && tf_trace_open(&mine, own_copy, &m[w].share_err) < 0)
            fail_msg("%s", m[w].share_err.msg);
        assert_true(tf_trace_find_string(mine, region_of && region_of[w] ? region_of[w] : "main",
                                         &id));
        tf_extract_share sh = { (unsigned)w, (unsigned)size };
        m[w].share_rc = fail_of && fail_of[w]
                            ? tf_fail(&m[w].share_err, TF_ERR_IO, "%s", fail_of[w])
                            : tf_fold_input_extract(mine, id, TF_REGION_SCOPE_THREAD, NULL, NULL, 1,
                                                    sh, NULL, NULL, &m[w].share,
                                                    &m[w].share_err);
        if (!fail_of || !fail_of[w])
            assert_int_equal(m[w].share_rc, 0);
        if (own_copy)
            tf_trace_close(mine);
    }
}

/* Ends the team with status 5, which every member must have served to,
 * and frees the members' shares. */
static void end_members(tf_fold_team *team, struct pipes *p, struct member *m, int size)
{
    assert_int_equal(tf_fold_team_end(team, 5), 0);
    int status[MAX_MEMBERS];
    join_members(p, m, size, status);
    for (int w = 1; w < size; w++) {
        assert_int_equal(status[w], 5);
        tf_fold_input_free(&m[w].share);
    }
}

/* The leader's counts gathered from a team of size members, member w
 * having read `region_of[w]` (NULL: main) of `trace_of[w]` (NULL: tr), or
 * failed with `fail_of[w]`; returns the gather's result, its message in
 * err.  With `alone` (the input read whole), the shares read must be it,
 * end to end. */
static int gather_with(tf_trace *tr, int size, const char *const *region_of,
                       tf_trace *const *trace_of, const char *const *fail_of,
                       const tf_fold_input *alone, tf_fold_input *lead, tf_error *err)
{
    static struct pipes p;
    static struct member m[MAX_MEMBERS];
    struct endpoint leader = { .p = &p, .rank = 0 };
    tf_fold_team team = team_of(&leader, size);
    uint32_t main_id;
    assert_true(tf_trace_find_string(tr, "main", &main_id));
    read_member_shares(tr, size, region_of, trace_of, fail_of, NULL, m);
    tf_extract_share sh = { 0, (unsigned)size };
    assert_int_equal(tf_fold_input_extract(tr, main_id, TF_REGION_SCOPE_THREAD, NULL, NULL,
                                           2, sh, NULL, NULL, lead, err), 0);
    if (alone) {
        static tf_fold_input shares[MAX_MEMBERS];
        shares[0] = *lead;
        for (int w = 1; w < size; w++)
            shares[w] = m[w].share;
        assert_shares_whole(alone, shares, size);
    }
    start_members(&p, m, size);
    int rc = tf_fold_team_gather(&team, lead, err);
    end_members(&team, &p, m, size);
    return rc;
}

/* Folded by a team, the groups' points stay with the ranks that read
 * them: taken a part at a time they are the points of the fold alone, the
 * leader holding its share only, and the curves and the instances' fates
 * are the same; in one group or in two (whose members each rank copies
 * out of its share).  Each member reads its own copy of the trace and
 * closes it before it serves, as under mpirun: nothing it serves may
 * rest on the trace's strings (the sanitizers' build sees a read of
 * them). */
static void test_fold_keeps_points_with_ranks(void **state)
{
    char path[] = "/tmp/tf-fold-team-XXXXXX";
    uint32_t region;
    tf_trace *tr = open_processes(path, 0, &region);
    for (uint32_t groups = 1; groups <= 2; groups++) {
        tf_fold_params p;
        tf_fold_params_default(&p);
        p.grid = 101;
        p.bootstrap = 10;
        p.groups = groups;
        tf_error err;
        tf_fold_result *alone, *shared;
        if (tf_fold_trace(tr, region, &p, NULL, NULL, NULL, &alone, &err) < 0)
            fail_msg("%s", err.msg);
        const tf_fold_region *ra = &alone->regions[0];
        assert_int_equal(ra->ngroups, groups);
        for (uint32_t g = 0; g < groups; g++)
            assert_true(ra->groups[g].points.n > 20);
        for (int size = 2; size <= MAX_MEMBERS; size++) {
            static struct pipes pp;
            static struct member m[MAX_MEMBERS];
            struct endpoint leader = { .p = &pp, .rank = 0 };
            tf_fold_team team = team_of(&leader, size);
            read_member_shares(tr, size, NULL, NULL, NULL, path, m);
            start_members(&pp, m, size);
            if (tf_fold_trace(tr, region, &p, &team, NULL, NULL, &shared, &err) < 0)
                fail_msg("team of %d: %s", size, err.msg);
            const tf_fold_region *rs = &shared->regions[0];
            assert_int_equal(rs->ngroups, ra->ngroups);
            size_t held = 0, all = 0;
            for (uint32_t g = 0; g < ra->ngroups; g++) {
                const tf_fold_group *ga = &ra->groups[g], *gs = &rs->groups[g];
                assert_non_null(gs->parts);
                held += gs->points.n;
                all += ga->points.n;
                tf_fold_points whole;
                if (points_of_parts(gs, rs->ncounters, &whole, &err) < 0)
                    fail_msg("%s", err.msg);
                assert_points_equal(&whole, &ga->points, ra->ncounters);
                tf_fold_points_free(&whole);
                assert_memory_equal(gs->curve, ga->curve,
                                    (size_t)ra->ncounters * ga->grid * sizeof *ga->curve);
            }
            assert_true(held < all);
            for (size_t i = 0; i < ra->ninstances; i++) {
                assert_int_equal(rs->instances[i].status, ra->instances[i].status);
                assert_int_equal(rs->instances[i].reason, ra->instances[i].reason);
                assert_memory_equal(&rs->instances[i].score, &ra->instances[i].score,
                                    sizeof(double));
            }
            tf_fold_result_free(shared);
            end_members(&team, &pp, m, size);
        }
        tf_fold_result_free(alone);
    }
    tf_trace_close(tr);
    unlink(path);
}

static void test_shares_equal_alone(void **state)
{
    char path[] = "/tmp/tf-fold-team-XXXXXX";
    uint32_t region;
    tf_trace *tr = open_processes(path, 0, &region);
    tf_error err;
    tf_fold_input alone, lead;
    tf_extract_share whole = { 0, 1 };
    assert_int_equal(tf_fold_input_extract(tr, region, TF_REGION_SCOPE_THREAD, NULL, NULL,
                                           1, whole, NULL, NULL, &alone, &err), 0);
    /* A real input: every instance sampled, both counters. */
    assert_int_equal(alone.ninstances, 210);
    assert_int_equal(alone.ncounters, 2);
    assert_int_equal(alone.points.n, 210 * 9);
    for (int size = 2; size <= MAX_MEMBERS; size++) {
        if (gather_with(tr, size, NULL, NULL, NULL, &alone, &lead, &err) < 0)
            fail_msg("team of %d: %s", size, err.msg);
        assert_same_counts(&alone, &lead);
        tf_fold_input_free(&lead);
    }
    /* A member that could not read is the leader's error. */
    const char *fails[MAX_MEMBERS] = { NULL, NULL, "set/rank2.h5: truncated" };
    assert_int_equal(gather_with(tr, 3, NULL, NULL, fails, NULL, &lead, &err), -TF_ERR_IO);
    assert_string_equal(err.msg, "rank 2: set/rank2.h5: truncated");
    tf_fold_input_free(&lead);
    /* So is one that read something else. */
    const char *regions[MAX_MEMBERS] = { NULL, "other" };
    assert_int_equal(gather_with(tr, 2, regions, NULL, NULL, NULL, &lead, &err), -TF_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "rank 1 read 70 instances"));
    tf_fold_input_free(&lead);
    /* And one that read the same region of another run: as many instances,
     * counters and samples, every time a little later. */
    char later_path[] = "/tmp/tf-fold-team-XXXXXX";
    tf_trace *later = open_processes(later_path, 3, NULL);
    tf_trace *traces[MAX_MEMBERS] = { NULL, NULL, later };
    assert_int_equal(gather_with(tr, 3, NULL, traces, NULL, NULL, &lead, &err), -TF_ERR_FORMAT);
    assert_non_null(strstr(err.msg, "rank 2 read another trace than rank 0"));
    tf_fold_input_free(&lead);
    tf_trace_close(later);
    unlink(later_path);
    tf_fold_input_free(&alone);
    tf_trace_close(tr);
    unlink(path);
}

/* ---- a member's reading stopped by the leader ------------------------- */

struct watch {
    tf_fold_team *team;
    int calls;
};

static int watch_leader(void *arg, uint64_t done, uint64_t total)
{
    struct watch *w = arg;
    w->calls++;
    return tf_fold_team_ended(w->team) != 0;
}

struct leader {
    pthread_t thread;
    tf_fold_team team;
    tf_fold_input in;
    int rc;
    tf_error err;
};

/* The leader ends the team with status 3 (it waits for the member's
 * answer, so on a thread of its own). */
static void *end_team(void *arg)
{
    struct leader *l = arg;
    l->rc = tf_fold_team_end(&l->team, 3);
    return NULL;
}

static void *lead_gather(void *arg)
{
    struct leader *l = arg;
    l->rc = tf_fold_team_gather(&l->team, &l->in, &l->err);
    if (tf_fold_team_end(&l->team, 5) < 0)
        l->rc = -1;
    return NULL;
}

/* A leader that failed before it needed the shares ends the team: the
 * member stops reading at its first look and serves the status; a member
 * whose reading failed before it looked tells the leader unasked, and the
 * end takes that message up (nothing is left unreceived); a request for
 * the share that comes while the member reads is kept and served. */
static void test_member_reading_stops(void **state)
{
    char path[] = "/tmp/tf-fold-team-XXXXXX";
    uint32_t region;
    tf_trace *tr = open_processes(path, 0, &region);
    tf_error err;
    static struct pipes p;
    open_links(&p, 2);
    struct endpoint lead_end = { .p = &p, .rank = 0 }, member_end = { .p = &p, .rank = 1 };
    tf_fold_team member = team_of(&member_end, 2);
    static struct leader l;
    l.team = team_of(&lead_end, 2);
    tf_extract_share mine = { 1, 2 }, lead_share = { 0, 2 };
    tf_fold_input share;

    /* Ended before: the first look stops the reading. */
    assert_int_equal(pthread_create(&l.thread, NULL, end_team, &l), 0);
    struct pollfd ended = { .fd = p.link[0][1][0], .events = POLLIN };
    assert_int_equal(poll(&ended, 1, 10000), 1);
    struct watch w = { &member, 0 };
    assert_int_equal(tf_fold_input_extract(tr, region, TF_REGION_SCOPE_THREAD, NULL, NULL,
                                           1, mine, watch_leader, &w, &share, &err),
                     -TF_ERR_CANCELED);
    assert_int_equal(w.calls, 1);
    assert_int_equal(tf_fold_team_serve(&member, NULL, -TF_ERR_CANCELED, &err, NULL, &err), 3);
    assert_int_equal(pthread_join(l.thread, NULL), 0);
    assert_int_equal(l.rc, 0);

    /* Ended while the member's reading failed, before it looked. */
    assert_int_equal(pthread_create(&l.thread, NULL, end_team, &l), 0);
    assert_int_equal(poll(&ended, 1, 10000), 1);
    tf_error failed;
    tf_fail(&failed, TF_ERR_IO, "rank1.h5: truncated");
    assert_int_equal(tf_fold_team_serve(&member, NULL, -TF_ERR_IO, &failed, NULL, &err), 3);
    assert_int_equal(pthread_join(l.thread, NULL), 0);
    assert_int_equal(l.rc, 0);
    struct pollfd left = { .fd = p.link[1][0][0], .events = POLLIN };
    assert_int_equal(poll(&left, 1, 0), 0);

    /* Asked for the share while reading: the reading goes on, the request
     * is served after it. */
    tf_fold_input alone;
    tf_extract_share whole = { 0, 1 };
    assert_int_equal(tf_fold_input_extract(tr, region, TF_REGION_SCOPE_THREAD, NULL, NULL,
                                           1, whole, NULL, NULL, &alone, &err), 0);
    assert_int_equal(tf_fold_input_extract(tr, region, TF_REGION_SCOPE_THREAD, NULL, NULL,
                                           1, lead_share, NULL, NULL, &l.in, &err),
                     0);
    assert_int_equal(pthread_create(&l.thread, NULL, lead_gather, &l), 0);
    struct pollfd asked = { .fd = p.link[0][1][0], .events = POLLIN };
    assert_int_equal(poll(&asked, 1, 10000), 1);
    w.calls = 0;
    assert_int_equal(tf_fold_input_extract(tr, region, TF_REGION_SCOPE_THREAD, NULL, NULL,
                                           1, mine, watch_leader, &w, &share, &err),
                     0);
    assert_true(w.calls > 0);
    tf_error serr;
    assert_int_equal(tf_fold_team_serve(&member, &share, 0, &serr, NULL, &serr), 5);
    assert_int_equal(pthread_join(l.thread, NULL), 0);
    if (l.rc < 0)
        fail_msg("gather: %s", l.err.msg);
    assert_same_counts(&alone, &l.in);
    tf_fold_input_free(&l.in);
    tf_fold_input_free(&alone);
    close_links(&p, 2);
    tf_trace_close(tr);
    unlink(path);
}

static void count_reading(void *arg, const char *what, uint64_t done, uint64_t total)
{
    if (!strcmp(what, "reading samples"))
        ++*(int *)arg;
}

/* A member that cannot read says so unasked: the leader's fold stops
 * reading at its first look and fails with the member's error. */
static void test_leader_stops_for_failed_member(void **state)
{
    char path[] = "/tmp/tf-fold-team-XXXXXX";
    uint32_t region;
    tf_trace *tr = open_processes(path, 0, &region);
    static struct pipes p;
    static struct member m[2];
    struct endpoint leader = { .p = &p, .rank = 0 };
    tf_fold_team team = team_of(&leader, 2);
    m[1].share_rc = tf_fail(&m[1].share_err, TF_ERR_IO, "rank1.h5: truncated");
    start_members(&p, m, 2);
    struct pollfd told = { .fd = p.link[1][0][0], .events = POLLIN };
    assert_int_equal(poll(&told, 1, 10000), 1);
    tf_fold_params params;
    tf_fold_params_default(&params);
    params.threads = 1;
    tf_fold_result *res = NULL;
    tf_error err;
    int calls = 0;
    assert_int_equal(tf_fold_trace(tr, region, &params, &team, count_reading, &calls, &res, &err),
                     -TF_ERR_IO);
    assert_string_equal(err.msg, "rank 1: rank1.h5: truncated");
    assert_int_equal(calls, 1);
    assert_null(res);
    assert_int_equal(tf_fold_team_end(&team, 1), 0);
    int status[2];
    join_members(&p, m, 2, status);
    assert_int_equal(status[1], 1);
    tf_trace_close(tr);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_team_equals_alone),
        cmocka_unit_test(test_threads_equal_one),
        cmocka_unit_test(test_members_without_counters),
        cmocka_unit_test(test_shares_equal_alone),
        cmocka_unit_test(test_fold_keeps_points_with_ranks),
        cmocka_unit_test(test_member_reading_stops),
        cmocka_unit_test(test_leader_stops_for_failed_member),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
