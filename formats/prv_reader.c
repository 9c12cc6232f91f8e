/* SPDX-License-Identifier: BSD-3-Clause */
#include "prv_reader.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prv_index.h"
#include "prv_input.h"

/* Large reads keep the per-call cost of decompression negligible next to
 * parsing. */
#define READ_CHUNK (4u << 20)

struct tf_prv_reader {
    char         *path;
    tf_prv_input *in;
    char         *buf;
    size_t        cap, len, pos;
    bool          eof;
    bool          in_records;    /* past the header and communicator lines */
    uint64_t      line;
    uint64_t      bytes;
    bool          lenient;
    uint64_t      skipped;
    char         *first_skip;
    tf_prv_header hdr;
    uint32_t     *node_end;      /* per node: its last CPU (running sum of node_cpus) */
    uint32_t     *appl_first;    /* flat index of each application's first thread */
    uint32_t    **task_first;    /* flat index of each task's first thread */
    uint32_t      nthreads;
    uint64_t     *last_time;     /* per flat thread, for the time-order check */
    tf_prv_pair  *pairs;
    size_t        pairs_cap;
};

/* ---- line input ---------------------------------------------------------- */

__attribute__((format(printf, 3, 4)))
static int bad_record(tf_prv_reader *r, tf_error *err, const char *fmt, ...);

/* Every program that writes Paraver traces ends each line with a newline: a last line
 * without one is what is left of a file cut short.  Lenient reading skips
 * it like any other bad record. */
static int unterminated(tf_prv_reader *r, size_t have, tf_error *err)
{
    r->line++;
    r->bytes += have;
    r->pos = r->len;
    if (r->lenient && r->in_records) {
        bad_record(r, err, "the file ends inside this line, without its newline (cut short)");
        return 0;
    }
    return tf_fail(err, TF_ERR_FORMAT, "%s: line %" PRIu64 ": the file ends inside this line, "
                   "without its newline: the trace is cut short", r->path, r->line);
}

static int line_too_long(tf_prv_reader *r, tf_error *err)
{
    return tf_fail(err, TF_ERR_FORMAT, "%s: line %" PRIu64 ": no end of line within %u MiB "
                   "(the longest line read): not a Paraver trace, or a damaged one",
                   r->path, r->line + 1, TF_PRV_MAX_LINE >> 20);
}

/* Next line without its terminator in [*s, *e); 0 at the end of input. */
static int next_line(tf_prv_reader *r, const char **s, const char **e, tf_error *err)
{
    for (;;) {
        char *start = r->buf + r->pos;
        size_t have = r->len - r->pos;
        char *nl = memchr(start, '\n', have);
        if ((nl ? (size_t)(nl - start) : have) > TF_PRV_MAX_LINE)
            return line_too_long(r, err);
        if (nl) {
            char *stop = nl;
            r->bytes += (uint64_t)(nl - start) + 1;
            r->pos = (size_t)(nl - r->buf) + 1;
            if (stop > start && stop[-1] == '\r')
                stop--;
            *s = start;
            *e = stop;
            r->line++;
            return 1;
        }
        if (r->eof)
            return have ? unterminated(r, have, err) : 0;
        /* Keep the partial line; room for it and one more read, so the
         * buffer never exceeds the longest line plus READ_CHUNK. */
        memmove(r->buf, start, have);
        r->len = have;
        r->pos = 0;
        if (r->cap - r->len < READ_CHUNK / 2) {
            size_t cap = r->len + READ_CHUNK;
            char *nb = realloc(r->buf, cap);
            if (!nb)
                return tf_fail(err, TF_ERR_NOMEM, "%s: line %" PRIu64 ": out of memory for "
                               "a line of %zu bytes", r->path, r->line + 1, r->len);
            r->buf = nb;
            r->cap = cap;
        }
        size_t got;
        int rc = tf_prv_input_read(r->in, r->buf + r->len, r->cap - r->len, &got, err);
        if (rc < 0) {
            tf_error_prefix(err, "%s: line %" PRIu64 ": ", r->path, r->line + 1);
            return rc;
        }
        r->eof = got == 0;
        r->len += got;
    }
}

