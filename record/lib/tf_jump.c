/* SPDX-License-Identifier: BSD-3-Clause */
/* Jumps instead of breakpoints for --region (tf_regions.c): the first
 * instructions of a site (a function's entry, a return address) are
 * replaced by a 5-byte jmp rel32 to a trampoline near it, which calls the
 * region code through a stub that saves every register, the flags and
 * the extended state (XSAVE), runs the moved instructions and jumps back.
 * No trap, no signal: an instance costs its two region marks and about a
 * microsecond more, where two int3 traps cost 15 us on the virtual
 * machine the project is tested on (docs/recorder.md, "Regions without
 * source changes").  The return address on the stack is never changed,
 * so exceptions and unwinders see the program's own frames.
 *
 * The 5 bytes are written as the kernel's text_poke_bp does (arch/x86/
 * kernel/alternative.c) for code other threads may be running: an int3
 * first (one byte: a thread there traps and runs the moved instructions
 * out of line), then the jump's displacement, then its opcode over the
 * int3, each write followed by a core-serialising membarrier so that no
 * processor runs bytes it fetched before (Intel SDM vol. 3 §8.1.3,
 * cross-modifying code).  Without XSAVE or that membarrier, sites keep
 * their int3. */
#include "config.h"

#include <cpuid.h>
#include <linux/membarrier.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "tf_regions.h"

/* The extended state's size (CPUID leaf 0Dh, EBX: what XSAVE writes for
 * the features the OS enabled), read by the stub. */
__attribute__((visibility("hidden"))) uint64_t tf_jump_xsave_bytes;

/* On entry: [rsp] the return into the trampoline, [rsp+8] the site; the
 * program's rsp is 128 bytes (the red zone the trampoline stepped over)
 * above that.  Calls tf_region_jumped(site, program's rsp) with every
 * register, the flags and the extended state kept; returns past the
 * site's slot (ret $8).  The XSAVE header's bytes after XSTATE_BV must be
 * zero for XRSTOR (SDM vol. 1 §13.4.2), hence the stores before XSAVE.
 *
 * Its call frame information makes the program its caller, as if the
 * stub were a signal delivered there, so that a sample taken in the
 * region code unwinds into the program (and is moved to it, as samples in
 * tracefold_region_begin are, formats/recorder_code.h): the CFA is the
 * program's rsp, and the return address is the site's address + 1
 * (DW_CFA_val_expression, DWARF 5 §6.4.2.3: the site's address is the
 * first word of the site whose pointer is on the stack; + 1 because
 * unwinders look up a return address less one, and the program is at the
 * site itself, as after an int3).  Every other register is the
 * program's until it is pushed, rbp first. */
#define TF_JUMP_RA(reg, off) \
    "    .cfi_escape 0x16, 0x10, 0x06, " reg ", " off ", 0x06, 0x06, 0x23, 0x01\n"
__asm__(
    "    .text\n"
    "    .globl tf_jump_stub\n"
    "    .hidden tf_jump_stub\n"
    "    .type tf_jump_stub, @function\n"
    "tf_jump_stub:\n"
    "    .cfi_startproc\n"
    "    .cfi_def_cfa %rsp, 144\n"
    TF_JUMP_RA("0x77", "0x08")          /* DW_OP_breg7 (rsp) 8 */
    "    push %rbp\n"
    "    .cfi_def_cfa_offset 152\n"
    "    .cfi_offset %rbp, -152\n"
    TF_JUMP_RA("0x77", "0x10")          /* DW_OP_breg7 (rsp) 16 */
    "    mov %rsp, %rbp\n"
    "    .cfi_def_cfa_register %rbp\n"
    TF_JUMP_RA("0x76", "0x10")          /* DW_OP_breg6 (rbp) 16 */
    "    pushfq\n"
    "    push %rax\n"
    "    push %rcx\n"
    "    push %rdx\n"
    "    push %rsi\n"
    "    push %rdi\n"
    "    push %r8\n"
    "    push %r9\n"
    "    push %r10\n"
    "    push %r11\n"
    "    mov 16(%rbp), %rdi\n"          /* the site */
    "    lea 152(%rbp), %rsi\n"         /* the program's rsp */
    "    sub tf_jump_xsave_bytes(%rip), %rsp\n"
    "    and $-64, %rsp\n"
    "    xor %eax, %eax\n"
    "    mov %rax, 512(%rsp)\n"
    "    mov %rax, 520(%rsp)\n"
    "    mov %rax, 528(%rsp)\n"
    "    mov %rax, 536(%rsp)\n"
    "    mov %rax, 544(%rsp)\n"
    "    mov %rax, 552(%rsp)\n"
    "    mov %rax, 560(%rsp)\n"
    "    mov %rax, 568(%rsp)\n"
    "    mov $-1, %eax\n"
    "    mov $-1, %edx\n"
    "    xsave (%rsp)\n"
    "    call tf_region_jumped\n"
    "    mov $-1, %eax\n"
    "    mov $-1, %edx\n"
    "    xrstor (%rsp)\n"
    "    lea -80(%rbp), %rsp\n"
    "    pop %r11\n"
    "    pop %r10\n"
    "    pop %r9\n"
    "    pop %r8\n"
    "    pop %rdi\n"
    "    pop %rsi\n"
    "    pop %rdx\n"
    "    pop %rcx\n"
    "    pop %rax\n"
    "    popfq\n"
    "    pop %rbp\n"
    "    .cfi_def_cfa %rsp, 144\n"
    "    .cfi_restore %rbp\n"
    TF_JUMP_RA("0x77", "0x08")
    "    ret $8\n"
    "    .cfi_endproc\n"
    "    .size tf_jump_stub, .-tf_jump_stub\n");

