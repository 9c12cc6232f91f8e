/* SPDX-License-Identifier: BSD-3-Clause */
/* Call stacks of timer samples (option unwind), from the signal's saved
 * registers.
 *
 * libunwind (the default) reads the DWARF .eh_frame, so it works for code
 * built without frame pointers, but every call costs the same fixed set of
 * touches: its context and cursor, its code, and one page of its 256 KiB
 * per-thread hash of frame layouts per frame.  Between coarse samples the
 * program and the machine's other users evict all of that, and under
 * virtualisation each cold page is a two-level page walk: measured inside
 * the handler, unw_backtrace took a median of about 2 us at 1 kHz and 9 us
 * at 5 ms periods on this project's virtual machine (bench/RESULTS.md).
 *
 * So each thread keeps its own small table of frame rules, learned from
 * libunwind: for an instruction address, where its frame's CFA (canonical
 * frame address: rsp before the call, x86-64 psABI 3.2.2 and 6.2) is --
 * rsp or rbp plus a constant -- and where the caller's rbp was saved; the
 * return address is at CFA-8.  A sample whose addresses all have rules is
 * walked with them alone: a few loads from the stack and a cache line or
 * two of an 8 KiB table per frame.  A sample meeting an address without a rule is unwound by
 * unw_step from the signal's context, and each step's registers before
 * and after give the rule for that address; one meeting a frame the rules
 * cannot describe (a signal frame, a realigned frame) is unwound by
 * unw_backtrace, as before.
 *
 * A rule is learned from one step, so it must hold at every later visit
 * of its address: rsp + constant holds wherever DWARF gives rsp + constant
 * (functions with a variable stack size keep a frame pointer instead);
 * rbp + 16 with the caller's rbp at CFA-16 is the frame-pointer layout;
 * frames that hold such a record elsewhere (realigned ones) are left to
 * libunwind.  Every load of the walk is checked to lie on the
 * thread's stack, and the CFA must move up it.
 *
 * Async-signal-safety: libunwind(3) ("Thread- and signal-safety") says the
 * routines needed for local unwinding are signal-safe; unw_init_local,
 * unw_step, unw_get_reg and unw_is_signal_frame say so on their pages, and
 * unw_init_local(3) prescribes unw_init_local2 with UNW_INIT_SIGNAL_FRAME
 * for the context a sigaction handler receives; unw_get_save_loc only
 * reads the cursor.  unw_backtrace's first call on a
 * thread allocates its frame cache (mmap, pthread_setspecific): that
 * first call is made outside signal context, before the handler starts
 * taking a thread's samples (tf_unwind_thread_start, from
 * tf_sampling_thread_handler), else at the thread's first allocation
 * recorded (tf_heap.c), where no handler of the recorder calls libunwind.  Neither is re-entered: the handler stays out
 * of libunwind while the thread is in it (t->unwinding, tf_heap.c). */
#include "config.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <string.h>
#include <ucontext.h>

#include "tf_rec.h"

enum rule_kind {
    RULE_EMPTY = 0,
    RULE_RSP,         /* CFA = rsp + cfa_off */
    RULE_RBP,         /* CFA = rbp + cfa_off */
    RULE_LAST,        /* libunwind's walk ends at this frame */
    RULE_LIBUNWIND,   /* only libunwind can step this frame */
};

uint64_t tf_context_ip(const ucontext_t *uc)
{
#if defined(__x86_64__)
    return (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uint64_t)uc->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
}

/* Walks saved frame pointers (x86-64 SysV ABI: [rbp] = caller's rbp,
 * [rbp+8] = return address) from fp, refusing any frame outside the
 * thread's stack or not moving up it, so garbage in rbp (code without frame
 * pointers) ends the walk instead of faulting. */
uint32_t tf_fp_chain(const tf_rec_thread *t, uintptr_t fp, uint64_t *frames, uint32_t depth)
{
    uint32_t n = 0;
    while (n < depth && fp >= t->stack_lo && fp + 16 <= t->stack_hi && !(fp & 7)) {
        const uintptr_t *frame = (const uintptr_t *)fp;
        if (!frame[1])
            break;
        frames[n++] = frame[1];
        if (frame[0] <= fp)
            break;
        fp = frame[0];
    }
    return n;
}

TF_HANDLER_CODE static uint32_t walk_frame_pointers(const tf_rec_thread *t, const ucontext_t *uc,
                                                    uint64_t *frames, uint32_t depth)
{
    frames[0] = tf_context_ip(uc);
#if defined(__x86_64__)
    return 1 + tf_fp_chain(t, (uintptr_t)uc->uc_mcontext.gregs[REG_RBP], frames + 1, depth - 1);
#else
    (void)t;
    return 1;
#endif
}