/* ---- numbers ------------------------------------------------------------- */

static inline bool is_digit(char c) { return (unsigned)(c - '0') <= 9; }

static inline bool parse_u64(const char **pp, const char *end, uint64_t *out)
{
    const char *p = *pp;
    if (p == end || !is_digit(*p))
        return false;
    uint64_t v = 0;
    int n = 0;
    for (; p < end && is_digit(*p); p++, n++) {
        /* 19 digits cannot overflow; only longer numbers need the check. */
        if (n >= 19) {
            if (__builtin_mul_overflow(v, 10, &v) ||
                __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v))
                return false;
        } else {
            v = v * 10 + (uint64_t)(*p - '0');
        }
    }
    *pp = p;
    *out = v;
    return true;
}

static inline bool parse_u32(const char **pp, const char *end, uint32_t *out)
{
    uint64_t v;
    const char *p = *pp;
    if (!parse_u64(&p, end, &v) || v > UINT32_MAX)
        return false;
    *pp = p;
    *out = (uint32_t)v;
    return true;
}

/* A signed value, or an unsigned one up to 2^64-1 kept as its bits. */
static inline bool parse_value(const char **pp, const char *end, uint64_t *out)
{
    const char *p = *pp;
    bool neg = p < end && *p == '-';
    if (neg)
        p++;
    uint64_t v;
    if (!parse_u64(&p, end, &v) || (neg && v > (uint64_t)INT64_MAX + 1))
        return false;
    *pp = p;
    *out = neg ? (uint64_t)0 - v : v;
    return true;
}

static inline bool expect(const char **pp, const char *end, char c)
{
    if (*pp < end && **pp == c) {
        (*pp)++;
        return true;
    }
    return false;
}

/* ---- header -------------------------------------------------------------- */

static int header_error(tf_prv_reader *r, tf_error *err, const char *what)
{
    return tf_fail(err, TF_ERR_FORMAT,
                   "%s: line 1: bad Paraver header: expected %s "
                   "(#Paraver (DATE):FTIME_ns:NODES(CPUS,...):NAPPL:NTASKS(NTHREADS:NODE,...)[,NCOMM])",
                   r->path, what);
}

/* A count larger than the entries the rest of the line could list. */
static int count_error(tf_prv_reader *r, tf_error *err, uint32_t count, const char *what)
{
    char text[160];
    snprintf(text, sizeof text, "%" PRIu32 " %s, where the line has room for fewer", count, what);
    return header_error(r, err, text);
}

/* A count read from the header is checked against the rest of the line
 * before anything is allocated for it: each of its entries takes at least
 * min_chars characters there ("C," per node, "T:N," per task, ":T(T:N)"
 * per application), so no count allocates more than the line could list. */
static bool fits_line(uint32_t count, const char *p, const char *e, size_t min_chars)
{
    return count <= (size_t)(e - p) / min_chars;
}

static int parse_resources(tf_prv_reader *r, const char **pp, const char *e, tf_error *err)
{
    tf_prv_header *h = &r->hdr;
    if (!parse_u32(pp, e, &h->nnodes))
        return header_error(r, err, "the number of nodes after the end time");
    if (h->nnodes == 0)
        return 0;
    if (!expect(pp, e, '('))
        return header_error(r, err, "'(' and the CPUs of each node");
    if (!fits_line(h->nnodes, *pp, e, 2))
        return count_error(r, err, h->nnodes, "CPU counts (one per node)");
    h->node_cpus = calloc(h->nnodes, sizeof *h->node_cpus);
    r->node_end = calloc(h->nnodes, sizeof *r->node_end);
    if (!h->node_cpus || !r->node_end)
        return tf_fail(err, TF_ERR_NOMEM, "%s: line 1: out of memory for %" PRIu32 " nodes",
                       r->path, h->nnodes);
    for (uint32_t i = 0; i < h->nnodes; i++) {
        if ((i > 0 && !expect(pp, e, ',')) || !parse_u32(pp, e, &h->node_cpus[i]) ||
            h->node_cpus[i] == 0)
            return header_error(r, err, "a positive CPU count for every node");
        if (__builtin_add_overflow(h->ncpus, h->node_cpus[i], &h->ncpus))
            return header_error(r, err, "a total CPU count below 2^32");
        r->node_end[i] = h->ncpus;
    }
    if (!expect(pp, e, ')'))
        return header_error(r, err, "')' after the CPU counts, one per node");
    return 0;
}

