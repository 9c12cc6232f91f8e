/* SPDX-License-Identifier: BSD-3-Clause */
/* Checks a trace recorded by the tests, with the reader API and the test
 * binary's own symbol table (the symbolisation stage is not used here).
 *   check_trace summary FILE
 *       prints processes, threads, events, samples, complete, exe
 *   check_trace threads FILE NTHREADS NITER
 *       the threads_app expectations: exact instance counts and user
 *       counter totals per worker, samples inside the run with monotone
 *       counters, call stacks reaching the workers' functions
 *   check_trace regions FILE
 *       per thread (in order) and region: begins, ends, and ends marked
 *       as not seen (type 1), one line each
 *   check_trace stack FILE FUNCTION
 *       some sample's call stack contains FUNCTION of the executable
 *   check_trace memory FILE
 *       the stream_app expectations: memory samples of each loop inside
 *       the right data object (by address and lifetime), with the right
 *       direction and increasing addresses within a pass; its static, heap
 *       (with call sites), realloc'ed, reused, mmap, user and stack objects;
 *       no object below the heap threshold
 *   check_trace hwmem FILE
 *       memory samples from a hardware back end (here software events
 *       described by a fixture sysfs tree): loads and stores, not marked
 *       software-decoded, with the call chain starting at the sample's
 *       instruction, and their own times (not clamped to the timer's)
 * Exit 0 when every check holds, 1 with a message otherwise. */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/trace.h"

static int failures;

static void check(bool ok, const char *fmt, ...)
{
    if (ok)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("check_trace: FAIL: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    failures++;
}

/* ---- symbols of the executable (libelf) ---- */

typedef struct sym { uint64_t start, size; char *name; } sym;
static sym *syms;
static size_t nsyms;
static GElf_Phdr loads[16];
static size_t nloads;

static void load_symbols(const char *path)
{
    elf_version(EV_CURRENT);
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return;
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    size_t nph = 0;
    elf_getphdrnum(e, &nph);
    for (size_t i = 0; i < nph && nloads < 16; i++) {
        GElf_Phdr ph;
        if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD)
            loads[nloads++] = ph;
    }
    Elf_Scn *scn = NULL;
    while ((scn = elf_nextscn(e, scn))) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
        syms = realloc(syms, (nsyms + n) * sizeof *syms);
        for (size_t i = 0; i < n; i++) {
            GElf_Sym s;
            if (gelf_getsym(d, (int)i, &s) && GELF_ST_TYPE(s.st_info) == STT_FUNC && s.st_value)
                syms[nsyms++] = (sym){s.st_value, s.st_size,
                                      strdup(elf_strptr(e, sh.sh_link, s.st_name))};
        }
    }
    elf_end(e);
    close(fd);
}

/* The function of the executable containing a runtime address, via the
 * trace's modules table (file offset) and the program headers (vaddr). */
static const char *symbolise(const tf_trace *tr, const tf_process *p, uint64_t ip)
{
    for (size_t m = 0; m < p->nmodules; m++) {
        const tf_module *mod = &p->modules[m];
        if (ip < mod->start || ip >= mod->end ||
            strcmp(tf_trace_string(tr, mod->path), p->executable))
            continue;
        uint64_t off = ip - mod->start + mod->offset;
        for (size_t l = 0; l < nloads; l++) {
            if (off < loads[l].p_offset || off >= loads[l].p_offset + loads[l].p_filesz)
                continue;
            uint64_t vaddr = off - loads[l].p_offset + loads[l].p_vaddr;
            for (size_t s = 0; s < nsyms; s++)
                if (vaddr >= syms[s].start && vaddr < syms[s].start + (syms[s].size ? syms[s].size : 1))
                    return syms[s].name;
        }
    }
    return NULL;
}

/* ---- helpers over the trace ---- */

static long counter_index(const tf_trace *tr, const tf_process *p, const char *name)
{
    for (uint32_t c = 0; c < p->ncounters; c++)
        if (!strcmp(tf_trace_string(tr, p->counters[c].name), name))
            return c;
    return -1;
}

