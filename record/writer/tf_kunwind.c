/* SPDX-License-Identifier: BSD-3-Clause */
/* Call stacks of kernel-captured samples, in the writer (docs/recorder.md,
 * "Kernel capture"): each sample brings the thread's user registers and a
 * copy of the top of its stack (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER
 * of perf_event_open(2)); the stack is walked offline from them.
 *
 * unwind=libunwind (CFI): frame rules first, libdwfl for the rest.  Most
 * frames of a compiled program are described by a rule that takes a few
 * loads to step: the CFA (canonical frame address, the caller's rsp: x86-64
 * psABI 3.2.2 and 6.2) is rsp or rbp plus a constant, the return address
 * and the caller's rbp, if saved, sit at constant offsets from it.  Each
 * address met is looked up once in its module's CFI (libdw's
 * dwarf_cfi_addrframe, eh_frame before debug_frame, as libdwfl's own step
 * does) and its rule kept in a direct-mapped table of the process; a
 * sample whose frames all have such rules is walked with them alone.  A
 * sample meeting anything else (a CFA by expression or another register, a
 * signal frame, an address without CFI, where libdwfl tries its
 * frame-pointer fallback) is walked by libdwfl whole, so the rules change
 * the cost, not the stacks: libdwfl's walk costs about 10 us a sample
 * here, mostly its per-frame CFI lookups (bench/RESULTS.md, "Recorder").
 * tests/record/kernel_records.c checks the two walks agree.
 *
 * libdwfl: with our own thread callbacks
 * (libdwfl.h, dwfl_attach_state): the process's modules come from its maps
 * text (dwfl_linux_proc_maps_report), the initial registers from the
 * sample in DWARF numbering (x86-64 psABI, "DWARF Register Number
 * Mapping": 0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15
 * r8-r15, 16 the return address column, rip), and memory reads from the
 * stack copy only, so a walk that leaves the copy ends there.  The CFI is
 * read from the ELF files' .eh_frame (or .debug_frame), which compilers
 * emit without -g.
 * unwind=fp: the frame-pointer chain inside the copy (caller's rbp at
 * [rbp], return address at [rbp + 8]), each frame moving up the stack.
 * Both give the interrupted instruction first, then return addresses, as
 * the handler's walk does (tf_unwind.c). */
#include "config.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tf_writer.h"

/* How a frame is stepped to its caller's, learned from the CFI row at an
 * address. */
enum rule_kind {
    RULE_EMPTY = 0,      /* no rule learned in this slot */
    RULE_CFA_RSP,        /* CFA = rsp + cfa_off */
    RULE_CFA_RBP,        /* CFA = rbp + cfa_off */
    RULE_OUTERMOST,      /* the return address is undefined: the walk ends */
    RULE_DWFL,           /* only libdwfl can step this frame */
};
enum rbp_rule { RBP_SAME, RBP_SAVED, RBP_LOST };

typedef struct frame_rule {
    uint64_t addr;       /* the address looked up: the sample's ip, a return address - 1 */
    int32_t  cfa_off;
    int16_t  ra_off;     /* return address at CFA + ra_off */
    int16_t  rbp_off;    /* RBP_SAVED: the caller's rbp at CFA + rbp_off */
    uint8_t  kind;       /* enum rule_kind */
    uint8_t  rbp;        /* enum rbp_rule */
} frame_rule;

/* 4096 rules (96 KiB a process): a loop's few hundred addresses never
 * evict each other; a collision costs one CFI lookup. */
#define RULE_BITS 12

struct tf_kunwind {
    Dwfl    *dwfl;
    int64_t  pid;
    bool     attached;         /* dwfl_attach_state done */
    /* The sample being walked. */
    int64_t  tid;
    uint64_t dregs[TF_KREGS_DWARF];
    uint64_t sp;
    const uint8_t *stack;
    size_t   len;
    uint64_t *frames;
    uint32_t n, depth;
    uint64_t dwfl_walks;       /* samples libdwfl walked */
    frame_rule rules[1u << RULE_BITS];
};

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};

/* One thread: the sample's. */
static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
    (void)dwfl;
    tf_kunwind *u = arg;
    if (*thread_argp)
        return 0;
    *thread_argp = u;
    return (pid_t)u->tid;
}