/* The 1-based node of CPU cpu (1..ncpus): the first whose last CPU is at
 * or after it.  A search, not a table per CPU: the CPU count costs no
 * memory, however large the header says it is. */
static uint32_t cpu_node(const tf_prv_reader *r, uint32_t cpu)
{
    uint32_t lo = 0, hi = r->hdr.nnodes;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (r->node_end[mid] < cpu)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo + 1;
}

static int parse_appls(tf_prv_reader *r, const char **pp, const char *e, tf_error *err)
{
    tf_prv_header *h = &r->hdr;
    if (!parse_u32(pp, e, &h->nappls) || h->nappls == 0)
        return header_error(r, err, "a positive number of applications");
    if (!fits_line(h->nappls, *pp, e, 7))
        return count_error(r, err, h->nappls, "applications");
    h->appls = calloc(h->nappls, sizeof *h->appls);
    r->appl_first = calloc(h->nappls, sizeof *r->appl_first);
    r->task_first = calloc(h->nappls, sizeof *r->task_first);
    if (!h->appls || !r->appl_first || !r->task_first)
        return tf_fail(err, TF_ERR_NOMEM, "%s: line 1: out of memory for %" PRIu32
                       " applications", r->path, h->nappls);
    for (uint32_t a = 0; a < h->nappls; a++) {
        tf_prv_appl *ap = &h->appls[a];
        if (!expect(pp, e, ':') || !parse_u32(pp, e, &ap->ntasks) || ap->ntasks == 0 ||
            !expect(pp, e, '('))
            return header_error(r, err, "':NTASKS(' for every application");
        if (!fits_line(ap->ntasks, *pp, e, 4))
            return count_error(r, err, ap->ntasks, "tasks in an application");
        ap->tasks = calloc(ap->ntasks, sizeof *ap->tasks);
        r->task_first[a] = calloc(ap->ntasks, sizeof *r->task_first[a]);
        if (!ap->tasks || !r->task_first[a])
            return tf_fail(err, TF_ERR_NOMEM, "%s: line 1: out of memory for %" PRIu32
                           " tasks", r->path, ap->ntasks);
        r->appl_first[a] = r->nthreads;
        for (uint32_t t = 0; t < ap->ntasks; t++) {
            tf_prv_task *tk = &ap->tasks[t];
            if ((t > 0 && !expect(pp, e, ',')) || !parse_u32(pp, e, &tk->nthreads) ||
                tk->nthreads == 0 || !expect(pp, e, ':') || !parse_u32(pp, e, &tk->node))
                return header_error(r, err, "NTHREADS:NODE with positive counts for every task");
            if (h->nnodes ? tk->node == 0 || tk->node > h->nnodes : tk->node > 1)
                return header_error(r, err, "task nodes within the number of nodes");
            r->task_first[a][t] = r->nthreads;
            if (__builtin_add_overflow(r->nthreads, tk->nthreads, &r->nthreads))
                return header_error(r, err, "fewer than 2^32 threads");
        }
        if (!expect(pp, e, ')'))
            return header_error(r, err, "')' after the tasks of an application");
    }
    return 0;
}

/* Threads, unlike the other counts, are numbers in the header: "1(64:1)"
 * is 64 threads in 7 bytes.  Every thread costs the conversion into a
 * tracefold trace time and memory whether it has records or not (its group
 * and empty tables: about 4 KB; docs/paraver.md, "Limits"), so the count is
 * held to what the file
 * could hold: TF_PRV_THREADS_FREE threads, and one more per
 * TF_PRV_BYTES_PER_THREAD bytes of the file (compressed, for gzip), which
 * no real trace comes near: Extrae writes a state record of about 30 bytes
 * and more for every thread. */
