/* SPDX-License-Identifier: BSD-3-Clause */
/* The writer's side of kernel capture (docs/recorder.md, "Kernel
 * capture"; the application's side is tf_capture_kernel.c): a duplicate of
 * the thread's perf event descriptor taken with pidfd_getfd(2), its ring
 * mapped (perf_event_open(2), "MMAP layout"), and each PERF_RECORD_SAMPLE
 * turned into what the handler would have stored: time (CLOCK_MONOTONIC,
 * use_clockid), instruction address, the counter group's values
 * (tf_counter_values.h: scaling, never decreasing), the call stack
 * (tf_kunwind.c) and, with the software memory sampler, the references of
 * the instructions at and before the IP (ea_decode.h, on a copy of the
 * code read with process_vm_readv(2), or from the mapped file once the
 * process is gone).  PERF_RECORD_LOST counts go to the thread's dropped
 * samples.  The period jitter the handler applies is applied here: a new
 * period (PERF_EVENT_IOC_PERIOD on the duplicate) every TF_REDRAW_EVERY
 * samples, at the drain that passes them. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "record/mem/ea_decode.h"
#include "record/mem/perf_records.h"
#include "record/tf_counter_values.h"
#include "common/tf_hash.h"
#include "tf_writer.h"

#define CODE_PAGES 64          /* the code-page cache of a process, direct-mapped */

struct tf_kproc {
    int64_t  pid;
    int      pidfd;            /* -1: the process was gone before we looked */
    bool     fp;               /* unwind=fp: frame pointers, else CFI */
    tf_kunwind *unwind;        /* NULL: no stacks */
    bool     memory;           /* decode memory references */
    tf_ea_decoder *ea;         /* made at the first sample to decode (decoder) */
    const char *maps;          /* the last maps text (owned by the caller) */
    size_t   maps_len;
    bool     maps_fresh;       /* reported to the unwinder since the last change */
    uint64_t maps_hash;        /* of the text last given, to tell a change */
    size_t   page;
    struct {
        uint64_t addr;         /* 0: empty */
        uint8_t *bytes;
    } code[CODE_PAGES];
    tf_kstats stats;
};

struct tf_kring {
    tf_kproc *kp;
    int      fd;
    void    *map;
    size_t   map_len;
    tf_perf_ring ring;
    tf_perf_layout layout;
    int64_t  tid;
    uint32_t ngroup0, nbase, depth;
    uint64_t last[TF_SESSION_MAX_BASE];   /* counter values never decrease */
    uint64_t fs_base, gs_base;
    uint64_t period, rng;
    uint32_t jitter_pct;
    uint64_t since_redraw;
    uint64_t lost;
    /* The drain in progress. */
    tf_ksample_fn fn;
    void    *ctx;
};

int tf_kproc_create(tf_kproc **out, int64_t pid, int unwind, bool memory, tf_error *err)
{
    tf_kproc *kp = calloc(1, sizeof *kp);
    if (!kp)
        return tf_fail(err, TF_ERR_NOMEM, "kernel capture of process %" PRId64, pid);
    kp->pid = pid;
    kp->page = (size_t)sysconf(_SC_PAGESIZE);
    kp->pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
    kp->fp = unwind == TF_UNWIND_FP;
    int rc = 0;
    if (unwind == TF_UNWIND_LIBUNWIND)
        rc = tf_kunwind_create(&kp->unwind, pid, err);
    kp->memory = memory;
    if (rc) {
        tf_kproc_free(kp);
        return rc;
    }
    *out = kp;
    return 0;
}

void tf_kproc_free(tf_kproc *kp)
{
    if (!kp)
        return;
    if (kp->pidfd >= 0)
        close(kp->pidfd);
    tf_kunwind_free(kp->unwind);
    tf_ea_decoder_free(kp->ea);
    for (unsigned i = 0; i < CODE_PAGES; i++)
        free(kp->code[i].bytes);
    free(kp);
}

/* A hash of the executable mappings of a /proc/PID/maps text: the lines
 * whose permissions (proc(5): "r-xp") allow execution.  The heap's and
 * other data mappings' bounds move all the time in a program that
 * allocates (brk, mmap of large blocks), and frame rules do not depend on
 * them. */
static uint64_t code_maps_hash(const char *maps, size_t len)
{
    uint64_t h = TF_FNV_OFFSET;
    for (size_t at = 0; at < len;) {
        const char *line = maps + at;
        const char *nl = memchr(line, '\n', len - at);
        size_t n = nl ? (size_t)(nl - line) + 1 : len - at;
        const char *perms = memchr(line, ' ', n);
        if (perms && (size_t)(perms - line) + 4 < n && perms[3] == 'x')
            h = tf_fnv_bytes(h, line, n);
        at += n;
    }
    return h;
}

