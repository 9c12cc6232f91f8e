/* SPDX-License-Identifier: BSD-3-Clause */
/* Software effective-address decoder: the memory-sampling back end for
 * machines without PEBS or IBS.  At a timer sample, the instruction at the
 * interrupted IP is decoded with capstone and the addresses of its memory
 * operands are computed from the saved registers.
 *
 * Which instruction is decoded.  A timer (or software-event) signal is taken
 * between two instructions: the saved IP is the address of the NEXT
 * instruction to execute; the one before it has completed.  Two facts
 * shape the choice:
 *   - the instruction AT the IP has not run yet, so the saved registers are
 *     exactly the ones it will use: its addresses are computed without error;
 *   - an interrupt is taken when the oldest instruction in flight retires,
 *     so samples pile up just AFTER the instructions the core waits for --
 *     in a streaming loop, after the loads and stores.  Measured on this
 *     VM (tests/memsample/stream_sampling_test): decoding only at the IP
 *     found a memory reference in under 1 % of the samples of a loop whose
 *     every third instruction is a load.
 * So tf_ea_decode_live reports two instructions: the one at the IP, and the
 * one that ends at the IP, found by decoding forward from a known
 * instruction boundary (an earlier sample's IP, the end of an instruction
 * decoded there, or the target of a direct branch just ahead of a sampled
 * IP: a loop's back edge names its head) or else from the bytes alone
 * (tf_ea_decode_previous), provided that (a) every
 * way of reading the bytes before the IP as an instruction ending there
 * gives the same references (x86 cannot be decoded backwards with
 * certainty; disagreeing readings give TF_EA_UNRESOLVED rather than a
 * guess), (b) that instruction does not write a register its address uses
 * (pointer chasing, string instructions, push/pop: the registers no longer
 * hold its address), and (c) it is not a stack reference.  Both, not the
 * first that makes a reference: the core retires instructions in groups, so
 * some instructions are never the one at the IP of any sample.  Measured on
 * an AMD Zen 3 VM, STREAM's Add loop (load a, add b, store c, add, cmp,
 * jne) was never interrupted at the load of a, the branch target: decoding
 * at the IP alone, and looking back only when that found nothing, never
 * saw array a at all.  Remaining error: when the IP is a branch target, the
 * bytes before it belong to an instruction that did not just run; for the
 * fall-through of a loop body or a straight-line sequence (the common case)
 * What is reported.  Every memory reference the instruction makes: explicit
 * operands (base + index*scale + displacement, RIP-relative from the end of
 * the instruction, fs:/gs: bases, 32-bit address size truncated to 32 bits,
 * EVEX compressed displacements already scaled by capstone), the two
 * operands of string instructions (rsi/rdi), and the implicit stack slot of
 * push/pop/call/ret/leave.  Direction per reference: read, write or both.
 * lea and nop have no memory access.  Gathers and scatters (VSIB: one
 * vector of indices) are reported as TF_EA_VECTOR with their direction and
 * no address: the elements' addresses would need the vector registers and
 * the mask, and are not guessed.
 *
 * Capstone 4's operand access flags omit the write of many stores (SSE, AVX,
 * AVX-512 and x87 stores, movnti, movbe, pextr*, vextract*, cmpxchg): the
 * decoder corrects them with a rule (a memory operand that is the
 * destination, i.e. the first of two or more operands, is written, except
 * for cmp/test/bt/cmps which only read) and a table of single-operand
 * stores.
 *
 * Signal safety.  tf_ea_decoder_create (per thread, outside signal context)
 * opens a capstone handle, allocates the instruction buffer with cs_malloc
 * and decodes a warm-up set of instructions so that capstone's lazily built
 * tables exist.  Capstone's allocator and formatter are set once per
 * process (CS_OPT_MEM) to counting wrappers around the C library allocator
 * and to tf_sigsafe_vsnprintf, so decoding afterwards neither allocates nor
 * enters stdio; tf_ea_capstone_allocations() lets tests prove it.  The
 * decode functions below marked async-signal-safe use only the per-thread
 * decoder and the caller's memory.  A decoder must not be used by two
 * threads at once: give each thread its own.
 *
 * Cost: decoding takes about 1 us (3-4.5 us with the look-back); the plan
 * of each sampled IP is kept (see tf_ea_decoder_forget_code), so later
 * samples at the same IP take tens of nanoseconds. */
