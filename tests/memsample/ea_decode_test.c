/* SPDX-License-Identifier: BSD-3-Clause */
/* Effective-address decoder: a table of instruction encodings (bytes from
 * the Intel SDM vol. 2 encoding rules, checked against capstone's text)
 * with one register file, the expected references, and the line of each
 * case reported on failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "record/mem/ea_decode.h"

/* The register file every case runs with.  rax has bits above 32 set so
 * that 32-bit address-size cases show the truncation. */
#define RAX 0x100001000ull
#define RCX 0x10ull
#define RDX 0x20ull
#define RBX 0x3000ull
#define RSP 0x7ffe0000ull
#define RBP 0x7ffe0100ull
#define RSI 0x5000ull
#define RDI 0x6000ull
#define R12 0xc000ull
#define R13 0xd000ull
#define RIP 0x401000ull
#define FS  0x7f0000000000ull
#define GS  0x20000ull

static tf_ea_regs base_regs(void)
{
    tf_ea_regs r = { .fs_base = FS, .gs_base = GS };
    r.greg[TF_EA_RAX] = RAX; r.greg[TF_EA_RCX] = RCX; r.greg[TF_EA_RDX] = RDX;
    r.greg[TF_EA_RBX] = RBX; r.greg[TF_EA_RSP] = RSP; r.greg[TF_EA_RBP] = RBP;
    r.greg[TF_EA_RSI] = RSI; r.greg[TF_EA_RDI] = RDI; r.greg[TF_EA_R12] = R12;
    r.greg[TF_EA_R13] = R13; r.greg[TF_EA_RIP] = RIP;
    return r;
}

#define R TF_EA_READ
#define W TF_EA_WRITE
#define RW TF_EA_RW
#define STK TF_EA_STACK
#define SEG TF_EA_SEGMENT
#define VEC TF_EA_VECTOR

typedef struct ea_case {
    int          line;
    const char  *what;
    uint8_t      code[15];
    uint8_t      len;
    int          status;
    uint8_t      naccess;
    tf_ea_access access[TF_EA_MAX_ACCESS];
} ea_case;

/* C(what, {bytes}, len, status, n, {addr, size, dir, flags}...) */
#define C(what, bytes, len, status, n, ...) \
    { __LINE__, what, bytes, len, status, n, { __VA_ARGS__ } }
#define B(...) { __VA_ARGS__ }
#define A(addr, size, dir, flags) { addr, size, dir, flags }

