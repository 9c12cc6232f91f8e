/* SPDX-License-Identifier: BSD-3-Clause */
/* Effective addresses of the instruction at a sampled IP (see ea_decode.h
 * for the method, the attribution choice and the signal-safety design). */
#include "ea_decode.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capstone_load.h"
#include "sigsafe_format.h"

#if defined(__x86_64__)
#include <asm/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#endif

/* Longest x86 instruction (Intel SDM vol. 2, 2.3.11). */
#define TF_X86_MAX_INSN 15

/* Known instruction boundaries kept per thread (direct-mapped by address):
 * the IPs of earlier samples and the ends of the instructions decoded
 * there.  Decoding forward from one of them is the reliable way to find the
 * instruction that ends at an IP. */
#define TF_EA_ANCHORS      256
#define TF_EA_ANCHOR_REACH 256   /* bytes before the IP searched from an anchor */

/* Plans of the IPs sampled before (direct-mapped by IP): a hot loop is
 * decoded once, later samples there only evaluate the plan. */
#define TF_EA_CACHE 512

/* An address register in a plan: a greg index, or one of these. */
enum { TF_REG_NONE = -1, TF_REG_NEXT_IP = -2 };
enum { TF_SEG_NONE = 0, TF_SEG_FS, TF_SEG_GS };

typedef struct tf_ea_recipe {
    int64_t  disp;
    uint32_t size;
    int8_t   base, index;        /* greg index or TF_REG_* */
    uint8_t  base_w, index_w;    /* bytes of the register used: 8, or 4 */
    uint8_t  scale;
    uint8_t  segment;            /* TF_SEG_* */
    bool     addr32;             /* 0x67: the address is truncated to 32 bits */
    uint8_t  dir, flags;
} tf_ea_recipe;

/* A decoded instruction reduced to what the addresses need: evaluating it
 * with the registers of any later sample at the same IP gives that
 * sample's references without decoding again. */
typedef struct tf_ea_plan {
    uint64_t insn_ip;            /* address of the decoded instruction */
    uint32_t insn_id;
    uint8_t  insn_len, status, origin, nref;
    tf_ea_recipe ref[TF_EA_MAX_ACCESS];
} tf_ea_plan;

typedef struct tf_ea_cached {
    uint64_t   ip;               /* the sampled IP; 0: empty */
    tf_ea_plan at;               /* the instruction at the IP */
    tf_ea_plan before;           /* the one that ends there: TF_EA_MEMORY or not usable */
    bool       before_final;     /* `before` decided; else ambiguous bytes, no boundary yet */
} tf_ea_cached;

struct tf_ea_decoder {
    const tf_capstone *cs;       /* loaded on the first decoder's creation */
    csh      handle;
    cs_insn *insn;       /* cs_malloc'ed once; cs_disasm_iter fills it */
    size_t   page_size;  /* cached: sysconf is not async-signal-safe */
    uint64_t anchors[TF_EA_ANCHORS];
    tf_ea_cached cache[TF_EA_CACHE];
    /* Inside tf_ea_decode_copy: the caller's copy of the code, win_len
     * bytes from win_addr; NULL: this process's own memory. */
    const uint8_t *win;
    uint64_t win_addr;
    size_t   win_len;
};

/* ---- capstone memory hooks (process-wide) ------------------------------ */

static atomic_uint_fast64_t capstone_allocs;

static void *count_malloc(size_t n)
{
    atomic_fetch_add_explicit(&capstone_allocs, 1, memory_order_relaxed);
    return malloc(n);
}

static void *count_calloc(size_t nmemb, size_t n)
{
    atomic_fetch_add_explicit(&capstone_allocs, 1, memory_order_relaxed);
    return calloc(nmemb, n);
}

static void *count_realloc(void *p, size_t n)
{
    atomic_fetch_add_explicit(&capstone_allocs, 1, memory_order_relaxed);
    return realloc(p, n);
}

static pthread_once_t mem_hooks_once = PTHREAD_ONCE_INIT;
static cs_err mem_hooks_status;

/* Run once capstone is loaded (tf_ea_decoder_create). */
static void install_mem_hooks(void)
{
    /* CS_OPT_MEM copies the pointers into capstone's globals; the handle
     * argument is ignored for this option (capstone.h). */
    cs_opt_mem mem = {
        .malloc = count_malloc, .calloc = count_calloc, .realloc = count_realloc,
        .free = free, .vsnprintf = tf_sigsafe_vsnprintf,
    };
    tf_error err;
    mem_hooks_status = tf_capstone_load(&err)->option(0, CS_OPT_MEM, (size_t)&mem);
}

uint64_t tf_ea_capstone_allocations(void)
{
    return atomic_load_explicit(&capstone_allocs, memory_order_relaxed);
}

/* ---- instruction tables ------------------------------------------------ */

/* General registers usable in 64-bit mode addresses: capstone id -> greg
 * index and width (32-bit names come with the 0x67 address-size prefix). */
typedef struct tf_reg_map {
    uint8_t greg;
    uint8_t width;   /* 0: not a general register */
} tf_reg_map;

