/* SPDX-License-Identifier: BSD-3-Clause */
/* Strides from the code: the innermost loop around a memory instruction and
 * the induction updates of its address registers (see code_stride.h). */
#include "code_stride.h"

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stdlib.h>

struct tf_code_stride_decoder {
    csh      handle;
    cs_insn *insn;       /* cs_malloc'ed once; cs_disasm_iter refills it */
};

/* The sixteen general registers, by their names at each width: a row is
 * one register (index = its family), a column one width. */
enum { W64, W32, W16, W8, W8H, NWIDTHS };
static const x86_reg gpr_names[16][NWIDTHS] = {
    { X86_REG_RAX, X86_REG_EAX, X86_REG_AX, X86_REG_AL, X86_REG_AH },
    { X86_REG_RCX, X86_REG_ECX, X86_REG_CX, X86_REG_CL, X86_REG_CH },
    { X86_REG_RDX, X86_REG_EDX, X86_REG_DX, X86_REG_DL, X86_REG_DH },
    { X86_REG_RBX, X86_REG_EBX, X86_REG_BX, X86_REG_BL, X86_REG_BH },
    { X86_REG_RSP, X86_REG_ESP, X86_REG_SP, X86_REG_SPL, X86_REG_INVALID },
    { X86_REG_RBP, X86_REG_EBP, X86_REG_BP, X86_REG_BPL, X86_REG_INVALID },
    { X86_REG_RSI, X86_REG_ESI, X86_REG_SI, X86_REG_SIL, X86_REG_INVALID },
    { X86_REG_RDI, X86_REG_EDI, X86_REG_DI, X86_REG_DIL, X86_REG_INVALID },
    { X86_REG_R8, X86_REG_R8D, X86_REG_R8W, X86_REG_R8B, X86_REG_INVALID },
    { X86_REG_R9, X86_REG_R9D, X86_REG_R9W, X86_REG_R9B, X86_REG_INVALID },
    { X86_REG_R10, X86_REG_R10D, X86_REG_R10W, X86_REG_R10B, X86_REG_INVALID },
    { X86_REG_R11, X86_REG_R11D, X86_REG_R11W, X86_REG_R11B, X86_REG_INVALID },
    { X86_REG_R12, X86_REG_R12D, X86_REG_R12W, X86_REG_R12B, X86_REG_INVALID },
    { X86_REG_R13, X86_REG_R13D, X86_REG_R13W, X86_REG_R13B, X86_REG_INVALID },
    { X86_REG_R14, X86_REG_R14D, X86_REG_R14W, X86_REG_R14B, X86_REG_INVALID },
    { X86_REG_R15, X86_REG_R15D, X86_REG_R15W, X86_REG_R15B, X86_REG_INVALID },
};

/* Registers a call may change (SysV x86-64 ABI, 3.2.1: all but rbx, rbp,
 * rsp, r12-r15), by family. */
static const bool caller_saved[16] = {
    [0] = true, [1] = true, [2] = true, [6] = true, [7] = true,
    [8] = true, [9] = true, [10] = true, [11] = true,
};

/* The family (0..15) and width column of a capstone register, or -1. */
static int gpr_family(unsigned reg, int *width)
{
    for (int f = 0; f < 16; f++)
        for (int w = 0; w < NWIDTHS; w++)
            if (reg != X86_REG_INVALID && gpr_names[f][w] == reg) {
                if (width)
                    *width = w;
                return f;
            }
    return -1;
}

int tf_code_stride_decoder_create(tf_code_stride_decoder **out, tf_error *err)
{
    *out = NULL;
    tf_code_stride_decoder *d = calloc(1, sizeof *d);
    if (!d)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the stride decoder");
    cs_err e = cs_open(CS_ARCH_X86, CS_MODE_64, &d->handle);
    if (e == CS_ERR_OK)
        e = cs_option(d->handle, CS_OPT_DETAIL, CS_OPT_ON);
    if (e != CS_ERR_OK) {
        free(d);
        return tf_fail(err, TF_ERR_INTERNAL, "capstone: %s", cs_strerror(e));
    }
    if (!(d->insn = cs_malloc(d->handle))) {
        cs_close(&d->handle);
        free(d);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the stride decoder");
    }
    *out = d;
    return 0;
}

void tf_code_stride_decoder_free(tf_code_stride_decoder *d)
{
    if (!d)
        return;
    cs_free(d->insn, 1);
    cs_close(&d->handle);
    free(d);
}

/* A sequential reader of code[0..len) at addr, from address `at`. */
struct reader {
    tf_code_stride_decoder *d;
    const uint8_t *p;
    size_t left;
    uint64_t pc;
};