static const ea_case cases[] = {
    /* RIP-relative: relative to the end of the instruction. */
    C("mov rax,[rip+0x10]", B(0x48, 0x8b, 0x05, 0x10, 0, 0, 0), 7, TF_EA_MEMORY, 1,
      A(RIP + 7 + 0x10, 8, R, 0)),
    C("mov [rip-0x10],rax", B(0x48, 0x89, 0x05, 0xf0, 0xff, 0xff, 0xff), 7, TF_EA_MEMORY, 1,
      A(RIP + 7 - 0x10, 8, W, 0)),
    C("vmovups zmm0,[rip+0x100]", B(0x62, 0xf1, 0x7c, 0x48, 0x10, 0x05, 0, 1, 0, 0), 10,
      TF_EA_MEMORY, 1, A(RIP + 10 + 0x100, 64, R, 0)),
    /* SIB with every scale, negative displacements, index without base. */
    C("mov eax,[rbx+rcx]", B(0x8b, 0x04, 0x0b), 3, TF_EA_MEMORY, 1, A(RBX + RCX, 4, R, 0)),
    C("mov eax,[rbx+rcx*2]", B(0x8b, 0x04, 0x4b), 3, TF_EA_MEMORY, 1,
      A(RBX + RCX * 2, 4, R, 0)),
    C("mov eax,[rbx+rcx*4]", B(0x8b, 0x04, 0x8b), 3, TF_EA_MEMORY, 1,
      A(RBX + RCX * 4, 4, R, 0)),
    C("mov eax,[rbx+rcx*8]", B(0x8b, 0x04, 0xcb), 3, TF_EA_MEMORY, 1,
      A(RBX + RCX * 8, 4, R, 0)),
    C("mov rax,[rax+rcx*8-8]", B(0x48, 0x8b, 0x44, 0xc8, 0xf8), 5, TF_EA_MEMORY, 1,
      A(RAX + RCX * 8 - 8, 8, R, 0)),
    C("mov rax,[rbx-0x1000]", B(0x48, 0x8b, 0x83, 0x00, 0xf0, 0xff, 0xff), 7, TF_EA_MEMORY, 1,
      A(RBX - 0x1000, 8, R, 0)),
    C("mov rax,[rcx*8+0x1000]", B(0x48, 0x8b, 0x04, 0xcd, 0x00, 0x10, 0, 0), 8, TF_EA_MEMORY,
      1, A(RCX * 8 + 0x1000, 8, R, 0)),
    C("mov rax,[r12+r13]", B(0x4b, 0x8b, 0x04, 0x2c), 4, TF_EA_MEMORY, 1,
      A(R12 + R13, 8, R, 0)),
    C("mov [r13+0],rax", B(0x49, 0x89, 0x45, 0x00), 4, TF_EA_MEMORY, 1, A(R13, 8, W, 0)),
    /* Segment-relative: thread-local data. */
    C("mov rax,fs:[0x28]", B(0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0), 9, TF_EA_MEMORY, 1,
      A(FS + 0x28, 8, R, SEG)),
    C("mov rax,fs:[rax]", B(0x64, 0x48, 0x8b, 0x00), 4, TF_EA_MEMORY, 1,
      A(FS + RAX, 8, R, SEG)),
    C("mov eax,gs:[rbx]", B(0x65, 0x8b, 0x03), 3, TF_EA_MEMORY, 1, A(GS + RBX, 4, R, SEG)),
    /* 32-bit address size (0x67): 32-bit registers, result truncated. */
    C("mov eax,[eax+ecx*4]", B(0x67, 0x8b, 0x04, 0x88), 4, TF_EA_MEMORY, 1,
      A((RAX & 0xffffffff) + RCX * 4, 4, R, 0)),
    C("mov eax,[edx-0x40]", B(0x67, 0x8b, 0x42, 0xc0), 4, TF_EA_MEMORY, 1,
      A((RDX - 0x40) & 0xffffffff, 4, R, 0)),
    C("movsb [edi],[esi]", B(0x67, 0xa4), 2, TF_EA_MEMORY, 2,
      A(RDI, 1, W, 0), A(RSI, 1, R, 0)),
    /* String instructions: rsi/rdi. */
    C("movsb", B(0xa4), 1, TF_EA_MEMORY, 2, A(RDI, 1, W, 0), A(RSI, 1, R, 0)),
    C("rep movsq", B(0xf3, 0x48, 0xa5), 3, TF_EA_MEMORY, 2, A(RDI, 8, W, 0),
      A(RSI, 8, R, 0)),
    C("stosd", B(0xab), 1, TF_EA_MEMORY, 1, A(RDI, 4, W, 0)),
    C("rep stosb", B(0xf3, 0xaa), 2, TF_EA_MEMORY, 1, A(RDI, 1, W, 0)),
    C("lodsb", B(0xac), 1, TF_EA_MEMORY, 1, A(RSI, 1, R, 0)),
    C("cmpsb", B(0xa6), 1, TF_EA_MEMORY, 2, A(RSI, 1, R, 0), A(RDI, 1, R, 0)),
    C("scasb", B(0xae), 1, TF_EA_MEMORY, 1, A(RDI, 1, R, 0)),
    /* AVX (VEX). */
    C("vmovups ymm0,[rax+rcx*4]", B(0xc5, 0xfc, 0x10, 0x04, 0x88), 5, TF_EA_MEMORY, 1,
      A(RAX + RCX * 4, 32, R, 0)),
    C("vmovups [rdi],ymm0", B(0xc5, 0xfc, 0x11, 0x07), 4, TF_EA_MEMORY, 1,
      A(RDI, 32, W, 0)),
    C("vfmadd231pd ymm0,ymm1,[rdi]", B(0xc4, 0xe2, 0xf5, 0xb8, 0x07), 5, TF_EA_MEMORY, 1,
      A(RDI, 32, R, 0)),
    C("vmaskmovps [rdi],ymm1,ymm0", B(0xc4, 0xe2, 0x75, 0x2e, 0x07), 5, TF_EA_MEMORY, 1,
      A(RDI, 32, W, 0)),
    /* AVX-512 (EVEX): disp8 is scaled by N, the memory operand size. */
    C("vmovups zmm0,[rax+1*64]", B(0x62, 0xf1, 0x7c, 0x48, 0x10, 0x40, 0x01), 7,
      TF_EA_MEMORY, 1, A(RAX + 0x40, 64, R, 0)),
    C("vmovups [rax-1*64],zmm1", B(0x62, 0xf1, 0x7c, 0x48, 0x11, 0x48, 0xff), 7,
      TF_EA_MEMORY, 1, A(RAX - 0x40, 64, W, 0)),
    C("vmovaps [rdi+2*64],zmm0", B(0x62, 0xf1, 0x7c, 0x48, 0x29, 0x47, 0x02), 7,
      TF_EA_MEMORY, 1, A(RDI + 0x80, 64, W, 0)),
    C("vmovss [rdi+1*4],xmm0", B(0x62, 0xf1, 0x7e, 0x08, 0x11, 0x47, 0x01), 7,
      TF_EA_MEMORY, 1, A(RDI + 4, 4, W, 0)),
    C("vaddps zmm0,zmm0,[rax+1*4]{1to16}", B(0x62, 0xf1, 0x7c, 0x58, 0x58, 0x40, 0x01), 7,
      TF_EA_MEMORY, 1, A(RAX + 4, 4, R, 0)),
    C("vmovups [rdi]{k1},zmm0", B(0x62, 0xf1, 0x7c, 0x49, 0x11, 0x07), 6, TF_EA_MEMORY, 1,
      A(RDI, 64, W, 0)),
    C("vmovdqu64 [rdi],zmm0", B(0x62, 0xf1, 0xfe, 0x48, 0x7f, 0x07), 6, TF_EA_MEMORY, 1,
      A(RDI, 64, W, 0)),
    /* Gathers and scatters: reported as vector references, no address. */
    C("vgatherdps ymm0,[rax+ymm1*4],ymm1", B(0xc4, 0xe2, 0x75, 0x92, 0x04, 0x88), 6,
      TF_EA_GATHER, 1, A(0, 4, R, VEC)),
    C("vgatherdps zmm0{k1},[rax+zmm1*4+4]", B(0x62, 0xf2, 0x7d, 0x49, 0x92, 0x44, 0x88, 0x01),
      8, TF_EA_GATHER, 1, A(0, 4, R, VEC)),
    C("vpscatterdd [rax+zmm1*4]{k1},zmm1", B(0x62, 0xf2, 0x7d, 0x49, 0xa0, 0x0c, 0x88), 7,
      TF_EA_GATHER, 1, A(0, 4, W, VEC)),
    /* Stack. */
    C("push rax", B(0x50), 1, TF_EA_MEMORY, 1, A(RSP - 8, 8, W, STK)),
    C("push 1", B(0x6a, 0x01), 2, TF_EA_MEMORY, 1, A(RSP - 8, 8, W, STK)),
    C("pop rbx", B(0x5b), 1, TF_EA_MEMORY, 1, A(RSP, 8, R, STK)),
    C("push qword [rax]", B(0xff, 0x30), 2, TF_EA_MEMORY, 2, A(RAX, 8, R, 0),
      A(RSP - 8, 8, W, STK)),
    C("pop qword [rdi]", B(0x8f, 0x07), 2, TF_EA_MEMORY, 2, A(RDI, 8, W, 0),
      A(RSP, 8, R, STK)),
    C("call rax", B(0xff, 0xd0), 2, TF_EA_MEMORY, 1, A(RSP - 8, 8, W, STK)),
    C("call [rdi]", B(0xff, 0x17), 2, TF_EA_MEMORY, 2, A(RDI, 8, R, 0),
      A(RSP - 8, 8, W, STK)),
    C("ret", B(0xc3), 1, TF_EA_MEMORY, 1, A(RSP, 8, R, STK)),
    C("leave", B(0xc9), 1, TF_EA_MEMORY, 1, A(RBP, 8, R, STK)),
    /* No memory access. */
    C("lea rax,[rax+rcx*4]", B(0x48, 0x8d, 0x04, 0x88), 4, TF_EA_NO_MEMORY, 0),
    C("nop [rax+rax]", B(0x0f, 0x1f, 0x44, 0x00, 0x00), 5, TF_EA_NO_MEMORY, 0),
    C("add rax,rbx", B(0x48, 0x01, 0xd8), 3, TF_EA_NO_MEMORY, 0),
    C("jmp .+2", B(0xeb, 0x00), 2, TF_EA_NO_MEMORY, 0),
    /* Direction. */
    C("cmp [rdi],rax", B(0x48, 0x39, 0x07), 3, TF_EA_MEMORY, 1, A(RDI, 8, R, 0)),
    C("cmp qword [rdi],0", B(0x48, 0x83, 0x3f, 0x00), 4, TF_EA_MEMORY, 1, A(RDI, 8, R, 0)),
    C("test [rdi],rax", B(0x48, 0x85, 0x07), 3, TF_EA_MEMORY, 1, A(RDI, 8, R, 0)),
    C("bt [rdi],rax", B(0x48, 0x0f, 0xa3, 0x07), 4, TF_EA_MEMORY, 1, A(RDI, 8, R, 0)),
    C("add [rdi],rax", B(0x48, 0x01, 0x07), 3, TF_EA_MEMORY, 1, A(RDI, 8, RW, 0)),
    C("add rax,[rdi]", B(0x48, 0x03, 0x07), 3, TF_EA_MEMORY, 1, A(RDI, 8, R, 0)),
    C("inc qword [rdi]", B(0x48, 0xff, 0x07), 3, TF_EA_MEMORY, 1, A(RDI, 8, RW, 0)),
    C("mov [rdi],rax", B(0x48, 0x89, 0x07), 3, TF_EA_MEMORY, 1, A(RDI, 8, W, 0)),
    C("movzx eax,byte [rdi]", B(0x0f, 0xb6, 0x07), 3, TF_EA_MEMORY, 1, A(RDI, 1, R, 0)),
    C("sete [rdi]", B(0x0f, 0x94, 0x07), 3, TF_EA_MEMORY, 1, A(RDI, 1, W, 0)),
    C("xchg [rdi],rax", B(0x48, 0x87, 0x07), 3, TF_EA_MEMORY, 1, A(RDI, 8, RW, 0)),
    C("lock cmpxchg [rdi],rcx", B(0xf0, 0x48, 0x0f, 0xb1, 0x0f), 5, TF_EA_MEMORY, 1,
      A(RDI, 8, RW, 0)),
    C("movups [rdi],xmm0", B(0x0f, 0x11, 0x07), 3, TF_EA_MEMORY, 1, A(RDI, 16, W, 0)),
    C("movnti [rdi],rax", B(0x48, 0x0f, 0xc3, 0x07), 4, TF_EA_MEMORY, 1, A(RDI, 8, W, 0)),
    C("pextrd [rdi],xmm0,1", B(0x66, 0x0f, 0x3a, 0x16, 0x07, 0x01), 6, TF_EA_MEMORY, 1,
      A(RDI, 4, W, 0)),
    C("fld qword [rdi]", B(0xdd, 0x07), 2, TF_EA_MEMORY, 1, A(RDI, 8, R, 0)),
    C("fstp qword [rdi]", B(0xdd, 0x1f), 2, TF_EA_MEMORY, 1, A(RDI, 8, W, 0)),
    C("stmxcsr [rdi]", B(0x0f, 0xae, 0x1f), 3, TF_EA_MEMORY, 1, A(RDI, 4, W, 0)),
    /* Not an instruction. */
    C("push es (invalid in 64-bit mode)", B(0x06), 1, TF_EA_UNDECODABLE, 0),
    C("truncated mov", B(0x48, 0x8b), 2, TF_EA_UNDECODABLE, 0),
};