static int check_thread_count(tf_prv_reader *r, tf_error *err)
{
    uint64_t size = tf_prv_input_file_size(r->in);
    uint64_t most = TF_PRV_THREADS_FREE + size / TF_PRV_BYTES_PER_THREAD;
    if (r->nthreads <= most)
        return 0;
    return tf_fail(err, TF_ERR_FORMAT, "%s: line 1: the header declares %" PRIu32 " threads, "
                   "more than a file of %" PRIu64 " bytes can describe (at most %" PRIu64
                   "): a damaged header", r->path, r->nthreads, size, most);
}

/* The communicator lines announced by ",NCOMM": the array grows with the
 * lines read, so the count itself allocates nothing. */
static int parse_comms(tf_prv_reader *r, uint32_t announced, tf_error *err)
{
    tf_prv_header *h = &r->hdr;
    size_t cap = 0;
    for (uint32_t i = 0; i < announced; i++) {
        const char *s, *e;
        int rc = next_line(r, &s, &e, err);
        if (rc < 0)
            return rc;
        if (rc == 0 || s == e || *s != 'c')
            return tf_fail(err, TF_ERR_FORMAT,
                           "%s: line %" PRIu64 ": expected communicator line %" PRIu32
                           " of %" PRIu32 " announced by the header (c:APPL:COMM:NTASKS:...)",
                           r->path, r->line + (rc == 0), i + 1, announced);
        char **nc = tf_prv_grow(h->comms, &cap, (size_t)i + 1, sizeof *nc, 16);
        if (!nc)
            return tf_fail(err, TF_ERR_NOMEM, "%s: line %" PRIu64 ": out of memory", r->path,
                           r->line);
        h->comms = nc;
        if (!(h->comms[i] = strndup(s, (size_t)(e - s))))
            return tf_fail(err, TF_ERR_NOMEM, "%s: line %" PRIu64 ": out of memory", r->path,
                           r->line);
        h->ncomms = i + 1;   /* what is held, for tf_prv_header_free */
    }
    return 0;
}

static int parse_header(tf_prv_reader *r, tf_error *err)
{
    const char *s, *e;
    int rc = next_line(r, &s, &e, err);
    if (rc < 0)
        return rc;
    static const char magic[] = "#Paraver (";
    if (rc == 0 || (size_t)(e - s) < sizeof magic - 1 || memcmp(s, magic, sizeof magic - 1))
        return header_error(r, err, "a first line starting with '#Paraver ('");
    const char *p = s + sizeof magic - 1;
    const char *close = memchr(p, ')', (size_t)(e - p));
    if (!close)
        return header_error(r, err, "')' closing the date");
    tf_prv_header *h = &r->hdr;
    snprintf(h->date, sizeof h->date, "%.*s", (int)(close - p), p);
    p = close + 1;
    if (!expect(&p, e, ':') || !parse_u64(&p, e, &h->end_time))
        return header_error(r, err, "the trace end time after the date");
    h->unit_ns = 1000;
    if (p + 3 <= e && p[0] == '_') {
        static const struct { const char *sfx; uint64_t ns; } units[] = {
            {"_ns", 1}, {"_us", 1000}, {"_ms", 1000000},
        };
        bool known = false;
        for (size_t i = 0; i < sizeof units / sizeof units[0] && !known; i++)
            if (!memcmp(p, units[i].sfx, 3)) {
                h->unit_ns = units[i].ns;
                known = true;
            }
        if (!known)
            return header_error(r, err, "a time unit _ns, _us or _ms");
        p += 3;
    }
    if (!expect(&p, e, ':'))
        return header_error(r, err, "':' after the end time");
    if ((rc = parse_resources(r, &p, e, err)) < 0)
        return rc;
    if (!expect(&p, e, ':'))
        return header_error(r, err, "':' after the resources");
    if ((rc = parse_appls(r, &p, e, err)) < 0)
        return rc;
    uint32_t ncomms = 0;
    if (expect(&p, e, ',') && !parse_u32(&p, e, &ncomms))
        return header_error(r, err, "the number of communicators after ','");
    if (p != e)
        return header_error(r, err, "the end of the line after the applications");
    if ((rc = check_thread_count(r, err)) < 0 || (rc = parse_comms(r, ncomms, err)) < 0)
        return rc;
    r->last_time = calloc(r->nthreads, sizeof *r->last_time);
    if (!r->last_time)
        return tf_fail(err, TF_ERR_NOMEM, "%s: line 1: out of memory for %" PRIu32 " threads",
                       r->path, r->nthreads);
    r->in_records = true;
    return 0;
}

