/* SPDX-License-Identifier: BSD-3-Clause */
/* perf ring-buffer decoding against byte fixtures built in the test from
 * the layout documented in linux/perf_event.h (PERF_RECORD_SAMPLE field
 * order, struct read_format, perf_event_mmap_page, PERF_RECORD_LOST and
 * PERF_RECORD_LOST_SAMPLES), and the data-source decoding. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "record/mem/data_source.h"
#include "record/mem/perf_records.h"

/* ---- record builder --------------------------------------------------- */

typedef struct rec {
    uint64_t words[512];   /* 8-byte aligned body */
    size_t   len;          /* bytes */
} rec;

static void put(rec *r, const void *p, size_t n)
{
    memcpy((uint8_t *)r->words + r->len, p, n);
    r->len += n;
}

static void u64(rec *r, uint64_t v) { put(r, &v, 8); }

static void u32x2(rec *r, uint32_t a, uint32_t b)
{
    put(r, &a, 4);
    put(r, &b, 4);
}

/* Distinct values per field, so that a field read from the wrong place
 * shows up. */
enum {
    V_IDENT = 0x1d, V_IP = 0x401234, V_PID = 77, V_TID = 78, V_TIME = 123456789,
    V_ADDR = 0x7fff0000, V_ID = 0x1e, V_STREAM = 0x5e, V_CPU = 3, V_PERIOD = 10007,
    V_DATA_SRC = 0x1234, V_TRANS = 0x7a, V_PHYS = 0xabc000, V_CGROUP = 0xc6,
    V_DPAGE = 4096, V_CPAGE = 2097152,
};

/* A sample with every field of sample_type t, in the ABI order; READ with
 * read_format rf (group of 3 when PERF_FORMAT_GROUP), a 3-frame call
 * chain, 12 raw bytes, 2 branches with hw_idx, 3 user registers, 16 bytes
 * of user stack, weight w, 8 bytes of aux data. */
static void build(rec *r, uint64_t t, uint64_t rf, uint64_t w)
{
    r->len = 0;
    if (t & PERF_SAMPLE_IDENTIFIER) u64(r, V_IDENT);
    if (t & PERF_SAMPLE_IP)         u64(r, V_IP);
    if (t & PERF_SAMPLE_TID)        u32x2(r, V_PID, V_TID);
    if (t & PERF_SAMPLE_TIME)       u64(r, V_TIME);
    if (t & PERF_SAMPLE_ADDR)       u64(r, V_ADDR);
    if (t & PERF_SAMPLE_ID)         u64(r, V_ID);
    if (t & PERF_SAMPLE_STREAM_ID)  u64(r, V_STREAM);
    if (t & PERF_SAMPLE_CPU)        u32x2(r, V_CPU, 0);
    if (t & PERF_SAMPLE_PERIOD)     u64(r, V_PERIOD);
    if (t & PERF_SAMPLE_READ) {
        unsigned nr = (rf & PERF_FORMAT_GROUP) ? 3 : 1;
        if (rf & PERF_FORMAT_GROUP) u64(r, nr);
        else u64(r, 1000);
        if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) u64(r, 500);
        if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) u64(r, 400);
        for (unsigned i = 0; i < nr; i++) {
            if (rf & PERF_FORMAT_GROUP) u64(r, 1000 + i);
            if (rf & PERF_FORMAT_ID) u64(r, 50 + i);
            if (rf & PERF_FORMAT_LOST) u64(r, 7 + i);
        }
    }
    if (t & PERF_SAMPLE_CALLCHAIN) {
        u64(r, 3);
        u64(r, 0x1111); u64(r, 0x2222); u64(r, 0x3333);
    }
    if (t & PERF_SAMPLE_RAW) {
        uint32_t size = 12;
        put(r, &size, 4);
        put(r, "raw-payload!", 12);
    }
    if (t & PERF_SAMPLE_BRANCH_STACK) {
        u64(r, 2);
        u64(r, 99);   /* hw_idx (PERF_SAMPLE_BRANCH_HW_INDEX) */
        for (int i = 0; i < 6; i++) u64(r, 0xb0 + i);
    }
    if (t & PERF_SAMPLE_REGS_USER) {
        u64(r, PERF_SAMPLE_REGS_ABI_64);
        u64(r, 0xa0); u64(r, 0xa1); u64(r, 0xa2);
    }
    if (t & PERF_SAMPLE_STACK_USER) {
        u64(r, 16);
        u64(r, 0x5151); u64(r, 0x5252);
        u64(r, 12);   /* dyn_size */
    }
    if (t & PERF_SAMPLE_WEIGHT_TYPE) u64(r, w);
    if (t & PERF_SAMPLE_DATA_SRC)    u64(r, V_DATA_SRC);
    if (t & PERF_SAMPLE_TRANSACTION) u64(r, V_TRANS);
    if (t & PERF_SAMPLE_REGS_INTR)   u64(r, PERF_SAMPLE_REGS_ABI_NONE);
    if (t & PERF_SAMPLE_PHYS_ADDR)   u64(r, V_PHYS);
    if (t & PERF_SAMPLE_CGROUP)      u64(r, V_CGROUP);
    if (t & PERF_SAMPLE_DATA_PAGE_SIZE) u64(r, V_DPAGE);
    if (t & PERF_SAMPLE_CODE_PAGE_SIZE) u64(r, V_CPAGE);
    if (t & PERF_SAMPLE_AUX) {
        u64(r, 8);
        u64(r, 0xa0a0);
    }
}

