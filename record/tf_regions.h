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
 * modules that query names (C, C++ demangled, Fortran spellings).  No
 * match: an error whose message lists close names and says when the
 * program is stripped. */
int tf_symbols_find(const char *query, uint64_t *addrs, unsigned max, unsigned *n,
                    tf_error *err);
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

#endif