static tf_ea_decoder *decoder;

static int setup(void **state)
{
    tf_error err;
    if (tf_ea_decoder_create(&decoder, &err) != 0) {
        print_error("%s\n", err.msg);
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    tf_ea_decoder_free(decoder);
    return 0;
}

static void check_case(const ea_case *c, const tf_ea_result *r)
{
    if (r->status != c->status)
        fail_msg("line %d (%s): status %d, expected %d", c->line, c->what, r->status,
                 c->status);
    if (c->status != TF_EA_UNDECODABLE && r->insn_len != c->len)
        fail_msg("line %d (%s): length %d, expected %d", c->line, c->what, r->insn_len, c->len);
    if (r->naccess != c->naccess)
        fail_msg("line %d (%s): %d references, expected %d", c->line, c->what, r->naccess,
                 c->naccess);
    for (unsigned i = 0; i < c->naccess; i++) {
        const tf_ea_access *got = &r->access[i], *want = &c->access[i];
        if (got->addr != want->addr || got->size != want->size || got->dir != want->dir ||
            got->flags != want->flags)
            fail_msg("line %d (%s): reference %u: addr %#llx size %u dir %u flags %#x, "
                     "expected %#llx %u %u %#x", c->line, c->what, i,
                     (unsigned long long)got->addr, got->size, got->dir, got->flags,
                     (unsigned long long)want->addr, want->size, want->dir, want->flags);
    }
}

static void test_table(void **state)
{
    tf_ea_regs regs = base_regs();
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        tf_ea_result r;
        int st = tf_ea_decode(decoder, cases[k].code, cases[k].len, &regs, &r);
        if (st != r.status)
            fail_msg("line %d: returned %d but status %d", cases[k].line, st, r.status);
        check_case(&cases[k], &r);
        if (r.ip != RIP)
            fail_msg("line %d: ip %#llx", cases[k].line, (unsigned long long)r.ip);
    }
}