static tf_perf_layout layout(uint64_t t, uint64_t rf)
{
    return (tf_perf_layout){ .sample_type = t, .read_format = rf,
                             .branch_sample_type = PERF_SAMPLE_BRANCH_HW_INDEX,
                             .sample_regs_user = 0x7, .sample_regs_intr = 0x3,
                             .kind = TF_SAMPLE_LOAD };
}

/* Checks every field present in t; line is the caller's. */
static void check_fields(int line, const tf_perf_sample *s, uint64_t t, uint64_t rf, uint64_t w)
{
#define EXPECT(cond) do { if (!(cond)) fail_msg("line %d: sample_type %#llx: %s", line, \
                                                (unsigned long long)t, #cond); } while (0)
    if (t & PERF_SAMPLE_IDENTIFIER) EXPECT(s->identifier == V_IDENT);
    if (t & PERF_SAMPLE_IP)         EXPECT(s->ip == V_IP);
    if (t & PERF_SAMPLE_TID)        EXPECT(s->pid == V_PID && s->tid == V_TID);
    if (t & PERF_SAMPLE_TIME)       EXPECT(s->time == V_TIME);
    if (t & PERF_SAMPLE_ADDR)       EXPECT(s->addr == V_ADDR);
    if (t & PERF_SAMPLE_ID)         EXPECT(s->id == V_ID);
    if (t & PERF_SAMPLE_STREAM_ID)  EXPECT(s->stream_id == V_STREAM);
    if (t & PERF_SAMPLE_CPU)        EXPECT(s->cpu == V_CPU);
    if (t & PERF_SAMPLE_PERIOD)     EXPECT(s->period == V_PERIOD);
    if (t & PERF_SAMPLE_READ) {
        if (rf & PERF_FORMAT_GROUP) {
            EXPECT(s->read_nr == 3 && s->read[2].value == 1002);
            if (rf & PERF_FORMAT_ID) EXPECT(s->read[1].id == 51);
            if (rf & PERF_FORMAT_LOST) EXPECT(s->read[2].lost == 9);
        } else {
            EXPECT(s->read_nr == 1 && s->read[0].value == 1000);
            if (rf & PERF_FORMAT_ID) EXPECT(s->read[0].id == 50);
        }
        if (rf & PERF_FORMAT_TOTAL_TIME_ENABLED) EXPECT(s->time_enabled == 500);
        if (rf & PERF_FORMAT_TOTAL_TIME_RUNNING) EXPECT(s->time_running == 400);
    }
    if (t & PERF_SAMPLE_CALLCHAIN)
        EXPECT(s->callchain_nr == 3 && s->callchain[0] == 0x1111 && s->callchain[2] == 0x3333);
    if (t & PERF_SAMPLE_RAW)
        EXPECT(s->raw_size == 12 && memcmp(s->raw, "raw-payload!", 12) == 0);
    if (t & PERF_SAMPLE_BRANCH_STACK) EXPECT(s->branch_nr == 2);
    if (t & PERF_SAMPLE_REGS_USER)
        EXPECT(s->regs_user_abi == PERF_SAMPLE_REGS_ABI_64 && s->regs_user[2] == 0xa2);
    if (t & PERF_SAMPLE_STACK_USER)
        EXPECT(s->stack_user_size == 16 && s->stack_user_dyn_size == 12);
    if (t & PERF_SAMPLE_WEIGHT_STRUCT)
        EXPECT(s->weight == (w & 0xffffffff) && s->weight_var2 == (uint16_t)(w >> 32) &&
               s->weight_var3 == (uint16_t)(w >> 48));
    else if (t & PERF_SAMPLE_WEIGHT)
        EXPECT(s->weight == w);
    if (t & PERF_SAMPLE_DATA_SRC)    EXPECT(s->data_src == V_DATA_SRC);
    if (t & PERF_SAMPLE_TRANSACTION) EXPECT(s->transaction == V_TRANS);
    if (t & PERF_SAMPLE_REGS_INTR)
        EXPECT(s->regs_intr_abi == PERF_SAMPLE_REGS_ABI_NONE && s->regs_intr == NULL);
    if (t & PERF_SAMPLE_PHYS_ADDR)   EXPECT(s->phys_addr == V_PHYS);
    if (t & PERF_SAMPLE_CGROUP)      EXPECT(s->cgroup == V_CGROUP);
    if (t & PERF_SAMPLE_DATA_PAGE_SIZE) EXPECT(s->data_page_size == V_DPAGE);
    if (t & PERF_SAMPLE_CODE_PAGE_SIZE) EXPECT(s->code_page_size == V_CPAGE);
    if (t & PERF_SAMPLE_AUX) EXPECT(s->aux_size == 8);
#undef EXPECT
}