#define TF_GPR(r64, r32, r16, r8, idx)                                       \
    [X86_REG_##r64] = { TF_EA_##idx, 8 }, [X86_REG_##r32] = { TF_EA_##idx, 4 }, \
    [X86_REG_##r16] = { TF_EA_##idx, 2 }, [X86_REG_##r8] = { TF_EA_##idx, 1 }

/* 16- and 8-bit names never form 64-bit-mode addresses; they are listed
 * because writing them changes the full register (write hazards). */
static const tf_reg_map reg_map[X86_REG_ENDING] = {
    TF_GPR(RAX, EAX, AX, AL, RAX), TF_GPR(RCX, ECX, CX, CL, RCX),
    TF_GPR(RDX, EDX, DX, DL, RDX), TF_GPR(RBX, EBX, BX, BL, RBX),
    TF_GPR(RSP, ESP, SP, SPL, RSP), TF_GPR(RBP, EBP, BP, BPL, RBP),
    TF_GPR(RSI, ESI, SI, SIL, RSI), TF_GPR(RDI, EDI, DI, DIL, RDI),
    TF_GPR(R8, R8D, R8W, R8B, R8), TF_GPR(R9, R9D, R9W, R9B, R9),
    TF_GPR(R10, R10D, R10W, R10B, R10), TF_GPR(R11, R11D, R11W, R11B, R11),
    TF_GPR(R12, R12D, R12W, R12B, R12), TF_GPR(R13, R13D, R13W, R13B, R13),
    TF_GPR(R14, R14D, R14W, R14B, R14), TF_GPR(R15, R15D, R15W, R15B, R15),
    [X86_REG_AH] = { TF_EA_RAX, 1 }, [X86_REG_CH] = { TF_EA_RCX, 1 },
    [X86_REG_DH] = { TF_EA_RDX, 1 }, [X86_REG_BH] = { TF_EA_RBX, 1 },
};

/* How an instruction's explicit memory operands are accessed, where
 * capstone's flags cannot be used as they are. */
enum tf_rule { RULE_NONE = 0, RULE_NO_ACCESS, RULE_READ, RULE_WRITE, RULE_RW };

typedef struct tf_insn_rule {
    uint16_t id;      /* x86_insn */
    uint8_t  rule;    /* enum tf_rule */
} tf_insn_rule;

static const tf_insn_rule insn_rules[] = {
    /* Address arithmetic only. */
    { X86_INS_LEA, RULE_NO_ACCESS }, { X86_INS_NOP, RULE_NO_ACCESS },
    /* A memory first operand that is only read (compare, test, bit test). */
    { X86_INS_CMP, RULE_READ }, { X86_INS_TEST, RULE_READ }, { X86_INS_BT, RULE_READ },
    { X86_INS_CMPSB, RULE_READ }, { X86_INS_CMPSW, RULE_READ }, { X86_INS_CMPSD, RULE_READ },
    { X86_INS_CMPSQ, RULE_READ },
    /* Compare-and-exchange reads and (conditionally) writes its operand. */
    { X86_INS_CMPXCHG, RULE_RW }, { X86_INS_CMPXCHG8B, RULE_RW },
    { X86_INS_CMPXCHG16B, RULE_RW },
    /* Single-operand stores that capstone 4 reports as reads. */
    { X86_INS_FST, RULE_WRITE }, { X86_INS_FSTP, RULE_WRITE }, { X86_INS_FIST, RULE_WRITE },
    { X86_INS_FISTP, RULE_WRITE }, { X86_INS_FISTTP, RULE_WRITE }, { X86_INS_FBSTP, RULE_WRITE },
    { X86_INS_FNSTCW, RULE_WRITE }, { X86_INS_FNSTSW, RULE_WRITE },
    { X86_INS_FNSTENV, RULE_WRITE }, { X86_INS_FNSAVE, RULE_WRITE },
    { X86_INS_STMXCSR, RULE_WRITE }, { X86_INS_VSTMXCSR, RULE_WRITE },
    { X86_INS_FXSAVE, RULE_WRITE }, { X86_INS_FXSAVE64, RULE_WRITE },
    { X86_INS_XSAVE, RULE_WRITE }, { X86_INS_XSAVE64, RULE_WRITE },
    { X86_INS_XSAVEC, RULE_WRITE }, { X86_INS_XSAVEC64, RULE_WRITE },
    { X86_INS_XSAVEOPT, RULE_WRITE }, { X86_INS_XSAVEOPT64, RULE_WRITE },
    { X86_INS_XSAVES, RULE_WRITE }, { X86_INS_XSAVES64, RULE_WRITE },
    { X86_INS_SGDT, RULE_WRITE }, { X86_INS_SIDT, RULE_WRITE },
};

/* VSIB instructions (gathers, scatters and their prefetches): direction. */
static const tf_insn_rule vsib_insns[] = {
    { X86_INS_VGATHERDPD, TF_EA_READ }, { X86_INS_VGATHERDPS, TF_EA_READ },
    { X86_INS_VGATHERQPD, TF_EA_READ }, { X86_INS_VGATHERQPS, TF_EA_READ },
    { X86_INS_VPGATHERDD, TF_EA_READ }, { X86_INS_VPGATHERDQ, TF_EA_READ },
    { X86_INS_VPGATHERQD, TF_EA_READ }, { X86_INS_VPGATHERQQ, TF_EA_READ },
    { X86_INS_VGATHERPF0DPD, TF_EA_READ }, { X86_INS_VGATHERPF0DPS, TF_EA_READ },
    { X86_INS_VGATHERPF0QPD, TF_EA_READ }, { X86_INS_VGATHERPF0QPS, TF_EA_READ },
    { X86_INS_VGATHERPF1DPD, TF_EA_READ }, { X86_INS_VGATHERPF1DPS, TF_EA_READ },
    { X86_INS_VGATHERPF1QPD, TF_EA_READ }, { X86_INS_VGATHERPF1QPS, TF_EA_READ },
    { X86_INS_VSCATTERDPD, TF_EA_WRITE }, { X86_INS_VSCATTERDPS, TF_EA_WRITE },
    { X86_INS_VSCATTERQPD, TF_EA_WRITE }, { X86_INS_VSCATTERQPS, TF_EA_WRITE },
    { X86_INS_VPSCATTERDD, TF_EA_WRITE }, { X86_INS_VPSCATTERDQ, TF_EA_WRITE },
    { X86_INS_VPSCATTERQD, TF_EA_WRITE }, { X86_INS_VPSCATTERQQ, TF_EA_WRITE },
    { X86_INS_VSCATTERPF0DPD, TF_EA_WRITE }, { X86_INS_VSCATTERPF0DPS, TF_EA_WRITE },
    { X86_INS_VSCATTERPF0QPD, TF_EA_WRITE }, { X86_INS_VSCATTERPF0QPS, TF_EA_WRITE },
    { X86_INS_VSCATTERPF1DPD, TF_EA_WRITE }, { X86_INS_VSCATTERPF1DPS, TF_EA_WRITE },
    { X86_INS_VSCATTERPF1QPD, TF_EA_WRITE }, { X86_INS_VSCATTERPF1QPS, TF_EA_WRITE },
};

/* Implicit stack references. */
enum tf_slot { SLOT_PUSH, SLOT_POP, SLOT_LEAVE };

typedef struct tf_stack_insn {
    uint16_t id;
    uint8_t  dir;    /* enum tf_ea_dir */
    uint8_t  slot;   /* PUSH: [rsp - size]; POP: [rsp]; LEAVE: [rbp] */
    uint8_t  size;   /* 0: the operand's size */
} tf_stack_insn;

static const tf_stack_insn stack_insns[] = {
    { X86_INS_PUSH, TF_EA_WRITE, SLOT_PUSH, 0 }, { X86_INS_POP, TF_EA_READ, SLOT_POP, 0 },
    { X86_INS_PUSHFQ, TF_EA_WRITE, SLOT_PUSH, 8 }, { X86_INS_POPFQ, TF_EA_READ, SLOT_POP, 8 },
    { X86_INS_PUSHF, TF_EA_WRITE, SLOT_PUSH, 2 }, { X86_INS_POPF, TF_EA_READ, SLOT_POP, 2 },
    { X86_INS_CALL, TF_EA_WRITE, SLOT_PUSH, 8 }, { X86_INS_RET, TF_EA_READ, SLOT_POP, 8 },
    { X86_INS_ENTER, TF_EA_WRITE, SLOT_PUSH, 8 }, { X86_INS_LEAVE, TF_EA_READ, SLOT_LEAVE, 8 },
};

#define TF_NELEM(a) (sizeof(a) / sizeof((a)[0]))

static int find_rule(const tf_insn_rule *t, size_t n, unsigned id)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].id == id)
            return t[i].rule;
    return RULE_NONE;
}

