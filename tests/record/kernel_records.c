/* SPDX-License-Identifier: BSD-3-Clause */
/* Kernel capture's records against byte fixtures built from the layout of
 * perf_event_open(2) (PERF_RECORD_SAMPLE: ip, time, struct read_format,
 * regs_user { abi; regs[weight(mask)] }, stack_user { size; data[size];
 * dyn_size }; PERF_RECORD_LOST { id; lost }; "MMAP layout": records
 * wrapping at the end of the data area), exactly as tf_capture_kernel.c
 * opens its event: read_format GROUP | TOTAL_TIME_ENABLED |
 * TOTAL_TIME_RUNNING, registers AX..IP and R8..R15 (mask 0xff01ff), ABI 64.
 * Then the frame-pointer walk of tf_kunwind.c over a stack copy, the
 * software decoder on a copy of another process's code (tf_ea_decode_copy,
 * as the writer uses it) and the period draw the writer shares with the
 * handler. */
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "record/mem/ea_decode.h"
#include "record/mem/perf_records.h"
#include "record/writer/tf_writer.h"

#define SAMPLE_TYPE (PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_READ | \
                     PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER)
#define READ_FORMAT (PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | \
                     PERF_FORMAT_TOTAL_TIME_RUNNING)
#define REGS_MASK   0xff01ffull
#define NREGS       17
#define STACK_BYTES 64
#define STACK_DYN   48

/* perf register indices in the record (bit order of REGS_MASK). */
enum { P_AX, P_BX, P_CX, P_DX, P_SI, P_DI, P_BP, P_SP, P_IP, P_R8 };

static tf_perf_layout layout(void)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.sample_type = SAMPLE_TYPE;
    a.read_format = READ_FORMAT;
    a.sample_regs_user = REGS_MASK;
    tf_perf_layout l;
    tf_perf_layout_from_attr(&a, TF_SAMPLE_TIMER, &l);
    return l;
}

/* The body of one sample into w; returns its length in words.  Register i
 * holds 0x1000 + i; the stack bytes count from 0x40. */
static size_t sample_body(uint64_t *w, uint64_t ip, uint64_t time)
{
    size_t n = 0;
    w[n++] = ip;
    w[n++] = time;
    w[n++] = 4;               /* nr: three counters and the sampling event */
    w[n++] = 5000;            /* time_enabled */
    w[n++] = 4000;            /* time_running: scaled by 5/4 */
    w[n++] = 100;
    w[n++] = 200;
    w[n++] = 300;
    w[n++] = 999;
    w[n++] = PERF_SAMPLE_REGS_ABI_64;
    for (unsigned i = 0; i < NREGS; i++)
        w[n++] = 0x1000 + i;
    w[n++] = STACK_BYTES;
    uint8_t *stack = (uint8_t *)&w[n];
    for (unsigned i = 0; i < STACK_BYTES; i++)
        stack[i] = (uint8_t)(0x40 + i);
    n += STACK_BYTES / 8;
    w[n++] = STACK_DYN;
    return n;
}

static void sample_layout(void **state)
{
    (void)state;
    uint64_t w[64];
    size_t n = sample_body(w, 0x401000, 777);
    tf_perf_layout l = layout();
    tf_perf_sample s;
    assert_int_equal(tf_perf_parse_sample(&l, w, n * 8, &s), 0);
    assert_int_equal(s.ip, 0x401000);
    assert_int_equal(s.time, 777);
    assert_int_equal(s.read_nr, 4);
    assert_int_equal(s.time_enabled, 5000);
    assert_int_equal(s.time_running, 4000);
    assert_int_equal(s.read[0].value, 100);
    assert_int_equal(s.read[3].value, 999);
    assert_int_equal(s.regs_user_abi, PERF_SAMPLE_REGS_ABI_64);
    assert_non_null(s.regs_user);
    assert_int_equal(s.regs_user[P_SP], 0x1000 + P_SP);
    assert_int_equal(s.regs_user[P_IP], 0x1000 + P_IP);
    assert_int_equal(s.regs_user[P_R8 + 7], 0x1000 + 16);
    assert_int_equal(s.stack_user_size, STACK_BYTES);
    assert_int_equal(s.stack_user_dyn_size, STACK_DYN);
    assert_ptr_equal(s.stack_user, (const uint8_t *)&w[10 + NREGS + 1]);   /* after abi, regs, size */
    assert_int_equal(s.stack_user[0], 0x40);
    assert_int_equal(s.stack_user[STACK_BYTES - 1], 0x40 + STACK_BYTES - 1);
    /* Cut inside the stack copy, or before dyn_size: malformed. */
    assert_int_equal(tf_perf_parse_sample(&l, w, (n - 3) * 8, &s), -TF_ERR_FORMAT);
    assert_int_equal(tf_perf_parse_sample(&l, w, (n - 1) * 8, &s), -TF_ERR_FORMAT);
    /* A sample without user context: ABI_NONE and no registers, a stack
     * of size 0 without dyn_size. */
    uint64_t z[16] = {0x401000, 5, 4, 1, 1, 1, 2, 3, 4, PERF_SAMPLE_REGS_ABI_NONE, 0};
    assert_int_equal(tf_perf_parse_sample(&l, z, 11 * 8, &s), 0);
    assert_null(s.regs_user);
    assert_int_equal(s.stack_user_size, 0);
}