/* The writer reads the maps every flush interval; the unwinder reports
 * them anew (and forgets its frame rules) only when the code mappings
 * changed. */
void tf_kproc_maps(tf_kproc *kp, const char *maps, size_t len)
{
    uint64_t h = code_maps_hash(maps, len);
    if (h != kp->maps_hash || !kp->maps_len)
        kp->maps_fresh = false;
    kp->maps = maps;
    kp->maps_len = len;
    kp->maps_hash = h;
}

const tf_kstats *tf_kproc_stats(tf_kproc *kp)
{
    kp->stats.dwfl_walks = tf_kunwind_dwfl_walks(kp->unwind);
    return &kp->stats;
}

int tf_kring_open(tf_kring **out, tf_kproc *kp, const tf_shm_kcapture *h, int64_t tid,
                  uint32_t nbase, uint32_t depth, tf_error *err)
{
    if (kp->pidfd < 0)
        return tf_fail(err, TF_ERR_UNSUPPORTED, "pidfd_open(%" PRId64 "): %s", kp->pid,
                       strerror(ESRCH));
    int fd = (int)syscall(SYS_pidfd_getfd, kp->pidfd, h->fd, 0);
    if (fd < 0)
        return tf_fail(err, TF_ERR_UNSUPPORTED, "pidfd_getfd(process %" PRId64 ", fd %d): %s",
                       kp->pid, (int)h->fd, strerror(errno));
    uint64_t id = 0;
    if (ioctl(fd, PERF_EVENT_IOC_ID, &id) || id != h->id) {
        close(fd);
        return tf_fail(err, TF_ERR_FORMAT, "process %" PRId64 " fd %d is not its thread %" PRId64
                       "'s sampling event", kp->pid, (int)h->fd, tid);
    }
    tf_kring *k = calloc(1, sizeof *k);
    void *map = MAP_FAILED;
    if (k)
        map = mmap(NULL, h->mmap_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int rc = 0;
    if (!k)
        rc = tf_fail(err, TF_ERR_NOMEM, "kernel ring of thread %" PRId64, tid);
    else if (map == MAP_FAILED)
        rc = tf_fail(err, TF_ERR_IO, "mmap of thread %" PRId64 "'s perf ring: %s", tid,
                     strerror(errno));
    else
        rc = tf_perf_ring_init(&k->ring, map, h->mmap_bytes, kp->page, err);
    if (rc) {
        if (map != MAP_FAILED)
            munmap(map, h->mmap_bytes);
        free(k);
        close(fd);
        return rc;
    }
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.sample_type = h->sample_type;
    a.read_format = h->read_format;
    a.sample_regs_user = h->regs_mask;
    tf_perf_layout_from_attr(&a, TF_SAMPLE_TIMER, &k->layout);
    k->kp = kp;
    k->fd = fd;
    k->map = map;
    k->map_len = h->mmap_bytes;
    k->tid = tid;
    k->ngroup0 = h->ngroup0 <= nbase ? h->ngroup0 : nbase;
    k->nbase = nbase;
    k->depth = depth;
    k->fs_base = h->fs_base;
    k->gs_base = h->gs_base;
    k->period = h->period_ns;
    k->jitter_pct = h->jitter_pct;
    k->rng = (uint64_t)tid * 0x9e3779b97f4a7c15ull ^ (uint64_t)time(NULL);
    if (!k->rng)
        k->rng = 1;
    *out = k;
    return 0;
}

void tf_kring_close(tf_kring *k)
{
    if (!k)
        return;
    tf_perf_ring_fini(&k->ring);
    munmap(k->map, k->map_len);
    close(k->fd);
    free(k);
}

bool tf_kring_quarter_full(const tf_kring *k)
{
    uint64_t head = __atomic_load_n(&k->ring.page->data_head, __ATOMIC_ACQUIRE);
    return (head - k->ring.page->data_tail) * 4 >= k->ring.size;
}

uint64_t tf_kring_lost(const tf_kring *k)
{
    return k->lost;
}

/* Registers of the sample, from perf's order (the bits of KREGS_X86_64 in
 * tf_capture_kernel.c: AX BX CX DX SI DI BP SP IP, then R8-R15). */
enum { P_AX, P_BX, P_CX, P_DX, P_SI, P_DI, P_BP, P_SP, P_IP, P_R8 };

static bool sample_regs(const tf_perf_sample *s, uint64_t dwarf[TF_KREGS_DWARF],
                        tf_ea_regs *ea, const tf_kring *k)
{
    /* PERF_SAMPLE_REGS_ABI_64; ABI_NONE: no user registers (a sample taken
     * where there is no user context). */
    if (!s->regs_user || s->regs_user_abi != PERF_SAMPLE_REGS_ABI_64 ||
        __builtin_popcountll(k->layout.sample_regs_user) < P_R8 + 8)
        return false;
    const uint64_t *r = s->regs_user;
    const uint64_t d[TF_KREGS_DWARF] = {r[P_AX], r[P_DX], r[P_CX], r[P_BX], r[P_SI], r[P_DI],
                                        r[P_BP], r[P_SP], r[P_R8], r[P_R8 + 1], r[P_R8 + 2],
                                        r[P_R8 + 3], r[P_R8 + 4], r[P_R8 + 5], r[P_R8 + 6],
                                        r[P_R8 + 7], r[P_IP]};
    memcpy(dwarf, d, sizeof d);
    memset(ea, 0, sizeof *ea);
    for (unsigned i = 0; i < 8; i++)
        ea->greg[TF_EA_R8 + i] = r[P_R8 + i];
    ea->greg[TF_EA_RDI] = r[P_DI];
    ea->greg[TF_EA_RSI] = r[P_SI];
    ea->greg[TF_EA_RBP] = r[P_BP];
    ea->greg[TF_EA_RBX] = r[P_BX];
    ea->greg[TF_EA_RDX] = r[P_DX];
    ea->greg[TF_EA_RAX] = r[P_AX];
    ea->greg[TF_EA_RCX] = r[P_CX];
    ea->greg[TF_EA_RSP] = r[P_SP];
    ea->greg[TF_EA_RIP] = r[P_IP];
    ea->fs_base = k->fs_base;
    ea->gs_base = k->gs_base;
    return true;
}

/* The page of code at addr from the file mapped there (maps text), for a
 * process that is gone. */
static bool code_from_file(const tf_kproc *kp, uint64_t addr, uint8_t *dst)
{
    const char *line = kp->maps, *end = kp->maps ? kp->maps + kp->maps_len : NULL;
    while (line && line < end) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
        char buf[4096 + 256];
        if (n < sizeof buf) {
            memcpy(buf, line, n);
            buf[n] = '\0';
            unsigned long long lo, hi, off;
            char perms[8];
            int path_at = 0;
            if (sscanf(buf, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms, &off, &path_at) == 4 &&
                path_at > 0 && buf[path_at] == '/' && addr >= lo && addr < hi) {
                int fd = open(buf + path_at, O_RDONLY | O_CLOEXEC);
                if (fd < 0)
                    return false;
                ssize_t got = pread(fd, dst, kp->page, (off_t)(off + (addr - lo)));
                close(fd);
                return got == (ssize_t)kp->page;
            }
        }
        line = nl ? nl + 1 : end;
    }
    return false;
}