static const uint64_t all_fields[] = {
    PERF_SAMPLE_IDENTIFIER, PERF_SAMPLE_IP, PERF_SAMPLE_TID, PERF_SAMPLE_TIME,
    PERF_SAMPLE_ADDR, PERF_SAMPLE_ID, PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
    PERF_SAMPLE_PERIOD, PERF_SAMPLE_READ, PERF_SAMPLE_CALLCHAIN, PERF_SAMPLE_RAW,
    PERF_SAMPLE_BRANCH_STACK, PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER,
    PERF_SAMPLE_WEIGHT, PERF_SAMPLE_DATA_SRC, PERF_SAMPLE_TRANSACTION,
    PERF_SAMPLE_REGS_INTR, PERF_SAMPLE_PHYS_ADDR, PERF_SAMPLE_CGROUP,
    PERF_SAMPLE_DATA_PAGE_SIZE, PERF_SAMPLE_CODE_PAGE_SIZE, PERF_SAMPLE_AUX,
};
#define NFIELDS (sizeof all_fields / sizeof all_fields[0])

static const uint64_t read_formats[] = {
    0, PERF_FORMAT_ID,
    PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING | PERF_FORMAT_ID,
    PERF_FORMAT_GROUP, PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_LOST,
    PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING |
        PERF_FORMAT_ID | PERF_FORMAT_LOST,
};

static void parse_and_check(int line, uint64_t t, uint64_t rf, uint64_t w)
{
    rec r;
    build(&r, t, rf, w);
    tf_perf_layout l = layout(t, rf);
    tf_perf_sample s;
    if (tf_perf_parse_sample(&l, r.words, r.len, &s) != 0)
        fail_msg("line %d: sample_type %#llx read_format %#llx: rejected", line,
                 (unsigned long long)t, (unsigned long long)rf);
    check_fields(line, &s, t, rf, w);
    /* Every byte is needed: one word less is a truncated record. */
    if (r.len && tf_perf_parse_sample(&l, r.words, r.len - 8, &s) != -TF_ERR_FORMAT)
        fail_msg("line %d: sample_type %#llx: truncated record accepted", line,
                 (unsigned long long)t);
}

/* Each field alone, each field with all those before it (in ABI order),
 * all fields with each other field left out, all fields with the weight
 * struct, and every read_format with READ. */