typedef struct seen {
    uint64_t ips[4], times[4];
    uint8_t  stack_last[4];
    int n;
} seen;

static void on_sample(void *ctx, const tf_perf_sample *s)
{
    seen *k = ctx;
    if (k->n < 4) {
        k->ips[k->n] = s->ip;
        k->times[k->n] = s->time;
        k->stack_last[k->n] = s->stack_user ? s->stack_user[STACK_BYTES - 1] : 0;
        k->n++;
    }
}

/* A ring of 2 data pages holding a LOST notice, a sample, and a second
 * sample that wraps around the end of the data area. */
static void ring_lost_and_wrap(void **state)
{
    (void)state;
    enum { PAGE = 4096, DATA = 2 * PAGE };
    uint8_t *map = aligned_alloc(PAGE, PAGE + DATA);
    assert_non_null(map);
    memset(map, 0, PAGE + DATA);
    struct perf_event_mmap_page *pg = (void *)map;
    pg->data_offset = PAGE;
    pg->data_size = DATA;
    uint8_t *data = map + PAGE;
    uint64_t body[64];
    size_t words = sample_body(body, 0x402000, 1000);
    struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, (uint16_t)(sizeof h + words * 8)};
    struct perf_event_header lost = {PERF_RECORD_LOST, 0, (uint16_t)(sizeof lost + 16)};
    /* Start near the end, so that the second sample straddles it. */
    uint64_t pos = DATA - lost.size - h.size - 40, start = pos;
    uint64_t lost_body[2] = {7, 13};
    uint8_t rec[1024];
    size_t len = 0;
    memcpy(rec + len, &lost, sizeof lost), len += sizeof lost;
    memcpy(rec + len, lost_body, 16), len += 16;
    memcpy(rec + len, &h, sizeof h), len += sizeof h;
    memcpy(rec + len, body, words * 8), len += words * 8;
    body[0] = 0x403000;
    body[1] = 2000;
    memcpy(rec + len, &h, sizeof h), len += sizeof h;
    memcpy(rec + len, body, words * 8), len += words * 8;
    for (size_t i = 0; i < len; i++)
        data[(pos + i) % DATA] = rec[i];
    pg->data_tail = start;
    pg->data_head = start + len;
    tf_perf_ring r;
    tf_error err;
    assert_int_equal(tf_perf_ring_init(&r, map, PAGE + DATA, PAGE, &err), 0);
    tf_perf_layout l = layout();
    tf_perf_drain_stats st;
    memset(&st, 0, sizeof st);
    seen k;
    memset(&k, 0, sizeof k);
    assert_int_equal(tf_perf_ring_drain(&r, &l, on_sample, &k, &st), 3);
    assert_int_equal(st.samples, 2);
    assert_int_equal(st.lost, 13);
    assert_int_equal(st.malformed, 0);
    assert_int_equal(k.n, 2);
    assert_int_equal(k.ips[0], 0x402000);
    assert_int_equal(k.ips[1], 0x403000);
    assert_int_equal(k.times[1], 2000);
    assert_int_equal(k.stack_last[1], 0x40 + STACK_BYTES - 1);   /* read across the wrap */
    assert_int_equal(pg->data_tail, start + len);
    tf_perf_ring_fini(&r);
    free(map);
}