/* name is func, or a compiler clone of it (func.constprop.0, func.isra.0). */
static bool is_function(const char *name, const char *func)
{
    size_t n = strlen(func);
    return !strncmp(name, func, n) && (name[n] == '\0' || name[n] == '.');
}

typedef struct sample_stats {
    uint64_t n, with_stack, in_func, first, last;
    uint64_t win_lo, win_hi, inside;   /* samples with a time in [win_lo, win_hi] */
    bool monotone;
} sample_stats;

static void scan_samples(tf_trace *tr, uint32_t pi, uint32_t ti, const char *func1,
                         const char *func2, sample_stats *st)
{
    const tf_process *p = tf_trace_process(tr, pi);
    tf_sample_cursor *c;
    tf_error err;
    uint64_t lo = st->win_lo, hi = st->win_hi;
    memset(st, 0, sizeof *st);
    st->win_lo = lo;
    st->win_hi = hi;
    st->monotone = true;
    if (tf_samples_open(tr, pi, ti, &c, &err)) {
        check(false, "%s", err.msg);
        return;
    }
    enum { CHUNK = 1024 };
    static tf_sample s[CHUNK];
    uint64_t *ctr = calloc((size_t)CHUNK * (p->ncounters + 1), sizeof *ctr);
    uint64_t prev[TF_MAX_COUNTERS];
    for (uint32_t k = 0; k < TF_MAX_COUNTERS; k++)
        prev[k] = 0;
    size_t n;
    while (!tf_samples_read(c, s, ctr, CHUNK, &n, &err) && n) {
        for (size_t i = 0; i < n; i++) {
            if (!st->n)
                st->first = s[i].time;
            st->last = s[i].time;
            st->n++;
            if (s[i].time >= st->win_lo && s[i].time <= st->win_hi)
                st->inside++;
            for (uint32_t k = 0; k < p->ncounters; k++) {
                uint64_t v = ctr[i * p->ncounters + k];
                if (v == TF_NOVALUE)
                    continue;
                if (v < prev[k])
                    st->monotone = false;
                prev[k] = v;
            }
            if (!s[i].stack_len)
                continue;
            st->with_stack++;
            uint64_t ips[256];
            size_t len = s[i].stack_len < 256 ? s[i].stack_len : 256;
            if (tf_trace_read_frames(tr, pi, ti, s[i].stack, len, ips, &err)) {
                check(false, "%s", err.msg);
                break;
            }
            for (size_t f = 0; f < len; f++) {
                const char *name = symbolise(tr, p, ips[f]);
                if (name && ((func1 && is_function(name, func1)) ||
                             (func2 && is_function(name, func2)))) {
                    st->in_func++;
                    break;
                }
            }
        }
    }
    free(ctr);
    tf_samples_close(c);
}

static int summary(tf_trace *tr)
{
    uint64_t threads = 0, events = 0, samples = 0;
    for (uint32_t pi = 0; pi < tf_trace_nprocesses(tr); pi++) {
        const tf_process *p = tf_trace_process(tr, pi);
        threads += p->nthreads;
        for (uint32_t ti = 0; ti < p->nthreads; ti++) {
            events += p->threads[ti].nevents;
            samples += p->threads[ti].nsamples;
        }
    }
    const tf_process *p0 = tf_trace_nprocesses(tr) ? tf_trace_process(tr, 0) : NULL;
    printf("processes=%u threads=%" PRIu64 " events=%" PRIu64 " samples=%" PRIu64
           " complete=%d modules=%zu exe=%s\n",
           tf_trace_nprocesses(tr), threads, events, samples, tf_trace_complete(tr),
           p0 ? p0->nmodules : 0, p0 ? p0->executable : "");
    for (uint32_t c = 0; p0 && c < p0->ncounters; c++)
        printf("counter %s kind=%u\n", tf_trace_string(tr, p0->counters[c].name),
               p0->counters[c].kind);
    /* Region names with their number of begins, over all threads. */
    for (uint32_t pi = 0; pi < tf_trace_nprocesses(tr); pi++) {
        const tf_process *p = tf_trace_process(tr, pi);
        for (uint32_t ti = 0; ti < p->nthreads; ti++) {
            const tf_thread *t = &p->threads[ti];
            for (size_t e = 0; e < t->nevents; e++)
                if (t->events[e].kind == TF_EVENT_ENTER)
                    printf("enter %s\n", tf_trace_string(tr, (uint32_t)t->events[e].value));
        }
        for (size_t o = 0; o < p->nobjects; o++)
            printf("object %s size=%" PRIu64 " kind=%u\n", tf_trace_string(tr, p->objects[o].name),
                   p->objects[o].size, p->objects[o].kind);
    }
    return 0;
}