/* unw_backtrace starts in this handler: the frames up to the signal
 * trampoline are dropped by finding the interrupted instruction, which
 * libunwind reports exactly for a signal frame. */
#define HANDLER_FRAMES 8

static uint32_t walk_backtrace(const ucontext_t *uc, uint64_t *frames, uint32_t depth)
{
    void *buf[TF_STACK_DEPTH_MAX + HANDLER_FRAMES];
    int n = unw_backtrace(buf, (int)(depth + HANDLER_FRAMES));
    uint64_t ip = tf_context_ip(uc);
    for (int skip = 0; skip < n && skip < HANDLER_FRAMES; skip++) {
        if ((uint64_t)(uintptr_t)buf[skip] != ip)
            continue;
        uint32_t k = 0;
        for (int i = skip; i < n && k < depth; i++)
            frames[k++] = (uint64_t)(uintptr_t)buf[i];
        return k;
    }
    frames[0] = ip;   /* the trampoline was not recognised: the IP alone */
    return 1;
}

#if defined(__x86_64__)

/* The rules are a hash table with linear probing over a window of
 * RULE_PROBES slots (two cache lines).  Nothing is ever removed, so a
 * lookup may stop at the first empty slot. */
#define RULE_PROBES 8
#define RULE_MASK   ((1u << TF_FRAME_RULES_LOG2) - 1)

TF_HANDLER_CODE static uint32_t rule_hash(uint64_t key)
{
    return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - TF_FRAME_RULES_LOG2));
}

TF_HANDLER_CODE static const tf_frame_rule *rule_find(const tf_rec_thread *t, uint64_t key)
{
    uint32_t h = rule_hash(key);
    for (uint32_t i = 0; i < RULE_PROBES; i++) {
        const tf_frame_rule *r = &t->rules[(h + i) & RULE_MASK];
        if (r->ip == key)
            return r;
        if (r->kind == RULE_EMPTY)
            break;
    }
    return NULL;
}

static void rule_store(tf_rec_thread *t, const tf_frame_rule *r)
{
    uint32_t h = rule_hash(r->ip);
    for (uint32_t i = 0; i < RULE_PROBES; i++) {
        tf_frame_rule *slot = &t->rules[(h + i) & RULE_MASK];
        if (slot->ip == r->ip || slot->kind == RULE_EMPTY) {
            *slot = *r;
            return;
        }
    }
    /* A full window: the victim varies (the thread's random state), so
     * that two addresses of one stack cannot keep evicting each other. */
    t->rules[(h + (uint32_t)(t->rng >> 32) % RULE_PROBES) & RULE_MASK] = *r;
}

/* Whether the 8 bytes at addr lie on the thread's stack (never, when its
 * bounds are unknown: both 0). */
TF_HANDLER_CODE static bool on_stack(const tf_rec_thread *t, uint64_t addr)
{
    return addr >= t->stack_lo && addr < t->stack_hi && t->stack_hi - addr >= 8 && !(addr & 7);
}

TF_HANDLER_CODE static uint64_t load(uint64_t addr)
{
    return *(const uint64_t *)(uintptr_t)addr;
}

/* The rule for the frame at key that a step of libunwind showed: from
 * (rsp, rbp) in this frame to c, positioned on the caller. */