/* Once the decoder exists, decoding must not allocate: it runs in signal
 * handlers. */
static void test_no_allocation_after_init(void **state)
{
    tf_ea_regs regs = base_regs();
    uint64_t before = tf_ea_capstone_allocations();
    for (int round = 0; round < 3; round++)
        for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
            tf_ea_result r;
            tf_ea_decode(decoder, cases[k].code, cases[k].len, &regs, &r);
        }
    assert_int_equal(tf_ea_capstone_allocations(), before);
}

static void test_to_sample(void **state)
{
    tf_ea_regs regs = base_regs();
    tf_ea_result r;
    static const uint8_t push_mem[] = { 0xff, 0x30 };
    assert_int_equal(tf_ea_decode(decoder, push_mem, sizeof push_mem, &regs, &r), TF_EA_MEMORY);
    tf_sample s = { .time = 123, .stack_len = 4 };
    tf_ea_to_sample(&r, 0, &s);
    assert_int_equal(s.kind, TF_SAMPLE_LOAD);
    assert_int_equal(s.addr, RAX);
    assert_int_equal(s.ip, RIP);
    assert_int_equal(s.flags, TF_SAMPLE_SOFTWARE);
    assert_int_equal(s.level, TF_LEVEL_UNKNOWN);
    assert_int_equal(s.time, 123);      /* left to the caller */
    assert_int_equal(s.stack_len, 4);
    tf_ea_to_sample(&r, 1, &s);
    assert_int_equal(s.kind, TF_SAMPLE_STORE);
    assert_int_equal(s.addr, RSP - 8);

    static const uint8_t add_mem[] = { 0x48, 0x01, 0x07 };
    tf_ea_decode(decoder, add_mem, sizeof add_mem, &regs, &r);
    tf_ea_to_sample(&r, 0, &s);
    assert_int_equal(s.kind, TF_SAMPLE_RMW);

    static const uint8_t gather[] = { 0xc4, 0xe2, 0x75, 0x92, 0x04, 0x88 };
    tf_ea_decode(decoder, gather, sizeof gather, &regs, &r);
    tf_ea_to_sample(&r, 0, &s);
    assert_int_equal(s.flags, TF_SAMPLE_SOFTWARE | TF_SAMPLE_VECTOR);
    assert_int_equal(s.addr, 0);
}