static const tf_stack_insn *find_stack_insn(unsigned id)
{
    for (size_t i = 0; i < TF_NELEM(stack_insns); i++)
        if (stack_insns[i].id == id)
            return &stack_insns[i];
    return NULL;
}

/* ---- decoder lifetime --------------------------------------------------- */

/* Instructions decoded once per handle so that capstone builds its lazily
 * allocated lookup tables outside signal context: string, stack, x87, SSE,
 * AVX, AVX-512 and VSIB forms, implicit-register instructions. */
static const uint8_t warmup_code[] = {
    0xab, 0xa4, 0xac, 0xae, 0xa6, 0xf3, 0x48, 0xa5, 0x6c, 0xd7,   /* string, ins, xlat */
    0x50, 0x5b, 0x9c, 0x9d, 0xc9,                                 /* stack */
    0x48, 0x8b, 0x05, 0x10, 0x00, 0x00, 0x00,                     /* mov rax, [rip+16] */
    0x48, 0x8d, 0x04, 0x88,                                       /* lea */
    0xf0, 0x48, 0x0f, 0xb1, 0x0f,                                 /* lock cmpxchg */
    0xdd, 0x1f, 0xd9, 0xe8, 0x48, 0xf7, 0xf1,                     /* fstp, fld1, div */
    0x0f, 0x11, 0x07,                                             /* movups store */
    0xc5, 0xfc, 0x10, 0x04, 0x88,                                 /* vmovups ymm */
    0x62, 0xf1, 0x7c, 0x48, 0x10, 0x40, 0x01,                     /* vmovups zmm */
    0xc4, 0xe2, 0x75, 0x92, 0x04, 0x88,                           /* vgatherdps */
    0xe8, 0x00, 0x00, 0x00, 0x00, 0xc3,                           /* call, ret */
};