static void test_field_combinations(void **state)
{
    uint64_t all = 0;
    for (size_t i = 0; i < NFIELDS; i++)
        all |= all_fields[i];
    uint64_t prefix = 0;
    for (size_t i = 0; i < NFIELDS; i++) {
        prefix |= all_fields[i];
        parse_and_check(__LINE__, all_fields[i], PERF_FORMAT_ID, 42);
        parse_and_check(__LINE__, prefix, PERF_FORMAT_GROUP | PERF_FORMAT_ID, 42);
        parse_and_check(__LINE__, all & ~all_fields[i], PERF_FORMAT_ID, 42);
    }
    uint64_t wstruct = (all & ~PERF_SAMPLE_WEIGHT) | PERF_SAMPLE_WEIGHT_STRUCT;
    parse_and_check(__LINE__, wstruct, 0, 0x0003000200000190ull);
    for (size_t i = 0; i < sizeof read_formats / sizeof read_formats[0]; i++) {
        parse_and_check(__LINE__, PERF_SAMPLE_READ, read_formats[i], 0);
        parse_and_check(__LINE__, all, read_formats[i], 0);
    }
}

/* A PEBS load sample as perf mem asks for it, written word by word. */
static void test_pebs_load_words(void **state)
{
    uint64_t src = PERF_MEM_S(OP, LOAD) | PERF_MEM_S(LVL, HIT) | PERF_MEM_S(LVL, L3) |
                   PERF_MEM_S(SNOOP, NONE) | PERF_MEM_S(TLB, L1) | PERF_MEM_S(TLB, HIT) |
                   PERF_MEM_S(LVLNUM, L3);
    const uint64_t body[] = {
        0x401000,                        /* ip */
        ((uint64_t)4242 << 32) | 4241,   /* pid 4241, tid 4242 */
        1000000,                         /* time */
        0x7f00001000,                    /* addr */
        87,                              /* weight: 87 cycles */
        src,                             /* data_src */
    };
    tf_perf_layout l = { .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                        PERF_SAMPLE_ADDR | PERF_SAMPLE_WEIGHT |
                                        PERF_SAMPLE_DATA_SRC,
                         .kind = TF_SAMPLE_LOAD };
    tf_perf_sample p;
    assert_int_equal(tf_perf_parse_sample(&l, body, sizeof body, &p), 0);
    assert_int_equal(p.pid, 4241);
    assert_int_equal(p.tid, 4242);
    tf_sample s = { 0 };
    tf_perf_to_tf_sample(&l, &p, &s);
    assert_int_equal(s.kind, TF_SAMPLE_LOAD);
    assert_int_equal(s.ip, 0x401000);
    assert_int_equal(s.addr, 0x7f00001000);
    assert_int_equal(s.weight, 87);
    assert_int_equal(s.time, 1000000);
    assert_int_equal(s.level, TF_LEVEL_L3);
    assert_int_equal(s.flags, 0);
    assert_int_equal(s.data_source, src);
}

/* ---- data source ---------------------------------------------------------- */

typedef struct src_case {
    int      line;
    uint64_t src;
    uint8_t  level;
    uint8_t  flags;    /* tf_mem_source_flags */
    uint8_t  op;
} src_case;

#define LD PERF_MEM_S(OP, LOAD)
#define ST PERF_MEM_S(OP, STORE)
#define HIT PERF_MEM_S(LVL, HIT)
#define MISS PERF_MEM_S(LVL, MISS)
#define TLB_HIT (PERF_MEM_S(TLB, HIT) | PERF_MEM_S(TLB, L1))
#define TLB_MISS (PERF_MEM_S(TLB, MISS) | PERF_MEM_S(TLB, L1) | PERF_MEM_S(TLB, WK))
#define REMOTE PERF_MEM_S(REMOTE, REMOTE)