/* The instruction ending at the IP, from the bytes before it alone: all
 * readings must agree and the registers must still hold its address. */
typedef struct prev_case {
    int         line;
    const char *what;
    uint8_t     code[15];
    uint8_t     len;
    int         status;
    uint64_t    addr;       /* of the single reference when TF_EA_MEMORY */
    uint8_t     dir;
    uint8_t     insn_len;
} prev_case;

static const prev_case prev_cases[] = {
    /* addsd and the addps read in its last 3 bytes agree on [rdi]. */
    { __LINE__, "addsd xmm0,[rdi]", B(0xf2, 0x0f, 0x58, 0x07), 4, TF_EA_MEMORY, RDI, R, 4 },
    { __LINE__, "mov [rax],rdx", B(0x48, 0x89, 0x10), 3, TF_EA_MEMORY, RAX, W, 3 },
    /* rax was overwritten by the load: its address is gone. */
    { __LINE__, "mov rax,[rax]", B(0x48, 0x8b, 0x00), 3, TF_EA_UNRESOLVED, 0, 0, 0 },
    /* Its last byte alone reads as push rax: two readings disagree. */
    { __LINE__, "addsd xmm0,[rdi+0x50]", B(0xf2, 0x0f, 0x58, 0x47, 0x50), 5, TF_EA_UNRESOLVED,
      0, 0, 0 },
    { __LINE__, "add rax,rbx", B(0x48, 0x01, 0xd8), 3, TF_EA_UNRESOLVED, 0, 0, 0 },
    /* rsi/rdi have advanced. */
    { __LINE__, "movsb", B(0xa4), 1, TF_EA_UNRESOLVED, 0, 0, 0 },
    { __LINE__, "pop rbx", B(0x5b), 1, TF_EA_UNRESOLVED, 0, 0, 0 },
};