static int warm_up(tf_ea_decoder *d)
{
    const uint8_t *code = warmup_code;
    size_t size = sizeof warmup_code;
    uint64_t addr = 0x1000;
    while (size) {
        if (!d->cs->disasm_iter(d->handle, &code, &size, &addr, d->insn))
            return -1;
    }
    return 0;
}

int tf_ea_decoder_create(tf_ea_decoder **out, tf_error *err)
{
    *out = NULL;
    const tf_capstone *cs = tf_capstone_load(err);
    if (!cs)
        return -TF_ERR_UNSUPPORTED;
    pthread_once(&mem_hooks_once, install_mem_hooks);
    if (mem_hooks_status != CS_ERR_OK)
        return tf_fail(err, TF_ERR_INTERNAL, "capstone: setting the allocator: %s",
                       cs->strerror(mem_hooks_status));
    tf_ea_decoder *d = calloc(1, sizeof *d);
    if (!d)
        return tf_fail(err, TF_ERR_NOMEM, "effective-address decoder");
    long page = sysconf(_SC_PAGESIZE);
    d->page_size = page > 0 ? (size_t)page : 4096;
    d->cs = cs;
    cs_err e = cs->open(CS_ARCH_X86, CS_MODE_64, &d->handle);
    if (e != CS_ERR_OK) {
        free(d);
        return tf_fail(err, TF_ERR_UNSUPPORTED, "capstone: x86-64 decoder: %s", cs->strerror(e));
    }
    e = cs->option(d->handle, CS_OPT_DETAIL, CS_OPT_ON);
    if (e != CS_ERR_OK)
        goto fail;
    d->insn = cs->malloc(d->handle);
    if (!d->insn) {
        e = CS_ERR_MEM;
        goto fail;
    }
    if (warm_up(d) != 0) {
        e = cs->errno_of(d->handle);
        goto fail;
    }
    *out = d;
    return 0;
fail:
    tf_ea_decoder_free(d);
    return tf_fail(err, TF_ERR_INTERNAL, "capstone: preparing the decoder: %s", cs->strerror(e));
}

void tf_ea_decoder_free(tf_ea_decoder *d)
{
    if (!d)
        return;
    if (d->insn)
        d->cs->free(d->insn, 1);
    d->cs->close(&d->handle);
    free(d);
}

/* ---- registers ---------------------------------------------------------- */

int tf_ea_thread_bases(uint64_t *fs_base, uint64_t *gs_base, tf_error *err)
{
#if defined(__x86_64__)
    unsigned long fs = 0, gs = 0;
    if (syscall(SYS_arch_prctl, ARCH_GET_FS, &fs) != 0 ||
        syscall(SYS_arch_prctl, ARCH_GET_GS, &gs) != 0)
        return tf_fail(err, TF_ERR_UNSUPPORTED, "arch_prctl: cannot read the segment bases");
    *fs_base = fs;
    *gs_base = gs;
    return 0;
#else
    *fs_base = *gs_base = 0;
    return tf_fail(err, TF_ERR_UNSUPPORTED, "segment bases: x86-64 only");
#endif
}

#if defined(__x86_64__)
/* enum tf_ea_greg mirrors the gregs layout (glibc <sys/ucontext.h>). */
#define TF_SAME_REG(r) ((int)REG_##r == (int)TF_EA_##r)
_Static_assert(TF_SAME_REG(R8) && TF_SAME_REG(R15) && TF_SAME_REG(RDI) && TF_SAME_REG(RSI) &&
               TF_SAME_REG(RBP) && TF_SAME_REG(RBX) && TF_SAME_REG(RDX) && TF_SAME_REG(RAX) &&
               TF_SAME_REG(RCX) && TF_SAME_REG(RSP) && TF_SAME_REG(RIP),
               "tf_ea_greg must follow the ucontext gregs order");

void tf_ea_regs_from_ucontext(tf_ea_regs *regs, const void *ucontext, uint64_t fs_base,
                              uint64_t gs_base)
{
    const ucontext_t *uc = ucontext;
    memcpy(regs->greg, uc->uc_mcontext.gregs, sizeof regs->greg);
    regs->fs_base = fs_base;
    regs->gs_base = gs_base;
}
#else
void tf_ea_regs_from_ucontext(tf_ea_regs *regs, const void *ucontext, uint64_t fs_base,
                              uint64_t gs_base)
{
    memset(regs, 0, sizeof *regs);
}
#endif

/* ---- plans: how to compute an instruction's references ----------------- */

/* Converts a capstone address register; false for one that is neither a
 * general register nor rip/eip. */
static bool plan_register(unsigned reg, int8_t *idx, uint8_t *width)
{
    switch (reg) {
    case X86_REG_INVALID: *idx = TF_REG_NONE; *width = 8; return true;
    case X86_REG_RIP:     *idx = TF_REG_NEXT_IP; *width = 8; return true;
    case X86_REG_EIP:     *idx = TF_REG_NEXT_IP; *width = 4; return true;
    default:              break;
    }
    if (reg >= X86_REG_ENDING || reg_map[reg].width < 4)
        return false;
    *idx = (int8_t)reg_map[reg].greg;
    *width = reg_map[reg].width;
    return true;
}