/* dregs in DWARF order: 6 rbp, 7 rsp, 16 rip. */
static void fp_chain(void **state)
{
    (void)state;
    uint64_t stack[32];
    memset(stack, 0, sizeof stack);
    const uint64_t sp = 0x7ffd0000;
    uint64_t dregs[TF_KREGS_DWARF] = {0};
    dregs[7] = sp;
    dregs[6] = sp + 2 * 8;
    dregs[16] = 0x401111;
    stack[2] = sp + 6 * 8;     /* caller's rbp */
    stack[3] = 0x402222;       /* return address */
    stack[6] = sp + 12 * 8;
    stack[7] = 0x403333;
    stack[12] = sp + 64 * 8;   /* beyond the copy: the walk ends after this frame */
    stack[13] = 0x404444;
    uint64_t frames[8];
    uint32_t n = tf_kunwind_stack(NULL, 1, dregs, (const uint8_t *)stack, sizeof stack, TF_KWALK_FP,
                                  frames, 8);
    assert_int_equal(n, 4);
    assert_int_equal(frames[0], 0x401111);
    assert_int_equal(frames[1], 0x402222);
    assert_int_equal(frames[2], 0x403333);
    assert_int_equal(frames[3], 0x404444);
    /* Depth bounds the walk. */
    assert_int_equal(tf_kunwind_stack(NULL, 1, dregs, (const uint8_t *)stack, sizeof stack, TF_KWALK_FP,
                                      frames, 2), 2);
    /* A chain that goes down the stack (no frame pointer: rbp holds data)
     * stops after one return address. */
    stack[6] = sp;
    assert_int_equal(tf_kunwind_stack(NULL, 1, dregs, (const uint8_t *)stack, sizeof stack, TF_KWALK_FP,
                                      frames, 8), 3);
    /* rbp outside the copy: the interrupted instruction only. */
    dregs[6] = 0x1234;
    assert_int_equal(tf_kunwind_stack(NULL, 1, dregs, (const uint8_t *)stack, sizeof stack, TF_KWALK_FP,
                                      frames, 8), 1);
    /* No copy at all. */
    dregs[6] = sp + 2 * 8;
    assert_int_equal(tf_kunwind_stack(NULL, 1, dregs, NULL, 0, TF_KWALK_FP, frames, 8), 1);
}

/* A sample of this process, as a perf sample would carry it: the registers
 * in DWARF numbering and a copy of the stack from rsp up. */
typedef struct own_sample {
    uint64_t dregs[TF_KREGS_DWARF];
    uint8_t stack[8192];
    size_t len;
} own_sample;

#if defined(__x86_64__)
/* The stack holds other frames' locals, which a sanitizer build guards. */
__attribute__((no_sanitize("address")))
static void copy_stack(uint8_t *to, const volatile uint8_t *from, size_t len)
{
    for (size_t i = 0; i < len; i++)
        to[i] = from[i];
}

static __attribute__((noinline)) void capture(own_sample *s)
{
    uint64_t ip, sp, bp;
    __asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2"
                     : "=r"(ip), "=r"(sp), "=r"(bp));
    pthread_attr_t a;
    void *lo;
    size_t size;
    assert_int_equal(pthread_getattr_np(pthread_self(), &a), 0);
    assert_int_equal(pthread_attr_getstack(&a, &lo, &size), 0);
    pthread_attr_destroy(&a);
    uint64_t hi = (uint64_t)(uintptr_t)lo + size;
    s->len = hi - sp < sizeof s->stack ? (size_t)(hi - sp) : sizeof s->stack;
    copy_stack(s->stack, (const volatile uint8_t *)(uintptr_t)sp, s->len);
    s->dregs[16] = ip;
    s->dregs[7] = sp;
    s->dregs[6] = bp;
}

/* Frames without a frame pointer (CFA = rsp + n), then with one (CFA = rbp
 * + 16), so both kinds of rule are walked. */
static __attribute__((noinline)) int chain_sp(own_sample *s, int depth)
{
    if (!depth) {
        capture(s);
        return 0;
    }
    int r = chain_sp(s, depth - 1);
    __asm__ volatile("" ::: "memory");
    return r + 1;
}

static __attribute__((noinline, optimize("no-omit-frame-pointer"))) int chain_fp(own_sample *s,
                                                                                   int depth)
{
    if (!depth)
        return chain_sp(s, 3);
    volatile char pad[40];
    pad[0] = (char)depth;
    int r = chain_fp(s, depth - 1);
    return r + pad[0];
}

static char *own_maps(size_t *len)
{
    FILE *f = fopen("/proc/self/maps", "r");
    assert_non_null(f);
    char *text = NULL;
    size_t cap = 0, n = 0, got;
    do {
        if (cap - n < 4096) {
            cap = cap ? 2 * cap : 65536;
            text = realloc(text, cap);
            assert_non_null(text);
        }
        got = fread(text + n, 1, cap - n, f);
        n += got;
    } while (got);
    fclose(f);
    *len = n;
    return text;
}

/* The walk by frame rules gives libdwfl's stack, frame for frame: on the
 * whole copy, on copies cut short, at a bounded depth, and again once the
 * rules are learned -- and then without libdwfl. */