static int regions_list(tf_trace *tr)
{
    for (uint32_t pi = 0; pi < tf_trace_nprocesses(tr); pi++) {
        const tf_process *p = tf_trace_process(tr, pi);
        for (uint32_t ti = 0; ti < p->nthreads; ti++) {
            const tf_thread *t = &p->threads[ti];
            /* Every region name seen on the thread, in order of first use. */
            uint64_t names[16];
            unsigned nn = 0;
            for (size_t e = 0; e < t->nevents; e++) {
                const tf_event *ev = &t->events[e];
                if (ev->kind == TF_EVENT_USER)
                    continue;
                unsigned k = 0;
                while (k < nn && names[k] != ev->value)
                    k++;
                if (k == nn && nn < 16)
                    names[nn++] = ev->value;
            }
            for (unsigned k = 0; k < nn; k++) {
                uint64_t begins = 0, ends = 0, unseen = 0;
                for (size_t e = 0; e < t->nevents; e++) {
                    const tf_event *ev = &t->events[e];
                    if (ev->value != names[k] || ev->kind == TF_EVENT_USER)
                        continue;
                    begins += ev->kind == TF_EVENT_ENTER;
                    ends += ev->kind == TF_EVENT_EXIT;
                    unseen += ev->kind == TF_EVENT_EXIT && ev->type == 1;
                }
                printf("thread %u %s begins=%" PRIu64 " ends=%" PRIu64 " unseen=%" PRIu64 "\n",
                       ti, tf_trace_string(tr, (uint32_t)names[k]), begins, ends, unseen);
            }
        }
    }
    return 0;
}

