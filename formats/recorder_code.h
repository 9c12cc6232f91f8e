/* SPDX-License-Identifier: BSD-3-Clause */
/* The recorder's own code in a traced process: libtracefold and its MPI
 * layer, mapped into the program, and the Fortran module's procedures
 * (record/tracefold.f90), which the Fortran compiler puts into the
 * program itself (from libtracefold_fortran.a, or the module's source
 * compiled with the program).  A sample taken while the program was inside
 * a tracefold_* call has its instruction address there, which is the
 * recorder's cost, not the program's code.  Such a sample is moved to the
 * program's call of the recorder, the first frame of its call stack
 * outside the recorder: by the fold (extract/fold_input.c) and the raw
 * Paraver export, so that the recorder's frames never show as the
 * program's code. */
#ifndef TF_FORMATS_RECORDER_CODE_H
#define TF_FORMATS_RECORDER_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace.h"

enum { TF_RECORDER_CODE_MAX = 32 };

typedef struct tf_recorder_code {
    size_t n;
    struct { uint64_t start, end; } range[TF_RECORDER_CODE_MAX];  /* [start, end) */
} tf_recorder_code;

/* True for libtracefold.so[.N...] and libtracefold-mpi.so[...], wherever
 * installed: the recorder libraries by the name the build gives them. */
bool tf_recorder_file(const char *path);

/* True for the linkage name of a procedure of the Fortran module
 * `tracefold`, as each Fortran compiler spells it. */
bool tf_recorder_symbol(const char *name);

/* The recorder's code of every process of tr: code[p] for process p (an
 * array of tf_trace_nprocesses(tr)).  The mappings of the recorder
 * libraries, and the Fortran module's procedures found in the symbol
 * tables of the other mapped binaries (each file read once, and only when
 * it is the one recorded: same build-id).  A binary that cannot be read
 * adds nothing: its samples stay where they fell. */
void tf_recorder_code_find(const tf_trace *tr, tf_recorder_code *code);

bool tf_recorder_code_has(const tf_recorder_code *code, uint64_t ip);

/* Moves each of the n samples s of thread (proc, thread) whose ip is in
 * the recorder to its first caller outside it: the address of the call
 * instruction (return address − 1).  A sample with no such frame gets ip
 * 0 (unknown), never the recorder's.  The frames are read from the trace. */
int tf_recorder_code_skip(tf_trace *tr, uint32_t proc, uint32_t thread,
                          const tf_recorder_code *code, tf_sample *s, size_t n, tf_error *err);

#endif
