/* SPDX-License-Identifier: BSD-3-Clause */
/* Out-of-line execution of the instruction a software breakpoint (int3)
 * covers, as the kernel's uprobes do (Documentation/trace/uprobetracer.rst):
 * the breakpoint stays in place for every thread, and a thread that hits
 * it runs a copy of the instruction elsewhere, followed by a jump back.
 * A copy that reads memory relative to rip gets its displacement adjusted,
 * so copies live within reach (+-2 GiB, the rel32 range of the x86-64
 * ModRM encoding, Intel SDM vol. 2 §2.2.1.6) of the code they copy:
 * one area near each group of modules.  Relative calls and jumps are not
 * copied but done by the caller (tf_regions.c) on the signal context;
 * conditional jumps become a copy whose two ways are absolute jumps.
 * For a jump in place of a breakpoint (tf_jump.c), the same moves apply
 * to the whole instructions the 5-byte jump covers (tf_displace_block),
 * and tf_displace_branches_into tells whether code of the function
 * branches between them, where the jump's bytes would be run. */
#include "config.h"

#include <link.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "record/mem/capstone_load.h"
#include "tf_regions.h"

#define AREA_BYTES   (64u * 1024u)
#define AREA_SLOTS   (AREA_BYTES / TF_DISPLACE_SLOT)
#define AREA_MAX     8
/* An area serves code within this distance: rel32 reaches 2 GiB, less the
 * module's own size and the distance of its data. */
#define AREA_REACH   (1ull << 30)

struct area {
    uint8_t *base;
    _Atomic uint32_t used;
};

static struct area areas[AREA_MAX];
static _Atomic unsigned nareas;

struct tf_decoder {
    const tf_capstone *cs;
    csh handle;
    cs_insn *insn;
};

struct tf_decoder *tf_decoder_new(void)
{
    tf_error err;
    const tf_capstone *cs = tf_capstone_load(&err);
    struct tf_decoder *d = cs ? calloc(1, sizeof *d) : NULL;
    if (!d)
        return NULL;
    d->cs = cs;
    if (cs->open(CS_ARCH_X86, CS_MODE_64, &d->handle) != CS_ERR_OK) {
        free(d);
        return NULL;
    }
    if (cs->option(d->handle, CS_OPT_DETAIL, CS_OPT_ON) != CS_ERR_OK ||
        !(d->insn = cs->malloc(d->handle))) {
        cs->close(&d->handle);
        free(d);
        return NULL;
    }
    return d;
}

void tf_decoder_free(struct tf_decoder *d)
{
    if (!d)
        return;
    d->cs->free(d->insn, 1);
    d->cs->close(&d->handle);
    free(d);
}

static uint64_t distance(uint64_t a, uint64_t b)
{
    return a > b ? a - b : b - a;
}

static struct area *area_near(uint64_t addr)
{
    unsigned n = atomic_load_explicit(&nareas, memory_order_acquire);
    for (unsigned i = 0; i < n; i++)
        if (distance((uint64_t)(uintptr_t)areas[i].base, addr) < AREA_REACH)
            return &areas[i];
    return NULL;
}

/* An area in the free space just below lo (or above hi): the loader packs
 * modules, but leaves gaps of at least a page between mappings only by
 * chance, so look in 64 KiB steps. */
static int add_area(uint64_t lo, uint64_t hi)
{
    unsigned n = atomic_load(&nareas);
    if (n == AREA_MAX)
        return -1;
    for (uint64_t step = 1; step <= 4096; step++) {
        uint64_t cand[2] = {(lo & ~(uint64_t)0xffff) - step * AREA_BYTES,
                            ((hi + 0xffff) & ~(uint64_t)0xffff) + step * AREA_BYTES};
        for (int k = 0; k < 2; k++) {
            if (cand[k] < 0x10000)
                continue;
            void *m = mmap((void *)(uintptr_t)cand[k], AREA_BYTES,
                           PROT_READ | PROT_WRITE | PROT_EXEC,
                           MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
            if (m == MAP_FAILED)
                continue;
            if ((uint64_t)(uintptr_t)m != cand[k]) {   /* a kernel without NOREPLACE */
                munmap(m, AREA_BYTES);
                continue;
            }
            areas[n].base = m;
            atomic_store_explicit(&nareas, n + 1, memory_order_release);
            return 0;
        }
    }
    return -1;
}

static int module_area(struct dl_phdr_info *info, size_t size, void *ctx)
{
    (void)size;
    (void)ctx;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uint64_t s = info->dlpi_addr + ph->p_vaddr;
        if (s < lo)
            lo = s;
        if (s + ph->p_memsz > hi)
            hi = s + ph->p_memsz;
    }
    if (lo < hi && !(area_near(lo) && area_near(hi)))
        (void)add_area(lo, hi);   /* none: rip-relative code there cannot be moved */
    return 0;
}