/* A word of the sample's stack copy; false outside it. */
static bool stack_load(const tf_kunwind *u, uint64_t addr, uint64_t *result)
{
    if (addr < u->sp || addr - u->sp > u->len || u->len - (addr - u->sp) < sizeof *result)
        return false;
    memcpy(result, u->stack + (addr - u->sp), sizeof *result);
    return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
    (void)dwfl;
    uint64_t v;
    if (!stack_load(arg, addr, &v))
        return false;
    *result = v;
    return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
    const tf_kunwind *u = thread_arg;
    Dwarf_Word regs[TF_KREGS_DWARF];
    for (unsigned i = 0; i < TF_KREGS_DWARF; i++)
        regs[i] = u->dregs[i];
    if (!dwfl_thread_state_registers(thread, 0, TF_KREGS_DWARF, regs))
        return false;
    dwfl_thread_state_register_pc(thread, regs[TF_KREGS_DWARF - 1]);
    return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

int tf_kunwind_create(tf_kunwind **out, int64_t pid, tf_error *err)
{
    tf_kunwind *u = calloc(1, sizeof *u);
    if (!u)
        return tf_fail(err, TF_ERR_NOMEM, "unwinder of process %lld", (long long)pid);
    u->dwfl = dwfl_begin(&callbacks);
    if (!u->dwfl) {
        free(u);
        return tf_fail(err, TF_ERR_NOMEM, "dwfl_begin for process %lld: %s", (long long)pid,
                       dwfl_errmsg(-1));
    }
    u->pid = pid;
    *out = u;
    return 0;
}

void tf_kunwind_free(tf_kunwind *u)
{
    if (!u)
        return;
    dwfl_end(u->dwfl);
    free(u);
}

void tf_kunwind_maps(tf_kunwind *u, const char *maps, size_t len)
{
    if (!len)
        return;
    FILE *f = fmemopen((void *)maps, len, "r");
    if (!f)
        return;
    /* Modules reported again are kept with what libdwfl read of them;
     * those gone (dlclose) are dropped at dwfl_report_end. */
    dwfl_report_begin(u->dwfl);
    dwfl_linux_proc_maps_report(u->dwfl, f);
    fclose(f);
    dwfl_report_end(u->dwfl, NULL, NULL);
    /* A module may have left, or another come, at a learned address. */
    memset(u->rules, 0, sizeof u->rules);
    if (!u->attached)
        u->attached = dwfl_attach_state(u->dwfl, NULL, (pid_t)u->pid, &thread_callbacks, u);
}

/* Where the CFI row puts register reg of the caller: at CFA + *off
 * (SLOT_AT), unchanged, undefined, or somewhere a rule cannot say.  libdw
 * gives offset(N) rules as DW_OP_call_frame_cfa [DW_OP_plus_uconst N]
 * (libdw.h, dwarf_frame_register). */
enum slot { SLOT_AT, SLOT_SAME, SLOT_UNDEFINED, SLOT_OTHER };

static enum slot cfa_slot(Dwarf_Frame *f, int reg, int64_t *off)
{
    Dwarf_Op mem[3], *ops;
    size_t n;
    if (dwarf_frame_register(f, reg, mem, &ops, &n) != 0)
        return SLOT_OTHER;
    if (!n)
        return ops ? SLOT_UNDEFINED : SLOT_SAME;
    if (ops[0].atom != DW_OP_call_frame_cfa)
        return SLOT_OTHER;
    *off = 0;
    if (n == 1)
        return SLOT_AT;
    if (n == 2 && ops[1].atom == DW_OP_plus_uconst) {
        *off = (int64_t)ops[1].number;
        return SLOT_AT;
    }
    return SLOT_OTHER;
}

static bool fits_int16(int64_t v) { return v >= INT16_MIN && v <= INT16_MAX; }

/* The rule of one CFI row; RULE_DWFL where no rule describes it. */
static void rule_from_frame(Dwarf_Frame *f, frame_rule *r)
{
    Dwarf_Addr start, end;
    bool signal;
    Dwarf_Op *ops;
    size_t n;
    int64_t ra_off, rbp_off = 0;
    if (dwarf_frame_info(f, &start, &end, &signal) != TF_KREGS_DWARF - 1 || signal)
        return;
    switch (cfa_slot(f, TF_KREGS_DWARF - 1, &ra_off)) {
    case SLOT_UNDEFINED:
        r->kind = RULE_OUTERMOST;
        return;
    case SLOT_AT:
        break;
    default:
        return;
    }
    if (dwarf_frame_cfa(f, &ops, &n) != 0 || n != 1 || ops[0].atom != DW_OP_bregx ||
        (ops[0].number != 6 && ops[0].number != 7))
        return;
    int64_t cfa_off = (int64_t)ops[0].number2;
    if (cfa_off < INT32_MIN || cfa_off > INT32_MAX || !fits_int16(ra_off))
        return;
    uint8_t rbp;
    switch (cfa_slot(f, 6, &rbp_off)) {
    case SLOT_SAME: rbp = RBP_SAME; break;
    case SLOT_UNDEFINED: rbp = RBP_LOST; break;
    case SLOT_AT:
        if (!fits_int16(rbp_off))
            return;
        rbp = RBP_SAVED;
        break;
    default:
        return;
    }
    r->cfa_off = (int32_t)cfa_off;
    r->ra_off = (int16_t)ra_off;
    r->rbp_off = (int16_t)rbp_off;
    r->rbp = rbp;
    r->kind = ops[0].number == 7 ? RULE_CFA_RSP : RULE_CFA_RBP;
}

/* The rule at addr, looked up in its module's CFI on first use. */
static const frame_rule *rule_at(tf_kunwind *u, uint64_t addr)
{
    frame_rule *r = &u->rules[(addr * 0x9e3779b97f4a7c15ull) >> (64 - RULE_BITS)];
    if (r->kind != RULE_EMPTY && r->addr == addr)
        return r;
    memset(r, 0, sizeof *r);
    r->addr = addr;
    r->kind = RULE_DWFL;
    Dwfl_Module *m = dwfl_addrmodule(u->dwfl, addr);
    if (!m)
        return r;
    Dwarf_Addr bias;
    Dwarf_Frame *f = NULL;
    Dwarf_CFI *cfi = dwfl_module_eh_cfi(m, &bias);
    if (!cfi || dwarf_cfi_addrframe(cfi, addr - bias, &f) != 0) {
        f = NULL;
        cfi = dwfl_module_dwarf_cfi(m, &bias);
        if (!cfi || dwarf_cfi_addrframe(cfi, addr - bias, &f) != 0)
            return r;
    }
    rule_from_frame(f, r);
    free(f);
    return r;
}

/* The walk by rules from the sample in u; 0 when a frame needs libdwfl.
 * Ends where libdwfl's would: a return address outside the stack copy or
 * zero, an undefined return address, the depth. */
static uint32_t rules_walk(tf_kunwind *u, uint64_t *frames, uint32_t depth)
{
    uint64_t pc = u->dregs[TF_KREGS_DWARF - 1], sp = u->dregs[7], fp = u->dregs[6];
    bool fp_known = true;
    uint32_t n = 0;
    frames[n++] = pc;
    /* A caller's row is the one of its call instruction: return address - 1. */
    for (uint64_t at = pc; n < depth;) {
        const frame_rule *r = rule_at(u, at);
        if (r->kind == RULE_DWFL || (r->kind == RULE_CFA_RBP && !fp_known))
            return 0;
        if (r->kind == RULE_OUTERMOST)
            break;
        uint64_t cfa = (r->kind == RULE_CFA_RSP ? sp : fp) + (uint64_t)(int64_t)r->cfa_off;
        uint64_t ra;
        if (!stack_load(u, cfa + (uint64_t)(int64_t)r->ra_off, &ra))
            break;
        if (r->rbp == RBP_SAVED)
            fp_known = stack_load(u, cfa + (uint64_t)(int64_t)r->rbp_off, &fp);
        else if (r->rbp == RBP_LOST)
            fp_known = false;
        sp = cfa;
        if (!ra)
            break;
        frames[n++] = ra;
        at = ra - 1;
    }
    return n;
}

static int on_frame(Dwfl_Frame *state, void *arg)
{
    tf_kunwind *u = arg;
    Dwarf_Addr pc;
    bool activation;
    if (!dwfl_frame_pc(state, &pc, &activation) || !pc)
        return DWARF_CB_ABORT;
    u->frames[u->n++] = pc;
    return u->n < u->depth ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* Every load stays inside the copy [sp, sp + len). */
static uint32_t fp_walk(const uint64_t dregs[TF_KREGS_DWARF], const uint8_t *stack, size_t len,
                        uint64_t *frames, uint32_t depth)
{
    uint32_t n = 0;
    uint64_t sp = dregs[7], fp = dregs[6], prev = sp;
    frames[n++] = dregs[TF_KREGS_DWARF - 1];
    while (n < depth && fp >= prev && fp - sp <= len && len - (fp - sp) >= 16) {
        uint64_t next, ret;
        memcpy(&next, stack + (fp - sp), 8);
        memcpy(&ret, stack + (fp - sp) + 8, 8);
        if (!ret)
            break;
        frames[n++] = ret;
        if (next <= fp)
            break;
        prev = fp;
        fp = next;
    }
    return n;
}

uint32_t tf_kunwind_stack(tf_kunwind *u, int64_t tid, const uint64_t dregs[TF_KREGS_DWARF],
                          const uint8_t *stack, size_t len, tf_kwalk walk, uint64_t *frames,
                          uint32_t depth)
{
    if (!depth)
        return 0;
    if (!stack)
        len = 0;
    if (walk == TF_KWALK_FP)
        return fp_walk(dregs, stack, len, frames, depth);
    if (!u || !u->attached) {
        frames[0] = dregs[TF_KREGS_DWARF - 1];
        return 1;
    }
    memcpy(u->dregs, dregs, sizeof u->dregs);
    u->sp = dregs[7];
    u->stack = stack;
    u->len = len;
    if (walk == TF_KWALK_CFI) {
        uint32_t n = rules_walk(u, frames, depth);
        if (n)
            return n;
    }
    u->tid = tid;
    u->frames = frames;
    u->n = 0;
    u->depth = depth;
    u->dwfl_walks++;
    dwfl_getthread_frames(u->dwfl, (pid_t)tid, on_frame, u);
    if (!u->n) {
        frames[0] = dregs[TF_KREGS_DWARF - 1];
        u->n = 1;
    }
    return u->n;
}

uint64_t tf_kunwind_dwfl_walks(const tf_kunwind *u)
{
    return u ? u->dwfl_walks : 0;
}