/* The page of code at addr (page-aligned), cached: code rarely changes
 * under a running program (see tf_ea_decoder_forget_code for when it does;
 * the cache, like the decoder's plans, is not flushed then). */
static const uint8_t *code_page(tf_kproc *kp, uint64_t addr)
{
    unsigned slot = (unsigned)((addr / kp->page) % CODE_PAGES);
    if (kp->code[slot].addr == addr && kp->code[slot].bytes)
        return kp->code[slot].bytes;
    if (!kp->code[slot].bytes && !(kp->code[slot].bytes = malloc(kp->page)))
        return NULL;
    kp->code[slot].addr = 0;
    struct iovec local = {kp->code[slot].bytes, kp->page};
    struct iovec remote = {(void *)(uintptr_t)addr, kp->page};
    if (process_vm_readv((pid_t)kp->pid, &local, 1, &remote, 1, 0) != (ssize_t)kp->page &&
        !code_from_file(kp, addr, kp->code[slot].bytes))
        return NULL;
    kp->code[slot].addr = addr;
    return kp->code[slot].bytes;
}

/* Memory references of the instructions at and before the IP, as the
 * handler's software back end finds them (tf_memsampler_soft.c). */
/* The decoder, made at the first sample to decode: loading capstone
 * (capstone_load.h) and warming it up costs milliseconds that a run
 * without memory references to decode need not pay.  A decoder that
 * cannot be made is said once, and the process's samples are kept
 * without their memory references. */
static bool decoder(tf_kproc *kp)
{
    if (kp->ea)
        return true;
    tf_error err;
    tf_error_clear(&err);
    if (tf_ea_decoder_create(&kp->ea, &err) == 0)
        return true;
    kp->memory = false;
    fprintf(stderr, "tracefold record: process %" PRId64 ": %s; its memory references are not "
                    "recorded\n", kp->pid, err.msg);
    return false;
}