static int threads_check(tf_trace *tr, int nthreads, int niter)
{
    check(tf_trace_nprocesses(tr) == 1, "one process expected, got %u", tf_trace_nprocesses(tr));
    check(tf_trace_complete(tr), "trace not marked complete");
    const tf_process *p = tf_trace_process(tr, 0);
    load_symbols(p->executable);
    check(nsyms > 0, "no symbols in %s", p->executable);
    long cells = counter_index(tr, p, "cells"), bytes = counter_index(tr, p, "bytes");
    check(cells >= 0 && bytes >= 0, "user counters cells/bytes missing");
    if (cells < 0 || bytes < 0)
        return 1;
    check(p->counters[cells].kind == TF_COUNTER_USER, "cells is not a user counter");
    uint32_t it_id = 0, a_id = 0, b_id = 0;
    check(tf_trace_find_string(tr, "iteration", &it_id) && tf_trace_find_string(tr, "phase_a", &a_id) &&
              tf_trace_find_string(tr, "phase_b", &b_id), "region names missing");
    uint64_t trace_end = 0;
    for (uint32_t ti = 0; ti < p->nthreads; ti++)
        for (size_t e = 0; e < p->threads[ti].nevents; e++)
            if (p->threads[ti].events[e].time > trace_end)
                trace_end = p->threads[ti].events[e].time;
    int workers = 0;
    uint64_t total_samples = 0, total_stack = 0, total_in = 0;
    for (uint32_t ti = 0; ti < p->nthreads; ti++) {
        const tf_thread *t = &p->threads[ti];
        long tnum = -1;
        int enter[3] = {0, 0, 0}, exits = 0;
        for (size_t e = 0; e < t->nevents; e++) {
            const tf_event *ev = &t->events[e];
            const uint64_t *row = t->event_counters + e * p->ncounters;
            if (ev->kind == TF_EVENT_USER && ev->type == 1)
                tnum = (long)ev->value;
            if (ev->kind == TF_EVENT_ENTER)
                enter[ev->value == it_id ? 0 : ev->value == a_id ? 1 : 2]++;
            if (ev->kind == TF_EVENT_EXIT && ev->value == it_id) {
                exits++;
                check(row[cells] == (uint64_t)exits * (uint64_t)(tnum + 1) * 100,
                      "thread %ld: cells at end of iteration %d is %" PRIu64 ", expected %" PRIu64,
                      tnum, exits, row[cells], (uint64_t)exits * (uint64_t)(tnum + 1) * 100);
                check(row[bytes] == (uint64_t)exits * 64, "thread %ld: bytes at iteration %d is %" PRIu64,
                      tnum, exits, row[bytes]);
            }
            if (e)
                check(ev->time >= t->events[e - 1].time, "thread %u: event times decrease", ti);
        }
        if (tnum < 0)
            continue;
        workers++;
        check(enter[0] == niter && enter[1] == niter && enter[2] == niter && exits == niter,
              "thread %ld: instances iteration/phase_a/phase_b/ends = %d/%d/%d/%d, expected %d",
              tnum, enter[0], enter[1], enter[2], exits, niter);
        sample_stats st = {0};
        scan_samples(tr, 0, ti, "compute_kernel_a", "compute_kernel_b", &st);
        check(st.monotone, "thread %ld: sample counters not monotone", tnum);
        check(!st.n || st.last <= trace_end + 1000000000ull,
              "thread %ld: samples after the run (%" PRIu64 " > %" PRIu64 ")", tnum, st.last, trace_end);
        total_samples += st.n;
        total_stack += st.with_stack;
        total_in += st.in_func;
    }
    check(workers == nthreads, "%d worker threads recorded, expected %d", workers, nthreads);
    check(total_samples >= (uint64_t)nthreads, "only %" PRIu64 " samples", total_samples);
    check(total_stack * 10 >= total_samples * 9, "%" PRIu64 " of %" PRIu64 " samples have a stack",
          total_stack, total_samples);
    check(total_in * 2 >= total_samples, "only %" PRIu64 " of %" PRIu64
          " samples resolve to compute_kernel_a/b", total_in, total_samples);
    printf("workers=%d samples=%" PRIu64 " with_stack=%" PRIu64 " in_kernels=%" PRIu64 "\n",
           workers, total_samples, total_stack, total_in);
    return failures ? 1 : 0;
}

/* ksample_app (kernel.sh): per process, nthreads workers, each with one
 * region "work" (its end missing when killed) holding >= 95 % of its
 * samples, counters monotone; >= 90 % of the samples with a stack, >= 50 %
 * resolving to ksample_kernel_a/b and >= 50 % reaching their caller
 * ksample_worker (a walk past the first frame).  Every process. */
