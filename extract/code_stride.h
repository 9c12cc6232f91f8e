/* SPDX-License-Identifier: BSD-3-Clause */
/* The stride of a sampled memory instruction read from the code: the bytes
 * its address advances per iteration of the innermost loop around it.
 *
 * Why from the code.  Samples come every 0.5-5 ms; a column walk repeats
 * within a microsecond, so the addresses of successive samples (and of
 * samples at one folded time, blurred by the iterations' jitter) are far
 * apart in the walk and show no stride.  The instruction itself knows it:
 * its base and index registers are advanced by a constant in the loop.
 *
 * Method (x86-64, decoded with capstone).  The loop is closed by the first
 * branch after the instruction whose target lies at or before it (code laid
 * out by compilers puts a loop's back edge after its body; the first such
 * branch is the innermost loop's).  The body, decoded linearly from the
 * target to the branch, must pass through the instruction.  Each register
 * of the memory operand must be a basic induction register, changed in the
 * body only by add/sub of an immediate, inc/dec, or lea of itself plus a
 * displacement, or one derived from a basic one each iteration (copied by
 * mov, lea or imul $k, then scaled by shl, imul $k or lea, plus constants:
 * how compilers compute k × N × 8 from k); not inside a loop nested in the
 * body, nor across a call for the registers a call may clobber (SysV ABI).
 * The stride is then the base register's step plus the index register's
 * step times the scale.  The updates are assumed to run once per iteration
 * (a conditional update is not told apart).  A step held in a register (a
 * dimension known only at run time) has no value in the code:
 * TF_CODE_STRIDE_NOT_INDUCTION.
 *
 * The sweep.  An unrolled loop steps each instruction past the others'
 * references (four 32-byte loads, then +128): the references of the body
 * through the same registers, between the same updates of them, that
 * together cover |stride| bytes sweep the data at the widest access's
 * size; that is `sweep`, the stride otherwise (docs/algorithms.md,
 * "Several instructions, one sweep").
 *
 * The width.  The bytes one execution of the instruction reads or writes
 * (its memory operand's size: 8 for a double, 64 for an AVX-512 move), or
 * the widest access of the sweep when the loop's references tile it: a
 * stride no larger than the width leaves no byte out (docs/algorithms.md,
 * streams step 4). */
#ifndef TF_EXTRACT_CODE_STRIDE_H
#define TF_EXTRACT_CODE_STRIDE_H

#include <stddef.h>
#include <stdint.h>

#include "common/tf_error.h"

enum tf_code_stride_status {
    TF_CODE_STRIDE_FOUND = 0,         /* bytes is the stride (0: the loop does not move it) */
    TF_CODE_STRIDE_NO_LOOP,           /* no loop closes around the instruction in the code given */
    TF_CODE_STRIDE_NOT_INDUCTION,     /* an address register changes otherwise than by a constant */
    TF_CODE_STRIDE_NO_OPERAND,        /* not one explicit memory operand (string, stack, lea) */
    TF_CODE_STRIDE_UNDECODABLE,       /* the bytes at the instruction or in the loop do not decode */
};

typedef struct tf_code_stride {
    int64_t  bytes;            /* per iteration, signed; 0 unless FOUND */
    int64_t  sweep;            /* the stride of the instruction's data with the loop's
                                  other references through the same registers: the
                                  widest access's size (signed like bytes) when their
                                  displacements tile |bytes| (an unrolled copy), else
                                  bytes */
    uint32_t width;            /* bytes per access: the memory operand's size, or the
                                  widest access when they tile the sweep; 0 when the
                                  instruction has no one explicit memory operand */
    uint64_t loop_start;       /* the back edge's target; 0 without a loop */
    uint64_t loop_end;         /* the end of the back-edge branch */
    uint8_t  status;           /* enum tf_code_stride_status */
} tf_code_stride;

typedef struct tf_code_stride_decoder tf_code_stride_decoder;

int  tf_code_stride_decoder_create(tf_code_stride_decoder **d, tf_error *err)
    __attribute__((warn_unused_result));
void tf_code_stride_decoder_free(tf_code_stride_decoder *d);

/* The stride of the memory instruction at ip, from code[0..len) located at
 * address `addr` (ip within it).  Returns the status (also in out); the
 * width is filled whenever the instruction decodes with one explicit memory
 * operand, a loop found or not. */
int tf_code_stride_find(tf_code_stride_decoder *d, const uint8_t *code, size_t len, uint64_t addr,
                        uint64_t ip, tf_code_stride *out);

/* "found", "no loop", ... for messages and docs. */
const char *tf_code_stride_status_name(int status);

#endif
