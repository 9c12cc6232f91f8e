/* SPDX-License-Identifier: BSD-3-Clause */
/* Drains a recording session (tf_session.h) into HDF5 traces.
 *
 * The writer empties the rings when a producer wakes it (at every quarter
 * of a ring written: tf_ring_commit) and at every tick: a twentieth of the
 * flush interval, at most 50 ms, while it holds a kernel ring (the kernel
 * wakes nobody), else a quarter of the flush interval, for the processes
 * killed without a word; every flush interval it makes the traces durable
 * (tf_trace_out_flush).  A process's trace is created once its counter columns
 * are fixed: at its first region, when it ends, when a buffer is a quarter
 * full, or ten flush intervals after its start.  A process is finished when
 * it says so (exit, exec) or when it is gone (killed): its buffers are still
 * in the session files, so everything it wrote reaches the trace. */
#include "config.h"
#include "common/tf_array.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>


#include "record/tf_session.h"
#include "record/tf_trace_name.h"
#include "formats/h5_probe.h"
#include "tf_writer.h"

#define BATCH 512

typedef struct wthread {
    tf_shm_buffer *buf;
    size_t   size;
    uint32_t index;                 /* thread number in the trace */
    uint64_t last_event, last_sample;
    uint64_t dropped_events, dropped_samples;   /* as last stored in the trace */
    tf_kring *kring;                /* kernel capture: its ring, while taken */
    bool     kernel_taken;          /* tried once (taken, refused, or done) */
    uint64_t kernel_lost;           /* samples the kernel dropped */
} wthread;

typedef struct wproc {
    char     path[PATH_MAX];
    tf_shm_process *shm;
    size_t   size;
    int      pidfd;                 /* the process, to see it end (pidfd_open(2)), or -1 */
    tf_trace_out *w;
    uint32_t proc;
    bool     open, done, failed;
    bool     named;                 /* its trace's name taken (create_trace), for good */
    uint32_t ncols, nuser;
    uint64_t strings_pos;
    uint32_t *string_map;           /* local id - 1 -> trace string id */
    size_t   nstrings, string_cap;
    wthread  threads[TF_SESSION_MAX_THREADS];
    uint32_t nthreads;              /* slots looked at */
    tf_wobjects *objects;
    tf_wsmall *small;               /* its small-block log (tf_small_objects.c) */
    tf_module_set *modules;
    tf_reserve reserve;             /* disk space to close the trace (tf_reserve.c) */
    tf_kproc *kp;                   /* kernel capture (tf_kring.c), or NULL */
    char     *kmaps;                /* its maps text */
    size_t   kmaps_len, kmaps_cap;
    bool     kernel_refused;        /* said once */
    tf_rec_summary sum;
} wproc;

struct tf_rec_session {
    char     dir[PATH_MAX];
    tf_options opt;
    char     producer[128];
    wproc  **procs;
    size_t   nprocs, cap;
    tf_rec_summary *sums;
    uint64_t last_flush;
    int      wake_fd;               /* the session's wake FIFO (TF_SESSION_WAKE), or -1 */
    bool     quiet;                 /* no message but errors */
    bool     counters_said;         /* the missing counters were reported */
    bool     kernel_rings;          /* some kernel ring is held: tick short */
    /* batch scratch */
    tf_event events[BATCH];
    tf_sample samples[BATCH];
    uint64_t counters[BATCH * TF_SESSION_MAX_COUNTERS];
    uint64_t frames[BATCH * 128];
};

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *map_file(const char *path, size_t *size)
{
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    void *m = MAP_FAILED;
    if (!fstat(fd, &st) && st.st_size > 0)
        m = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return NULL;
    *size = (size_t)st.st_size;
    return m;
}

