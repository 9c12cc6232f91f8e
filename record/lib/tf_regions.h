/* SPDX-License-Identifier: BSD-3-Clause */
/* Regions by function name (option region, docs/recorder.md "Regions
 * without source changes"): every call of a named function is a region
 * instance, begun at its entry and ended at its return, found with
 * software breakpoints (tf_regions.c). */
#ifndef TF_REGIONS_H
#define TF_REGIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "common/tf_error.h"

/* Functions (addresses) all --region names may resolve to together. */
#define TF_REGION_MAX_ADDRS 64
/* Named functions. */
#define TF_REGION_MAX_NAMES 16

/* tf_symbols.c: appends to addrs[*n..max) every function of the loaded
 * modules that query names (C, C++ demangled, Fortran spellings), and its
 * size in bytes (0 unknown) to sizes[] when sizes is not NULL.  No match:
 * an error whose message lists close names and says when the program is
 * stripped. */
int tf_symbols_find(const char *query, uint64_t *addrs, uint64_t *sizes, unsigned max,
                    unsigned *n, tf_error *err);
/* Whether the program itself (not a library) calls the function name of
 * a library: an undefined symbol in its .dynsym. */
bool tf_symbols_program_imports(const char *name);

/* Out-of-line execution of one instruction displaced by a breakpoint
 * (tf_displace.c). */
enum tf_displace_how {
    TF_DISPLACE_COPY,     /* run the copy at target, which jumps back to next */
    TF_DISPLACE_CALL,     /* a relative call: push next, go to target */
    TF_DISPLACE_JUMP,     /* a relative jump: go to target */
};
#define TF_DISPLACE_SLOT 32   /* bytes of one out-of-line copy */

typedef struct tf_displaced {
    uint64_t target;
    uint64_t next;
    uint8_t  how;         /* enum tf_displace_how */
    uint8_t  first;       /* the instruction's first byte, which the breakpoint replaces */
} tf_displaced;

struct tf_decoder;
/* A decoder for tf_displace; allocates, so not from a signal handler. */
struct tf_decoder *tf_decoder_new(void);
void tf_decoder_free(struct tf_decoder *d);
/* Reserves room for out-of-line copies within reach (+-2 GiB) of every
 * module loaded now.  0 or -1 with err. */
int tf_displace_setup(tf_error *err);
/* Decodes the instruction at addr and prepares its execution elsewhere:
 * 0, or -1 when it cannot be moved (a relative branch other than call,
 * jmp and jcc, an indirect call, a rip-relative operand out of reach of
 * every copy area).  No allocation, no lock: safe in a signal handler,
 * with a decoder of the calling thread. */
int tf_displace(struct tf_decoder *d, uint64_t addr, tf_displaced *out);
/* The whole instructions at addr covering at least min bytes, moved to
 * dst (room bytes; within reach of addr, from tf_displace_room) and
 * followed by a jump back to the next one; *covered their length.  All
 * but the last fall through; the last may be a relative call, jmp or jcc
 * (moved as absolute ones, a call returning into the program).  The
 * number of instructions, or -1. */
int tf_displace_block(struct tf_decoder *d, uint64_t addr, size_t min, uint8_t *dst, size_t room,
                      size_t *covered);
/* bytes of room within reach of addr, or NULL (never given back). */
uint8_t *tf_displace_room(uint64_t addr, size_t bytes);
/* The original bytes of code a breakpoint or jump replaced, when one
 * starts at addr: TF_ORIGINAL_BYTES of them from addr, *span the bytes
 * replaced (whole instructions); else NULL. */
#define TF_ORIGINAL_BYTES 32
typedef const uint8_t *(*tf_original_bytes)(uint64_t addr, size_t *span);
/* Whether code decoded from start over size bytes (read through original
 * where it says so) has a relative branch into (lo, hi), or cannot be
 * decoded throughout. */
bool tf_displace_branches_into(struct tf_decoder *d, uint64_t start, uint64_t size, uint64_t lo,
                               uint64_t hi, tf_original_bytes original);

/* Jumps to trampolines in place of breakpoints (tf_jump.c).  Whether they
 * can be used in this process (XSAVE, a core-serialising membarrier, and
 * TRACEFOLD_REGION_TRAPS not 1); once per process. */
bool tf_jump_setup(void);
/* The trampoline of site (given back to tf_region_jumped) for the code at
 * addr (tf_displace_block's instructions): *moved the moved instructions
 * (for a thread that meets the int3 while the jump is written), *tramp
 * its head, *covered the bytes the jump replaces.  The number of
 * instructions replaced, or -1. */
int tf_jump_build(struct tf_decoder *d, uint64_t addr, const void *site, uint64_t *moved,
                  uint64_t *tramp, size_t *covered);
/* Writes the jump at addr through mem_fd (/proc/self/mem): int3, the
 * displacement, the opcode, each followed by a core serialisation. */
int tf_jump_write(int mem_fd, uint64_t addr, uint64_t tramp);

#endif