static uint64_t recipe_register(int8_t idx, uint8_t width, const tf_ea_regs *regs,
                                uint64_t next_ip)
{
    uint64_t v = idx == TF_REG_NONE ? 0 : idx == TF_REG_NEXT_IP ? next_ip : regs->greg[idx];
    return width == 4 ? v & 0xffffffffu : v;
}

static uint64_t recipe_address(const tf_ea_recipe *r, const tf_ea_regs *regs, uint64_t next_ip)
{
    uint64_t ea = recipe_register(r->base, r->base_w, regs, next_ip) +
                  recipe_register(r->index, r->index_w, regs, next_ip) * r->scale +
                  (uint64_t)r->disp;
    if (r->addr32)
        ea &= 0xffffffffu;
    /* Only fs and gs have a base in 64-bit mode (SDM vol. 1, 3.4.2.1). */
    if (r->segment == TF_SEG_FS)
        ea += regs->fs_base;
    else if (r->segment == TF_SEG_GS)
        ea += regs->gs_base;
    return ea;
}

/* The references of a plan with the given registers. */
static int evaluate(const tf_ea_plan *p, const tf_ea_regs *regs, uint64_t sampled_ip,
                    tf_ea_result *out)
{
    uint64_t next_ip = p->insn_ip + p->insn_len;
    out->ip = p->status == TF_EA_UNDECODABLE || p->status == TF_EA_UNRESOLVED ? sampled_ip
                                                                             : p->insn_ip;
    out->insn_id = p->insn_id;
    out->insn_len = p->insn_len;
    out->origin = p->origin;
    out->naccess = p->nref;
    for (unsigned i = 0; i < p->nref; i++) {
        const tf_ea_recipe *r = &p->ref[i];
        out->access[i] = (tf_ea_access){
            .addr = (r->flags & TF_EA_VECTOR) ? 0 : recipe_address(r, regs, next_ip),
            .size = r->size, .dir = r->dir, .flags = r->flags,
        };
    }
    out->status = p->status;
    return p->status;
}

/* Direction of explicit memory operand i. */
static uint8_t operand_dir(const cs_x86 *x, unsigned i, int rule)
{
    switch (rule) {
    case RULE_READ:  return TF_EA_READ;
    case RULE_WRITE: return TF_EA_WRITE;
    case RULE_RW:    return TF_EA_RW;
    default:         break;
    }
    uint8_t a = x->operands[i].access & (CS_AC_READ | CS_AC_WRITE);
    /* A memory destination (first of two or more operands, Intel order) is
     * written: capstone 4 leaves the write out for many vector/x87 stores. */
    if (i == 0 && x->op_count >= 2 && !(a & CS_AC_WRITE))
        return TF_EA_WRITE;
    return a ? a : TF_EA_READ;
}

static bool operand_recipe(const cs_x86_op *op, const cs_x86 *x, tf_ea_recipe *r)
{
    if (!plan_register(op->mem.base, &r->base, &r->base_w) ||
        !plan_register(op->mem.index, &r->index, &r->index_w))
        return false;
    r->scale = (uint8_t)op->mem.scale;
    r->disp = op->mem.disp;
    r->addr32 = x->addr_size == 4;
    if (op->mem.segment == X86_REG_FS || op->mem.segment == X86_REG_GS) {
        r->segment = op->mem.segment == X86_REG_FS ? TF_SEG_FS : TF_SEG_GS;
        r->flags |= TF_EA_SEGMENT;
    }
    return true;
}

static void stack_recipe(const tf_stack_insn *s, const cs_x86 *x, tf_ea_recipe *r)
{
    uint32_t size = s->size;
    if (size == 0) {
        const cs_x86_op *op = &x->operands[0];
        /* push imm pushes a full slot (2 bytes with an operand-size prefix). */
        size = x->op_count && op->type != X86_OP_IMM ? op->size
                                                      : (x->prefix[2] == 0x66 ? 2 : 8);
    }
    *r = (tf_ea_recipe){
        .base = s->slot == SLOT_LEAVE ? TF_EA_RBP : TF_EA_RSP, .base_w = 8,
        .index = TF_REG_NONE, .index_w = 8,
        .disp = s->slot == SLOT_PUSH ? -(int64_t)size : 0,
        .size = size, .dir = s->dir, .flags = TF_EA_STACK,
    };
}

static int plan_status(tf_ea_plan *p, int status)
{
    p->status = (uint8_t)status;
    return status;
}

