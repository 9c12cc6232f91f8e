/* SPDX-License-Identifier: BSD-3-Clause */
/* Strides from the code: the innermost loop around a memory instruction and
 * the induction updates of its address registers (see code_stride.h). */
#include "code_stride.h"

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* What an instruction does to the register of its first operand (dst),
 * as far as strides are concerned. */
enum form {
    FORM_OTHER = 0,   /* anything else: dst's new value is not affine in a register */
    FORM_ADD,         /* dst += k (add/sub of an immediate, inc/dec, lea k(%dst),%dst) */
    FORM_COPY,        /* dst = k × src + constant (mov, lea c(src,src,s), imul $k,src) */
    FORM_SCALE,       /* dst = k × dst + constant (shl, imul $k, lea c(dst,dst,s)) */
};

/* One decoded instruction, reduced to what the loop analysis needs. */
struct insn_rec {
    uint64_t addr, target;   /* target: of a direct jump */
    int64_t  k;              /* the step or factor of `form` */
    uint16_t writes;         /* general register families written (bit per family) */
    int8_t   dst, src;       /* families of `form`, or -1 */
    uint8_t  form;           /* enum form */
    uint8_t  size;
    bool     jump, call;
    /* its one explicit memory operand, when it has one (mem_size > 0) */
    int64_t  mem_disp;
    int8_t   mem_base, mem_index;   /* families, or -1 */
    uint8_t  mem_scale, mem_size;
};

/* At most this many instructions around one sampled instruction: the code
 * window of from_fold.c (4 KiB either side), one byte each at worst. */
#define MAX_RECS 8192