#ifndef TF_EA_DECODE_H
#define TF_EA_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/tf_error.h"
#include "formats/trace.h"

/* Indices of the general registers, in the order of the x86-64 ucontext_t
 * gregs array (glibc <sys/ucontext.h> REG_R8 .. REG_RIP, which is the
 * kernel's struct sigcontext order), so that a signal handler can copy them
 * with one memcpy (tf_ea_regs_from_ucontext). */
enum tf_ea_greg {
    TF_EA_R8 = 0, TF_EA_R9, TF_EA_R10, TF_EA_R11, TF_EA_R12, TF_EA_R13, TF_EA_R14,
    TF_EA_R15, TF_EA_RDI, TF_EA_RSI, TF_EA_RBP, TF_EA_RBX, TF_EA_RDX, TF_EA_RAX,
    TF_EA_RCX, TF_EA_RSP, TF_EA_RIP, TF_EA_NGREGS
};

typedef struct tf_ea_regs {
    uint64_t greg[TF_EA_NGREGS];  /* enum tf_ea_greg */
    uint64_t fs_base;             /* thread-local storage base (arch_prctl ARCH_GET_FS) */
    uint64_t gs_base;             /* 0 for ordinary Linux user threads */
} tf_ea_regs;

enum tf_ea_dir { TF_EA_READ = 1, TF_EA_WRITE = 2, TF_EA_RW = 3 };

enum tf_ea_access_flags {
    TF_EA_STACK   = 1u << 0,  /* implicit stack slot of push/pop/call/ret/leave/enter */
    TF_EA_SEGMENT = 1u << 1,  /* fs: or gs: relative (thread-local data) */
    TF_EA_VECTOR  = 1u << 2,  /* gather/scatter: no address computed (addr 0) */
};

#define TF_EA_MAX_ACCESS 3

typedef struct tf_ea_access {
    uint64_t addr;      /* effective (linear) address; 0 for TF_EA_VECTOR */
    uint32_t size;      /* bytes referenced (per element for gathers) */
    uint8_t  dir;       /* enum tf_ea_dir */
    uint8_t  flags;     /* enum tf_ea_access_flags */
} tf_ea_access;

enum tf_ea_status {
    TF_EA_MEMORY = 0,     /* naccess >= 1 references, all with addresses */
    TF_EA_NO_MEMORY,      /* the instruction makes no memory reference */
    TF_EA_GATHER,         /* a gather/scatter (the access has TF_EA_VECTOR) */
    TF_EA_UNDECODABLE,    /* the bytes are not a valid instruction */
    TF_EA_UNRESOLVED,     /* tf_ea_decode_previous: no single computable reading */
};

enum tf_ea_origin {
    TF_EA_AT_IP = 0,      /* the instruction at the interrupted IP (next to run) */
    TF_EA_PREVIOUS = 1,   /* the instruction that ends at the IP (just completed) */
};

typedef struct tf_ea_result {
    uint64_t     ip;            /* the decoded instruction's address */
    uint32_t     insn_id;       /* capstone x86_insn */
    uint8_t      insn_len;
    uint8_t      status;        /* enum tf_ea_status */
    uint8_t      origin;        /* enum tf_ea_origin */
    uint8_t      naccess;
    tf_ea_access access[TF_EA_MAX_ACCESS];
} tf_ea_result;

typedef struct tf_ea_decoder tf_ea_decoder;