/* Decodes the instruction at code (address ip) into a plan. */
static int decode_plan(tf_ea_decoder *d, const uint8_t *code, size_t len, uint64_t ip,
                       tf_ea_plan *p)
{
    memset(p, 0, sizeof *p);
    p->insn_ip = ip;
    p->origin = TF_EA_AT_IP;
    uint64_t addr = ip;
    if (!d->cs->disasm_iter(d->handle, &code, &len, &addr, d->insn))
        return plan_status(p, TF_EA_UNDECODABLE);
    const cs_insn *insn = d->insn;
    const cs_x86 *x = &insn->detail->x86;
    p->insn_id = insn->id;
    p->insn_len = (uint8_t)insn->size;

    int rule = find_rule(insn_rules, TF_NELEM(insn_rules), insn->id);
    int vsib_dir = find_rule(vsib_insns, TF_NELEM(vsib_insns), insn->id);
    for (unsigned i = 0; i < x->op_count && p->nref < TF_EA_MAX_ACCESS; i++) {
        const cs_x86_op *op = &x->operands[i];
        if (op->type != X86_OP_MEM || rule == RULE_NO_ACCESS)
            continue;
        tf_ea_recipe *r = &p->ref[p->nref];
        r->size = op->size;
        if (vsib_dir) {
            r->dir = (uint8_t)vsib_dir;
            r->flags = TF_EA_VECTOR;
        } else {
            r->dir = operand_dir(x, i, rule);
            if (!operand_recipe(op, x, r)) {
                p->nref = 0;
                return plan_status(p, TF_EA_UNDECODABLE);
            }
        }
        p->nref++;
    }
    const tf_stack_insn *s = find_stack_insn(insn->id);
    if (s && p->nref < TF_EA_MAX_ACCESS)
        stack_recipe(s, x, &p->ref[p->nref++]);
    if (vsib_dir)
        return plan_status(p, TF_EA_GATHER);
    return plan_status(p, p->nref ? TF_EA_MEMORY : TF_EA_NO_MEMORY);
}

int tf_ea_decode(tf_ea_decoder *d, const uint8_t *code, size_t len, const tf_ea_regs *regs,
                 tf_ea_result *out)
{
    tf_ea_plan p;
    uint64_t ip = regs->greg[TF_EA_RIP];
    decode_plan(d, code, len, ip, &p);
    return evaluate(&p, regs, ip, out);
}

/* ---- the instruction before the IP -------------------------------------- */

/* True when the decoded instruction (d->insn) writes a register that its
 * memory operands use: executed, it no longer has the registers it used. */
static bool writes_address_register(tf_ea_decoder *d)
{
    cs_regs rd, wr;
    uint8_t nrd, nwr;
    if (d->cs->regs_access(d->handle, d->insn, rd, &nrd, wr, &nwr) != CS_ERR_OK)
        return true;
    const cs_x86 *x = &d->insn->detail->x86;
    for (unsigned i = 0; i < x->op_count; i++) {
        const cs_x86_op *op = &x->operands[i];
        if (op->type != X86_OP_MEM)
            continue;
        const unsigned used[2] = { op->mem.base, op->mem.index };
        for (unsigned u = 0; u < 2; u++) {
            if (used[u] == X86_REG_INVALID || used[u] >= X86_REG_ENDING ||
                reg_map[used[u]].width == 0)
                continue;
            for (unsigned w = 0; w < nwr; w++)
                if (wr[w] < X86_REG_ENDING && reg_map[wr[w]].width &&
                    reg_map[wr[w]].greg == reg_map[used[u]].greg)
                    return true;
        }
    }
    return false;
}

/* A plan of the instruction that ended at the IP (just decoded into
 * d->insn) is usable when it makes memory references computable from the
 * current registers. */
static bool usable_previous(tf_ea_decoder *d, const tf_ea_plan *p)
{
    if (p->status != TF_EA_MEMORY || writes_address_register(d))
        return false;
    for (unsigned i = 0; i < p->nref; i++)
        if (p->ref[i].flags & TF_EA_STACK)
            return false;   /* rsp has moved */
    return true;
}

/* Two plans that give the same references whatever the registers. */
static bool same_recipes(const tf_ea_plan *a, const tf_ea_plan *b)
{
    if (a->nref != b->nref)
        return false;
    for (unsigned i = 0; i < a->nref; i++) {
        const tf_ea_recipe *x = &a->ref[i], *y = &b->ref[i];
        if (x->base != y->base || x->index != y->index || x->base_w != y->base_w ||
            x->index_w != y->index_w || x->scale != y->scale || x->disp != y->disp ||
            x->segment != y->segment || x->addr32 != y->addr32 || x->dir != y->dir ||
            x->flags != y->flags || x->base == TF_REG_NEXT_IP || x->index == TF_REG_NEXT_IP)
            return false;   /* rip-relative readings of different lengths differ */
    }
    return true;
}

/* From the bytes alone: every reading must agree; the longest is kept. */
static int previous_from_bytes(tf_ea_decoder *d, const uint8_t *before, size_t len,
                               uint64_t ip, tf_ea_plan *out)
{
    bool found = false;
    for (size_t k = 1; k <= len && k <= TF_X86_MAX_INSN; k++) {
        tf_ea_plan cand;
        int st = decode_plan(d, before + len - k, k, ip - k, &cand);
        if (st == TF_EA_UNDECODABLE || cand.insn_len != k)
            continue;   /* not an instruction ending exactly at the IP */
        if (!usable_previous(d, &cand) || (found && !same_recipes(out, &cand))) {
            found = false;
            break;
        }
        *out = cand;
        found = true;
    }
    if (!found) {
        memset(out, 0, sizeof *out);
        out->insn_ip = ip;
        return plan_status(out, TF_EA_UNRESOLVED);
    }
    out->origin = TF_EA_PREVIOUS;
    return out->status;
}

int tf_ea_decode_previous(tf_ea_decoder *d, const uint8_t *before, size_t len,
                          const tf_ea_regs *regs, tf_ea_result *out)
{
    tf_ea_plan p;
    uint64_t ip = regs->greg[TF_EA_RIP];
    previous_from_bytes(d, before, len, ip, &p);
    return evaluate(&p, regs, ip, out);
}