struct tf_code_stride_decoder {
    csh      handle;
    cs_insn *insn;       /* cs_malloc'ed once; cs_disasm_iter refills it */
    struct insn_rec *recs;   /* MAX_RECS */
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
    if (!d || !(d->recs = malloc(MAX_RECS * sizeof *d->recs))) {
        free(d);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the stride decoder");
    }
    cs_err e = cs_open(CS_ARCH_X86, CS_MODE_64, &d->handle);
    if (e == CS_ERR_OK)
        e = cs_option(d->handle, CS_OPT_DETAIL, CS_OPT_ON);
    if (e != CS_ERR_OK) {
        free(d->recs);
        free(d);
        return tf_fail(err, TF_ERR_INTERNAL, "capstone: %s", cs_strerror(e));
    }
    if (!(d->insn = cs_malloc(d->handle))) {
        cs_close(&d->handle);
        free(d->recs);
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
    free(d->recs);
    free(d);
}

/* The factor of lea's address in register family f (base and index
 * being f or none), or 0 when another register takes part. */
static int64_t lea_factor(const cs_x86_op *mem, int f)
{
    int fb = gpr_family(mem->mem.base, NULL), fi = gpr_family(mem->mem.index, NULL);
    if ((mem->mem.base != X86_REG_INVALID && fb != f) ||
        (mem->mem.index != X86_REG_INVALID && fi != f))
        return 0;
    return (fb == f) + (fi == f ? mem->mem.scale : 0);
}

/* r->form, dst, src and k of an instruction, on the 64- or 32-bit names of
 * general registers (32-bit writes zero-extend: the same value while it
 * stays below 2^32). */
static void classify(const cs_insn *in, struct insn_rec *r)
{
    const cs_x86 *x = &in->detail->x86;
    const cs_x86_op *op = x->operands;
    int w = NWIDTHS, ws = NWIDTHS, f, src = -1;
    r->dst = r->src = -1;
    r->form = FORM_OTHER;
    if (x->op_count < 1 || op[0].type != X86_OP_REG || (f = gpr_family(op[0].reg, &w)) < 0 ||
        (w != W64 && w != W32))
        return;
    r->dst = (int8_t)f;
    if (x->op_count >= 2 && op[1].type == X86_OP_REG &&
        ((src = gpr_family(op[1].reg, &ws)) < 0 || ws != w))
        return;
    switch (in->id) {
    case X86_INS_ADD:
    case X86_INS_SUB:
        if (x->op_count != 2 || op[1].type != X86_OP_IMM)
            return;
        r->form = FORM_ADD;
        r->k = in->id == X86_INS_ADD ? op[1].imm : -op[1].imm;
        return;
    case X86_INS_INC:
    case X86_INS_DEC:
        if (x->op_count != 1)
            return;
        r->form = FORM_ADD;
        r->k = in->id == X86_INS_INC ? 1 : -1;
        return;
    case X86_INS_MOV:
        if (x->op_count != 2 || src < 0 || src == f)
            return;
        r->form = FORM_COPY;
        r->src = (int8_t)src;
        r->k = 1;
        return;
    case X86_INS_SHL:
        if (x->op_count == 2 && (op[1].type != X86_OP_IMM || op[1].imm < 0 || op[1].imm > 62))
            return;
        r->form = FORM_SCALE;
        r->k = (int64_t)1 << (x->op_count == 2 ? op[1].imm : 1);
        return;
    case X86_INS_IMUL:
        /* imul $k, %src, %dst */
        if (x->op_count != 3 || src < 0 || op[2].type != X86_OP_IMM)
            return;
        r->form = src == f ? FORM_SCALE : FORM_COPY;
        r->src = (int8_t)src;
        r->k = op[2].imm;
        return;
    case X86_INS_LEA: {
        if (x->op_count != 2 || op[1].type != X86_OP_MEM)
            return;
        const cs_x86_op *mem = &op[1];
        if (mem->mem.index == X86_REG_INVALID && gpr_family(mem->mem.base, NULL) == f) {
            r->form = FORM_ADD;   /* lea disp(%r), %r */
            r->k = mem->mem.disp;
            return;
        }
        int64_t self = lea_factor(mem, f);
        if (self) {
            r->form = FORM_SCALE;
            r->k = self;
            return;
        }
        int s = gpr_family(mem->mem.base != X86_REG_INVALID ? mem->mem.base : mem->mem.index,
                           NULL);
        int64_t k = s >= 0 ? lea_factor(mem, s) : 0;
        if (!k)
            return;
        r->form = FORM_COPY;
        r->src = (int8_t)s;
        r->k = k;
        return;
    }
    default:
        return;
    }
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

/* Decodes the instruction at the reader's position into r; false when the
 * bytes end or are no instruction. */
static bool decode(tf_code_stride_decoder *d, const uint8_t **p, size_t *left, uint64_t *pc,
                   struct insn_rec *r)
{
    const cs_insn *in = d->insn;
    if (!*left || !cs_disasm_iter(d->handle, p, left, pc, d->insn))
        return false;
    const cs_x86 *x = &in->detail->x86;
    *r = (struct insn_rec){ .addr = in->address, .size = (uint8_t)in->size };
    r->call = cs_insn_group(d->handle, in, X86_GRP_CALL);
    r->jump = cs_insn_group(d->handle, in, X86_GRP_JUMP);
    if (r->jump && x->op_count == 1 && x->operands[0].type == X86_OP_IMM)
        r->target = (uint64_t)x->operands[0].imm;
    /* a return, an indirect jump or a trap ends the code: marked as a jump
     * to nowhere (target 0) */
    if (cs_insn_group(d->handle, in, X86_GRP_RET) || in->id == X86_INS_UD2 ||
        in->id == X86_INS_HLT)
        r->jump = true;
    cs_regs rd, wr;
    uint8_t nrd = 0, nwr = 0;
    if (cs_regs_access(d->handle, in, rd, &nrd, wr, &nwr) != CS_ERR_OK)
        r->writes = 0xffff;   /* unknown: assume the worst */
    for (uint8_t i = 0; i < nwr; i++) {
        int f = gpr_family(wr[i], NULL);
        if (f >= 0)
            r->writes |= (uint16_t)(1u << f);
    }
    classify(in, r);
    const cs_x86_op *mem = memory_operand(in);
    r->mem_base = r->mem_index = -1;
    if (mem && mem->mem.segment == X86_REG_INVALID) {
        r->mem_base = (int8_t)gpr_family(mem->mem.base, NULL);
        r->mem_index = (int8_t)gpr_family(mem->mem.index, NULL);
        r->mem_scale = (uint8_t)mem->mem.scale;
        r->mem_disp = mem->mem.disp;
        r->mem_size = mem->size;
    }
    return true;
}

/* Whether the write recs[i] lies in a loop nested in the body recs[0..n)
 * (a backward jump after it to it or before it, other than the back edge):
 * it then runs more than once per iteration. */
static bool in_nested_loop(const struct insn_rec *recs, size_t n, size_t i)
{
    for (size_t k = i; k + 1 < n; k++)
        if (recs[k].jump && recs[k].target >= recs[0].addr && recs[k].target <= recs[i].addr)
            return true;
    return false;
}

/* Whether family f may change in the body other than by its own
 * instructions: a call clobbers the caller-saved registers. */
static bool clobbered(const struct insn_rec *recs, size_t n, int f)
{
    for (size_t i = 0; i < n && caller_saved[f]; i++)
        if (recs[i].call)
            return true;
    return false;
}

/* The step of a basic induction register f over one iteration of the body
 * recs[0..n): every write to it adds a constant. */
static int basic_step(const struct insn_rec *recs, size_t n, int f, int64_t *step)
{
    *step = 0;
    if (clobbered(recs, n, f))
        return TF_CODE_STRIDE_NOT_INDUCTION;
    for (size_t i = 0; i < n; i++) {
        const struct insn_rec *r = &recs[i];
        if (!(r->writes & (1u << f)))
            continue;
        if (r->form != FORM_ADD || r->dst != f || in_nested_loop(recs, n, i))
            return TF_CODE_STRIDE_NOT_INDUCTION;
        *step += r->k;
    }
    return TF_CODE_STRIDE_FOUND;
}

/* The step of register family f used by the instruction recs[use]: a
 * basic induction register, or one derived from one each iteration
 * (f = a × s + b: one copy from s, then scalings and constant additions,
 * as compilers compute k × N from k), whose step is a times s's. */
static int register_step(const struct insn_rec *recs, size_t n, size_t use, int f,
                         int64_t *step)
{
    if (basic_step(recs, n, f, step) == TF_CODE_STRIDE_FOUND)
        return TF_CODE_STRIDE_FOUND;
    *step = 0;
    size_t copy = n;
    for (size_t i = 0; i < n; i++) {
        const struct insn_rec *r = &recs[i];
        if (!(r->writes & (1u << f)))
            continue;
        if (r->dst != f || r->form == FORM_OTHER || in_nested_loop(recs, n, i))
            return TF_CODE_STRIDE_NOT_INDUCTION;
        if (r->form == FORM_COPY) {
            if (copy < n)
                return TF_CODE_STRIDE_NOT_INDUCTION;
            copy = i;
        }
    }
    if (copy == n || clobbered(recs, n, f))
        return TF_CODE_STRIDE_NOT_INDUCTION;
    /* the scalings between the copy and the use, in the loop's cyclic order */
    int64_t a = recs[copy].k, s;
    for (size_t i = (copy + 1) % n; i != use; i = (i + 1) % n)
        if (recs[i].dst == f && recs[i].form == FORM_SCALE)
            a *= recs[i].k;
    int st = basic_step(recs, n, recs[copy].src, &s);
    if (st != TF_CODE_STRIDE_FOUND)
        return st;
    *step = a * s;
    return TF_CODE_STRIDE_FOUND;
}

/* Decodes the loop around ip into d->recs: forward from ip to the first
 * jump back to ip or before it (the back edge), then the body from that
 * jump's target up to ip.  *first and *n: the body's records. */
static int decode_loop(tf_code_stride_decoder *d, const uint8_t *code, size_t len, uint64_t addr,
                       uint64_t ip, size_t *first, size_t *n)
{
    /* the part from ip goes to the second half of recs, the part before
     * ip is decoded into the first half and moved next to it */
    struct insn_rec *fwd = d->recs + MAX_RECS / 2;
    size_t nf = 0;
    const uint8_t *p = code + (ip - addr);
    size_t left = len - (size_t)(ip - addr);
    uint64_t pc = ip;
    for (;;) {
        if (nf == MAX_RECS / 2)
            return TF_CODE_STRIDE_NO_LOOP;
        if (!decode(d, &p, &left, &pc, &fwd[nf]))
            return left ? TF_CODE_STRIDE_UNDECODABLE : TF_CODE_STRIDE_NO_LOOP;
        const struct insn_rec *r = &fwd[nf++];
        if (r->jump && r->target && r->target <= ip && r->target >= addr)
            break;
        /* the code ends: a return, an indirect jump, a trap */
        if (r->jump && !r->target)
            return TF_CODE_STRIDE_NO_LOOP;
    }
    uint64_t start = fwd[nf - 1].target;
    size_t nb = 0;
    p = code + (start - addr);
    left = (size_t)(ip - start);
    pc = start;
    while (pc < ip) {
        if (nb == MAX_RECS / 2 || !decode(d, &p, &left, &pc, &d->recs[nb]))
            return TF_CODE_STRIDE_UNDECODABLE;
        nb++;
    }
    /* decoding from the loop's start must meet the instruction's boundary */
    if (pc != ip)
        return TF_CODE_STRIDE_UNDECODABLE;
    *first = MAX_RECS / 2 - nb;
    memmove(d->recs + *first, d->recs, nb * sizeof *d->recs);
    *n = nb + nf;
    return TF_CODE_STRIDE_FOUND;
}

/* Whether recs[j] is reached from recs[use] (either way round the body's
 * linear order) without a write to family f. */
static bool unchanged_between(const struct insn_rec *recs, size_t use, size_t j, int f)
{
    if (f < 0)
        return true;
    size_t lo = use < j ? use : j, hi = use < j ? j : use;
    for (size_t i = lo; i < hi; i++)
        if (recs[i].writes & (1u << f))
            return false;
    return true;
}

/* The bytes the body's references through the same address registers as
 * recs[use] advance by, together, per reference: those made between the
 * same register updates differ only in their displacements, so each
 * iteration they touch [disp, disp + size) for each of them.  When those
 * intervals cover a run of |stride| bytes around recs[use]'s, the loop
 * sweeps its data contiguously (an unrolled copy: four 32-byte loads
 * then +128) and the result is the widest access's size, which is then
 * also *width; otherwise the stride itself. */
static int64_t sweep_of(const struct insn_rec *recs, size_t n, size_t use, int64_t stride,
                        uint32_t *width)
{
    const struct insn_rec *u = &recs[use];
    uint64_t step = (uint64_t)(stride < 0 ? -stride : stride);
    if (!u->mem_size || step <= u->mem_size || step > 4096)
        return stride;
    /* a bitmap of the covered bytes of [disp - step, disp + step) */
    uint8_t covered[1024] = { 0 };
    int64_t lo = u->mem_disp - (int64_t)step;
    unsigned widest = u->mem_size;
    for (size_t j = 0; j < n; j++) {
        const struct insn_rec *r = &recs[j];
        if (!r->mem_size || r->mem_base != u->mem_base || r->mem_index != u->mem_index ||
            r->mem_scale != u->mem_scale || !unchanged_between(recs, use, j, u->mem_base) ||
            !unchanged_between(recs, use, j, u->mem_index))
            continue;
        for (int64_t b = r->mem_disp; b < r->mem_disp + r->mem_size; b++)
            if (b >= lo && b < lo + 2 * (int64_t)step)
                covered[(b - lo) >> 3] |= (uint8_t)(1u << ((b - lo) & 7));
        if (r->mem_size > widest)
            widest = r->mem_size;
    }
    /* the longest covered run */
    uint64_t run = 0, longest = 0;
    for (uint64_t b = 0; b < 2 * step; b++) {
        run = covered[b >> 3] & (1u << (b & 7)) ? run + 1 : 0;
        longest = run > longest ? run : longest;
    }
    if (longest < step)
        return stride;
    *width = widest;
    return stride < 0 ? -(int64_t)widest : (int64_t)widest;
}

int tf_code_stride_find(tf_code_stride_decoder *d, const uint8_t *code, size_t len, uint64_t addr,
                        uint64_t ip, tf_code_stride *out)
{
    *out = (tf_code_stride){ .status = TF_CODE_STRIDE_UNDECODABLE };
    if (ip < addr || ip - addr >= len)
        return out->status = TF_CODE_STRIDE_NO_LOOP;
    const uint8_t *p = code + (ip - addr);
    size_t left = len - (size_t)(ip - addr);
    uint64_t pc = ip;
    if (!cs_disasm_iter(d->handle, &p, &left, &pc, d->insn))
        return out->status;
    const cs_x86_op *mem = memory_operand(d->insn);
    if (!mem)
        return out->status = TF_CODE_STRIDE_NO_OPERAND;
    /* copied: the decoder's instruction buffer is reused below */
    unsigned base = mem->mem.base, index = mem->mem.index;
    int64_t scale = mem->mem.scale;
    int fb = gpr_family(base, NULL), fi = gpr_family(index, NULL);
    out->width = mem->size;
    /* a register other than a general one (rip, or none) adds nothing that moves */
    if ((base != X86_REG_INVALID && base != X86_REG_RIP && fb < 0) ||
        (index != X86_REG_INVALID && fi < 0))
        return out->status = TF_CODE_STRIDE_NO_OPERAND;
    size_t first = 0, n = 0;
    int st = decode_loop(d, code, len, addr, ip, &first, &n);
    if (st != TF_CODE_STRIDE_FOUND)
        return out->status = (uint8_t)st;
    const struct insn_rec *body = d->recs + first;
    out->loop_start = body[0].addr;
    out->loop_end = body[n - 1].addr + body[n - 1].size;
    /* the sampled instruction's record in the body */
    size_t use = 0;
    while (body[use].addr != ip)
        use++;
    int64_t sb = 0, si = 0;
    if (fb >= 0 && (st = register_step(body, n, use, fb, &sb)))
        return out->status = (uint8_t)st;
    if (fi >= 0 && (st = register_step(body, n, use, fi, &si)))
        return out->status = (uint8_t)st;
    out->bytes = sb + si * scale;
    out->sweep = sweep_of(body, n, use, out->bytes, &out->width);
    return out->status = TF_CODE_STRIDE_FOUND;
}

const char *tf_code_stride_status_name(int status)
{
    static const char *const names[] = { "found", "no loop", "not an induction",
                                         "no memory operand", "undecodable" };
    return status >= 0 && (size_t)status < sizeof names / sizeof *names ? names[status]
                                                                         : "unknown";
}