/* Creates a decoder for the calling thread.  Not signal-safe (allocates). */
int  tf_ea_decoder_create(tf_ea_decoder **d, tf_error *err)
    __attribute__((warn_unused_result));
void tf_ea_decoder_free(tf_ea_decoder *d);

/* The calling thread's fs and gs bases (arch_prctl).  Call once per thread
 * at init and keep them: glibc never changes them afterwards.  A system
 * call, so async-signal-safe, but not free. */
int  tf_ea_thread_bases(uint64_t *fs_base, uint64_t *gs_base, tf_error *err);

/* Fills regs from a signal handler's third argument (ucontext_t *) and the
 * thread's cached segment bases.  Async-signal-safe.  x86-64 only. */
void tf_ea_regs_from_ucontext(tf_ea_regs *regs, const void *ucontext, uint64_t fs_base,
                              uint64_t gs_base);

/* Decodes the instruction in code[0..len) located at regs->greg[TF_EA_RIP]
 * and computes its references.  Returns the status (also in out->status).
 * Async-signal-safe. */
int  tf_ea_decode(tf_ea_decoder *d, const uint8_t *code, size_t len, const tf_ea_regs *regs,
                  tf_ea_result *out);

/* The instruction that ends at regs->greg[TF_EA_RIP], from the bytes
 * before[0..len) that precede the IP (before[len-1] is at IP-1), with the
 * conditions listed above; TF_EA_MEMORY or TF_EA_UNRESOLVED.
 * Async-signal-safe. */
int  tf_ea_decode_previous(tf_ea_decoder *d, const uint8_t *before, size_t len,
                           const tf_ea_regs *regs, tf_ea_result *out);

/* The sampling entry point: reads the code at and before
 * regs->greg[TF_EA_RIP] from this process's memory and decodes the
 * instruction at the IP and the one that ends there (see above).  Fills
 * out[0..n) with those that make references (status TF_EA_MEMORY or
 * TF_EA_GATHER), the one at the IP first, and returns n (0, 1 or 2).  It
 * reads neither before the IP's page nor past its end unless the
 * instruction at the IP continues on the next page (mapped, since the CPU
 * is about to fetch it).  Async-signal-safe. */
#define TF_EA_LIVE_MAX 2
unsigned tf_ea_decode_live(tf_ea_decoder *d, const tf_ea_regs *regs,
                           tf_ea_result out[TF_EA_LIVE_MAX]);

/* The same, for another process's code (the writer decoding samples the
 * kernel captured, docs/recorder.md "Kernel capture"): the bytes come from
 * code[0..len), a copy of that process's memory at code_addr, which should
 * cover the IP's page and the next one; what it does not cover is not
 * decoded.  A decoder used this way must serve one address space only
 * (its plans are kept by IP). */
unsigned tf_ea_decode_copy(tf_ea_decoder *d, const tf_ea_regs *regs, const uint8_t *code,
                           uint64_t code_addr, size_t len, tf_ea_result out[TF_EA_LIVE_MAX]);

/* tf_ea_decode_live keeps, per decoder, the plans of each IP it has decoded
 * (512 slots, direct-mapped): a later sample at the same IP only evaluates
 * it with the new registers.  Code that changes at an address already
 * sampled (dlclose then dlopen at the same place, JIT compilers) must call
 * this in the thread that owns the decoder, outside its sampling handler. */
void tf_ea_decoder_forget_code(tf_ea_decoder *d);

/* A trace record for reference i of r: kind load/store/rmw, ip, addr,
 * flags SOFTWARE (plus VECTOR), no weight, level unknown; time and stack
 * are left to the caller.  Async-signal-safe. */
void tf_ea_to_sample(const tf_ea_result *r, unsigned i, tf_sample *s);

/* Allocations capstone has made through this module since the process
 * started (for tests: decoding must not add any). */
uint64_t tf_ea_capstone_allocations(void);

#endif