static const src_case src_cases[] = {
    /* Intel PEBS load latency, mem_lvl bits (all kernels). */
    { __LINE__, LD | HIT | PERF_MEM_S(LVL, L1) | TLB_HIT, TF_LEVEL_L1, 0, TF_MEM_OP_LOAD },
    { __LINE__, LD | HIT | PERF_MEM_S(LVL, LFB), TF_LEVEL_LFB, 0, TF_MEM_OP_LOAD },
    { __LINE__, LD | HIT | PERF_MEM_S(LVL, L2) | TLB_MISS, TF_LEVEL_L2, TF_SAMPLE_TLB_MISS,
      TF_MEM_OP_LOAD },
    { __LINE__, LD | HIT | PERF_MEM_S(LVL, L3) | PERF_MEM_S(SNOOP, HITM), TF_LEVEL_L3, 0,
      TF_MEM_OP_LOAD },
    { __LINE__, LD | HIT | PERF_MEM_S(LVL, LOC_RAM), TF_LEVEL_DRAM, 0, TF_MEM_OP_LOAD },
    { __LINE__, LD | HIT | PERF_MEM_S(LVL, REM_RAM1), TF_LEVEL_REMOTE_DRAM_1, 0,
      TF_MEM_OP_LOAD },
    { __LINE__, LD | HIT | PERF_MEM_S(LVL, REM_RAM2), TF_LEVEL_REMOTE_DRAM_2, 0,
      TF_MEM_OP_LOAD },
    { __LINE__, LD | HIT | PERF_MEM_S(LVL, REM_CCE1), TF_LEVEL_REMOTE_CACHE_1, 0,
      TF_MEM_OP_LOAD },
    { __LINE__, LD | HIT | PERF_MEM_S(LVL, REM_CCE2), TF_LEVEL_REMOTE_CACHE_2, 0,
      TF_MEM_OP_LOAD },
    { __LINE__, LD | HIT | PERF_MEM_S(LVL, UNC), TF_LEVEL_UNCACHED, 0, TF_MEM_OP_LOAD },
    { __LINE__, LD | HIT | PERF_MEM_S(LVL, IO), TF_LEVEL_UNCACHED, 0, TF_MEM_OP_LOAD },
    /* Level numbers (newer kernels; AMD IBS), with remote and hops. */
    { __LINE__, LD | HIT | PERF_MEM_S(LVLNUM, L2), TF_LEVEL_L2, 0, TF_MEM_OP_LOAD },
    { __LINE__, LD | HIT | PERF_MEM_S(LVLNUM, RAM), TF_LEVEL_DRAM, 0, TF_MEM_OP_LOAD },
    { __LINE__, LD | HIT | PERF_MEM_S(LVLNUM, RAM) | REMOTE | PERF_MEM_S(HOPS, 1),
      TF_LEVEL_REMOTE_DRAM_1, 0, TF_MEM_OP_LOAD },
    { __LINE__, LD | HIT | PERF_MEM_S(LVLNUM, RAM) | REMOTE | PERF_MEM_S(HOPS, 2),
      TF_LEVEL_REMOTE_DRAM_2, 0, TF_MEM_OP_LOAD },
    { __LINE__, LD | HIT | PERF_MEM_S(LVLNUM, ANY_CACHE) | REMOTE | PERF_MEM_S(HOPS, 0),
      TF_LEVEL_REMOTE_CACHE_1, 0, TF_MEM_OP_LOAD },
    { __LINE__, LD | HIT | PERF_MEM_S(LVLNUM, ANY_CACHE) | REMOTE | PERF_MEM_S(HOPS, 3),
      TF_LEVEL_REMOTE_CACHE_2, 0, TF_MEM_OP_LOAD },
    { __LINE__, LD | HIT | PERF_MEM_S(LVLNUM, LFB), TF_LEVEL_LFB, 0, TF_MEM_OP_LOAD },
    /* lvl_num wins over mem_lvl bits when both are given. */
    { __LINE__, LD | HIT | PERF_MEM_S(LVL, L3) | PERF_MEM_S(LVLNUM, L3), TF_LEVEL_L3, 0,
      TF_MEM_OP_LOAD },
    /* Intel store sampling: L1 hit or miss only. */
    { __LINE__, ST | HIT | PERF_MEM_S(LVL, L1) | TLB_HIT, TF_LEVEL_L1, TF_SAMPLE_HIT,
      TF_MEM_OP_STORE },
    { __LINE__, ST | MISS | PERF_MEM_S(LVL, L1) | TLB_MISS, TF_LEVEL_UNKNOWN,
      TF_SAMPLE_TLB_MISS, TF_MEM_OP_STORE },
    /* Nothing known. */
    { __LINE__, PERF_MEM_S(OP, NA) | PERF_MEM_S(LVL, NA) | PERF_MEM_S(TLB, NA) |
      PERF_MEM_S(LVLNUM, NA), TF_LEVEL_UNKNOWN, 0, TF_MEM_OP_UNKNOWN },
    { __LINE__, 0, TF_LEVEL_UNKNOWN, 0, TF_MEM_OP_UNKNOWN },
};

