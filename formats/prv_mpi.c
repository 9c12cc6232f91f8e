/* SPDX-License-Identifier: BSD-3-Clause */
#include "prv_mpi.h"

#include <stdlib.h>
#include <string.h>

#include "tracefold_mpi.h"

/* Each call of enum tracefold_mpi_call: Extrae's event type and value
 * (its merger's MPI value list) and the state Extrae gives it. */
static const struct {
    uint32_t    type;
    uint32_t    value;
    uint32_t    state;
    const char *name;
} calls[] = {
    [TRACEFOLD_MPI_SEND] = {TF_PRV_MPI_P2P, 1, TF_PRV_STATE_BLOCKING_SEND, "MPI_Send"},
    [TRACEFOLD_MPI_RECV] = {TF_PRV_MPI_P2P, 2, TF_PRV_STATE_WAITING_MESSAGE, "MPI_Recv"},
    [TRACEFOLD_MPI_ISEND] = {TF_PRV_MPI_P2P, 3, TF_PRV_STATE_IMMEDIATE_SEND, "MPI_Isend"},
    [TRACEFOLD_MPI_IRECV] = {TF_PRV_MPI_P2P, 4, TF_PRV_STATE_IMMEDIATE_RECEIVE, "MPI_Irecv"},
    [TRACEFOLD_MPI_SENDRECV] = {TF_PRV_MPI_P2P, 41, TF_PRV_STATE_SEND_RECEIVE, "MPI_Sendrecv"},
    [TRACEFOLD_MPI_WAIT] = {TF_PRV_MPI_P2P, 5, TF_PRV_STATE_WAITING_MESSAGE, "MPI_Wait"},
    [TRACEFOLD_MPI_WAITALL] = {TF_PRV_MPI_P2P, 6, TF_PRV_STATE_WAITING_MESSAGE, "MPI_Waitall"},
    [TRACEFOLD_MPI_BARRIER] = {TF_PRV_MPI_COLLECTIVE, 8, TF_PRV_STATE_SYNCHRONIZATION,
                               "MPI_Barrier"},
    [TRACEFOLD_MPI_BCAST] = {TF_PRV_MPI_COLLECTIVE, 7, TF_PRV_STATE_GROUP_COMMUNICATION,
                             "MPI_Bcast"},
    [TRACEFOLD_MPI_REDUCE] = {TF_PRV_MPI_COLLECTIVE, 9, TF_PRV_STATE_GROUP_COMMUNICATION,
                              "MPI_Reduce"},
    [TRACEFOLD_MPI_ALLREDUCE] = {TF_PRV_MPI_COLLECTIVE, 10, TF_PRV_STATE_GROUP_COMMUNICATION,
                                 "MPI_Allreduce"},
    [TRACEFOLD_MPI_GATHER] = {TF_PRV_MPI_COLLECTIVE, 13, TF_PRV_STATE_GROUP_COMMUNICATION,
                              "MPI_Gather"},
    [TRACEFOLD_MPI_ALLGATHER] = {TF_PRV_MPI_COLLECTIVE, 17, TF_PRV_STATE_GROUP_COMMUNICATION,
                                 "MPI_Allgather"},
    [TRACEFOLD_MPI_SCATTER] = {TF_PRV_MPI_COLLECTIVE, 15, TF_PRV_STATE_GROUP_COMMUNICATION,
                               "MPI_Scatter"},
    [TRACEFOLD_MPI_ALLTOALL] = {TF_PRV_MPI_COLLECTIVE, 11, TF_PRV_STATE_GROUP_COMMUNICATION,
                                "MPI_Alltoall"},
    [TRACEFOLD_MPI_WAITANY] = {TF_PRV_MPI_P2P, 59, TF_PRV_STATE_WAITING_MESSAGE, "MPI_Waitany"},
    [TRACEFOLD_MPI_WAITSOME] = {TF_PRV_MPI_P2P, 60, TF_PRV_STATE_WAITING_MESSAGE,
                                "MPI_Waitsome"},
    [TRACEFOLD_MPI_TEST] = {TF_PRV_MPI_P2P, 39, TF_PRV_STATE_TEST_PROBE, "MPI_Test"},
    [TRACEFOLD_MPI_TESTALL] = {TF_PRV_MPI_P2P, 125, TF_PRV_STATE_TEST_PROBE, "MPI_Testall"},
};
enum { NCALLS = sizeof calls / sizeof calls[0] };