int tf_rec_session_create(tf_rec_session **out, const char *dir, const tf_options *o,
                          const char *producer, tf_error *err)
{
    /* After a failed write (full disk, file size limit) the trace is
     * aborted, but HDF5 1.10 keeps a file object it cannot close, and its
     * atexit clean-up would then crash on it: tracefold's main() turns that
     * clean-up off for every command (tf_h5_no_exit_cleanup), and every
     * trace is closed or aborted explicitly before the writer exits. */
    tf_rec_session *s = calloc(1, sizeof *s);
    if (!s)
        return tf_fail(err, TF_ERR_NOMEM, "recording session %s", dir);
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    snprintf(s->producer, sizeof s->producer, "%s", producer);
    s->opt = *o;
    s->last_flush = now_ns();
    /* Opened for reading and writing: it never reports an end of file
     * when the last process that poked it is gone (fifo(7)). */
    char wake[PATH_MAX + 8];
    snprintf(wake, sizeof wake, "%s/" TF_SESSION_WAKE, dir);
    s->wake_fd = mkfifo(wake, 0600) ? -1 : open(wake, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    *out = s;
    return 0;
}

/* ---- file names ---- */

static bool name_taken(const tf_rec_session *s, const wproc *self, const char *path)
{
    for (size_t i = 0; i < s->nprocs; i++)
        if (s->procs[i] != self && s->procs[i]->named && !strcmp(s->procs[i]->sum.path, path))
            return true;
    return false;
}

/* Expands the output pattern for process p (tf_trace_name.h); a name
 * already used in this session (a pattern without %p and a fork or exec)
 * gets -PID, then a counter, inserted before its extension. */
static void trace_name(const tf_rec_session *s, const wproc *self, char *buf, size_t size)
{
    const tf_shm_process *p = self->shm;
    tf_trace_name_vars v = { .pid = p->pid, .rank = p->rank, .nranks = p->nranks,
                             .host = p->host, .exe = p->exe };
    char out[1024];
    tf_trace_name_expand(s->opt.output, &v, out, sizeof out);
    size_t k = strlen(out);
    snprintf(buf, size, "%s", out);
    for (int n = 1; name_taken(s, self, buf) && n < 1000; n++) {
        const char *dot = strrchr(out, '.');
        const char *slash = strrchr(out, '/');
        int stem = dot && (!slash || dot > slash) ? (int)(dot - out) : (int)k;
        if (n == 1)
            snprintf(buf, size, "%.*s-%" PRId64 "%s", stem, out, p->pid, out + stem);
        else
            snprintf(buf, size, "%.*s-%" PRId64 ".%d%s", stem, out, p->pid, n, out + stem);
    }
}

/* ---- per process ---- */

/* One line: the trace, what went wrong, what became of the trace. */
static void report(const wproc *p, const tf_error *err, const char *outcome)
{
    const char *path = p->sum.path[0] ? p->sum.path : "trace";
    size_t len = strlen(path);
    bool named = !strncmp(err->msg, path, len) && err->msg[len] == ':';   /* path: ... */
    fprintf(stderr, "tracefold record: %s%s%s; process %" PRId64 " runs on untraced%s\n",
            named ? "" : path, named ? "" : ": ", err->msg, p->shm->pid, outcome);
}

/* A trace cut short is kept if it reads (marked incomplete: it was not
 * closed by tf_trace_out_close), removed otherwise, so that nothing is left
 * that tracefold cannot open. */
static const char *keep_if_readable(const char *path)
{
    tf_trace *tr;
    tf_error err;
    tf_error_clear(&err);
    if (tf_trace_open(&tr, path, &err) == 0) {
        tf_trace_close(tr);
        return "; the trace written so far is kept, marked incomplete";
    }
    if (unlink(path) == 0)
        return "; the partial trace could not be read back and was removed";
    return "";
}

static void fail(wproc *p, const tf_error *err)
{
    p->failed = true;
    p->sum.failed = true;
    atomic_store(&p->shm->writer, TF_WRITER_FAILED);
    tf_session_answered(p->shm);
    const char *outcome = "";
    if (p->w) {
        tf_trace_out_abort(p->w);
        tf_reserve_release(&p->reserve);
        outcome = keep_if_readable(p->sum.path);
    }
    p->w = NULL;
    report(p, err, outcome);
}

static bool process_gone(const wproc *p)
{
    if (p->pidfd >= 0) {
        /* Readable once the process has exited, zombie or reaped. */
        struct pollfd fd = {.fd = p->pidfd, .events = POLLIN};
        return poll(&fd, 1, 0) > 0;
    }
    pid_t pid = (pid_t)p->shm->pid;
    if (kill(pid, 0) && errno == ESRCH)
        return true;
    char path[64], stat[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return true;
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    const char *close = strrchr(stat, ')');
    return !close || close[1] != ' ' || close[2] == 'Z' || close[2] == 'X';
}

static int sync_strings(wproc *p, tf_error *err)
{
    uint64_t used = atomic_load_explicit(&p->shm->strings_used, memory_order_acquire);
    while (p->strings_pos < used) {
        const char *str = p->shm->strings + p->strings_pos;
        uint32_t *m = tf_array_room(p->string_map, p->nstrings, &p->string_cap, sizeof *m, 256);
        if (!m)
            return tf_fail(err, TF_ERR_NOMEM, "string table");
        p->string_map = m;
        int rc = tf_trace_out_intern(p->w, str, &p->string_map[p->nstrings], err);
        if (rc)
            return rc;
        p->nstrings++;
        p->strings_pos += strlen(str) + 1;
    }
    return 0;
}

static uint32_t map_string(const wproc *p, uint64_t local)
{
    return local >= 1 && local <= p->nstrings ? p->string_map[local - 1] : 0;
}

/* The process's maps for the kernel-capture unwinder and code reads:
 * /proc/PID/maps while it lives, else its last copy. */
static void kernel_maps(wproc *p)
{
    if (!p->kp)
        return;
    char path[64];
    snprintf(path, sizeof path, "/proc/%" PRId64 "/maps", p->shm->pid);
    p->kmaps_len = 0;
    FILE *f = fopen(path, "re");
    for (bool more = f != NULL; more;) {
        if (p->kmaps_cap - p->kmaps_len < 65536) {
            char *m = realloc(p->kmaps, p->kmaps_cap + 262144);
            if (!m)
                break;
            p->kmaps = m;
            p->kmaps_cap += 262144;
        }
        size_t got = fread(p->kmaps + p->kmaps_len, 1, p->kmaps_cap - p->kmaps_len, f);
        p->kmaps_len += got;
        more = got > 0;
    }
    if (f)
        fclose(f);
    if (!p->kmaps_len && p->kmaps_cap < TF_SESSION_MAPS_MAX) {
        char *m = realloc(p->kmaps, TF_SESSION_MAPS_MAX);
        if (m) {
            p->kmaps = m;
            p->kmaps_cap = TF_SESSION_MAPS_MAX;
        }
    }
    if (!p->kmaps_len && p->kmaps_cap >= TF_SESSION_MAPS_MAX) {
        uint32_t seq = atomic_load(&p->shm->maps_seq);
        size_t len = p->shm->maps_len < TF_SESSION_MAPS_MAX ? p->shm->maps_len : 0;
        memcpy(p->kmaps, p->shm->maps, len);
        p->kmaps_len = (seq & 1) || seq != atomic_load(&p->shm->maps_seq) ? 0 : len;
    }
    tf_kproc_maps(p->kp, p->kmaps, p->kmaps_len);
}

static int update_modules(const tf_rec_session *s, wproc *p, tf_error *err)
{
    kernel_maps(p);
    /* The process's own copy, unless it is being rewritten right now. */
    static char saved[TF_SESSION_MAPS_MAX];
    uint32_t seq = atomic_load(&p->shm->maps_seq);
    size_t len = p->shm->maps_len < sizeof saved ? p->shm->maps_len : sizeof saved;
    memcpy(saved, p->shm->maps, len);
    if ((seq & 1) || seq != atomic_load(&p->shm->maps_seq))
        len = 0;
    return tf_modules_update(p->w, p->proc, p->shm->pid, saved, len, s->dir, &p->modules,
                             p->objects, err);
}

/* Enough for a tick's drain of a thread's full buffer and the metadata
 * that closing the trace writes. */
static uint64_t reserve_size(const tf_options *o)
{
    uint64_t min = 1u << 20;
    return 2 * o->buffer_size > min ? 2 * o->buffer_size : min;
}

/* Names and creates the process's trace file: as soon as the writer finds
 * the process, before it is due to open the trace (open_trace), so that
 * HDF5's set-up of the file overlaps the program's run (3.5 ms of a
 * recorded /bin/true's 24 were that set-up after the program's exit).
 * The name needs only what the process published with its control file
 * (pid, rank, host, executable). */
static int create_trace(tf_rec_session *s, wproc *p, tf_error *err)
{
    tf_shm_process *sh = p->shm;
    sh->exe[sizeof sh->exe - 1] = sh->cmdline[sizeof sh->cmdline - 1] = '\0';
    sh->host[sizeof sh->host - 1] = '\0';
    trace_name(s, p, p->sum.path, sizeof p->sum.path);
    p->named = true;
    p->sum.pid = sh->pid;
    tf_trace_meta meta = {
        .clock = "CLOCK_MONOTONIC", .host = sh->host, .command_line = sh->cmdline,
        .producer = s->producer, .start_time = sh->real0,
    };
    int rc = tf_trace_name_prepare(p->sum.path, s->opt.force, tf_h5_is_trace, err);
    if (rc == 0)
        rc = tf_trace_out_create(&p->w, p->sum.path, &meta, 0, err);
    if (rc)
        return rc;
    /* named now, used when the trace is folded (extract/alloc_site.h) */
    if (strcmp(s->opt.alloc_wrapper, "none") &&
        (rc = tf_trace_out_set_alloc_wrappers(p->w, s->opt.alloc_wrapper, err)))
        return rc;
    if ((rc = tf_reserve_open(&p->reserve, p->sum.path, reserve_size(&s->opt), err)) ||
        (rc = tf_reserve_renew(&p->reserve, p->sum.path, err)))
        return rc;
    return 0;
}

/* Fixes the counter columns and adds the process to its trace, created
 * first if it is not yet. */
static int open_trace(tf_rec_session *s, wproc *p, tf_error *err)
{
    tf_shm_process *sh = p->shm;
    int rc;
    if (!p->w && (rc = create_trace(s, p, err)))
        return rc;
    /* Created before the process's MPI layer gave its rank (a launcher
     * whose variables tf_launcher.c does not know): named by it now. */
    char name[sizeof p->sum.path];
    trace_name(s, p, name, sizeof name);
    if (strcmp(name, p->sum.path) &&
        ((rc = tf_trace_name_prepare(name, s->opt.force, tf_h5_is_trace, err)) ||
         (rc = tf_trace_out_rename(p->w, name, err))))
        return rc;   /* the reservation holds the file, whatever its name */
    snprintf(p->sum.path, sizeof p->sum.path, "%s", name);
    uint32_t word = atomic_fetch_or(&sh->user_word, TF_USER_FROZEN);
    for (int i = 0; (word & TF_USER_BUSY) && i < 1000; i++) {
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
        word = atomic_load(&sh->user_word);
    }
    p->nuser = TF_USER_COUNT(word);
    if (p->nuser > TF_SESSION_MAX_USER)
        p->nuser = TF_SESSION_MAX_USER;
    uint32_t nbase = sh->nbase < TF_SESSION_MAX_BASE ? sh->nbase : TF_SESSION_MAX_BASE;
    p->ncols = nbase + p->nuser;
    const char *names[TF_SESSION_MAX_COUNTERS], *units[TF_SESSION_MAX_COUNTERS];
    uint8_t kinds[TF_SESSION_MAX_COUNTERS];
    for (uint32_t i = 0; i < nbase; i++) {
        sh->base_name[i][TF_SESSION_NAME_MAX - 1] = '\0';
        sh->base_unit[i][TF_SESSION_NAME_MAX - 1] = '\0';
        names[i] = sh->base_name[i];
        units[i] = sh->base_unit[i];
        kinds[i] = sh->base_kind[i];
    }
    for (uint32_t i = 0; i < p->nuser; i++) {
        sh->user_name[i][TF_SESSION_NAME_MAX - 1] = '\0';
        names[nbase + i] = sh->user_name[i];
        units[nbase + i] = "events";
        kinds[nbase + i] = TF_COUNTER_USER;
    }
    p->open = true;
    char build_id[96];
    tf_build_id(sh->exe, build_id, sizeof build_id);
    tf_process_desc d = {
        .pid = sh->pid, .rank = sh->rank, .nranks = sh->nranks, .executable = sh->exe,
        .host = sh->host, .build_id = build_id, .ncounters = p->ncols,
        .counter_names = names, .counter_units = units, .counter_kinds = kinds,
    };
    if ((rc = tf_trace_out_add_process(p->w, &d, &p->proc, err)) ||
        (rc = tf_wobjects_create(&p->objects, err)))
        return rc;
    atomic_store(&sh->writer, TF_WRITER_OPEN);
    tf_session_answered(sh);
    return update_modules(s, p, err);
}

static bool ring_quarter_full(const tf_shm_ring *r)
{
    uint64_t used = atomic_load(&r->head) - atomic_load(&r->tail);
    return used * 4 >= r->nslots;
}

static void attach_threads(wproc *p)
{
    uint32_t n = atomic_load(&p->shm->nthreads);
    if (n > TF_SESSION_MAX_THREADS)
        n = TF_SESSION_MAX_THREADS;
    for (uint32_t i = 0; i < n; i++) {
        wthread *t = &p->threads[i];
        if (t->buf || atomic_load_explicit(&p->shm->threads[i].state, memory_order_acquire) ==
                          TF_THREAD_FREE)
            continue;
        char path[PATH_MAX + 32];
        if (tf_session_buffer_name(path, sizeof path, p->path, i))
            continue;
        t->buf = map_file(path, &t->size);
        if (t->buf && (t->buf->magic != TF_SESSION_MAGIC || t->buf->size != t->size)) {
            munmap(t->buf, t->size);
            t->buf = NULL;
        }
        t->index = UINT32_MAX;
    }
    p->nthreads = n;
}

/* The counter row of a slot: base values, then the user values the slot
 * carries (a counter defined after the slot was written was still 0). */
static void counter_row(const wproc *p, const uint64_t *ctr, uint32_t nuser, uint64_t *row)
{
    uint32_t nbase = p->ncols - p->nuser;
    memcpy(row, ctr, nbase * sizeof *row);
    for (uint32_t i = 0; i < p->nuser; i++)
        row[nbase + i] = i < nuser ? ctr[nbase + i] : 0;
}

static uint64_t rel_time(const wproc *p, uint64_t t, uint64_t *last)
{
    uint64_t v = t > p->shm->mono0 ? t - p->shm->mono0 : 0;
    if (v < *last)
        v = *last;       /* times within a thread never decrease; guard anyway */
    *last = v;
    return v;
}

static int drain_events(tf_rec_session *s, wproc *p, wthread *t, tf_error *err)
{
    tf_shm_ring *r = &t->buf->events;
    uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    int rc = 0;
    while (!rc && tail < head) {
        size_t ne = 0;
        for (; !rc && tail < head && ne < BATCH; tail++) {
            const tf_event_slot *e = tf_ring_slot(r, tail);
            uint32_t nuser = e->nuser <= TF_SESSION_MAX_USER ? e->nuser : 0;
            uint64_t time = e->time > p->shm->mono0 ? e->time - p->shm->mono0 : 0;
            if (e->kind == TF_SLOT_OBJECT) {
                tf_object o = {.start = e->value, .size = e->extra - e->value,
                               .alloc_time = time, .free_time = TF_NOTIME,
                               .name = map_string(p, e->type), .kind = TF_OBJECT_USER};
                rc = tf_wobjects_add(p->objects, p->w, p->proc, &o, err);
                continue;
            }
            if (e->kind == TF_SLOT_ALLOC) {
                rc = tf_wobjects_begin(p->objects, p->w, p->proc, (uint8_t)e->type, e->value,
                                       e->extra, time, e->ctr, e->pad, err);
                continue;
            }
            if (e->kind == TF_SLOT_FREE) {
                rc = tf_wobjects_end(p->objects, p->w, p->proc, e->value, time, err);
                continue;
            }
            tf_event *ev = &s->events[ne];
            ev->time = rel_time(p, e->time, &t->last_event);
            ev->kind = e->kind;
            ev->type = e->type;
            ev->value = e->kind == TF_EVENT_USER ? e->value : map_string(p, e->value);
            counter_row(p, e->ctr, nuser, s->counters + ne * p->ncols);
            ne++;
        }
        if (!rc && ne)
            rc = tf_trace_out_append_events(p->w, p->proc, t->index, s->events,
                                            p->ncols ? s->counters : NULL, ne, err);
        if (rc)
            return rc;
        atomic_store_explicit(&r->tail, tail, memory_order_release);
        p->sum.events += ne;
    }
    return rc;
}

/* Samples on their way to the trace: s->samples[0..n) with their counter
 * rows, their frames in s->frames[0..nf). */
typedef struct sample_batch {
    tf_rec_session *s;
    wproc   *p;
    wthread *t;
    size_t   n, nf;
    int      rc;
    tf_error *err;
} sample_batch;

static int batch_flush(sample_batch *b)
{
    tf_rec_session *s = b->s;
    wproc *p = b->p;
    if (!b->rc && b->n) {
        uint64_t first = 0;
        if (b->nf)
            b->rc = tf_trace_out_append_frames(p->w, p->proc, b->t->index, s->frames, b->nf, &first,
                                               b->err);
        for (size_t i = 0; i < b->n; i++)
            s->samples[i].stack += first;
        if (!b->rc)
            b->rc = tf_trace_out_append_samples(p->w, p->proc, b->t->index, s->samples,
                                                p->ncols ? s->counters : NULL, b->n, b->err);
        if (!b->rc)
            p->sum.samples += b->n;
    }
    b->n = b->nf = 0;
    return b->rc;
}

/* The next sample of the batch (room is there), its frames copied. */
static tf_sample *batch_add(sample_batch *b, const tf_sample *from, uint64_t time,
                            const uint64_t *frames, uint32_t nframes)
{
    uint32_t depth = b->p->shm->stack_depth < 128 ? b->p->shm->stack_depth : 128;
    if (nframes > depth)
        nframes = depth;
    tf_sample *sm = &b->s->samples[b->n++];
    *sm = *from;
    sm->time = rel_time(b->p, time, &b->t->last_sample);
    sm->stack = b->nf;                       /* batch-relative until appended */
    sm->stack_len = (uint16_t)nframes;
    memcpy(b->s->frames + b->nf, frames, nframes * sizeof *frames);
    b->nf += nframes;
    return sm;
}

static int drain_samples(tf_rec_session *s, wproc *p, wthread *t, tf_error *err)
{
    tf_shm_ring *r = &t->buf->samples;
    uint64_t head = atomic_load_explicit(&r->head, memory_order_acquire);
    uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
    uint32_t nbase = p->shm->nbase;
    while (tail < head) {
        sample_batch b = {.s = s, .p = p, .t = t, .err = err};
        for (; tail < head && b.n < BATCH; tail++) {
            tf_sample_slot *e = tf_ring_slot(r, tail);
            tf_sample from = {.ip = e->ip, .addr = e->addr, .data_source = e->data_source,
                              .weight = e->weight, .kind = e->kind, .level = e->level,
                              .flags = e->flags};
            batch_add(&b, &from, e->time, tf_sample_frames(e, nbase), e->nframes);
            counter_row(p, e->ctr, e->nuser <= TF_SESSION_MAX_USER ? e->nuser : 0,
                        s->counters + (b.n - 1) * p->ncols);
        }
        if (batch_flush(&b))
            return b.rc;
        atomic_store_explicit(&r->tail, tail, memory_order_release);
    }
    return 0;
}

/* tf_kring_drain's callback: a kernel-captured sample into the batch. */
static void kernel_sample(void *ctx, const tf_sample *ks, const uint64_t *ctr,
                          const uint64_t *frames, uint32_t nframes)
{
    sample_batch *b = ctx;
    if (b->rc || (b->n == BATCH && batch_flush(b)))
        return;
    batch_add(b, ks, ks->time, frames, nframes);
    counter_row(b->p, ctr, 0, b->s->counters + (b->n - 1) * b->p->ncols);
}

/* Takes thread i's kernel ring: once, when the library has published it. */
static void take_kernel(tf_rec_session *s, wproc *p, wthread *t, uint32_t i)
{
    const tf_shm_kcapture *h = &t->buf->kernel;
    t->kernel_taken = true;
    tf_error err;
    tf_error_clear(&err);
    int rc = 0;
    if (!p->kp) {
        rc = tf_kproc_create(&p->kp, p->shm->pid, (int)h->unwind, h->memory != 0, &err);
        if (!rc)
            kernel_maps(p);
    }
    uint32_t depth = p->shm->stack_depth < 128 ? p->shm->stack_depth : 128;
    if (!rc)
        rc = tf_kring_open(&t->kring, p->kp, h, (int64_t)p->shm->threads[i].tid, p->shm->nbase,
                           depth, &err);
    atomic_store_explicit(&p->shm->threads[i].kernel_ack, rc ? TF_KACK_REFUSED : TF_KACK_HELD,
                          memory_order_release);
    tf_session_answered(p->shm);
    if (rc && !p->kernel_refused) {
        p->kernel_refused = true;
        fprintf(stderr, "tracefold record: %s: kernel capture: %s; that thread's samples are "
                        "lost\n", p->sum.path[0] ? p->sum.path : "trace", err.msg);
    }
    (void)s;
}

/* Takes the kernel rings published since the last tick, before the trace
 * exists too: a ring is freed with its samples when the thread's
 * descriptor is closed, which the library does once we hold it. */
static void take_kernels(tf_rec_session *s, wproc *p)
{
    for (uint32_t i = 0; i < p->nthreads; i++) {
        wthread *t = &p->threads[i];
        if (t->buf && !t->kernel_taken &&
            atomic_load_explicit(&t->buf->kernel.state, memory_order_acquire) != TF_KCAP_NONE)
            take_kernel(s, p, t, i);
    }
}

/* Thread i's samples: the kernel's ring (older), then the sample ring,
 * which holds samples only once the kernel's is retired (tf_session.h). */
static int drain_thread_samples(tf_rec_session *s, wproc *p, wthread *t, uint32_t i,
                                tf_error *err)
{
    uint32_t ks = atomic_load_explicit(&t->buf->kernel.state, memory_order_acquire);
    bool exited = atomic_load_explicit(&p->shm->threads[i].state, memory_order_acquire) ==
                  TF_THREAD_EXITED;
    if (ks != TF_KCAP_NONE && !t->kernel_taken)
        take_kernel(s, p, t, i);
    if (t->kring) {
        sample_batch b = {.s = s, .p = p, .t = t, .err = err};
        tf_kring_drain(t->kring, kernel_sample, &b);
        t->kernel_lost = tf_kring_lost(t->kring);
        if (batch_flush(&b))
            return b.rc;
        /* Disabled before either was published: nothing more will come. */
        if (ks == TF_KCAP_RETIRED || exited) {
            tf_kring_close(t->kring);
            t->kring = NULL;
        }
    }
    return ks == TF_KCAP_ACTIVE ? 0 : drain_samples(s, p, t, err);
}

/* The thread's lost records, in the trace whenever they change, so that a
 * reader knows what the bounded buffer cost (tracefold info says it). */
static int store_dropped(wproc *p, wthread *t, tf_error *err)
{
    uint64_t ev = atomic_load(&t->buf->events.dropped),
             sm = atomic_load(&t->buf->samples.dropped) + t->kernel_lost;
    if (ev == t->dropped_events && sm == t->dropped_samples)
        return 0;
    t->dropped_events = ev;
    t->dropped_samples = sm;
    return tf_trace_out_set_dropped(p->w, p->proc, t->index, ev, sm, err);
}

/* Empties every ring of p into its trace (or discards, when failed). */
static int drain(tf_rec_session *s, wproc *p, tf_error *err)
{
    attach_threads(p);
    int rc = sync_strings(p, err);
    for (uint32_t i = 0; !rc && i < p->nthreads; i++) {
        wthread *t = &p->threads[i];
        if (!t->buf)
            continue;
        if (t->index == UINT32_MAX) {
            rc = tf_trace_out_add_thread(p->w, p->proc, p->shm->threads[i].tid, &t->index, err);
            if (rc)
                break;
            p->sum.threads++;
        }
        if (!(rc = drain_events(s, p, t, err)))
            rc = drain_thread_samples(s, p, t, i, err);
        if (!rc)
            rc = store_dropped(p, t, err);
    }
    return rc ? rc : tf_wobjects_flush(p->objects, p->w, p->proc, err);
}

static void discard(wproc *p)
{
    attach_threads(p);
    for (uint32_t i = 0; i < p->nthreads; i++) {
        tf_shm_buffer *b = p->threads[i].buf;
        if (!b)
            continue;
        atomic_store(&b->events.tail, atomic_load(&b->events.head));
        atomic_store(&b->samples.tail, atomic_load(&b->samples.head));
        /* Kernel rings stay the library's to close: the writer says it
         * will not take them. */
        if (!p->threads[i].kernel_taken &&
            atomic_load(&b->kernel.state) != TF_KCAP_NONE) {
            p->threads[i].kernel_taken = true;
            atomic_store(&p->shm->threads[i].kernel_ack, TF_KACK_REFUSED);
            tf_session_answered(p->shm);
        }
    }
}

static void remove_files(wproc *p)
{
    for (uint32_t i = 0; i < p->nthreads; i++) {
        wthread *t = &p->threads[i];
        tf_kring_close(t->kring);
        t->kring = NULL;
        if (t->buf) {
            p->sum.dropped += atomic_load(&t->buf->events.dropped) +
                              atomic_load(&t->buf->samples.dropped) + t->kernel_lost;
            munmap(t->buf, t->size);
            t->buf = NULL;
        }
        char path[PATH_MAX + 32];
        if (!tf_session_buffer_name(path, sizeof path, p->path, i))
            unlink(path);
    }
    tf_wsmall_unlink(p->path);
    unlink(p->path);
}

static void finish(tf_rec_session *s, wproc *p)
{
    tf_error err;
    tf_error_clear(&err);
    if (!p->failed && !p->open && open_trace(s, p, &err))
        fail(p, &err);
    kernel_maps(p);
    tf_small_lost lost = { 0 };
    if (!p->failed && (tf_reserve_renew(&p->reserve, p->sum.path, &err) || drain(s, p, &err) ||
                       update_modules(s, p, &err) ||
                       tf_wsmall_finish(&p->small, p->path, p->objects, p->w, p->proc,
                                        p->shm->mono0, &lost, &err) ||
                       ((lost.over || lost.ring) &&
                        tf_trace_out_set_small_lost(p->w, p->proc, lost.cap, lost.over, lost.ring,
                                                    &err)) ||
                       tf_wobjects_finish(p->objects, p->w, p->proc, &err)))
        fail(p, &err);
    tf_wsmall_free(p->small);
    p->small = NULL;
    /* Said unless quiet: the counts stay in the trace (tracefold info). */
    if ((lost.over || lost.ring) && !s->quiet)
        fprintf(stderr, "tracefold record: process %" PRId64 ": %" PRIu64 " blocks below "
                "heap-threshold not attributed: %" PRIu64 " past the small-block log's %" PRIu64
                " (option small-blocks), %" PRIu64 " allocated faster than the writer took "
                "them\n", p->shm->pid, lost.over + lost.ring, lost.over, lost.cap, lost.ring);
    if (p->failed)
        discard(p);
    remove_files(p);
    if (!p->failed) {
        int rc = tf_trace_out_close(p->w, &err);
        p->w = NULL;
        tf_reserve_release(&p->reserve);
        if (rc) {
            report(p, &err, keep_if_readable(p->sum.path));
            p->sum.failed = true;
        }
    }
    atomic_store(&p->shm->writer, p->sum.failed ? TF_WRITER_FAILED : TF_WRITER_DONE);
    tf_session_answered(p->shm);
    if (p->kp && s->opt.stats) {
        const tf_kstats *k = tf_kproc_stats(p->kp);
        fprintf(stderr, "tracefold record: stats: %" PRIu64 " samples captured by the kernel"
                " (process %" PRId64 "), writer %.0f ns CPU per sample, %" PRIu64 " memory"
                " samples decoded, %" PRIu64 " lost, %" PRIu64 " stacks walked by libdwfl\n",
                k->samples, p->shm->pid,
                k->samples ? (double)k->cpu_ns / (double)k->samples : 0.0, k->memory, k->lost,
                k->dwfl_walks);
    }
    tf_kproc_free(p->kp);
    p->kp = NULL;
    free(p->kmaps);
    p->kmaps = NULL;
    tf_modules_free(p->modules);
    p->modules = NULL;
    tf_wobjects_destroy(p->objects);
    p->objects = NULL;
    free(p->string_map);
    p->string_map = NULL;
    munmap(p->shm, p->size);
    p->shm = NULL;
    if (p->pidfd >= 0)
        close(p->pidfd);
    p->pidfd = -1;
    p->done = true;
}

/* The counters a process could not open: one line for the whole run,
 * whose processes all run on the same machine with the same options. */
static void say_counters_missing(tf_rec_session *s, const tf_shm_process *shm)
{
    if (s->counters_said || !shm->counters_missing[0])
        return;
    s->counters_said = true;
    if (!s->quiet)
        fprintf(stderr, "tracefold record: counters unavailable on this machine (no PMU "
                        "access?): %.*s; recording software events and user counters instead\n",
                (int)sizeof shm->counters_missing, shm->counters_missing);
}

static void add_process(tf_rec_session *s, const char *name)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", s->dir, name) >= (int)sizeof path)
        return;
    for (size_t i = 0; i < s->nprocs; i++)
        if (!strcmp(s->procs[i]->path, path))
            return;
    size_t size;
    tf_shm_process *shm = map_file(path, &size);
    if (!shm)
        return;
    if (shm->magic != TF_SESSION_MAGIC || size < sizeof *shm || shm->size != size) {
        munmap(shm, size);   /* not published yet: next tick */
        return;
    }
    if (s->nprocs == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 8;
        wproc **procs = realloc(s->procs, cap * sizeof *procs);
        if (!procs) {
            munmap(shm, size);
            return;
        }
        s->procs = procs;
        s->cap = cap;
    }
    wproc *p = calloc(1, sizeof *p);
    if (!p) {
        munmap(shm, size);
        return;
    }
    snprintf(p->path, sizeof p->path, "%s", path);
    say_counters_missing(s, shm);
    p->reserve.fd = -1;
    p->pidfd = (int)syscall(SYS_pidfd_open, (pid_t)shm->pid, 0);
    p->shm = shm;
    p->size = size;
    s->procs[s->nprocs++] = p;
}

static void scan(tf_rec_session *s)
{
    DIR *d = opendir(s->dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (!strncmp(e->d_name, TF_SESSION_PROC_PREFIX, strlen(TF_SESSION_PROC_PREFIX)) &&
            !strchr(e->d_name, '.'))
            add_process(s, e->d_name);
    closedir(d);
}

/* One pass over the session; returns the number of unfinished processes.
 * look: look for new processes, which poke the session when they start
 * (tf_session_poke): done when poked, and every flush interval anyway. */
static size_t tick(tf_rec_session *s, bool flush_due, bool look)
{
    if (look)
        scan(s);
    size_t active = 0;
    for (size_t i = 0; i < s->nprocs; i++) {
        wproc *p = s->procs[i];
        if (p->done)
            continue;
        bool closed = atomic_load(&p->shm->state) == TF_PROC_CLOSED;
        bool gone = !closed && process_gone(p);
        if (closed || gone) {
            finish(s, p);
            continue;
        }
        active++;
        if (p->failed) {
            discard(p);
            continue;
        }
        tf_error err;
        tf_error_clear(&err);
        if (tf_wsmall_drain(&p->small, p->path, now_ns(), &err)) {
            fail(p, &err);
            continue;
        }
        if (!p->open) {
            attach_threads(p);
            bool due = (atomic_load(&p->shm->user_word) & TF_USER_FROZEN) ||
                       now_ns() - p->shm->mono0 > 10 * s->opt.flush_ns ||
                       atomic_load(&p->shm->flush_req) != atomic_load(&p->shm->flush_done);
            take_kernels(s, p);
            /* after the kernel rings, which the program's threads wait for */
            if (!p->w && create_trace(s, p, &err)) {
                fail(p, &err);
                continue;
            }
            for (uint32_t k = 0; !due && k < p->nthreads; k++)
                due = p->threads[k].buf && (ring_quarter_full(&p->threads[k].buf->events) ||
                                            ring_quarter_full(&p->threads[k].buf->samples) ||
                                            (p->threads[k].kring &&
                                             tf_kring_quarter_full(p->threads[k].kring)));
            if (!due)
                continue;
            if (open_trace(s, p, &err)) {
                fail(p, &err);
                continue;
            }
        }
        uint32_t req = atomic_load(&p->shm->flush_req);
        bool flush = flush_due || req != atomic_load(&p->shm->flush_done);
        if (tf_reserve_renew(&p->reserve, p->sum.path, &err) || drain(s, p, &err) ||
            (flush && (update_modules(s, p, &err) ||
                       tf_trace_out_flush(p->w, &err)))) {
            fail(p, &err);
            continue;
        }
        if (flush) {
            atomic_store(&p->shm->flush_done, req);
            tf_session_answered(p->shm);
        }
    }
    s->kernel_rings = false;
    for (size_t i = 0; i < s->nprocs; i++)
        for (uint32_t k = 0; !s->procs[i]->done && k < s->procs[i]->nthreads; k++)
            s->kernel_rings |= s->procs[i]->threads[k].kring != NULL;
    return active;
}

/* Reaps the program (child) and the descendants it left behind, whose
 * parent `tracefold record` becomes (PR_SET_CHILD_SUBREAPER); true while
 * some descendant is still running. */
static bool reap_children(pid_t child, int *child_status, bool *child_done)
{
    for (;;) {
        int status;
        pid_t r = waitpid(-1, &status, WNOHANG);
        if (r == child) {
            *child_status = status;
            *child_done = true;
        }
        if (r > 0 || (r < 0 && errno == EINTR))
            continue;
        if (r < 0)
            *child_done = true;   /* ECHILD: nobody left */
        return r == 0;
    }
}

/* Sleeps until a process pokes the session (tf_session_poke), the child
 * exits (its pidfd, -1 for none) or timeout_ns pass; true when poked. */
static bool wait_for_work(tf_rec_session *s, int pidfd, uint64_t timeout_ns)
{
    struct pollfd fds[2] = {{.fd = s->wake_fd, .events = POLLIN}, {.fd = pidfd, .events = POLLIN}};
    struct timespec ts = {(time_t)(timeout_ns / 1000000000u), (long)(timeout_ns % 1000000000u)};
    if (ppoll(fds, 2, &ts, NULL) <= 0 || !(fds[0].revents & POLLIN))
        return false;
    char bytes[256];
    while (read(s->wake_fd, bytes, sizeof bytes) > 0)
        ;
    return true;
}

void tf_rec_session_run(tf_rec_session *s, pid_t child, int *child_status)
{
    uint64_t short_ns = s->opt.flush_ns / 20;
    if (short_ns > 50000000u)
        short_ns = 50000000u;
    uint64_t long_ns = s->opt.flush_ns / 4 > short_ns ? s->opt.flush_ns / 4 : short_ns;
    bool child_done = child <= 0;
    int pidfd = child > 0 ? (int)syscall(SYS_pidfd_open, child, 0) : -1;
    uint64_t idle_since = 0;
    bool poked = true;   /* the first pass looks for processes */
    for (;;) {
        uint64_t t = now_ns();
        bool flush_due = t - s->last_flush >= s->opt.flush_ns;
        if (flush_due)
            s->last_flush = t;
        size_t active = tick(s, flush_due, poked || flush_due || s->wake_fd < 0);
        bool descendants = child > 0 && reap_children(child, child_status, &child_done);
        if (!child_done || active) {
            idle_since = 0;
        } else {
            /* The program and every traced process are done.  Without a
             * descendant left, nothing more can come.  With one (a process
             * forked just before its parent's end registers a moment
             * later; or one that is not traced), and for the helper of a
             * linked program, whose processes are not its children: done
             * once nothing came for a few ticks. */
            if (child > 0 && !descendants)
                break;
            if (!idle_since)
                idle_since = t;
            if (t - idle_since >= 3 * short_ns)
                break;
        }
        /* Waiting for stragglers, or kernel rings to drain: short ticks. */
        uint64_t tick_ns = idle_since || s->kernel_rings ? short_ns : long_ns;
        poked = wait_for_work(s, child_done ? -1 : pidfd, tick_ns);
    }
    if (pidfd >= 0)
        close(pidfd);
}

void tf_rec_session_set_quiet(tf_rec_session *s, bool quiet)
{
    s->quiet = quiet;
}

size_t tf_rec_session_summaries(tf_rec_session *s, const tf_rec_summary **out)
{
    free(s->sums);
    s->sums = calloc(s->nprocs ? s->nprocs : 1, sizeof *s->sums);
    size_t n = 0;
    for (size_t i = 0; s->sums && i < s->nprocs; i++)
        if (s->procs[i]->open || s->procs[i]->sum.failed)
            s->sums[n++] = s->procs[i]->sum;
    *out = s->sums;
    return n;
}

void tf_rec_session_destroy(tf_rec_session *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nprocs; i++) {
        wproc *p = s->procs[i];
        if (!p->done)
            finish(s, p);
        free(p);
    }
    free(s->procs);
    free(s->sums);
    /* Leftovers of processes that never published (killed while starting). */
    DIR *d = opendir(s->dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (e->d_name[0] != '.') {
                char path[PATH_MAX];
                if (snprintf(path, sizeof path, "%s/%s", s->dir, e->d_name) < (int)sizeof path)
                    unlink(path);
            }
        closedir(d);
    }
    if (s->wake_fd >= 0)
        close(s->wake_fd);
    rmdir(s->dir);
    free(s);
}