static void test_data_source_levels(void **state)
{
    for (size_t i = 0; i < sizeof src_cases / sizeof src_cases[0]; i++) {
        const src_case *c = &src_cases[i];
        tf_mem_source m;
        tf_mem_source_decode(c->src, &m);
        uint8_t flags = tf_mem_source_flags(&m);
        if (m.level != c->level || flags != c->flags || m.op != c->op)
            fail_msg("line %d: data_src %#llx: level %u (%s) flags %#x op %u, expected %u (%s) "
                     "%#x %u", c->line, (unsigned long long)c->src, m.level,
                     tf_mem_level_name(m.level), flags, m.op, c->level,
                     tf_mem_level_name(c->level), c->flags, c->op);
    }
    assert_string_equal(tf_mem_level_name(TF_LEVEL_LFB), "LFB");
    assert_string_equal(tf_mem_level_name(200), "unknown");
}

/* IBS op samples: one event gives loads and stores, told apart by the
 * data source's operation; the latency is in the weight. */
static void test_ibs_records(void **state)
{
    tf_perf_layout l = { .sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                        PERF_SAMPLE_ADDR | PERF_SAMPLE_CPU |
                                        PERF_SAMPLE_WEIGHT_STRUCT | PERF_SAMPLE_DATA_SRC |
                                        PERF_SAMPLE_PHYS_ADDR,
                         .kind = TF_SAMPLE_LOAD };
    struct { uint64_t src; uint8_t kind, level, flags; } ops[] = {
        { LD | HIT | PERF_MEM_S(LVLNUM, L2) | TLB_HIT, TF_SAMPLE_LOAD, TF_LEVEL_L2, 0 },
        { ST | HIT | PERF_MEM_S(LVLNUM, L1) | TLB_MISS, TF_SAMPLE_STORE, TF_LEVEL_L1,
          TF_SAMPLE_TLB_MISS | TF_SAMPLE_HIT },
        { LD | HIT | PERF_MEM_S(LVLNUM, RAM) | REMOTE | PERF_MEM_S(HOPS, 2), TF_SAMPLE_LOAD,
          TF_LEVEL_REMOTE_DRAM_2, 0 },
        /* No operation reported: the event's kind. */
        { PERF_MEM_S(OP, NA), TF_SAMPLE_LOAD, TF_LEVEL_UNKNOWN, 0 },
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        rec r = { .len = 0 };
        u64(&r, 0x400100 + i);               /* ip */
        u32x2(&r, 10, 11);                   /* pid, tid */
        u64(&r, 5000 + i);                   /* time */
        u64(&r, 0x600000 + 64 * i);          /* addr */
        u32x2(&r, 2, 0);                     /* cpu, res */
        u64(&r, ((uint64_t)9 << 32) | 250);  /* weight: var1_dw 250, var2_w 9 */
        u64(&r, ops[i].src);                 /* data_src */
        u64(&r, 0x12345000);                 /* phys_addr */
        tf_perf_sample p;
        assert_int_equal(tf_perf_parse_sample(&l, r.words, r.len, &p), 0);
        assert_int_equal(p.cpu, 2);
        assert_int_equal(p.phys_addr, 0x12345000);
        assert_int_equal(p.weight_var2, 9);
        tf_sample s;
        tf_perf_to_tf_sample(&l, &p, &s);
        assert_int_equal(s.kind, ops[i].kind);
        assert_int_equal(s.level, ops[i].level);
        assert_int_equal(s.flags, ops[i].flags);
        assert_int_equal(s.weight, 250);
        assert_int_equal(s.addr, 0x600000 + 64 * i);
    }
}