static void test_previous_table(void **state)
{
    tf_ea_regs regs = base_regs();
    for (size_t k = 0; k < sizeof prev_cases / sizeof prev_cases[0]; k++) {
        const prev_case *c = &prev_cases[k];
        tf_ea_result r;
        int st = tf_ea_decode_previous(decoder, c->code, c->len, &regs, &r);
        if (st != c->status)
            fail_msg("line %d (%s): status %d, expected %d", c->line, c->what, st, c->status);
        if (st != TF_EA_MEMORY)
            continue;
        if (r.naccess != 1 || r.access[0].addr != c->addr || r.access[0].dir != c->dir ||
            r.insn_len != c->insn_len || r.ip != RIP - c->insn_len ||
            r.origin != TF_EA_PREVIOUS)
            fail_msg("line %d (%s): %u refs, addr %#llx dir %u len %u ip %#llx origin %u",
                     c->line, c->what, r.naccess, (unsigned long long)r.access[0].addr,
                     r.access[0].dir, r.insn_len, (unsigned long long)r.ip, r.origin);
    }
}

/* A page of code for the live decoder, which reads the process's own
 * memory: `pad` bytes of nop, then code[len], whose copy is returned;
 * code_page_free unmaps it. */
static uint8_t *code_page(const uint8_t *code, size_t len, size_t pad)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uint8_t *mem = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(mem != MAP_FAILED);
    memset(mem, 0x90, pad);
    memcpy(mem + pad, code, len);
    return mem + pad;
}

static void code_page_free(uint8_t *code)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    munmap((void *)((uintptr_t)code & ~(uintptr_t)(page - 1)), page);
}

/* A loop body in memory: once the decoder has seen an IP in it, it finds
 * the instruction before a later IP by decoding forward from there, even
 * where the bytes alone are ambiguous ([rdi-8] ends in 0xf8, and the
 * bytes before it read as other instructions). */
static void test_live_lookback_from_anchor(void **state)
{
    static const uint8_t loop[] = {
        0xf2, 0x0f, 0x58, 0x07,         /* 0: addsd xmm0,[rdi] */
        0x48, 0x83, 0xc7, 0x10,         /* 4: add rdi,16 */
        0xf2, 0x0f, 0x58, 0x47, 0xf8,   /* 8: addsd xmm0,[rdi-8] */
        0x48, 0x39, 0xf8,               /* 13: cmp rax,rdi */
        0x75, 0xed,                     /* 16: jne 0 */
    };
    uint8_t *code = code_page(loop, sizeof loop, 64);   /* nops before the loop head */
    uint64_t at = (uint64_t)(uintptr_t)code;
    tf_ea_regs regs = base_regs();
    tf_ea_result r[TF_EA_LIVE_MAX];

    regs.greg[TF_EA_RIP] = at;          /* a sample at the loop head: a nop before it */
    assert_int_equal(tf_ea_decode_live(decoder, &regs, r), 1);
    assert_int_equal(r[0].origin, TF_EA_AT_IP);
    assert_int_equal(r[0].access[0].addr, RDI);

    regs.greg[TF_EA_RIP] = at + 13;     /* at cmp: the load before it */
    assert_int_equal(tf_ea_decode_live(decoder, &regs, r), 1);
    assert_int_equal(r[0].origin, TF_EA_PREVIOUS);
    assert_int_equal(r[0].ip, at + 8);
    assert_int_equal(r[0].access[0].addr, RDI - 8);
    assert_int_equal(r[0].access[0].dir, TF_EA_READ);

    regs.greg[TF_EA_RIP] = at + 4;      /* at add: the first load */
    assert_int_equal(tf_ea_decode_live(decoder, &regs, r), 1);
    assert_int_equal(r[0].ip, at);
    assert_int_equal(r[0].access[0].addr, RDI);

    regs.greg[TF_EA_RIP] = at + 16;     /* at jne: cmp makes no reference */
    assert_int_equal(tf_ea_decode_live(decoder, &regs, r), 0);

    /* Later samples at a known IP reuse its plan with their registers. */
    regs.greg[TF_EA_RDI] = 0x9000;
    regs.greg[TF_EA_RIP] = at + 13;
    assert_int_equal(tf_ea_decode_live(decoder, &regs, r), 1);
    assert_int_equal(r[0].ip, at + 8);
    assert_int_equal(r[0].access[0].addr, 0x9000 - 8);

    /* Code rewritten in place is seen once the decoder forgets it:
     * offset 4 becomes mov [rbx],rdi (48 89 3b) + nop. */
    static const uint8_t store[] = { 0x48, 0x89, 0x3b, 0x90 };
    memcpy(code + 4, store, sizeof store);
    regs.greg[TF_EA_RIP] = at + 4;
    tf_ea_decode_live(decoder, &regs, r);
    assert_int_equal(r[0].access[0].addr, 0x9000);     /* the cached plan: [rdi] */
    tf_ea_decoder_forget_code(decoder);
    /* The store at the IP, then the load of [rdi] that ended there. */
    assert_int_equal(tf_ea_decode_live(decoder, &regs, r), 2);
    assert_int_equal(r[0].origin, TF_EA_AT_IP);
    assert_int_equal(r[0].access[0].addr, RBX);
    assert_int_equal(r[0].access[0].dir, TF_EA_WRITE);
    assert_int_equal(r[1].origin, TF_EA_PREVIOUS);
    assert_int_equal(r[1].access[0].addr, 0x9000);
    code_page_free(code);
}