int tf_prv_open(tf_prv_reader **out, const char *path, bool lenient, tf_error *err)
{
    *out = NULL;
    tf_prv_reader *r = calloc(1, sizeof *r);
    if (!r)
        return tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", path);
    r->lenient = lenient;
    r->cap = READ_CHUNK;
    r->path = strdup(path);
    r->buf = malloc(r->cap);
    int rc;
    if (!r->path || !r->buf) {
        rc = tf_fail(err, TF_ERR_NOMEM, "%s: out of memory", path);
        goto fail;
    }
    if ((rc = tf_prv_input_open(&r->in, path, err)) < 0 || (rc = parse_header(r, err)) < 0)
        goto fail;
    *out = r;
    return 0;
fail:
    tf_prv_close(r);
    return rc;
}

void tf_prv_header_free(tf_prv_header *h)
{
    for (uint32_t a = 0; h->appls && a < h->nappls; a++)
        free(h->appls[a].tasks);
    for (uint32_t i = 0; h->comms && i < h->ncomms; i++)
        free(h->comms[i]);
    free(h->appls);
    free(h->comms);
    free(h->node_cpus);
    memset(h, 0, sizeof *h);
}

void tf_prv_close(tf_prv_reader *r)
{
    if (!r)
        return;
    tf_prv_input_close(r->in);
    for (uint32_t a = 0; r->task_first && a < r->hdr.nappls; a++)
        free(r->task_first[a]);
    free(r->task_first);
    tf_prv_header_free(&r->hdr);
    free(r->appl_first);
    free(r->node_end);
    free(r->last_time);
    free(r->pairs);
    free(r->first_skip);
    free(r->buf);
    free(r->path);
    free(r);
}

const tf_prv_header *tf_prv_get_header(const tf_prv_reader *r) { return &r->hdr; }
uint64_t tf_prv_skipped(const tf_prv_reader *r) { return r->skipped; }
const char *tf_prv_first_skip(const tf_prv_reader *r) { return r->first_skip; }
uint64_t tf_prv_line(const tf_prv_reader *r) { return r->line; }
uint64_t tf_prv_bytes(const tf_prv_reader *r) { return r->bytes; }

uint32_t tf_prv_nthreads(const tf_prv_header *h)
{
    uint32_t n = 0;
    for (uint32_t a = 0; a < h->nappls; a++)
        for (uint32_t t = 0; t < h->appls[a].ntasks; t++)
            n += h->appls[a].tasks[t].nthreads;
    return n;
}

/* ---- records ------------------------------------------------------------- */

/* A record-level error: fatal when strict, counted and skipped when lenient
 * (returns 1 to skip). */
__attribute__((format(printf, 3, 4)))
static int bad_record(tf_prv_reader *r, tf_error *err, const char *fmt, ...)
{
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (!r->lenient)
        return tf_fail(err, TF_ERR_FORMAT, "%s: line %" PRIu64 ": %s", r->path, r->line, what);
    if (r->skipped++ == 0) {
        char first[600];
        snprintf(first, sizeof first, "line %" PRIu64 ": %s", r->line, what);
        r->first_skip = strdup(first);
    }
    return 1;
}

static const char *const kind_name[] = {"", "state", "event", "communication"};