static int kernel_check(tf_trace *tr, int nthreads)
{
    uint32_t work_id = 0;
    check(tf_trace_find_string(tr, "work", &work_id), "no region 'work'");
    for (uint32_t pi = 0; pi < tf_trace_nprocesses(tr); pi++) {
        const tf_process *p = tf_trace_process(tr, pi);
        load_symbols(p->executable);
        int workers = 0;
        uint64_t total = 0, with_stack = 0, in = 0, inside = 0, callers = 0;
        for (uint32_t ti = 0; ti < p->nthreads; ti++) {
            const tf_thread *t = &p->threads[ti];
            sample_stats st = {.win_lo = UINT64_MAX, .win_hi = UINT64_MAX};
            for (size_t e = 0; e < t->nevents; e++) {
                if (t->events[e].value != work_id)
                    continue;
                if (t->events[e].kind == TF_EVENT_ENTER)
                    st.win_lo = t->events[e].time;
                if (t->events[e].kind == TF_EVENT_EXIT)
                    st.win_hi = t->events[e].time;
            }
            if (st.win_lo == UINT64_MAX)
                continue;
            workers++;
            scan_samples(tr, pi, ti, "ksample_kernel_a", "ksample_kernel_b", &st);
            check(st.monotone, "process %u thread %u: sample counters not monotone", pi, ti);
            check(st.n > 0, "process %u thread %u: no samples", pi, ti);
            check(st.inside * 20 >= st.n * 19,
                  "process %u thread %u: %" PRIu64 " of %" PRIu64 " samples inside its region",
                  pi, ti, st.inside, st.n);
            total += st.n;
            with_stack += st.with_stack;
            in += st.in_func;
            inside += st.inside;
            scan_samples(tr, pi, ti, "ksample_worker", NULL, &st);
            callers += st.in_func;
        }
        check(workers == nthreads, "process %u: %d workers, expected %d", pi, workers, nthreads);
        check(with_stack * 10 >= total * 9, "process %u: %" PRIu64 " of %" PRIu64
              " samples have a stack", pi, with_stack, total);
        check(in * 2 >= total, "process %u: only %" PRIu64 " of %" PRIu64
              " samples resolve to ksample_kernel_a/b", pi, in, total);
        check(callers * 2 >= total, "process %u: only %" PRIu64 " of %" PRIu64
              " stacks reach ksample_worker", pi, callers, total);
        printf("process=%u workers=%d samples=%" PRIu64 " inside=%" PRIu64 " with_stack=%" PRIu64
               " in_kernels=%" PRIu64 " in_worker=%" PRIu64 "\n", pi, workers, total, inside,
               with_stack, in, callers);
    }
    return failures ? 1 : 0;
}

static int stack_check(tf_trace *tr, const char *func)
{
    uint64_t hits = 0, total = 0;
    for (uint32_t pi = 0; pi < tf_trace_nprocesses(tr); pi++) {
        const tf_process *p = tf_trace_process(tr, pi);
        load_symbols(p->executable);
        for (uint32_t ti = 0; ti < p->nthreads; ti++) {
            sample_stats st = {0};
            scan_samples(tr, pi, ti, func, NULL, &st);
            hits += st.in_func;
            total += st.n;
        }
    }
    printf("samples=%" PRIu64 " in_%s=%" PRIu64 "\n", total, func, hits);
    check(hits > 0, "no sample stack reaches %s", func);
    return failures ? 1 : 0;
}

/* ---- memory samples and data objects (stream_app) ---- */

#define STREAM_BYTES (8u << 20)
#define REUSE_BYTES  (64u * 1024)
#define HEAP_THRESHOLD (32u * 1024)

/* Whether the allocation call stack of o reaches func. */
static bool allocated_in(const tf_trace *tr, const tf_process *p, const tf_object *o,
                         const char *func)
{
    for (uint16_t f = 0; f < o->stack_len && o->stack + f < p->nframes; f++) {
        const char *name = symbolise(tr, p, p->frames[o->stack + f]);
        if (name && is_function(name, func))
            return true;
    }
    return false;
}

/* The object of kind heap/mmap/static/user of this size made in func
 * (NULL: any), the first by allocation time after `after`. */
static const tf_object *find_object(const tf_trace *tr, const tf_process *p, uint8_t kind,
                                    uint64_t size, const char *func, uint64_t after)
{
    const tf_object *best = NULL;
    for (size_t i = 0; i < p->nobjects; i++) {
        const tf_object *o = &p->objects[i];
        if (o->kind != kind || o->size != size || o->alloc_time < after ||
            (func && !allocated_in(tr, p, o, func)))
            continue;
        if (!best || o->alloc_time < best->alloc_time)
            best = o;
    }
    return best;
}