/* STREAM's Add loop as gcc 12 -O2 compiles it (examples/stream.c):
 *   0: movsd xmm0,[r13+rax*8]   load a
 *   7: addsd xmm0,[r15+rax*8]   load b
 *  13: movsd [r14+rax*8],xmm0   store c
 *  19: add rax,1; 23: cmp rax,rbx; 26: jne 0
 * A sample at the load of b reports it and the load of a that just
 * completed: on an AMD Zen 3 no sample ever lands at the load of a.  The
 * bytes before +7 alone also read as adc [rbp+rax*8],al (disagreeing), so
 * the load of a is found from a boundary before it: the loop head, which
 * the back edge (jne 0) names when the decoder reads ahead of the first
 * sample, so the very first sample at +7 reports both. */
static void test_live_both_instructions(void **state)
{
    static const uint8_t add_loop[] = {
        0xf2, 0x41, 0x0f, 0x10, 0x44, 0xc5, 0x00,
        0xf2, 0x41, 0x0f, 0x58, 0x04, 0xc7,
        0xf2, 0x41, 0x0f, 0x11, 0x04, 0xc6,
        0x48, 0x83, 0xc0, 0x01,
        0x48, 0x39, 0xd8,
        0x75, 0xe4,
    };
    uint8_t *code = code_page(add_loop, sizeof add_loop, 128);
    uint64_t at = (uint64_t)(uintptr_t)code;
    tf_ea_decoder_forget_code(decoder);
    tf_ea_regs regs = base_regs();
    regs.greg[TF_EA_R13] = 0xa0000;
    regs.greg[TF_EA_R14] = 0xc0000;
    regs.greg[TF_EA_R15] = 0xb0000;
    regs.greg[TF_EA_RAX] = 5;
    tf_ea_result r[TF_EA_LIVE_MAX];

    regs.greg[TF_EA_RIP] = at + 7;      /* the first sample there: b, and a from the head */
    assert_int_equal(tf_ea_decode_live(decoder, &regs, r), 2);
    assert_int_equal(r[0].origin, TF_EA_AT_IP);
    assert_int_equal(r[0].ip, at + 7);
    assert_int_equal(r[0].access[0].addr, 0xb0000 + 5 * 8);
    assert_int_equal(r[0].access[0].dir, TF_EA_READ);
    assert_int_equal(r[1].origin, TF_EA_PREVIOUS);
    assert_int_equal(r[1].ip, at);
    assert_int_equal(r[1].access[0].addr, 0xa0000 + 5 * 8);
    assert_int_equal(r[1].access[0].dir, TF_EA_READ);

    regs.greg[TF_EA_RIP] = at + 13;     /* the store of c, then the load of b */
    assert_int_equal(tf_ea_decode_live(decoder, &regs, r), 2);
    assert_int_equal(r[0].access[0].addr, 0xc0000 + 5 * 8);
    assert_int_equal(r[0].access[0].dir, TF_EA_WRITE);
    assert_int_equal(r[1].access[0].addr, 0xb0000 + 5 * 8);

    regs.greg[TF_EA_RIP] = at + 26;     /* at jne: cmp, no reference */
    assert_int_equal(tf_ea_decode_live(decoder, &regs, r), 0);

    regs.greg[TF_EA_RAX] = 6;           /* after add rax,1: the store of c only */
    regs.greg[TF_EA_RIP] = at + 23;
    assert_int_equal(tf_ea_decode_live(decoder, &regs, r), 0);
    regs.greg[TF_EA_RIP] = at + 19;
    regs.greg[TF_EA_RAX] = 5;
    assert_int_equal(tf_ea_decode_live(decoder, &regs, r), 1);
    assert_int_equal(r[0].origin, TF_EA_PREVIOUS);
    assert_int_equal(r[0].access[0].addr, 0xc0000 + 5 * 8);
    code_page_free(code);
}