int tf_displace_setup(tf_error *err)
{
    if (atomic_load(&nareas))
        return 0;
    dl_iterate_phdr(module_area, NULL);
    if (!atomic_load(&nareas))
        return tf_fail(err, TF_ERR_NOMEM, "no room near the program's code for the "
                       "instructions that breakpoints displace");
    return 0;
}

/* n consecutive free slots within reach of addr, or NULL.  Lock-free:
 * slots are only ever taken, never given back (a breakpoint, once set,
 * stays). */
static uint8_t *slot_near(uint64_t addr, uint32_t n)
{
    struct area *a = area_near(addr);
    if (!a)
        return NULL;
    uint32_t i = atomic_fetch_add_explicit(&a->used, n, memory_order_relaxed);
    return i + n <= AREA_SLOTS ? a->base + (size_t)i * TF_DISPLACE_SLOT : NULL;
}

/* jmp *0(%rip) followed by the absolute address: 14 bytes, from anywhere. */
static uint8_t *put_jump(uint8_t *p, uint64_t to)
{
    static const uint8_t jmp_abs[6] = {0xff, 0x25, 0, 0, 0, 0};
    memcpy(p, jmp_abs, sizeof jmp_abs);
    memcpy(p + 6, &to, sizeof to);
    return p + 14;
}

static bool in_group(const cs_insn *insn, uint8_t group)
{
    for (uint8_t i = 0; i < insn->detail->groups_count; i++)
        if (insn->detail->groups[i] == group)
            return true;
    return false;
}

static bool rip_relative(const cs_x86 *x)
{
    for (uint8_t i = 0; i < x->op_count; i++)
        if (x->operands[i].type == X86_OP_MEM && x->operands[i].mem.base == X86_REG_RIP)
            return true;
    return false;
}

/* Writes at dst the moved form of insn, decoded at its address: the same
 * effect run from dst, falling through to dst + the length returned, or
 * -1 when it cannot move.  A rip-relative operand gets its displacement
 * adjusted (dst must be within reach of the data).  A conditional jump
 * becomes the opposite condition over an absolute jump to its target (so
 * it falls through to what is moved after it).  Only when last (nothing
 * moved after it: its next instruction is where the copy jumps back to):
 * a relative jump becomes an absolute one, and a relative call pushes
 * the original return address and jumps, so that the callee returns into
 * the program and unwinders see its own return address. */
static int put_moved(const cs_insn *insn, uint8_t *dst, bool last)
{
    const cs_x86 *x = &insn->detail->x86;
    uint64_t next = insn->address + insn->size;
    if (in_group(insn, CS_GRP_BRANCH_RELATIVE)) {
        uint64_t target = (uint64_t)x->operands[0].imm;
        if (insn->id == X86_INS_JMP && last)
            return (int)(put_jump(dst, target) - dst);
        if (insn->id == X86_INS_CALL && last) {
            /* lea -8(%rsp),%rsp (flags kept); movl $lo,(%rsp); movl $hi,4(%rsp) */
            static const uint8_t lea[5] = {0x48, 0x8d, 0x64, 0x24, 0xf8};
            uint32_t lo = (uint32_t)next, hi = (uint32_t)(next >> 32);
            uint8_t *p = dst;
            memcpy(p, lea, sizeof lea);
            p += sizeof lea;
            *p++ = 0xc7, *p++ = 0x04, *p++ = 0x24;
            memcpy(p, &lo, 4);
            p += 4;
            *p++ = 0xc7, *p++ = 0x44, *p++ = 0x24, *p++ = 0x04;
            memcpy(p, &hi, 4);
            p += 4;
            return (int)(put_jump(p, target) - dst);
        }
        if (insn->id == X86_INS_JMP || insn->id == X86_INS_CALL)
            return -1;
        /* jcc rel8 (70+cc) or rel32 (0f 80+cc); cc ^ 1 is the opposite */
        uint8_t cc;
        if ((insn->bytes[0] & 0xf0) == 0x70)
            cc = insn->bytes[0] & 0x0f;
        else if (insn->bytes[0] == 0x0f && (insn->bytes[1] & 0xf0) == 0x80)
            cc = insn->bytes[1] & 0x0f;
        else
            return -1;   /* loop, jrcxz, xbegin: rare after a call, not moved */
        dst[0] = (uint8_t)(0x70 | (cc ^ 1));
        dst[1] = 14;
        return (int)(put_jump(dst + 2, target) - dst);
    }
    /* A call through a register or memory would return into the copy,
     * which no unwinder knows; a ret or an indirect jump leaves it. */
    if (insn->id == X86_INS_CALL ||
        (!last && (in_group(insn, CS_GRP_JUMP) || in_group(insn, CS_GRP_RET) ||
                   in_group(insn, CS_GRP_INT) || in_group(insn, CS_GRP_IRET))))
        return -1;
    memcpy(dst, insn->bytes, insn->size);
    if (rip_relative(x)) {
        if (x->encoding.disp_offset == 0 || x->encoding.disp_size != 4)
            return -1;
        int64_t refer = (int64_t)next + (int64_t)x->disp;
        int64_t disp = refer - (int64_t)((uint64_t)(uintptr_t)dst + insn->size);
        if (disp < INT32_MIN || disp > INT32_MAX)
            return -1;
        int32_t d32 = (int32_t)disp;
        memcpy(dst + x->encoding.disp_offset, &d32, sizeof d32);
    }
    return insn->size;
}