static unsigned slot_of(uint64_t addr, unsigned nslots)
{
    return (unsigned)((addr ^ (addr >> 8)) & (nslots - 1));
}

/* The code bytes [addr, addr + len): this process's memory, or the copy
 * of tf_ea_decode_copy (NULL where it does not cover them). */
static const uint8_t *code_bytes(const tf_ea_decoder *d, uint64_t addr, size_t len)
{
    if (!d->win)
        return (const uint8_t *)(uintptr_t)addr;
    if (addr < d->win_addr || addr - d->win_addr > d->win_len ||
        len > d->win_len - (addr - d->win_addr))
        return NULL;
    return d->win + (addr - d->win_addr);
}

static void remember_boundary(tf_ea_decoder *d, uint64_t addr)
{
    d->anchors[slot_of(addr, TF_EA_ANCHORS)] = addr;
}

/* The nearest known boundary in [lo, ip), or 0. */
static uint64_t nearest_anchor(const tf_ea_decoder *d, uint64_t lo, uint64_t ip)
{
    uint64_t best = 0;
    for (unsigned i = 0; i < TF_EA_ANCHORS; i++) {
        uint64_t a = d->anchors[i];
        if (a >= lo && a < ip && a > best)
            best = a;
    }
    return best;
}

/* Decodes forward from a known boundary; when an instruction ends exactly
 * at the IP, plans it.  Definite either way: TF_EA_MEMORY or
 * TF_EA_UNRESOLVED. */
static int previous_from_anchor(tf_ea_decoder *d, uint64_t anchor, uint64_t ip,
                                tf_ea_plan *p)
{
    size_t left = (size_t)(ip - anchor);
    const uint8_t *code = code_bytes(d, anchor, left), *first = code;
    uint64_t addr = anchor, start = anchor;
    memset(p, 0, sizeof *p);
    p->insn_ip = ip;
    if (!code)
        return plan_status(p, TF_EA_UNRESOLVED);
    while (addr < ip) {
        start = addr;
        if (!d->cs->disasm_iter(d->handle, &code, &left, &addr, d->insn))
            return plan_status(p, TF_EA_UNRESOLVED);
    }
    if (addr != ip)
        return plan_status(p, TF_EA_UNRESOLVED);
    decode_plan(d, first + (start - anchor), (size_t)(ip - start), start, p);
    if (!usable_previous(d, p)) {
        memset(p, 0, sizeof *p);
        p->insn_ip = ip;
        return plan_status(p, TF_EA_UNRESOLVED);
    }
    p->origin = TF_EA_PREVIOUS;
    return TF_EA_MEMORY;
}

/* Instructions decoded ahead of a sampled IP for their branches. */
#define TF_EA_AHEAD_MAX 24

/* The target of the direct branch just decoded into d->insn, or 0. */
static uint64_t direct_branch_target(const tf_ea_decoder *d, bool *ends_flow)
{
    const cs_detail *det = d->insn->detail;
    bool jump = false;
    *ends_flow = d->insn->id == X86_INS_JMP;
    for (uint8_t g = 0; g < det->groups_count; g++) {
        jump |= det->groups[g] == CS_GRP_JUMP;
        *ends_flow |= det->groups[g] == CS_GRP_RET;
    }
    const cs_x86 *x = &det->x86;
    if (!jump || x->op_count != 1 || x->operands[0].type != X86_OP_IMM)
        return 0;
    return (uint64_t)x->operands[0].imm;
}

/* Remembers the targets of the direct branches among the instructions
 * from ip on (up to TF_EA_AHEAD_MAX, within the IP's page, until one that
 * does not fall through or a target at or before ip): a loop's back edge
 * names its head, from which the body's instructions before a sampled IP
 * are found.  Samples pile up just after the long loads and seldom fall
 * on the loop's first instructions (on the project's VM in 2026-12, a
 * gather loop's 930 timer samples fell 716 times just after its load and
 * never before it), so without this the load was only ever read from the
 * bytes before the IP, which are ambiguous ("cd 00", int 0, also ends
 * there). */
static void remember_branch_targets(tf_ea_decoder *d, uint64_t ip)
{
    uint64_t page_end = (ip | (d->page_size - 1)) + 1;
    size_t left = (size_t)(page_end - ip);
    const uint8_t *code = code_bytes(d, ip, left);
    uint64_t addr = ip;
    for (unsigned k = 0; code && k < TF_EA_AHEAD_MAX && left; k++) {
        if (!d->cs->disasm_iter(d->handle, &code, &left, &addr, d->insn))
            return;
        bool ends_flow;
        uint64_t target = direct_branch_target(d, &ends_flow);
        if (target)
            remember_boundary(d, target);
        if (ends_flow || (target && target <= ip))
            return;
    }
}