/* The same two loads in straight-line code ending in ret: no branch
 * ahead names a boundary before the IP, the bytes alone disagree, so only
 * the load at the IP is reported, however often it is sampled. */
static void test_live_no_boundary_ahead(void **state)
{
    static const uint8_t straight[] = {
        0xf2, 0x41, 0x0f, 0x10, 0x44, 0xc5, 0x00,   /* 0: movsd xmm0,[r13+rax*8] */
        0xf2, 0x41, 0x0f, 0x58, 0x04, 0xc7,         /* 7: addsd xmm0,[r15+rax*8] */
        0xc3,                                       /* 13: ret */
        0x75, 0xf1,                                 /* 14: jne 0, never reached */
    };
    uint8_t *code = code_page(straight, sizeof straight, 128);
    tf_ea_decoder_forget_code(decoder);
    tf_ea_regs regs = base_regs();
    regs.greg[TF_EA_R15] = 0xb0000;
    regs.greg[TF_EA_RAX] = 5;
    regs.greg[TF_EA_RIP] = (uint64_t)(uintptr_t)code + 7;
    tf_ea_result r[TF_EA_LIVE_MAX];
    for (int k = 0; k < 3; k++) {
        assert_int_equal(tf_ea_decode_live(decoder, &regs, r), 1);
        assert_int_equal(r[0].origin, TF_EA_AT_IP);
        assert_int_equal(r[0].access[0].addr, 0xb0000 + 5 * 8);
    }
    code_page_free(code);
}

/* tf_ea_decode_live reads the bytes at the IP itself: an instruction that
 * straddles a page boundary is read whole, and one that ends a page
 * followed by an inaccessible page is read without touching that page. */
static void test_live_page_boundary(void **state)
{
    long page = sysconf(_SC_PAGESIZE);
    uint8_t *mem = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(mem != MAP_FAILED);
    static const uint8_t mov_rip[] = { 0x48, 0x8b, 0x05, 0x10, 0, 0, 0 };
    uint8_t *at = mem + page - 3;
    memcpy(at, mov_rip, sizeof mov_rip);
    tf_ea_regs regs = base_regs();
    regs.greg[TF_EA_RIP] = (uint64_t)(uintptr_t)at;
    tf_ea_result r[TF_EA_LIVE_MAX];
    assert_true(tf_ea_decode_live(decoder, &regs, r) >= 1);
    assert_int_equal(r[0].access[0].addr, (uint64_t)(uintptr_t)at + 7 + 0x10);

    mem[page - 1] = 0xc3;   /* ret, last byte of the page */
    assert_int_equal(mprotect(mem + page, (size_t)page, PROT_NONE), 0);
    regs.greg[TF_EA_RIP] = (uint64_t)(uintptr_t)(mem + page - 1);
    assert_true(tf_ea_decode_live(decoder, &regs, r) >= 1);
    assert_int_equal(r[0].access[0].addr, RSP);
    munmap(mem, 2 * (size_t)page);
}

/* The fs base from arch_prctl is the thread pointer: on x86-64 glibc
 * stores the thread control block's own address at fs:0. */
static __thread int tls_value;

static void test_thread_bases(void **state)
{
#if !defined(__x86_64__)
    skip();   /* fs/gs bases exist on x86-64 only */
#else
    uint64_t fs, gs, self;
    tf_error err;
    assert_int_equal(tf_ea_thread_bases(&fs, &gs, &err), 0);
    __asm__("mov %%fs:0, %0" : "=r"(self));
    assert_int_equal(fs, self);
    /* Local-exec TLS sits just below the thread pointer. */
    uint64_t tls = (uint64_t)(uintptr_t)&tls_value;
    assert_true(tls < fs && fs - tls < (1u << 20));
#endif
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_no_allocation_after_init),
        cmocka_unit_test(test_to_sample),
        cmocka_unit_test(test_previous_table),
        cmocka_unit_test(test_live_lookback_from_anchor),
        cmocka_unit_test(test_live_both_instructions),
        cmocka_unit_test(test_live_no_boundary_ahead),
        cmocka_unit_test(test_live_page_boundary),
        cmocka_unit_test(test_thread_bases),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