/* The object holding addr at time t: the innermost (smallest) one alive. */
static const tf_object *object_at(const tf_process *p, uint64_t addr, uint64_t t)
{
    const tf_object *best = NULL;
    for (size_t i = 0; i < p->nobjects; i++) {
        const tf_object *o = &p->objects[i];
        if (addr >= o->start && addr - o->start < o->size && o->alloc_time <= t &&
            t < o->free_time && (!best || o->size < best->size))
            best = o;
    }
    return best;
}

enum { R_STATIC, R_HEAP, R_WRITE, R_REUSE1, R_REUSE2, NLOOPS };
static const char *const loop_names[NLOOPS] = {"static", "heap", "write", "reuse1", "reuse2"};

typedef struct loop_stats {
    const tf_object *expect;
    uint8_t kind;                 /* expected sample kind */
    uint64_t n, inside, direction, pairs, increasing;
} loop_stats;

/* The loop whose region instance holds time t on thread th, with the
 * instance's start in *since; -1 outside every loop. */
static int loop_at(const tf_trace *tr, const tf_thread *th, uint64_t t, uint64_t *since)
{
    int open = -1;
    for (size_t e = 0; e < th->nevents && th->events[e].time <= t; e++) {
        const tf_event *ev = &th->events[e];
        if (ev->kind != TF_EVENT_ENTER && ev->kind != TF_EVENT_EXIT)
            continue;
        int which = -1;
        for (int k = 0; k < NLOOPS; k++)
            if (!strcmp(tf_trace_string(tr, (uint32_t)ev->value), loop_names[k]))
                which = k;
        if (which < 0)
            continue;
        open = ev->kind == TF_EVENT_ENTER ? which : -1;
        *since = ev->time;
    }
    return open;
}

static void scan_memory(tf_trace *tr, uint32_t pi, uint32_t ti, loop_stats *ls)
{
    const tf_process *p = tf_trace_process(tr, pi);
    const tf_thread *th = &p->threads[ti];
    tf_sample_cursor *c;
    tf_error err;
    if (tf_samples_open(tr, pi, ti, &c, &err)) {
        check(false, "%s", err.msg);
        return;
    }
    enum { CHUNK = 1024 };
    static tf_sample s[CHUNK];
    uint64_t last_addr[NLOOPS] = {0}, last_instance[NLOOPS] = {0};
    size_t n;
    while (!tf_samples_read(c, s, NULL, CHUNK, &n, &err) && n) {
        for (size_t i = 0; i < n; i++) {
            if (s[i].kind == TF_SAMPLE_TIMER)
                continue;
            check(s[i].flags & TF_SAMPLE_SOFTWARE, "memory sample not marked software-decoded");
            uint64_t since = 0;
            int k = loop_at(tr, th, s[i].time, &since);
            if (k < 0 || !ls[k].expect)
                continue;
            loop_stats *l = &ls[k];
            l->n++;
            if (object_at(p, s[i].addr, s[i].time) != l->expect)
                continue;
            l->inside++;
            l->direction += s[i].kind == l->kind;
            /* Two successive samples at one address tell no direction: the
             * thread did not move in between (the kernel time of a page
             * fault, or a virtual CPU its host took away while the
             * sampling clock ran: seen in loaded runs, several samples of
             * one pass on one store a few ms apart). */
            if (last_instance[k] == since + 1 && s[i].addr != last_addr[k]) {
                l->pairs++;
                l->increasing += s[i].addr > last_addr[k];
            }
            last_instance[k] = since + 1;
            last_addr[k] = s[i].addr;
        }
    }
    tf_samples_close(c);
}

