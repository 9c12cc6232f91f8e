/* SPDX-License-Identifier: BSD-3-Clause */
/* Checks a trace recorded by the tests, with the reader API and the test
 * binary's own symbol table (the symbolisation stage is not used here).
 *   check_trace summary FILE
 *       prints processes, threads, events, samples, complete, exe
 *   check_trace threads FILE NTHREADS NITER
 *       the threads_app expectations: exact instance counts and user
 *       counter totals per worker, samples inside the run with monotone
 *       counters, call stacks reaching the workers' functions
 *   check_trace stack FILE FUNCTION
 *       some sample's call stack contains FUNCTION of the executable
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

#include "trace.h"

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
    bool monotone;
} sample_stats;

static void scan_samples(tf_trace *tr, uint32_t pi, uint32_t ti, const char *func1,
                         const char *func2, sample_stats *st)
{
    const tf_process *p = tf_trace_process(tr, pi);
    tf_sample_cursor *c;
    tf_error err;
    memset(st, 0, sizeof *st);
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
        sample_stats st;
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

static int stack_check(tf_trace *tr, const char *func)
{
    uint64_t hits = 0, total = 0;
    for (uint32_t pi = 0; pi < tf_trace_nprocesses(tr); pi++) {
        const tf_process *p = tf_trace_process(tr, pi);
        load_symbols(p->executable);
        for (uint32_t ti = 0; ti < p->nthreads; ti++) {
            sample_stats st;
            scan_samples(tr, pi, ti, func, NULL, &st);
            hits += st.in_func;
            total += st.n;
        }
    }
    printf("samples=%" PRIu64 " in_%s=%" PRIu64 "\n", total, func, hits);
    check(hits > 0, "no sample stack reaches %s", func);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: check_trace summary|threads|stack FILE ...\n");
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
    else if (!strcmp(argv[1], "stack") && argc == 4)
        rc = stack_check(tr, argv[3]);
    tf_trace_close(tr);
    return rc;
}