static tf_frame_rule learn_step(const tf_rec_thread *t, uint64_t key, uint64_t rsp,
                                uint64_t rbp, unw_cursor_t *c)
{
    tf_frame_rule r = {.ip = key, .kind = RULE_LIBUNWIND};
    unw_word_t cfa, ret, caller_rbp;
    unw_save_loc_t loc;
    if (unw_get_reg(c, UNW_X86_64_RSP, &cfa) || unw_get_reg(c, UNW_REG_IP, &ret) ||
        unw_get_reg(c, UNW_X86_64_RBP, &caller_rbp) ||
        unw_get_save_loc(c, UNW_X86_64_RBP, &loc))
        return r;
    /* Not a standard frame (return address elsewhere), or too large. */
    if (cfa <= rsp || cfa - rsp > INT32_MAX || !on_stack(t, cfa - 8) || load(cfa - 8) != ret)
        return r;
    /* rbp points at a frame record: the caller's rbp, then the return
     * address. */
    bool record = on_stack(t, rbp) && on_stack(t, rbp + 8) && load(rbp) == caller_rbp &&
                  load(rbp + 8) == ret;
    /* A realigned frame with a dynamic realignment pointer (GCC's DRAP)
     * has a record too, but its CFA is the pointer saved below it, at
     * [rbp-8]: rbp + 16 only when the incoming stack happened to be
     * aligned already. */
    if (record && on_stack(t, rbp - 8) && load(rbp - 8) == cfa) {
        /* Or a stale word that happens to equal the CFA: not kept, the
         * next visit learns again. */
        r.kind = RULE_EMPTY;
        return r;
    }
    if (record && rbp + 16 == cfa) {
        r.kind = RULE_RBP;
        r.cfa_off = 16;
        r.rbp_off = -16;
        return r;
    }
    if (record)
        return r;   /* a record at another distance from the CFA: realigned */
    if (loc.type == UNW_SLT_MEMORY && loc.u.addr >= rsp && loc.u.addr < cfa) {
        if (cfa - loc.u.addr > 32768 || !on_stack(t, loc.u.addr) ||
            load(loc.u.addr) != caller_rbp)
            return r;
        r.rbp_off = (int16_t)-(int64_t)(cfa - loc.u.addr);
    } else if (caller_rbp != rbp) {
        return r;   /* restored from a register, or from somewhere we cannot see */
    }
    r.kind = RULE_RSP;
    r.cfa_off = (int32_t)(cfa - rsp);
    return r;
}

/* unw_step from the context, learning a rule for each frame up to the
 * first signal frame. */
static uint32_t walk_learning(tf_rec_thread *t, ucontext_t *uc, int flags, uint64_t *frames,
                              uint32_t depth)
{
    unw_cursor_t c;
    if (unw_init_local2(&c, (unw_context_t *)uc, flags) < 0) {
        frames[0] = tf_context_ip(uc);
        return 1;
    }
    bool learning = true;
    uint32_t n = 0;
    while (n < depth) {
        unw_word_t ip, rsp, rbp;
        if (unw_get_reg(&c, UNW_REG_IP, &ip) || unw_get_reg(&c, UNW_X86_64_RSP, &rsp) ||
            unw_get_reg(&c, UNW_X86_64_RBP, &rbp) || !ip)
            break;
        /* Callers are looked up by the call instruction (return address
         * - 1), as libunwind does: a call that does not return may be the
         * last instruction of its function. */
        uint64_t key = n || !(flags & UNW_INIT_SIGNAL_FRAME) ? ip - 1 : ip;
        frames[n++] = ip;
        bool signal_frame = unw_is_signal_frame(&c) > 0;
        int step = unw_step(&c);
        if (learning) {
            tf_frame_rule r = {.ip = key, .kind = step > 0 ? RULE_LIBUNWIND : RULE_LAST};
            if (step > 0 && !signal_frame)
                r = learn_step(t, key, rsp, rbp, &c);
            if (r.kind != RULE_EMPTY)
                rule_store(t, &r);
            /* Past a signal frame the next frame's address is an
             * interrupted one, not a return address: keys would be wrong. */
            learning = !signal_frame;
        }
        if (step <= 0)
            break;
    }
    return n;
}

enum { WALK_DONE, WALK_MISS, WALK_LIBUNWIND };

/* The stack from the interrupted registers with the rules alone. */
TF_HANDLER_CODE static int walk_rules(tf_rec_thread *t, const ucontext_t *uc, uint64_t *frames,
                                      uint32_t depth, uint32_t *n)
{
    uint64_t ip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
    uint64_t rsp = (uint64_t)uc->uc_mcontext.gregs[REG_RSP];
    uint64_t rbp = (uint64_t)uc->uc_mcontext.gregs[REG_RBP];
    uint64_t key = ip;
    *n = 0;
    t->nrule_hints = 0;
    t->nstack_hints = 0;
    while (*n < depth) {
        frames[(*n)++] = ip;
        const tf_frame_rule *r = rule_find(t, key);
        if (!r)
            return WALK_MISS;
        if (*n > 1 && t->nrule_hints < TF_RULE_HINTS)    /* frame 0's comes from the IP */
            t->rule_hint[t->nrule_hints++] = (uint16_t)(r - t->rules);
        if (r->kind == RULE_LAST)
            return WALK_DONE;
        if (r->kind == RULE_LIBUNWIND)
            return WALK_LIBUNWIND;
        uint64_t cfa = (r->kind == RULE_RBP ? rbp : rsp) + (uint64_t)(int64_t)r->cfa_off;
        if (cfa <= rsp || !on_stack(t, cfa - 8))
            return WALK_LIBUNWIND;
        if (r->rbp_off) {
            uint64_t slot = cfa + (uint64_t)(int64_t)r->rbp_off;
            if (!on_stack(t, slot))
                return WALK_LIBUNWIND;
            rbp = load(slot);
        }
        if (t->nstack_hints < TF_RULE_HINTS)
            t->stack_hint[t->nstack_hints++] = cfa - 8;
        ip = load(cfa - 8);
        rsp = cfa;
        if (!ip)
            return WALK_DONE;
        key = ip - 1;
    }
    return WALK_DONE;
}