static struct reader reader_at(tf_code_stride_decoder *d, const uint8_t *code, size_t len,
                               uint64_t addr, uint64_t at)
{
    size_t off = (size_t)(at - addr);
    return (struct reader){ d, code + off, len - off, at };
}

static bool next_insn(struct reader *r)
{
    return r->left && cs_disasm_iter(r->d->handle, &r->p, &r->left, &r->pc, r->d->insn);
}

/* The immediate target of a direct jump, or false. */
static bool jump_target(tf_code_stride_decoder *d, const cs_insn *in, uint64_t *target)
{
    const cs_x86 *x = &in->detail->x86;
    if (!cs_insn_group(d->handle, in, X86_GRP_JUMP) || x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
        return false;
    *target = (uint64_t)x->operands[0].imm;
    return true;
}

/* The first branch after ip back to ip or before it, within the code:
 * [*start, *end) is the loop. */
static int find_back_edge(tf_code_stride_decoder *d, const uint8_t *code, size_t len,
                          uint64_t addr, uint64_t ip, uint64_t *start, uint64_t *end)
{
    struct reader r = reader_at(d, code, len, addr, ip);
    while (next_insn(&r)) {
        const cs_insn *in = d->insn;
        uint64_t target;
        if (jump_target(d, in, &target)) {
            if (target <= ip && target >= addr) {
                *start = target;
                *end = in->address + in->size;
                return TF_CODE_STRIDE_FOUND;
            }
            continue;
        }
        /* the code ends: a return, an indirect jump, a trap */
        if (cs_insn_group(d->handle, in, X86_GRP_RET) || cs_insn_group(d->handle, in, X86_GRP_JUMP) ||
            in->id == X86_INS_UD2 || in->id == X86_INS_HLT)
            return TF_CODE_STRIDE_NO_LOOP;
    }
    return r.left ? TF_CODE_STRIDE_UNDECODABLE : TF_CODE_STRIDE_NO_LOOP;
}

/* The step an induction update adds to register family f, or false when
 * the instruction changes f any other way. */
static bool induction_step(const cs_insn *in, int f, int64_t *step)
{
    const cs_x86 *x = &in->detail->x86;
    const cs_x86_op *op = x->operands;
    int w = NWIDTHS;
    if (x->op_count < 1 || op[0].type != X86_OP_REG || gpr_family(op[0].reg, &w) != f ||
        (w != W64 && w != W32))
        return false;
    switch (in->id) {
    case X86_INS_ADD:
    case X86_INS_SUB:
        if (x->op_count != 2 || op[1].type != X86_OP_IMM)
            return false;
        *step = in->id == X86_INS_ADD ? op[1].imm : -op[1].imm;
        return true;
    case X86_INS_INC:
    case X86_INS_DEC:
        *step = in->id == X86_INS_INC ? 1 : -1;
        return x->op_count == 1;
    case X86_INS_LEA:
        /* lea disp(%r), %r */
        if (x->op_count != 2 || op[1].type != X86_OP_MEM || op[1].mem.index != X86_REG_INVALID ||
            gpr_family(op[1].mem.base, NULL) != f)
            return false;
        *step = op[1].mem.disp;
        return true;
    default:
        return false;
    }
}

/* True when instruction `in` writes register family f. */
static bool writes_family(tf_code_stride_decoder *d, const cs_insn *in, int f)
{
    cs_regs rd, wr;
    uint8_t nrd = 0, nwr = 0;
    if (cs_regs_access(d->handle, in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
        return true;   /* unknown: assume the worst */
    for (uint8_t i = 0; i < nwr; i++)
        if (gpr_family(wr[i], NULL) == f)
            return true;
    return false;
}

#define MAX_NESTED 32

/* The loop body [start, end): the loops nested in it and whether it calls;
 * checks that decoding from start passes through ip. */
struct body {
    uint64_t nested[MAX_NESTED][2];
    size_t   nnested;
    bool     calls;
};

static int scan_body(tf_code_stride_decoder *d, const uint8_t *code, size_t len, uint64_t addr,
                     uint64_t ip, uint64_t start, uint64_t end, struct body *b)
{
    struct reader r = reader_at(d, code, len, addr, start);
    bool seen_ip = false;
    b->nnested = 0;
    b->calls = false;
    while (r.pc < end) {
        if (!next_insn(&r))
            return TF_CODE_STRIDE_UNDECODABLE;
        const cs_insn *in = d->insn;
        seen_ip |= in->address == ip;
        b->calls |= cs_insn_group(d->handle, in, X86_GRP_CALL);
        uint64_t target;
        if (in->address + in->size < end && jump_target(d, in, &target) && target >= start &&
            target <= in->address) {
            if (b->nnested == MAX_NESTED)
                return TF_CODE_STRIDE_NOT_INDUCTION;
            b->nested[b->nnested][0] = target;
            b->nested[b->nnested][1] = in->address + in->size;
            b->nnested++;
        }
    }
    /* decoding from the loop's start must meet the instruction boundaries */
    return seen_ip && r.pc == end ? TF_CODE_STRIDE_FOUND : TF_CODE_STRIDE_UNDECODABLE;
}

/* The step of register family f over one iteration of the body. */
static int register_step(tf_code_stride_decoder *d, const uint8_t *code, size_t len,
                         uint64_t addr, uint64_t start, uint64_t end, const struct body *b, int f,
                         int64_t *step)
{
    *step = 0;
    if (b->calls && caller_saved[f])
        return TF_CODE_STRIDE_NOT_INDUCTION;
    struct reader r = reader_at(d, code, len, addr, start);
    while (r.pc < end && next_insn(&r)) {
        const cs_insn *in = d->insn;
        if (!writes_family(d, in, f))
            continue;
        for (size_t k = 0; k < b->nnested; k++)
            if (in->address >= b->nested[k][0] && in->address < b->nested[k][1])
                return TF_CODE_STRIDE_NOT_INDUCTION;
        int64_t s;
        if (!induction_step(in, f, &s))
            return TF_CODE_STRIDE_NOT_INDUCTION;
        *step += s;
    }
    return TF_CODE_STRIDE_FOUND;
}

/* The one explicit memory operand of the instruction just decoded. */
static const cs_x86_op *memory_operand(const cs_insn *in)
{
    if (in->id == X86_INS_LEA || in->id == X86_INS_NOP)
        return NULL;
    const cs_x86 *x = &in->detail->x86;
    const cs_x86_op *mem = NULL;
    for (uint8_t i = 0; i < x->op_count; i++)
        if (x->operands[i].type == X86_OP_MEM) {
            if (mem)
                return NULL;
            mem = &x->operands[i];
        }
    return mem;
}

int tf_code_stride_find(tf_code_stride_decoder *d, const uint8_t *code, size_t len, uint64_t addr,
                        uint64_t ip, tf_code_stride *out)
{
    *out = (tf_code_stride){ .status = TF_CODE_STRIDE_UNDECODABLE };
    if (ip < addr || ip - addr >= len)
        return out->status = TF_CODE_STRIDE_NO_LOOP;
    struct reader r = reader_at(d, code, len, addr, ip);
    if (!next_insn(&r))
        return out->status;
    const cs_x86_op *mem = memory_operand(d->insn);
    if (!mem)
        return out->status = TF_CODE_STRIDE_NO_OPERAND;
    /* copied: the decoder's instruction buffer is reused below */
    unsigned base = mem->mem.base, index = mem->mem.index;
    int64_t scale = mem->mem.scale;
    int fb = gpr_family(base, NULL), fi = gpr_family(index, NULL);
    /* a register other than a general one (rip, or none) adds nothing that moves */
    if ((base != X86_REG_INVALID && base != X86_REG_RIP && fb < 0) ||
        (index != X86_REG_INVALID && fi < 0))
        return out->status = TF_CODE_STRIDE_NO_OPERAND;
    uint64_t start = 0, end = 0;
    int st = find_back_edge(d, code, len, addr, ip, &start, &end);
    if (st != TF_CODE_STRIDE_FOUND)
        return out->status = (uint8_t)st;
    out->loop_start = start;
    out->loop_end = end;
    struct body b;
    if ((st = scan_body(d, code, len, addr, ip, start, end, &b)) != TF_CODE_STRIDE_FOUND)
        return out->status = (uint8_t)st;
    int64_t sb = 0, si = 0;
    if (fb >= 0 && (st = register_step(d, code, len, addr, start, end, &b, fb, &sb)))
        return out->status = (uint8_t)st;
    if (fi >= 0 && (st = register_step(d, code, len, addr, start, end, &b, fi, &si)))
        return out->status = (uint8_t)st;
    out->bytes = sb + si * scale;
    return out->status = TF_CODE_STRIDE_FOUND;
}

const char *tf_code_stride_status_name(int status)
{
    static const char *const names[] = { "found", "no loop", "not an induction",
                                         "no memory operand", "undecodable" };
    return status >= 0 && (size_t)status < sizeof names / sizeof *names ? names[status]
                                                                         : "unknown";
}
