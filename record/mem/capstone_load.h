/* SPDX-License-Identifier: BSD-3-Clause */
/* Capstone, loaded when the first decoder is made rather than with the
 * recorder: its 77 000 relocations cost every recorded process and the
 * writer 5 to 8 ms of CPU at start (bench/RESULTS.md, "Recorder: start and
 * stop"), and most runs decode nothing in the program (kernel capture) or
 * nothing at all (no memory sample).  The functions the decoder calls, with
 * capstone's own signatures (capstone.h). */
#ifndef TF_CAPSTONE_LOAD_H
#define TF_CAPSTONE_LOAD_H

#include <capstone/capstone.h>

#include "common/tf_error.h"

typedef struct tf_capstone {
    cs_err (*open)(cs_arch arch, cs_mode mode, csh *handle);
    cs_err (*close)(csh *handle);
    cs_err (*option)(csh handle, cs_opt_type type, size_t value);
    cs_err (*errno_of)(csh handle);
    const char *(*strerror)(cs_err code);
    cs_insn *(*malloc)(csh handle);
    void (*free)(cs_insn *insn, size_t count);
    bool (*disasm_iter)(csh handle, const uint8_t **code, size_t *size, uint64_t *address,
                        cs_insn *insn);
    cs_err (*regs_access)(csh handle, const cs_insn *insn, cs_regs regs_read,
                          uint8_t *regs_read_count, cs_regs regs_write,
                          uint8_t *regs_write_count);
} tf_capstone;

/* The library, loaded once per process (thread-safe; not in a signal
 * handler: dlopen(3) is not async-signal-safe), or NULL with err set
 * (the shared object missing or not the capstone built against). */
const tf_capstone *tf_capstone_load(tf_error *err);

#endif