/* Reads CPU:APPL:TASK:THREAD and checks it against the header. */
static int parse_object(tf_prv_reader *r, const char **pp, const char *e, int kind,
                        const char *role, tf_prv_object *o, tf_error *err)
{
    if (!parse_u32(pp, e, &o->cpu) || !expect(pp, e, ':') || !parse_u32(pp, e, &o->appl) ||
        !expect(pp, e, ':') || !parse_u32(pp, e, &o->task) || !expect(pp, e, ':') ||
        !parse_u32(pp, e, &o->thread))
        return bad_record(r, err, "%s record: expected numeric %sCPU:APPL:TASK:THREAD fields",
                          kind_name[kind], role);
    const tf_prv_header *h = &r->hdr;
    if (o->appl == 0 || o->appl > h->nappls)
        return bad_record(r, err, "%s record: %sapplication %" PRIu32 " is not in the header (1..%" PRIu32 ")",
                          kind_name[kind], role, o->appl, h->nappls);
    const tf_prv_appl *ap = &h->appls[o->appl - 1];
    if (o->task == 0 || o->task > ap->ntasks)
        return bad_record(r, err, "%s record: %stask %" PRIu32 " is not in application %" PRIu32 " (1..%" PRIu32 ")",
                          kind_name[kind], role, o->task, o->appl, ap->ntasks);
    const tf_prv_task *tk = &ap->tasks[o->task - 1];
    if (o->thread == 0 || o->thread > tk->nthreads)
        return bad_record(r, err, "%s record: %sthread %" PRIu32 " is not in task %" PRIu32 ".%" PRIu32 " (1..%" PRIu32 ")",
                          kind_name[kind], role, o->thread, o->appl, o->task, tk->nthreads);
    if (o->cpu > h->ncpus)
        return bad_record(r, err, "%s record: %sCPU %" PRIu32 " is not in the header (0..%" PRIu32 ")",
                          kind_name[kind], role, o->cpu, h->ncpus);
    if (o->cpu && h->nnodes && cpu_node(r, o->cpu) != tk->node)
        return bad_record(r, err, "%s record: %sCPU %" PRIu32 " is on node %" PRIu32 ", not on node %" PRIu32 " of task %" PRIu32 ".%" PRIu32,
                          kind_name[kind], role, o->cpu, cpu_node(r, o->cpu), tk->node,
                          o->appl, o->task);
    return 0;
}

static int grow_pairs(tf_prv_reader *r, tf_error *err)
{
    size_t cap = r->pairs_cap ? r->pairs_cap * 2 : 64;
    tf_prv_pair *np = realloc(r->pairs, cap * sizeof *np);
    if (!np)
        return tf_fail(err, TF_ERR_NOMEM, "%s: line %" PRIu64 ": out of memory", r->path, r->line);
    r->pairs = np;
    r->pairs_cap = cap;
    return 0;
}

static int parse_event_pairs(tf_prv_reader *r, const char *p, const char *e,
                             tf_prv_record *rec, tf_error *err)
{
    size_t n = 0;
    for (;;) {
        if (n == r->pairs_cap) {
            int rc = grow_pairs(r, err);
            if (rc < 0)
                return rc;
        }
        tf_prv_pair *pr = &r->pairs[n];
        if (!parse_u32(&p, e, &pr->type))
            return bad_record(r, err, "event record: pair %zu: expected a numeric event type (0..2^32-1)", n + 1);
        if (!expect(&p, e, ':'))
            return bad_record(r, err, "event record: pair %zu: type %" PRIu32 " has no value "
                              "(expected TYPE:VALUE pairs)", n + 1, pr->type);
        if (!parse_value(&p, e, &pr->value))
            return bad_record(r, err, "event record: pair %zu: expected a numeric 64-bit value for type %" PRIu32,
                              n + 1, pr->type);
        n++;
        if (p == e)
            break;
        if (!expect(&p, e, ':'))
            return bad_record(r, err, "event record: pair %zu: expected a numeric 64-bit value for type %" PRIu32,
                              n, pr->type);
    }
    rec->npairs = n;
    rec->pairs = r->pairs;
    return 0;
}