bool tf_prv_mpi_call(uint64_t call, uint32_t *type, uint64_t *value)
{
    if (call == 0 || call >= NCALLS || !calls[call].name)
        return false;
    *type = calls[call].type;
    *value = calls[call].value;
    return true;
}

/* The states as Paraver's default configuration names them. */
static const struct { uint32_t state; const char *label; } states[] = {
    {0, "Idle"},
    {TF_PRV_STATE_RUNNING, "Running"},
    {TF_PRV_STATE_WAITING_MESSAGE, "Waiting a message"},
    {TF_PRV_STATE_BLOCKING_SEND, "Blocking Send"},
    {TF_PRV_STATE_SYNCHRONIZATION, "Synchronization"},
    {TF_PRV_STATE_TEST_PROBE, "Test/Probe"},
    {TF_PRV_STATE_IMMEDIATE_SEND, "Immediate Send"},
    {TF_PRV_STATE_IMMEDIATE_RECEIVE, "Immediate Receive"},
    {TF_PRV_STATE_GROUP_COMMUNICATION, "Group Communication"},
    {TF_PRV_STATE_SEND_RECEIVE, "Send Receive"},
};

/* libtracefold-mpi's own events, kept under their numbers.  The request
 * handles are pointers or library indices: they serve the matching only. */
static const struct { uint32_t type; const char *label; } events[] = {
    {TRACEFOLD_MPI_EVENT_CALL, NULL},
    {TRACEFOLD_MPI_EVENT_PARTNER, "MPI partner (world rank of the peer or root)"},
    {TRACEFOLD_MPI_EVENT_BYTES, "MPI bytes (sent, or received)"},
    {TRACEFOLD_MPI_EVENT_TAG, "MPI tag"},
    {TRACEFOLD_MPI_EVENT_REQUEST, NULL},
    {TRACEFOLD_MPI_EVENT_COMPLETED, NULL},
    {TRACEFOLD_MPI_EVENT_RECV_SOURCE, "MPI received from (world rank)"},
    {TRACEFOLD_MPI_EVENT_RECV_TAG, "MPI received tag"},
    {TRACEFOLD_MPI_EVENT_RANK, "MPI world rank"},
    {TRACEFOLD_MPI_EVENT_SIZE, "MPI world size"},
    {TRACEFOLD_MPI_EVENT_NODE, "MPI node index"},
    {TRACEFOLD_MPI_EVENT_NODES, "MPI nodes"},
    {TRACEFOLD_MPI_EVENT_LOCAL_RANK, "MPI rank on the node"},
    {TRACEFOLD_MPI_EVENT_LOCAL_SIZE, "MPI ranks on the node"},
};

int tf_prv_mpi_event(uint32_t type, uint64_t value, uint32_t *open, tf_prv_pair *out,
                     const char **label)
{
    size_t i = 0;
    while (i < sizeof events / sizeof events[0] && events[i].type != type)
        i++;
    if (i == sizeof events / sizeof events[0])
        return -1;
    *label = events[i].label;
    if (type != TRACEFOLD_MPI_EVENT_CALL) {
        *out = (tf_prv_pair){type, value};
        return events[i].label != NULL;
    }
    /* The call's type and value at entry, its type and 0 at return. */
    uint32_t t;
    uint64_t v;
    if (value && tf_prv_mpi_call(value, &t, &v)) {
        *open = t;
        *out = (tf_prv_pair){t, v};
        return 1;
    }
    if (value || !*open)
        return 0;
    *out = (tf_prv_pair){*open, 0};
    *open = 0;
    return 1;
}

/* The call types are labelled only for a trace with calls: Paraver lists
 * every type of the .pcf in its filters. */