void tf_jump_stub(void);

/* The trampoline's head, up to the moved instructions:
 *   lea -0x80(%rsp),%rsp        step over the red zone
 *   push %rax; movabs $site,%rax; xchg %rax,(%rsp)    the site on the stack
 *   call *2(%rip); jmp +8; .quad tf_jump_stub
 *   lea 0x80(%rsp),%rsp
 * lea and xchg keep the flags. */
#define HEAD_BYTES     44
#define HEAD_SITE      8
#define HEAD_STUB      28
#define TRAMPOLINE     192

static const uint8_t head[HEAD_BYTES] = {
    0x48, 0x8d, 0x64, 0x24, 0x80,
    0x50,
    0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0,
    0x48, 0x87, 0x04, 0x24,
    0xff, 0x15, 0x02, 0x00, 0x00, 0x00,
    0xeb, 0x08,
    0, 0, 0, 0, 0, 0, 0, 0,
    0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00,
};

static bool ready;

static bool sync_cores(void)
{
    return syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0) == 0;
}

bool tf_jump_setup(void)
{
    if (ready)
        return true;
    const char *traps = getenv("TRACEFOLD_REGION_TRAPS");
    if (traps && traps[0] == '1')
        return false;   /* documented: every site keeps its int3 */
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) ||
        !__get_cpuid_count(0xd, 0, &a, &b, &c, &d) || b < 576)
        return false;
    tf_jump_xsave_bytes = ((uint64_t)b + 63) & ~(uint64_t)63;
    if (syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE, 0, 0) ||
        !sync_cores())
        return false;
    ready = true;
    return true;
}

int tf_jump_build(struct tf_decoder *d, uint64_t addr, const void *site, uint64_t *moved,
                  uint64_t *tramp, size_t *covered)
{
    if (!ready)
        return -1;
    uint8_t *t = tf_displace_room(addr, TRAMPOLINE);
    if (!t)
        return -1;
    int n = tf_displace_block(d, addr, 5, t + HEAD_BYTES, TRAMPOLINE - HEAD_BYTES, covered);
    if (n < 0)
        return -1;
    uint64_t stub = (uint64_t)(uintptr_t)tf_jump_stub, s = (uint64_t)(uintptr_t)site;
    memcpy(t, head, sizeof head);
    memcpy(t + HEAD_SITE, &s, sizeof s);
    memcpy(t + HEAD_STUB, &stub, sizeof stub);
    *moved = (uint64_t)(uintptr_t)t + HEAD_BYTES;
    *tramp = (uint64_t)(uintptr_t)t;
    int64_t rel = (int64_t)*tramp - (int64_t)(addr + 5);
    return rel >= INT32_MIN && rel <= INT32_MAX ? n : -1;
}

int tf_jump_write(int mem_fd, uint64_t addr, uint64_t tramp)
{
    static const uint8_t int3 = 0xcc, jmp = 0xe9;
    int32_t rel = (int32_t)((int64_t)tramp - (int64_t)(addr + 5));
    if (pwrite(mem_fd, &int3, 1, (off_t)addr) != 1 || !sync_cores() ||
        pwrite(mem_fd, &rel, 4, (off_t)addr + 1) != 4 || !sync_cores() ||
        pwrite(mem_fd, &jmp, 1, (off_t)addr) != 1 || !sync_cores())
        return -1;
    return 0;
}