static int parse_record(tf_prv_reader *r, const char *s, const char *e, tf_prv_record *rec,
                        tf_error *err)
{
    const char *p = s;
    int rc;
    int kind = *p - '0';
    if (e - s < 2 || kind < TF_PRV_STATE || kind > TF_PRV_COMM || p[1] != ':') {
        const char *colon = memchr(s, ':', (size_t)(e - s));
        int shown = (int)((colon ? colon : e) - s);
        return bad_record(r, err, "unknown record type '%.*s' (expected 1 state, 2 event, 3 communication)",
                          shown > 20 ? 20 : shown, s);
    }
    p += 2;
    rec->kind = (uint8_t)kind;
    rec->npairs = 0;
    rec->pairs = NULL;
    if ((rc = parse_object(r, &p, e, kind, "", &rec->obj, err)) != 0)
        return rc;
    if (!expect(&p, e, ':') || !parse_u64(&p, e, &rec->time) || (p != e && *p != ':'))
        return bad_record(r, err, "%s record: field 6: expected a numeric time", kind_name[kind]);
    switch (kind) {
    case TF_PRV_STATE:
        if (!expect(&p, e, ':') || !parse_u64(&p, e, &rec->end) || !expect(&p, e, ':') ||
            !parse_u32(&p, e, &rec->state) || p != e)
            return bad_record(r, err, "state record: expected 8 numeric fields "
                              "(1:CPU:APPL:TASK:THREAD:BEGIN:END:STATE)");
        if (rec->end < rec->time)
            return bad_record(r, err, "state record: ends at %" PRIu64 " before it begins at %" PRIu64,
                              rec->end, rec->time);
        break;
    case TF_PRV_EVENT:
        if (!expect(&p, e, ':'))
            return bad_record(r, err, "event record: expected TYPE:VALUE pairs after the time");
        if ((rc = parse_event_pairs(r, p, e, rec, err)) != 0)
            return rc;
        break;
    default:
        if (!expect(&p, e, ':') || !parse_u64(&p, e, &rec->psend) || !expect(&p, e, ':'))
            return bad_record(r, err, "communication record: expected 15 numeric fields "
                              "(3:CPU:APPL:TASK:THREAD:LSEND:PSEND:CPU:APPL:TASK:THREAD:LRECV:PRECV:SIZE:TAG)");
        if ((rc = parse_object(r, &p, e, kind, "receiver ", &rec->partner, err)) != 0)
            return rc;
        if (!expect(&p, e, ':') || !parse_u64(&p, e, &rec->lrecv) || !expect(&p, e, ':') ||
            !parse_u64(&p, e, &rec->precv) || !expect(&p, e, ':') ||
            !parse_u64(&p, e, &rec->size) || !expect(&p, e, ':') ||
            !parse_value(&p, e, &rec->tag) || p != e)
            return bad_record(r, err, "communication record: expected 15 numeric fields "
                              "(3:CPU:APPL:TASK:THREAD:LSEND:PSEND:CPU:APPL:TASK:THREAD:LRECV:PRECV:SIZE:TAG)");
        break;
    }
    /* The header's end time bounds every record: a later one means a header
     * that does not belong to these records. */
    uint64_t last = kind == TF_PRV_STATE ? rec->end : rec->time;
    if (last > r->hdr.end_time)
        return bad_record(r, err, "%s record: time %" PRIu64 " after the end time %" PRIu64
                          " of the header", kind_name[kind], last, r->hdr.end_time);
    uint32_t t = r->task_first[rec->obj.appl - 1][rec->obj.task - 1] + rec->obj.thread - 1;
    if (rec->time < r->last_time[t])
        return bad_record(r, err, "%s record: time %" PRIu64 " goes backwards on thread %" PRIu32
                          ".%" PRIu32 ".%" PRIu32 " (previous record at %" PRIu64 ")",
                          kind_name[kind], rec->time, rec->obj.appl, rec->obj.task,
                          rec->obj.thread, r->last_time[t]);
    r->last_time[t] = rec->time;
    rec->thread_index = t;
    return 0;
}

int tf_prv_next(tf_prv_reader *r, tf_prv_record *rec, tf_error *err)
{
    for (;;) {
        const char *s, *e;
        int rc = next_line(r, &s, &e, err);
        if (rc <= 0)
            return rc;
        if (s == e || *s == '#')
            continue;
        rc = parse_record(r, s, e, rec, err);
        if (rc < 0)
            return rc;
        if (rc == 0)
            return 1;
    }
}