int tf_prv_mpi_labels(tf_pcf *pcf, bool with_calls, tf_error *err)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof states / sizeof states[0]; i++)
        rc = tf_pcf_add_state(pcf, states[i].state, states[i].label, err);
    if (!with_calls)
        return rc;
    if (rc == 0)
        rc = tf_pcf_add_type(pcf, TF_PRV_MPI_P2P, 9, "MPI Point-to-point", err);
    if (rc == 0)
        rc = tf_pcf_add_type(pcf, TF_PRV_MPI_COLLECTIVE, 9, "MPI Collective Comm", err);
    if (rc == 0)
        rc = tf_pcf_add_value(pcf, TF_PRV_MPI_P2P, 0, "Outside MPI", err);
    if (rc == 0)
        rc = tf_pcf_add_value(pcf, TF_PRV_MPI_COLLECTIVE, 0, "Outside MPI", err);
    for (size_t i = 1; rc == 0 && i < NCALLS; i++)
        if (calls[i].name)
            rc = tf_pcf_add_value(pcf, calls[i].type, calls[i].value, calls[i].name, err);
    return rc;
}

/* ---- reading the calls ------------------------------------------------------- */

/* One side of a message, world ranks. */
typedef struct side {
    int64_t  src, dst, tag;
    uint64_t lt, pt, size;   /* logical and physical time */
    uint32_t thread;
    size_t   seq;            /* order of reading, for stable ties */
} side;

typedef struct side_list {
    side  *v;
    size_t n, cap;
} side_list;

/* A receive request posted and not yet completed. */
typedef struct pending {
    uint64_t handle;
    int64_t  src, tag;
    uint64_t posted;
} pending;

/* A completion inside a wait: the request and what its status said. */
typedef struct completion {
    uint64_t handle;
    int64_t  src, tag;
} completion;

typedef struct reader {
    const tf_trace *tr;
    tf_prv_mpi     *m;
    side_list       sends, recvs;
    pending        *pend;            /* of the current process */
    size_t          npend, cappend;
    completion     *done;            /* of the current call */
    size_t          ndone, capdone;
    tf_error       *err;
} reader;

static int nomem(tf_error *err) { return tf_fail(err, TF_ERR_NOMEM, "out of memory"); }

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t c = *cap ? 2 * *cap : 64;
    void *p = realloc(*v, c * size);
    if (!p)
        return -1;
    *v = p;
    *cap = c;
    return 0;
}

static int add_side(reader *r, side_list *l, side s)
{
    if (grow((void **)&l->v, &l->cap, l->n, sizeof *l->v) < 0)
        return nomem(r->err);
    s.seq = l->n;
    l->v[l->n++] = s;
    return 0;
}

static int add_span(reader *r, uint32_t thread, uint64_t begin, uint64_t end, uint32_t state)
{
    tf_prv_mpi *m = r->m;
    size_t n = m->nspans[thread];
    /* powers of two: the capacity follows from the count */
    if ((n & (n - 1)) == 0) {
        tf_prv_mpi_span *p = realloc(m->spans[thread], (n ? 2 * n : 1) * sizeof *p);
        if (!p)
            return nomem(r->err);
        m->spans[thread] = p;
    }
    m->spans[thread][n] = (tf_prv_mpi_span){begin, end, state};
    m->nspans[thread] = n + 1;
    return 0;
}

/* What one call said between its entry and its return. */
typedef struct call {
    uint64_t id, begin;
    int64_t  partner, tag, recv_src, recv_tag;
    uint64_t bytes, request;
    bool     has_request;
} call;

/* The latest receive posted with this handle: a handle is reused only
 * after its request completed. */
static int complete(reader *r, int64_t rank, uint32_t thread, const completion *c, uint64_t end)
{
    for (size_t i = r->npend; i-- > 0;) {
        pending *p = &r->pend[i];
        if (p->handle != c->handle)
            continue;
        side s = {.src = p->src >= 0 ? p->src : c->src, .dst = rank,
                  .tag = p->tag >= 0 ? p->tag : c->tag, .lt = p->posted, .pt = end,
                  .thread = thread};
        r->pend[i] = r->pend[--r->npend];
        return s.src >= 0 && s.tag >= 0 ? add_side(r, &r->recvs, s) : 0;
    }
    return 0;   /* a send request, or one posted before recording began */
}