/* The instruction at ip into *at: false when the bytes there are not one. */
static bool plan_at(tf_ea_decoder *d, uint64_t ip, tf_ea_plan *at)
{
    uint64_t page_offset = ip & (d->page_size - 1);
    uint8_t buf[TF_X86_MAX_INSN];
    size_t to_page_end = d->page_size - page_offset;
    size_t n = to_page_end < sizeof buf ? to_page_end : sizeof buf;
    const uint8_t *src = code_bytes(d, ip, n);
    if (!src)
        return false;
    memcpy(buf, src, n);
    int st = decode_plan(d, buf, n, ip, at);
    if (st == TF_EA_UNDECODABLE && n < sizeof buf && (src = code_bytes(d, ip, sizeof buf))) {
        /* The instruction continues on the next page, which is mapped
         * because the CPU is about to fetch it. */
        memcpy(buf, src, sizeof buf);
        st = decode_plan(d, buf, sizeof buf, ip, at);
    }
    if (st == TF_EA_UNDECODABLE)
        return false;
    remember_boundary(d, ip);
    remember_boundary(d, ip + at->insn_len);
    return true;
}

/* The usable instruction that ends at ip into *before (status
 * TF_EA_UNRESOLVED when there is none), looking back within the IP's page
 * only (the page before may not be mapped): from a known boundary if there
 * is one, else (with from_bytes) from the bytes just before the IP.  True
 * when that is final; false when there was no boundary and the bytes alone
 * were ambiguous (or not read): a boundary that a later sample nearby
 * brings may still decide. */
static bool plan_before(tf_ea_decoder *d, uint64_t ip, bool from_bytes, tf_ea_plan *before)
{
    uint64_t page_offset = ip & (d->page_size - 1);
    uint64_t page_start = ip - page_offset;
    uint64_t reach = ip - page_start < TF_EA_ANCHOR_REACH ? page_start : ip - TF_EA_ANCHOR_REACH;
    uint64_t anchor = nearest_anchor(d, reach, ip);
    if (!anchor && from_bytes) {   /* the IP's first sample: a branch ahead may name one */
        remember_branch_targets(d, ip);
        anchor = nearest_anchor(d, reach, ip);
    }
    if (anchor) {
        previous_from_anchor(d, anchor, ip, before);
        return true;
    }
    uint8_t buf[TF_X86_MAX_INSN];
    size_t back = page_offset < sizeof buf ? (size_t)page_offset : sizeof buf;
    memset(before, 0, sizeof *before);
    before->insn_ip = ip;
    plan_status(before, TF_EA_UNRESOLVED);
    if (back == 0)
        return true;
    if (!from_bytes)
        return false;
    const uint8_t *src = code_bytes(d, ip - back, back);
    if (!src)
        return true;
    memcpy(buf, src, back);
    return previous_from_bytes(d, buf, back, ip, before) == TF_EA_MEMORY;
}

static bool has_references(const tf_ea_plan *p)
{
    return p->status == TF_EA_MEMORY || p->status == TF_EA_GATHER;
}

/* The instructions' results in out[], the one at the IP first. */
static unsigned evaluate_live(const tf_ea_cached *c, const tf_ea_regs *regs,
                              tf_ea_result out[TF_EA_LIVE_MAX])
{
    unsigned n = 0;
    if (has_references(&c->at))
        evaluate(&c->at, regs, c->ip, &out[n++]);
    if (has_references(&c->before))
        evaluate(&c->before, regs, c->ip, &out[n++]);
    return n;
}

unsigned tf_ea_decode_live(tf_ea_decoder *d, const tf_ea_regs *regs,
                           tf_ea_result out[TF_EA_LIVE_MAX])
{
    uint64_t ip = regs->greg[TF_EA_RIP];
    if (!ip)
        return 0;
    tf_ea_cached *c = &d->cache[slot_of(ip, TF_EA_CACHE)];
    if (c->ip != ip) {
        if (!plan_at(d, ip, &c->at)) {
            c->ip = 0;
            return 0;
        }
        c->ip = ip;
        c->before_final = plan_before(d, ip, true, &c->before);
    } else if (!c->before_final) {
        /* Later samples only look for a boundary (a scan of the anchors,
         * no decoding until one is there): the bytes were read once. */
        c->before_final = plan_before(d, ip, false, &c->before);
    }
    return evaluate_live(c, regs, out);
}

unsigned tf_ea_decode_copy(tf_ea_decoder *d, const tf_ea_regs *regs, const uint8_t *code,
                           uint64_t code_addr, size_t len, tf_ea_result out[TF_EA_LIVE_MAX])
{
    d->win = code;
    d->win_addr = code_addr;
    d->win_len = len;
    unsigned n = tf_ea_decode_live(d, regs, out);
    d->win = NULL;
    return n;
}

void tf_ea_decoder_forget_code(tf_ea_decoder *d)
{
    memset(d->cache, 0, sizeof d->cache);
    memset(d->anchors, 0, sizeof d->anchors);
}

void tf_ea_to_sample(const tf_ea_result *r, unsigned i, tf_sample *s)
{
    const tf_ea_access *a = &r->access[i];
    static const uint8_t kind_of_dir[] = {
        [TF_EA_READ] = TF_SAMPLE_LOAD, [TF_EA_WRITE] = TF_SAMPLE_STORE,
        [TF_EA_RW] = TF_SAMPLE_RMW,
    };
    s->ip = r->ip;
    s->addr = a->addr;
    s->kind = kind_of_dir[a->dir & TF_EA_RW];
    s->flags = TF_SAMPLE_SOFTWARE | ((a->flags & TF_EA_VECTOR) ? TF_SAMPLE_VECTOR : 0);
    s->level = TF_LEVEL_UNKNOWN;
    s->weight = 0;
    s->data_source = 0;
}