static void cfi_rules_match_libdwfl(void **state)
{
    (void)state;
    own_sample *s = calloc(1, sizeof *s);
    assert_non_null(s);
    chain_fp(s, 3);
    size_t maps_len;
    char *maps = own_maps(&maps_len);
    tf_kunwind *u;
    tf_error err;
    assert_int_equal(tf_kunwind_create(&u, getpid(), &err), 0);
    tf_kunwind_maps(u, maps, maps_len);
    const pid_t tid = (pid_t)syscall(SYS_gettid);
    uint64_t ref[64], got[64];
    const size_t lens[] = {s->len, s->len, 512, 200, 64, 0};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        for (uint32_t depth = 3; depth <= 64; depth += 61) {
            uint32_t nref = tf_kunwind_stack(u, tid, s->dregs, s->stack, lens[i], TF_KWALK_DWFL,
                                             ref, depth);
            uint64_t walks = tf_kunwind_dwfl_walks(u);
            uint32_t n = tf_kunwind_stack(u, tid, s->dregs, s->stack, lens[i], TF_KWALK_CFI, got,
                                          depth);
            assert_int_equal(n, nref);
            for (uint32_t f = 0; f < n; f++)
                assert_int_equal(got[f], ref[f]);
            if (i == 1)    /* the rules learned on the first pass serve alone */
                assert_int_equal(tf_kunwind_dwfl_walks(u), walks);
        }
    }
    /* The whole copy reaches capture, 3 chain_sp, chain_sp(0)'s caller
     * chain_fp(0), 3 more chain_fp and this test. */
    assert_true(tf_kunwind_stack(u, tid, s->dregs, s->stack, s->len, TF_KWALK_CFI, got, 64) >= 10);
    tf_kunwind_free(u);
    free(maps);
    free(s);
}
#else
static void cfi_rules_match_libdwfl(void **state)
{
    (void)state;
    skip();    /* kernel capture's registers are x86-64's */
}
#endif

/* mov (%rax),%rbx at 0x400100 of a page of nops, decoded from a copy. */
static void decode_from_copy(void **state)
{
    (void)state;
    uint8_t page[8192];
    memset(page, 0x90, sizeof page);
    static const uint8_t mov[] = {0x48, 0x8b, 0x18};
    memcpy(page + 0x100, mov, sizeof mov);
    tf_ea_decoder *d;
    tf_error err;
    assert_int_equal(tf_ea_decoder_create(&d, &err), 0);
    tf_ea_regs regs;
    memset(&regs, 0, sizeof regs);
    regs.greg[TF_EA_RAX] = 0x12340;
    regs.greg[TF_EA_RIP] = 0x400100;
    tf_ea_result r[TF_EA_LIVE_MAX];
    assert_int_equal(tf_ea_decode_copy(d, &regs, page, 0x400000, sizeof page, r), 1);
    assert_int_equal(r[0].ip, 0x400100);
    assert_int_equal(r[0].naccess, 1);
    assert_int_equal(r[0].access[0].addr, 0x12340);
    assert_int_equal(r[0].access[0].dir, TF_EA_READ);
    /* The same IP again: the plan is kept, new registers give a new address. */
    regs.greg[TF_EA_RAX] = 0x55550;
    assert_int_equal(tf_ea_decode_copy(d, &regs, page, 0x400000, sizeof page, r), 1);
    assert_int_equal(r[0].access[0].addr, 0x55550);
    /* An IP the copy does not cover is not decoded (nothing is read
     * from this process's memory at that address). */
    regs.greg[TF_EA_RIP] = 0x900100;
    assert_int_equal(tf_ea_decode_copy(d, &regs, page, 0x400000, sizeof page, r), 0);
    tf_ea_decoder_free(d);
}

static void jitter_draws(void **state)
{
    (void)state;
    uint64_t rng = 12345, lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < 10000; i++) {
        uint64_t p = tf_jitter_draw(&rng, 5000000, 10);
        lo = p < lo ? p : lo;
        hi = p > hi ? p : hi;
    }
    assert_true(lo >= 4500000 && hi <= 5500000);
    assert_true(lo < 4550000 && hi > 5450000);   /* the whole range is used */
    assert_int_equal(tf_jitter_draw(&rng, 5000000, 0), 5000000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sample_layout),
        cmocka_unit_test(ring_lost_and_wrap),
        cmocka_unit_test(fp_chain),
        cmocka_unit_test(cfi_rules_match_libdwfl),
        cmocka_unit_test(decode_from_copy),
        cmocka_unit_test(jitter_draws),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