/* ---- ring buffer ---------------------------------------------------------- */

#define PAGE 4096
#define DATA (2 * PAGE)

typedef struct ring_fixture {
    uint8_t *mem;            /* metadata page + data area */
    tf_perf_ring ring;
    uint64_t head;           /* producer position */
} ring_fixture;

static void ring_open(ring_fixture *f, uint64_t start)
{
    f->mem = aligned_alloc(PAGE, PAGE + DATA);
    assert_non_null(f->mem);
    memset(f->mem, 0xee, PAGE + DATA);
    struct perf_event_mmap_page *pg = (void *)f->mem;
    memset(pg, 0, sizeof *pg);
    pg->data_offset = PAGE;
    pg->data_size = DATA;
    pg->data_head = pg->data_tail = start;
    f->head = start;
    tf_error err;
    assert_int_equal(tf_perf_ring_init(&f->ring, f->mem, PAGE + DATA, PAGE, &err), 0);
}

static void ring_close(ring_fixture *f)
{
    tf_perf_ring_fini(&f->ring);
    free(f->mem);
}

/* Writes header + body at the producer position, wrapping like the kernel. */
static void ring_write(ring_fixture *f, uint32_t type, const void *body, size_t len)
{
    struct perf_event_header h = { .type = type, .misc = PERF_RECORD_MISC_USER,
                                   .size = (uint16_t)(sizeof h + len) };
    uint8_t tmp[1024];
    memcpy(tmp, &h, sizeof h);
    memcpy(tmp + sizeof h, body, len);
    for (size_t i = 0; i < h.size; i++)
        f->mem[PAGE + ((f->head + i) & (DATA - 1))] = tmp[i];
    f->head += h.size;
}

static void ring_publish(ring_fixture *f)
{
    ((struct perf_event_mmap_page *)f->mem)->data_head = f->head;
}

typedef struct seen {
    int n;
    tf_perf_sample s[8];
} seen;

static void collect(void *ctx, const tf_perf_sample *s)
{
    seen *v = ctx;
    if (v->n < 8)
        v->s[v->n] = *s;
    v->n++;
}

static const uint64_t ring_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
                                  PERF_SAMPLE_ADDR | PERF_SAMPLE_CALLCHAIN |
                                  PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC;

static void test_ring_in_order(void **state)
{
    ring_fixture f;
    ring_open(&f, 0);
    tf_perf_layout l = layout(ring_type, 0);
    rec r;
    build(&r, ring_type, 0, 11);
    for (int i = 0; i < 3; i++)
        ring_write(&f, PERF_RECORD_SAMPLE, r.words, r.len);
    ring_publish(&f);
    seen v = { 0 };
    tf_perf_drain_stats st = { 0 };
    assert_int_equal(tf_perf_ring_drain(&f.ring, &l, collect, &v, &st), 3);
    assert_int_equal(v.n, 3);
    assert_int_equal(st.samples, 3);
    check_fields(__LINE__, &v.s[2], ring_type, 0, 11);
    assert_int_equal(f.ring.page->data_tail, f.head);
    /* Nothing new: nothing read. */
    assert_int_equal(tf_perf_ring_drain(&f.ring, &l, collect, &v, &st), 0);
    ring_close(&f);
}

/* Records split at the end of the data area, at every 8-byte offset of
 * the split, with positions past 2^32 (data_head never wraps). */
static void test_ring_wraparound(void **state)
{
    tf_perf_layout l = layout(ring_type, 0);
    rec r;
    build(&r, ring_type, 0, 11);
    size_t size = sizeof(struct perf_event_header) + r.len;
    for (size_t split = 0; split <= size; split += 8) {
        ring_fixture f;
        uint64_t start = (5ull << 32) + DATA - split;
        ring_open(&f, start);
        ring_write(&f, PERF_RECORD_SAMPLE, r.words, r.len);
        ring_write(&f, PERF_RECORD_SAMPLE, r.words, r.len);
        ring_publish(&f);
        seen v = { 0 };
        tf_perf_drain_stats st = { 0 };
        if (tf_perf_ring_drain(&f.ring, &l, collect, &v, &st) != 2 || v.n != 2)
            fail_msg("split at %zu bytes: %d samples", split, v.n);
        check_fields(__LINE__, &v.s[0], ring_type, 0, 11);
        check_fields(__LINE__, &v.s[1], ring_type, 0, 11);
        assert_int_equal(f.ring.page->data_tail, start + 2 * size);
        ring_close(&f);
    }
}