static int memory_check(tf_trace *tr)
{
    const tf_process *p = tf_trace_process(tr, 0);
    load_symbols(p->executable);
    loop_stats ls[NLOOPS];
    memset(ls, 0, sizeof ls);
    uint32_t name;
    const tf_object *st = NULL;
    for (size_t i = 0; tf_trace_find_string(tr, "static_array", &name) && i < p->nobjects; i++)
        if (p->objects[i].kind == TF_OBJECT_STATIC && p->objects[i].name == name)
            st = &p->objects[i];
    check(st && st->size == STREAM_BYTES, "static_array: %s",
          st ? "wrong size" : "no static object");
    ls[R_STATIC] = (loop_stats){.expect = st, .kind = TF_SAMPLE_LOAD};
    ls[R_HEAP] = (loop_stats){
        .expect = find_object(tr, p, TF_OBJECT_HEAP, STREAM_BYTES, "make_heap_array", 0),
        .kind = TF_SAMPLE_LOAD};
    ls[R_WRITE] = (loop_stats){
        .expect = find_object(tr, p, TF_OBJECT_HEAP, STREAM_BYTES, "make_out_array", 0),
        .kind = TF_SAMPLE_STORE};
    check(ls[R_HEAP].expect, "no heap object allocated in make_heap_array");
    check(ls[R_WRITE].expect, "no heap object allocated in make_out_array");
    const tf_object *r1 = find_object(tr, p, TF_OBJECT_HEAP, REUSE_BYTES, NULL, 0);
    const tf_object *r2 =
        r1 ? find_object(tr, p, TF_OBJECT_HEAP, REUSE_BYTES, NULL, r1->alloc_time + 1) : NULL;
    check(r1 && r2 && r1->start == r2->start && r1->free_time <= r2->alloc_time,
          "reused block: two objects at one address with successive lifetimes");
    ls[R_REUSE1] = (loop_stats){.expect = r1, .kind = TF_SAMPLE_LOAD};
    ls[R_REUSE2] = (loop_stats){.expect = r2, .kind = TF_SAMPLE_LOAD};

    for (uint32_t ti = 0; ti < p->nthreads; ti++)
        scan_memory(tr, 0, ti, ls);
    for (int k = 0; k < NLOOPS; k++) {
        const loop_stats *l = &ls[k];
        printf("%s: memory samples %" PRIu64 ", in object %" PRIu64 ", direction %" PRIu64
               ", increasing %" PRIu64 "/%" PRIu64 "\n", loop_names[k], l->n, l->inside,
               l->direction, l->increasing, l->pairs);
        check(l->n >= 20, "%s: only %" PRIu64 " memory samples", loop_names[k], l->n);
        check(l->inside * 100 >= 95 * l->n, "%s: %" PRIu64 " of %" PRIu64
              " samples in the object", loop_names[k], l->inside, l->n);
        check(l->direction * 100 >= 95 * l->inside, "%s: %" PRIu64 " of %" PRIu64
              " samples with the right direction", loop_names[k], l->direction, l->inside);
        if (k <= R_WRITE)
            check(l->pairs >= 10 && l->increasing * 100 >= 95 * l->pairs,
                  "%s: %" PRIu64 " of %" PRIu64 " successive samples of a pass increasing",
                  loop_names[k], l->increasing, l->pairs);
    }

    /* realloc that moved: the old block ends, the new one starts, both made
     * in grow_block. */
    const tf_object *old = find_object(tr, p, TF_OBJECT_HEAP, 48 * 1024, "grow_block", 0);
    const tf_object *grown = find_object(tr, p, TF_OBJECT_HEAP, 64u << 20, "grow_block", 0);
    check(old && grown && old->start != grown->start && old->free_time != TF_NOTIME &&
          grown->alloc_time >= old->free_time && grown->free_time != TF_NOTIME,
          "realloc move: a freed 48 KiB block and a 64 MiB block after it, both from grow_block");
    const tf_object *m = find_object(tr, p, TF_OBJECT_MMAP, 4u << 20, "main", 0);
    check(m && m->free_time != TF_NOTIME, "anonymous mmap of 4 MiB, unmapped");
    bool grid = false, stack = false, small = false;
    for (size_t i = 0; i < p->nobjects; i++) {
        const tf_object *o = &p->objects[i];
        grid |= o->kind == TF_OBJECT_USER && !strcmp(tf_trace_string(tr, o->name), "grid");
        stack |= o->kind == TF_OBJECT_STACK;
        small |= (o->kind == TF_OBJECT_HEAP || o->kind == TF_OBJECT_MMAP) &&
                 o->size < HEAP_THRESHOLD;
    }
    check(grid, "no user object 'grid'");
    check(stack, "no thread stack object");
    check(!small, "an allocation below the threshold was recorded");
    return failures ? 1 : 0;
}