static int end_call(reader *r, int64_t rank, uint32_t thread, const call *c, uint64_t end)
{
    int rc = add_span(r, thread, c->begin, end, calls[c->id].state);
    if (rc < 0 || rank < 0)
        return rc;
    side send = {.src = rank, .dst = c->partner, .tag = c->tag, .lt = c->begin,
                 .pt = c->begin, .size = c->bytes, .thread = thread};
    switch (c->id) {
    case TRACEFOLD_MPI_SEND:
    case TRACEFOLD_MPI_ISEND:
        if (c->partner >= 0 && c->tag >= 0)
            rc = add_side(r, &r->sends, send);
        break;
    case TRACEFOLD_MPI_SENDRECV:
        if (c->partner >= 0 && c->tag >= 0)
            rc = add_side(r, &r->sends, send);
        if (rc == 0 && c->recv_src >= 0 && c->recv_tag >= 0)
            rc = add_side(r, &r->recvs, (side){.src = c->recv_src, .dst = rank, .tag = c->recv_tag,
                                               .lt = c->begin, .pt = end, .thread = thread});
        break;
    case TRACEFOLD_MPI_RECV:
        if (c->partner >= 0 && c->tag >= 0)
            rc = add_side(r, &r->recvs, (side){.src = c->partner, .dst = rank, .tag = c->tag,
                                               .lt = c->begin, .pt = end, .thread = thread});
        break;
    case TRACEFOLD_MPI_IRECV:
        if (!c->has_request)
            break;
        if (grow((void **)&r->pend, &r->cappend, r->npend, sizeof *r->pend) < 0)
            return nomem(r->err);
        r->pend[r->npend++] = (pending){c->request, c->partner, c->tag, c->begin};
        break;
    default:
        break;
    }
    for (size_t i = 0; rc == 0 && i < r->ndone; i++)
        rc = complete(r, rank, thread, &r->done[i], end);
    return rc;
}

/* One thread's events: calls do not nest (an MPI library does not call
 * its own wrappers); a call left open at the end has a span to the last
 * event and no message. */
static int read_thread(reader *r, const tf_thread *th, int64_t rank, uint32_t thread)
{
    call c = {0};
    bool open = false;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < th->nevents; i++) {
        const tf_event *e = &th->events[i];
        if (e->kind != TF_EVENT_USER)
            continue;
        switch (e->type) {
        case TRACEFOLD_MPI_EVENT_CALL:
            if (e->value == 0 && open) {
                rc = end_call(r, rank, thread, &c, e->time);
                open = false;
            } else if (e->value && !open && e->value < NCALLS && calls[e->value].name) {
                c = (call){.id = e->value, .begin = e->time, .partner = -1, .tag = -1,
                           .recv_src = -1, .recv_tag = -1};
                r->ndone = 0;
                open = true;
            }
            break;
        case TRACEFOLD_MPI_EVENT_PARTNER: c.partner = (int64_t)e->value; break;
        case TRACEFOLD_MPI_EVENT_BYTES: c.bytes = e->value; break;
        case TRACEFOLD_MPI_EVENT_TAG: c.tag = (int64_t)e->value; break;
        case TRACEFOLD_MPI_EVENT_REQUEST:
            c.request = e->value;
            c.has_request = true;
            break;
        case TRACEFOLD_MPI_EVENT_COMPLETED:
            if (!open)
                break;
            if (grow((void **)&r->done, &r->capdone, r->ndone, sizeof *r->done) < 0)
                return nomem(r->err);
            r->done[r->ndone++] = (completion){e->value, -1, -1};
            break;
        /* after a completion, its status; otherwise the call's own receive */
        case TRACEFOLD_MPI_EVENT_RECV_SOURCE:
            if (r->ndone)
                r->done[r->ndone - 1].src = (int64_t)e->value;
            else
                c.recv_src = (int64_t)e->value;
            break;
        case TRACEFOLD_MPI_EVENT_RECV_TAG:
            if (r->ndone)
                r->done[r->ndone - 1].tag = (int64_t)e->value;
            else
                c.recv_tag = (int64_t)e->value;
            break;
        default:
            break;
        }
    }
    if (rc == 0 && open && th->nevents)
        rc = add_span(r, thread, c.begin, th->events[th->nevents - 1].time, calls[c.id].state);
    return rc;
}