TF_HANDLER_CODE static uint32_t walk_cached(tf_rec_thread *t, ucontext_t *uc, uint64_t *frames,
                                            uint32_t depth)
{
    uint32_t n;
    int how = walk_rules(t, uc, frames, depth, &n);
    if (how == WALK_DONE)
        return n;
    if (t->unwinding) {      /* libunwind is not re-entrant */
        frames[0] = tf_context_ip(uc);
        return 1;
    }
    if (how == WALK_MISS)
        return walk_learning(t, uc, UNW_INIT_SIGNAL_FRAME, frames, depth);
    return walk_backtrace(uc, frames, depth);
}

#endif

void tf_unwind_prefetch(const tf_rec_thread *t, const ucontext_t *uc)
{
#if defined(__x86_64__)
    if (tf_rec_g.opt.unwind != TF_UNWIND_LIBUNWIND || !tf_rec_g.opt.stack_depth)
        return;
    /* The interrupted address's rule, and the rules and stack words the
     * last walk used: most samples of a program share their callers with
     * the one before, and each frame's rule and return address would
     * otherwise be cache misses that wait for the frame below. */
    __builtin_prefetch(&t->rules[rule_hash((uint64_t)uc->uc_mcontext.gregs[REG_RIP])]);
    for (uint32_t i = 0; i < t->nrule_hints; i++)
        __builtin_prefetch(&t->rules[t->rule_hint[i]]);
    for (uint32_t i = 0; i < t->nstack_hints; i++)
        __builtin_prefetch((const void *)(uintptr_t)t->stack_hint[i]);
#else
    (void)t;
    (void)uc;
#endif
}

uint32_t tf_unwind_sample(tf_rec_thread *t, ucontext_t *uc, uint64_t *frames, uint32_t depth)
{
    if (!depth)
        return 0;
    switch (tf_rec_g.opt.unwind) {
    case TF_UNWIND_LIBUNWIND:
#if defined(__x86_64__)
        return walk_cached(t, uc, frames, depth);
#else
        if (t->unwinding) {
            frames[0] = tf_context_ip(uc);
            return 1;
        }
        return walk_backtrace(uc, frames, depth);
#endif
    case TF_UNWIND_FP:
        return walk_frame_pointers(t, uc, frames, depth);
    default:
        return 0;
    }
}

void tf_unwind_setup(void)
{
    /* libunwind's caches per thread, so that threads sampled at the same
     * time do not share one (unw_set_caching_policy(3)). */
    if (tf_rec_g.opt.unwind == TF_UNWIND_LIBUNWIND)
        unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
}

void tf_unwind_thread_start(tf_rec_thread *t)
{
    if (tf_rec_g.opt.unwind != TF_UNWIND_LIBUNWIND || !tf_rec_g.opt.stack_depth)
        return;
    void *buf[TF_STACK_DEPTH_MAX];
    unw_backtrace(buf, TF_STACK_DEPTH_MAX);
#if defined(__x86_64__)
    /* The frames from here to the thread's start are below every later
     * sample of it: their rules are learned now rather than in the
     * handler. */
    ucontext_t uc;
    uint64_t frames[TF_STACK_DEPTH_MAX];
    if (!unw_getcontext((unw_context_t *)&uc))
        walk_learning(t, &uc, 0, frames, TF_STACK_DEPTH_MAX);
#else
    (void)t;
#endif
}

bool tf_unwind_function_of(uint64_t addr, uint64_t *start, uint64_t *size)
{
    unw_proc_info_t pi;
    if (unw_get_proc_info_by_ip(unw_local_addr_space, addr, &pi, NULL) ||
        pi.start_ip > addr || pi.end_ip <= addr)
        return false;
    *start = pi.start_ip;
    *size = pi.end_ip - pi.start_ip;
    return true;
}