static int hwmem_check(tf_trace *tr)
{
    const tf_process *p = tf_trace_process(tr, 0);
    uint64_t kinds[4] = {0}, software = 0, chained = 0, same_time = 0, last = UINT64_MAX;
    for (uint32_t ti = 0; ti < p->nthreads; ti++) {
        tf_sample_cursor *c;
        tf_error err;
        if (tf_samples_open(tr, 0, ti, &c, &err)) {
            check(false, "%s", err.msg);
            return 1;
        }
        enum { CHUNK = 1024 };
        static tf_sample s[CHUNK];
        size_t n;
        while (!tf_samples_read(c, s, NULL, CHUNK, &n, &err) && n) {
            for (size_t i = 0; i < n; i++) {
                if (s[i].kind == TF_SAMPLE_TIMER || s[i].kind > TF_SAMPLE_RMW)
                    continue;
                kinds[s[i].kind]++;
                software += (s[i].flags & TF_SAMPLE_SOFTWARE) != 0;
                same_time += s[i].time == last;
                last = s[i].time;
                uint64_t first;
                if (s[i].stack_len &&
                    !tf_trace_read_frames(tr, 0, ti, s[i].stack, 1, &first, &err) &&
                    first == s[i].ip)
                    chained++;
            }
        }
        tf_samples_close(c);
    }
    uint64_t all = kinds[TF_SAMPLE_LOAD] + kinds[TF_SAMPLE_STORE] + kinds[TF_SAMPLE_RMW];
    printf("loads=%" PRIu64 " stores=%" PRIu64 " software=%" PRIu64 " chained=%" PRIu64
           " same_time=%" PRIu64 "\n", kinds[TF_SAMPLE_LOAD], kinds[TF_SAMPLE_STORE], software,
           chained, same_time);
    check(kinds[TF_SAMPLE_LOAD] >= 100 && kinds[TF_SAMPLE_STORE] >= 100,
          "too few load or store samples");
    check(!software, "hardware samples marked software-decoded");
    check(chained * 10 >= 9 * all, "call chains not starting at the sample's instruction");
    check(same_time * 20 <= all, "samples sharing a time (clamped out of order?)");
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: check_trace summary|threads|regions|stack|kernel|memory|hwmem FILE ...\n");
        return 2;
    }
    tf_trace *tr;
    tf_error err;
    if (tf_trace_open(&tr, argv[2], &err)) {
        fprintf(stderr, "check_trace: %s\n", err.msg);
        return 1;
    }
    int rc = 2;
    if (!strcmp(argv[1], "summary"))
        rc = summary(tr);
    else if (!strcmp(argv[1], "threads") && argc == 5)
        rc = threads_check(tr, (int)strtol(argv[3], NULL, 10),
                           (int)strtol(argv[4], NULL, 10));
    else if (!strcmp(argv[1], "regions"))
        rc = regions_list(tr);
    else if (!strcmp(argv[1], "stack") && argc == 4)
        rc = stack_check(tr, argv[3]);
    else if (!strcmp(argv[1], "kernel") && argc == 4)
        rc = kernel_check(tr, (int)strtol(argv[3], NULL, 10));
    else if (!strcmp(argv[1], "memory"))
        rc = memory_check(tr);
    else if (!strcmp(argv[1], "hwmem"))
        rc = hwmem_check(tr);
    tf_trace_close(tr);
    return rc;
}