static void test_ring_lost_notices(void **state)
{
    ring_fixture f;
    ring_open(&f, DATA - 16);
    tf_perf_layout l = layout(ring_type, 0);
    rec r;
    build(&r, ring_type, 0, 11);
    const uint64_t lost[] = { 0x99 /* id */, 17 /* lost */ };
    const uint64_t lost_samples[] = { 5 };
    const uint32_t throttle[] = { 1, 2, 3, 4, 5, 6 };   /* time, id, stream_id */
    ring_write(&f, PERF_RECORD_SAMPLE, r.words, r.len);
    ring_write(&f, PERF_RECORD_LOST, lost, sizeof lost);
    ring_write(&f, PERF_RECORD_SAMPLE, r.words, r.len);
    ring_write(&f, PERF_RECORD_LOST_SAMPLES, lost_samples, sizeof lost_samples);
    ring_write(&f, PERF_RECORD_THROTTLE, throttle, sizeof throttle);
    ring_publish(&f);
    seen v = { 0 };
    tf_perf_drain_stats st = { 0 };
    assert_int_equal(tf_perf_ring_drain(&f.ring, &l, collect, &v, &st), 5);
    assert_int_equal(st.samples, 2);
    assert_int_equal(st.lost, 22);
    assert_int_equal(st.lost_notices, 2);
    assert_int_equal(st.other, 1);
    assert_int_equal(st.malformed, 0);
    ring_close(&f);
}

static void test_ring_corrupt(void **state)
{
    ring_fixture f;
    ring_open(&f, 0);
    tf_perf_layout l = layout(ring_type, 0);
    rec r;
    build(&r, ring_type, 0, 11);
    ring_write(&f, PERF_RECORD_SAMPLE, r.words, r.len);
    /* A sample shorter than its layout: skipped and counted. */
    ring_write(&f, PERF_RECORD_SAMPLE, r.words, r.len - 16);
    /* A header of size 0 would never advance: the ring is dropped. */
    uint64_t zero = 0;
    for (int i = 0; i < 3; i++) {
        memcpy(&f.mem[PAGE + (f.head & (DATA - 1))], &zero, 8);
        f.head += 8;
    }
    ring_publish(&f);
    seen v = { 0 };
    tf_perf_drain_stats st = { 0 };
    assert_int_equal(tf_perf_ring_drain(&f.ring, &l, collect, &v, &st), -TF_ERR_FORMAT);
    assert_int_equal(v.n, 1);
    assert_int_equal(st.malformed, 1);
    assert_int_equal(f.ring.page->data_tail, f.head);
    ring_close(&f);
}

static void test_ring_bad_geometry(void **state)
{
    uint8_t *mem = aligned_alloc(PAGE, 4 * PAGE);
    assert_non_null(mem);
    memset(mem, 0, 4 * PAGE);
    tf_perf_ring ring;
    tf_error err;
    /* No data_size (old kernels): the data follows the first page. */
    assert_int_equal(tf_perf_ring_init(&ring, mem, 3 * PAGE, PAGE, &err), 0);
    assert_int_equal(ring.size, 2 * PAGE);
    tf_perf_ring_fini(&ring);
    /* Three data pages: not a power of two. */
    assert_int_equal(tf_perf_ring_init(&ring, mem, 4 * PAGE, PAGE, &err), -TF_ERR_USAGE);
    free(mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_field_combinations),
        cmocka_unit_test(test_pebs_load_words),
        cmocka_unit_test(test_data_source_levels),
        cmocka_unit_test(test_ibs_records),
        cmocka_unit_test(test_ring_in_order),
        cmocka_unit_test(test_ring_wraparound),
        cmocka_unit_test(test_ring_lost_notices),
        cmocka_unit_test(test_ring_corrupt),
        cmocka_unit_test(test_ring_bad_geometry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