static void decode_memory(tf_kring *k, const tf_ea_regs *regs, const tf_sample *timer,
                          const uint64_t *ctr, const uint64_t *frames, uint32_t nframes)
{
    tf_kproc *kp = k->kp;
    uint64_t ip = regs->greg[TF_EA_RIP], page = ip & ~(uint64_t)(kp->page - 1);
    const uint8_t *p0 = code_page(kp, page);
    if (!p0)
        return;
    uint8_t two[2 * 4096];
    size_t len = kp->page;
    const uint8_t *code = p0;
    /* An x86 instruction is at most 15 bytes (Intel SDM vol. 2, 2.3.11):
     * only one starting that close to the page's end may continue on the
     * next; the copy of both pages costs a microsecond of cold memory. */
    if (ip - page + 15 > kp->page && 2 * kp->page <= sizeof two) {
        memcpy(two, p0, kp->page);
        const uint8_t *p1 = code_page(kp, page + kp->page);
        if (p1) {
            memcpy(two + kp->page, p1, kp->page);
            len = 2 * kp->page;
        }
        code = two;
    }
    tf_ea_result r[TF_EA_LIVE_MAX];
    unsigned n = tf_ea_decode_copy(kp->ea, regs, code, page, len, r);
    for (unsigned i = 0; i < n; i++)
        for (unsigned a = 0; a < r[i].naccess; a++) {
            tf_sample ms = *timer;
            tf_ea_to_sample(&r[i], a, &ms);
            k->fn(k->ctx, &ms, ctr, frames, nframes);
            kp->stats.memory++;
        }
}

static void on_record(void *ctx, const tf_perf_sample *p)
{
    tf_kring *k = ctx;
    tf_kproc *kp = k->kp;
    tf_sample s;
    memset(&s, 0, sizeof s);
    s.time = p->time;
    s.ip = p->ip;
    s.kind = TF_SAMPLE_TIMER;
    s.level = TF_LEVEL_UNKNOWN;
    uint64_t ctr[TF_SESSION_MAX_BASE];
    for (uint32_t i = 0; i < k->nbase; i++)
        ctr[i] = TF_NOVALUE;
    if (k->ngroup0) {
        /* read(2)'s PERF_FORMAT_GROUP layout, as tf_counter_group_values reads it. */
        uint64_t buf[3 + TF_PERF_MAX_READ];
        uint64_t nr = p->read_nr < TF_PERF_MAX_READ ? p->read_nr : TF_PERF_MAX_READ;
        buf[0] = nr;
        buf[1] = p->time_enabled;
        buf[2] = p->time_running;
        for (uint64_t i = 0; i < nr; i++)
            buf[3 + i] = p->read[i].value;
        tf_counter_group_values(buf, 3 + nr, k->ngroup0, k->last, ctr);
    }
    uint64_t frames[TF_KUNWIND_MAX];
    uint32_t nframes = 0, depth = k->depth < TF_KUNWIND_MAX ? k->depth : TF_KUNWIND_MAX;
    uint64_t dwarf[TF_KREGS_DWARF];
    tf_ea_regs regs;
    bool have_regs = sample_regs(p, dwarf, &regs, k);
    if (depth && have_regs && (kp->unwind || kp->fp)) {
        if (kp->unwind && !kp->maps_fresh) {
            tf_kunwind_maps(kp->unwind, kp->maps, kp->maps_len);
            kp->maps_fresh = true;
        }
        const uint8_t *stack = p->stack_user;
        size_t len = stack ? (size_t)p->stack_user_dyn_size : 0;
        if (len > p->stack_user_size)
            len = (size_t)p->stack_user_size;
        nframes = tf_kunwind_stack(kp->unwind, k->tid, dwarf, stack, len,
                                   kp->fp ? TF_KWALK_FP : TF_KWALK_CFI, frames, depth);
    } else if (depth) {
        frames[0] = p->ip;
        nframes = 1;
    }
    k->fn(k->ctx, &s, ctr, frames, nframes);
    kp->stats.samples++;
    if (kp->memory && have_regs && decoder(kp))
        decode_memory(k, &regs, &s, ctr, frames, nframes);
}

long tf_kring_drain(tf_kring *k, tf_ksample_fn fn, void *ctx)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
    k->fn = fn;
    k->ctx = ctx;
    tf_perf_drain_stats st;
    memset(&st, 0, sizeof st);
    long n = tf_perf_ring_drain(&k->ring, &k->layout, on_record, k, &st);
    k->lost += st.lost;
    k->kp->stats.lost += st.lost;
    k->kp->stats.malformed += st.malformed;
    k->since_redraw += st.samples;
    if (k->jitter_pct && k->since_redraw >= TF_REDRAW_EVERY) {
        uint64_t period = tf_jitter_draw(&k->rng, k->period, k->jitter_pct);
        ioctl(k->fd, PERF_EVENT_IOC_PERIOD, &period);
        k->since_redraw = 0;
    }
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
    k->kp->stats.cpu_ns += (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u +
                           (uint64_t)t1.tv_nsec - (uint64_t)t0.tv_nsec;
    return n;
}