int tf_displace(struct tf_decoder *d, uint64_t addr, tf_displaced *out)
{
    const uint8_t *code = (const uint8_t *)(uintptr_t)addr;
    size_t left = 15;
    uint64_t at = addr;
    if (!d->cs->disasm_iter(d->handle, &code, &left, &at, d->insn))
        return -1;
    const cs_insn *insn = d->insn;
    const cs_x86 *x = &insn->detail->x86;
    out->first = insn->bytes[0];
    out->next = addr + insn->size;
    bool relative = in_group(insn, CS_GRP_BRANCH_RELATIVE);
    if (relative && (insn->id == X86_INS_CALL || insn->id == X86_INS_JMP)) {
        out->how = insn->id == X86_INS_CALL ? TF_DISPLACE_CALL : TF_DISPLACE_JUMP;
        out->target = (uint64_t)x->operands[0].imm;
        return 0;
    }
    if (insn->id == X86_INS_CALL)
        return -1;
    uint8_t *slot = slot_near(addr, 1);
    if (!slot)
        return -1;
    out->how = TF_DISPLACE_COPY;
    out->target = (uint64_t)(uintptr_t)slot;
    int n = put_moved(insn, slot, true);
    if (n < 0)
        return -1;
    put_jump(slot + n, out->next);
    return 0;
}

int tf_displace_block(struct tf_decoder *d, uint64_t addr, size_t min, uint8_t *dst, size_t room,
                      size_t *covered)
{
    size_t done = 0, written = 0;
    int n = 0;
    while (done < min) {
        const uint8_t *code = (const uint8_t *)(uintptr_t)(addr + done);
        size_t left = 15;
        uint64_t at = addr + done;
        if (!d->cs->disasm_iter(d->handle, &code, &left, &at, d->insn))
            return -1;
        bool last = done + d->insn->size >= min;
        if (written + 48 > room)
            return -1;
        int w = put_moved(d->insn, dst + written, last);
        if (w < 0)
            return -1;
        written += (size_t)w;
        done += d->insn->size;
        n++;
    }
    if (written + 14 > room)
        return -1;
    put_jump(dst + written, addr + done);
    *covered = done;
    return n;
}

uint8_t *tf_displace_room(uint64_t addr, size_t bytes)
{
    return slot_near(addr, (bytes + TF_DISPLACE_SLOT - 1) / TF_DISPLACE_SLOT);
}

/* Whether insn is a relative branch into (lo, hi). */
static bool branch_into(const cs_insn *insn, uint64_t lo, uint64_t hi)
{
    if (!in_group(insn, CS_GRP_BRANCH_RELATIVE))
        return false;
    uint64_t target = (uint64_t)insn->detail->x86.operands[0].imm;
    return target > lo && target < hi;
}

bool tf_displace_branches_into(struct tf_decoder *d, uint64_t start, uint64_t size, uint64_t lo,
                               uint64_t hi, tf_original_bytes original)
{
    uint64_t at = start;
    while (at < start + size) {
        size_t span, left;
        const uint8_t *code = original ? original(at, &span) : NULL;
        uint64_t to;
        if (code) {   /* a breakpoint or jump of ours: its original instructions */
            left = TF_ORIGINAL_BYTES;
            to = at + span;
        } else {
            code = (const uint8_t *)(uintptr_t)at;
            left = start + size - at;
            span = 0;
            to = at + 1;
        }
        uint64_t pc = at;
        do {
            if (!d->cs->disasm_iter(d->handle, &code, &left, &pc, d->insn))
                return true;   /* not code throughout: assume the worst */
            if (branch_into(d->insn, lo, hi))
                return true;
        } while (pc < to);
        at = pc;
    }
    return false;
}
