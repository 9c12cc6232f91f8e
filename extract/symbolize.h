/* SPDX-License-Identifier: BSD-3-Clause */
/* Instruction addresses → function, source file and line, with the frames
 * of inlined functions.  Sources, in order: the trace's pre-resolved
 * address ranges (tf_symbol), the DWARF of the mapped binaries through
 * elfutils' libdwfl (found by path, or by build-id under a debug
 * directory), their ELF symbol tables, and last module+offset.  Each
 * distinct address is resolved once and cached. */
#ifndef TF_EXTRACT_SYMBOLIZE_H
#define TF_EXTRACT_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/trace.h"

typedef struct tf_symbolizer tf_symbolizer;

/* A mapping of the process, as in the trace's modules table. */
typedef struct tf_sym_module {
    uint64_t    start, end, offset;
    const char *path;
    const char *build_id;   /* lowercase hex or "" */
} tf_sym_module;

/* An address range already resolved to source. */
typedef struct tf_sym_range {
    uint64_t    start, end; /* [start, end) */
    const char *function, *file;
    uint32_t    line;
} tf_sym_range;

enum tf_sym_source {
    TF_SYM_TABLE = 0,       /* the trace's symbols table */
    TF_SYM_DWARF = 1,       /* debug information */
    TF_SYM_ELF = 2,         /* ELF symbol table: function only */
    TF_SYM_MODULE = 3,      /* only the module and the offset in it */
    TF_SYM_NONE = 4,        /* in no known module */
};

typedef struct tf_sym_frame {
    const char *function;   /* never NULL; "" when unknown */
    const char *file;       /* never NULL; "" when unknown (full path as in the DWARF) */
    uint32_t    line;       /* 0 when unknown */
    uint32_t    column;     /* 1-based column of the line table (DWARF 4+), 0 when unknown */
    const char *linkage;    /* never NULL; the linkage (mangled) name: DW_AT_linkage_name,
                               else for the emitted function its ELF symbol; "" when unknown */
} tf_sym_frame;

/* Where an address is: frames[0] is the innermost (an inlined function's
 * body when inlined), frames[nframes−1] the function the compiler emitted;
 * for frames after the first, file and line are the call site of the
 * frame before.  module is the mapping's path ("" in none). */
typedef struct tf_sym_location {
    uint8_t             source;     /* enum tf_sym_source */
    uint32_t            nframes;    /* at least 1 */
    const tf_sym_frame *frames;
    const char         *module;
    uint64_t            module_offset;
} tf_sym_location;

/* A symboliser over plain tables (strings must outlive it).  debug_dir
 * (may be NULL) is searched for binaries and debug files by build-id, in
 * the layout DIR/.build-id/xx/rest[.debug]. */
int tf_symbolizer_create(tf_symbolizer **s, const tf_sym_module *modules, size_t nmodules,
                         const tf_sym_range *ranges, size_t nranges, const char *debug_dir,
                         tf_error *err);

/* A symboliser for process proc of a trace (which must outlive it). */
int tf_symbolizer_for_process(tf_symbolizer **s, const tf_trace *tr, uint32_t proc,
                              const char *debug_dir, tf_error *err);

/* The location of ip.  *loc stays valid until the symboliser is freed.
 * A return address (a call stack frame) is looked up at ip − 1, the call
 * instruction: pass return_address = true. */
int tf_symbolize(tf_symbolizer *s, uint64_t ip, bool return_address, const tf_sym_location **loc,
                 tf_error *err);

/* The code around ip, read from the binary mapped there (by path, else by
 * build-id under the debug directory; when the trace recorded a build-id,
 * only from a file that has it): the bytes from max(ip − before, mapping
 * start) to min(ip + after, mapping end) into buf (before + after bytes),
 * *start their address and *len their number.  *len is 0, with success,
 * when ip is in no file-backed mapping or its binary cannot be found. */
int tf_symbolizer_code(tf_symbolizer *s, uint64_t ip, size_t before, size_t after, uint8_t *buf,
                       uint64_t *start, size_t *len, tf_error *err);

/* Distinct addresses resolved so far (the cache's size). */
size_t tf_symbolizer_distinct(const tf_symbolizer *s);

void tf_symbolizer_free(tf_symbolizer *s);

/* "file.c:181:12" for the first frame with a source line (basename of the
 * file; ":12", the column, when the debug information gives one, so that
 * two calls on one line are told apart), else the function name, else
 * "module+0xoffset"; written to buf. */
void tf_sym_location_label(const tf_sym_location *loc, char *buf, size_t size);

/* "file.c:181:12" (or "file.c:181") for one frame, written to buf; false,
 * and buf untouched, when the frame has no source line. */
bool tf_sym_frame_label(const tf_sym_frame *f, char *buf, size_t size);

#endif