/* ---- matching ------------------------------------------------------------------ */

/* MPI's order rule (MPI 4.0, section 3.5, "Order"): messages from one
 * sender to one receiver that a receive could both match are received in
 * the order sent.  So within (sender, receiver, tag) the k-th send is the
 * k-th receive, receives in the order they were posted. */
static int cmp_key(const side *x, const side *y)
{
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    if (x->dst != y->dst)
        return x->dst < y->dst ? -1 : 1;
    return x->tag != y->tag ? (x->tag < y->tag ? -1 : 1) : 0;
}

static int cmp_side(const void *a, const void *b)
{
    const side *x = a, *y = b;
    int c = cmp_key(x, y);
    if (c)
        return c;
    if (x->lt != y->lt)
        return x->lt < y->lt ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static int cmp_message(const void *a, const void *b)
{
    const tf_prv_mpi_message *x = a, *y = b;
    if (x->lsend != y->lsend)
        return x->lsend < y->lsend ? -1 : 1;
    return (x->lrecv > y->lrecv) - (x->lrecv < y->lrecv);
}

static int match(reader *r)
{
    tf_prv_mpi *m = r->m;
    side *s = r->sends.v, *v = r->recvs.v;
    size_t ns = r->sends.n, nv = r->recvs.n;
    if (ns)
        qsort(s, ns, sizeof *s, cmp_side);
    if (nv)
        qsort(v, nv, sizeof *v, cmp_side);
    m->messages = malloc((ns < nv ? ns : nv) * sizeof *m->messages + 1);
    if (!m->messages)
        return nomem(r->err);
    size_t i = 0, j = 0;
    while (i < ns && j < nv) {
        int c = cmp_key(&s[i], &v[j]);
        if (c < 0) {
            m->unmatched_sends++;
            i++;
        } else if (c > 0) {
            m->unmatched_recvs++;
            j++;
        } else {
            m->messages[m->nmessages++] = (tf_prv_mpi_message){
                .send_thread = s[i].thread, .recv_thread = v[j].thread, .lsend = s[i].lt,
                .psend = s[i].pt, .lrecv = v[j].lt, .precv = v[j].pt, .size = s[i].size,
                .tag = (uint64_t)s[i].tag};
            i++;
            j++;
        }
    }
    m->unmatched_sends += ns - i;
    m->unmatched_recvs += nv - j;
    if (m->nmessages)
        qsort(m->messages, m->nmessages, sizeof *m->messages, cmp_message);
    return 0;
}

int tf_prv_mpi_build(const tf_trace *tr, tf_prv_mpi *m, tf_error *err)
{
    memset(m, 0, sizeof *m);
    uint32_t np = tf_trace_nprocesses(tr);
    for (uint32_t p = 0; p < np; p++)
        m->nthreads += tf_trace_process(tr, p)->nthreads;
    m->spans = calloc(m->nthreads ? m->nthreads : 1, sizeof *m->spans);
    m->nspans = calloc(m->nthreads ? m->nthreads : 1, sizeof *m->nspans);
    if (!m->spans || !m->nspans)
        return nomem(err);
    reader r = {.tr = tr, .m = m, .err = err};
    int rc = 0;
    uint32_t k = 0;
    for (uint32_t p = 0; rc == 0 && p < np; p++) {
        const tf_process *pr = tf_trace_process(tr, p);
        r.npend = 0;   /* requests belong to their process */
        for (uint32_t t = 0; rc == 0 && t < pr->nthreads; t++, k++)
            rc = read_thread(&r, &pr->threads[t], pr->rank, k);
    }
    if (rc == 0)
        rc = match(&r);
    free(r.sends.v);
    free(r.recvs.v);
    free(r.pend);
    free(r.done);
    return rc;
}

void tf_prv_mpi_free(tf_prv_mpi *m)
{
    for (uint32_t t = 0; m->spans && t < m->nthreads; t++)
        free(m->spans[t]);
    free(m->spans);
    free(m->nspans);
    free(m->messages);
    memset(m, 0, sizeof *m);
}
