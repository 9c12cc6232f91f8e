/* SPDX-License-Identifier: BSD-3-Clause */
/* The frame that names a sample's phase (phase_level.h). */
#include "phase_level.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "extract/symbolize.h"

/* Frames of one sample looked at, at most: a deeper stack counts as one
 * that does not reach its root. */
#define MAX_FRAMES 4096

/* Where a thread's stack starts: the C runtime's start-up and the thread
 * library's, below the program's first routine (main, or a thread's start
 * routine) on the x86-64 and AArch64 glibc stacks. */
static const char *const startup_routines[] = {
    "_start", "__libc_start_main", "__libc_start_call_main", "__libc_start_main_impl",
    "start_thread", "clone", "clone3", "__clone", "__clone3", "thread_start",
};

/* One frame of the expanded stack: the address looked up and which of the
 * symboliser's frames there it is. */
struct frame {
    uint64_t    address;
    uint32_t    inlined;
    const char *function;
};

struct tf_phase_namer {
    const tf_trace *tr;
    tf_phase_level level;
    const char *debug_dir;
    uint32_t nproc;
    tf_symbolizer **sym;       /* [nproc], NULL until needed */
    struct frame frames[MAX_FRAMES];
};

bool tf_phase_level_parse(const char *text, tf_phase_level *level)
{
    *level = (tf_phase_level){ TF_PHASE_LEVEL_INNERMOST, 0, NULL };
    if (!strcmp(text, "innermost"))
        return true;
    if (!strcmp(text, "caller")) {
        level->kind = TF_PHASE_LEVEL_CALLER;
        return true;
    }
    if (!strncmp(text, "depth", 5) && (text[5] == ' ' || text[5] == '=')) {
        const char *digits = text + 6;
        char *end;
        errno = 0;
        unsigned long d = strtoul(digits, &end, 10);
        if (digits[0] < '0' || digits[0] > '9' || *end || errno || d > MAX_FRAMES)
            return false;
        level->kind = TF_PHASE_LEVEL_DEPTH;
        level->depth = (uint32_t)d;
        return true;
    }
    if (!strncmp(text, "under", 5) && (text[5] == ' ' || text[5] == '=') && text[6]) {
        level->kind = TF_PHASE_LEVEL_UNDER;
        level->under = text + 6;
        return true;
    }
    return false;
}

int tf_phase_namer_create(tf_phase_namer **out, const tf_trace *tr, const tf_phase_level *level,
                          const char *debug_dir, tf_error *err)
{
    tf_phase_namer *n = calloc(1, sizeof *n);
    uint32_t np = tf_trace_nprocesses(tr);
    if (n)
        n->sym = calloc(np ? np : 1, sizeof *n->sym);
    if (!n || !n->sym) {
        free(n);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the phase level's symbolisers");
    }
    n->tr = tr;
    n->level = *level;
    n->debug_dir = debug_dir;
    n->nproc = np;
    *out = n;
    return 0;
}

void tf_phase_namer_free(tf_phase_namer *n)
{
    if (!n)
        return;
    for (uint32_t p = 0; p < n->nproc; p++)
        tf_symbolizer_free(n->sym[p]);
    free(n->sym);
    free(n);
}

static bool is_startup(const char *function)
{
    for (size_t k = 0; k < sizeof startup_routines / sizeof startup_routines[0]; k++)
        if (!strcmp(function, startup_routines[k]))
            return true;
    return false;
}

/* Whether the innermost location waits: its routine as the analysis names
 * it (from_fold.c), "[module]" when only the module is known. */
static bool waits(const tf_sym_location *loc)
{
    if (loc->frames[0].function[0])
        return tf_analysis_is_waiting_routine(loc->frames[0].function);
    if (loc->source == TF_SYM_NONE)
        return false;
    const char *slash = strrchr(loc->module, '/');
    char name[300];
    snprintf(name, sizeof name, "[%s]", slash ? slash + 1 : loc->module);
    return tf_analysis_is_waiting_routine(name);
}

/* Appends the frames of the location at address a; false once full. */
static bool expand(tf_phase_namer *n, size_t *m, uint64_t a, const tf_sym_location *loc)
{
    for (uint32_t k = 0; k < loc->nframes; k++) {
        if (*m == MAX_FRAMES)
            return false;
        n->frames[(*m)++] = (struct frame){ a, k, loc->frames[k].function };
    }
    return true;
}

/* The index of the frame that names the sample among the m expanded ones
 * (0: the innermost). */
static size_t chosen(const tf_phase_namer *n, size_t m, bool complete)
{
    const tf_phase_level *lv = &n->level;
    if (lv->kind == TF_PHASE_LEVEL_CALLER)
        return m > 1 ? 1 : 0;
    if (lv->kind == TF_PHASE_LEVEL_UNDER) {
        for (size_t j = m; j-- > 1;)
            if (!strcmp(n->frames[j].function, lv->under))
                return j - 1;
        return 0;
    }
    if (lv->kind != TF_PHASE_LEVEL_DEPTH || !complete)
        return 0;
    /* depth 0 is the first frame inside the start-up: a stack that does
     * not reach the start-up (cut by record's --stack-depth) has no
     * depth, and keeps its innermost routine */
    size_t root = m;
    while (root > 0 && is_startup(n->frames[root - 1].function))
        root--;
    if (root == m || root == 0)
        return 0;
    size_t depth0 = root - 1;
    return depth0 > lv->depth ? depth0 - lv->depth : 0;
}

int tf_phase_namer_name(void *namer, uint32_t proc, uint64_t ip, const uint64_t *frames,
                        size_t nframes, uint64_t *name, tf_error *err)
{
    tf_phase_namer *n = namer;
    *name = 0;
    if (!ip || proc >= n->nproc || n->level.kind == TF_PHASE_LEVEL_INNERMOST)
        return 0;
    int rc;
    if (!n->sym[proc] &&
        (rc = tf_symbolizer_for_process(&n->sym[proc], n->tr, proc, n->debug_dir, err)))
        return rc;
    tf_symbolizer *sym = n->sym[proc];
    /* The callers of ip: the return addresses after frames[0], or after
     * the frame whose call ip is when the sample was given to the
     * program's call of the recorder (formats/recorder_code.h). */
    size_t next = nframes;
    if (nframes && frames[0] == ip)
        next = 1;
    for (size_t f = 1; next == nframes && f < nframes; f++)
        if (frames[f] && frames[f] - 1 == ip)
            next = f + 1;
    const tf_sym_location *loc;
    if ((rc = tf_symbolize(sym, ip, false, &loc, err)))
        return rc;
    if (loc->source == TF_SYM_NONE || waits(loc))
        return 0;   /* nowhere known, or waiting: named as itself at every level */
    size_t m = 0;
    bool complete = expand(n, &m, ip, loc);
    size_t enough = n->level.kind == TF_PHASE_LEVEL_CALLER ? 2 : MAX_FRAMES;
    for (size_t f = next; complete && m < enough && f < nframes && frames[f]; f++) {
        /* a return address: its call is the instruction before */
        if ((rc = tf_symbolize(sym, frames[f], true, &loc, err)))
            return rc;
        complete = expand(n, &m, frames[f] - 1, loc);
    }
    size_t j = chosen(n, m, complete);
    if (j == 0 || n->frames[j].address >> TF_NAME_FRAME_ADDRESS_BITS ||
        n->frames[j].inlined > UINT8_MAX)
        return 0;
    *name = TF_NAME_FRAME(n->frames[j].address, n->frames[j].inlined);
    return 0;
}
