/* SPDX-License-Identifier: BSD-3-Clause */
/* Call stacks of kernel-captured samples, in the writer (docs/recorder.md,
 * "Kernel capture"): each sample brings the thread's user registers and a
 * copy of the top of its stack (PERF_SAMPLE_REGS_USER, PERF_SAMPLE_STACK_USER
 * of perf_event_open(2)); the stack is walked offline from them.
 *
 * unwind=libunwind (CFI): elfutils libdwfl with our own thread callbacks
 * (libdwfl.h, dwfl_attach_state): the process's modules come from its maps
 * text (dwfl_linux_proc_maps_report), the initial registers from the
 * sample in DWARF numbering (x86-64 psABI, "DWARF Register Number
 * Mapping": 0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp, 7 rsp, 8-15
 * r8-r15, 16 the return address column, rip), and memory reads from the
 * stack copy only, so a walk that leaves the copy ends there.  The CFI is
 * read from the ELF files' .eh_frame (or .debug_frame), which compilers
 * emit without -g.
 * unwind=fp: the frame-pointer chain inside the copy (caller's rbp at
 * [rbp], return address at [rbp + 8]), each frame moving up the stack.
 * Both give the interrupted instruction first, then return addresses, as
 * the handler's walk does (tf_unwind.c). */
#include "config.h"

#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tf_writer.h"

struct tf_kunwind {
    Dwfl    *dwfl;
    int64_t  pid;
    bool     attached;         /* dwfl_attach_state done */
    /* The sample being walked. */
    int64_t  tid;
    uint64_t dregs[TF_KREGS_DWARF];
    uint64_t sp;
    const uint8_t *stack;
    size_t   len;
    uint64_t *frames;
    uint32_t n, depth;
};

static char *debuginfo_path;
static const Dwfl_Callbacks callbacks = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .debuginfo_path = &debuginfo_path,
};

/* One thread: the sample's. */
static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
    (void)dwfl;
    tf_kunwind *u = arg;
    if (*thread_argp)
        return 0;
    *thread_argp = u;
    return (pid_t)u->tid;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
    (void)dwfl;
    const tf_kunwind *u = arg;
    if (addr < u->sp || addr - u->sp > u->len || u->len - (addr - u->sp) < sizeof *result)
        return false;
    memcpy(result, u->stack + (addr - u->sp), sizeof *result);
    return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *thread_arg)
{
    const tf_kunwind *u = thread_arg;
    Dwarf_Word regs[TF_KREGS_DWARF];
    for (unsigned i = 0; i < TF_KREGS_DWARF; i++)
        regs[i] = u->dregs[i];
    if (!dwfl_thread_state_registers(thread, 0, TF_KREGS_DWARF, regs))
        return false;
    dwfl_thread_state_register_pc(thread, regs[TF_KREGS_DWARF - 1]);
    return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
    .next_thread = next_thread,
    .memory_read = memory_read,
    .set_initial_registers = set_initial_registers,
};

int tf_kunwind_create(tf_kunwind **out, int64_t pid, tf_error *err)
{
    tf_kunwind *u = calloc(1, sizeof *u);
    if (!u)
        return tf_fail(err, TF_ERR_NOMEM, "unwinder of process %lld", (long long)pid);
    u->dwfl = dwfl_begin(&callbacks);
    if (!u->dwfl) {
        free(u);
        return tf_fail(err, TF_ERR_NOMEM, "dwfl_begin for process %lld: %s", (long long)pid,
                       dwfl_errmsg(-1));
    }
    u->pid = pid;
    *out = u;
    return 0;
}

void tf_kunwind_free(tf_kunwind *u)
{
    if (!u)
        return;
    dwfl_end(u->dwfl);
    free(u);
}

void tf_kunwind_maps(tf_kunwind *u, const char *maps, size_t len)
{
    if (!len)
        return;
    FILE *f = fmemopen((void *)maps, len, "r");
    if (!f)
        return;
    /* Modules reported again are kept with what libdwfl read of them;
     * those gone (dlclose) are dropped at dwfl_report_end. */
    dwfl_report_begin(u->dwfl);
    dwfl_linux_proc_maps_report(u->dwfl, f);
    fclose(f);
    dwfl_report_end(u->dwfl, NULL, NULL);
    if (!u->attached)
        u->attached = dwfl_attach_state(u->dwfl, NULL, (pid_t)u->pid, &thread_callbacks, u);
}

static int on_frame(Dwfl_Frame *state, void *arg)
{
    tf_kunwind *u = arg;
    Dwarf_Addr pc;
    bool activation;
    if (!dwfl_frame_pc(state, &pc, &activation) || !pc)
        return DWARF_CB_ABORT;
    u->frames[u->n++] = pc;
    return u->n < u->depth ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* Every load stays inside the copy [sp, sp + len). */
static uint32_t fp_walk(const uint64_t dregs[TF_KREGS_DWARF], const uint8_t *stack, size_t len,
                        uint64_t *frames, uint32_t depth)
{
    uint32_t n = 0;
    uint64_t sp = dregs[7], fp = dregs[6], prev = sp;
    frames[n++] = dregs[TF_KREGS_DWARF - 1];
    while (n < depth && fp >= prev && fp - sp <= len && len - (fp - sp) >= 16) {
        uint64_t next, ret;
        memcpy(&next, stack + (fp - sp), 8);
        memcpy(&ret, stack + (fp - sp) + 8, 8);
        if (!ret)
            break;
        frames[n++] = ret;
        if (next <= fp)
            break;
        prev = fp;
        fp = next;
    }
    return n;
}

uint32_t tf_kunwind_stack(tf_kunwind *u, int64_t tid, const uint64_t dregs[TF_KREGS_DWARF],
                          const uint8_t *stack, size_t len, bool fp, uint64_t *frames,
                          uint32_t depth)
{
    if (!depth)
        return 0;
    if (!stack)
        len = 0;
    if (fp || !u)
        return fp ? fp_walk(dregs, stack, len, frames, depth)
                  : (frames[0] = dregs[TF_KREGS_DWARF - 1], 1);
    memcpy(u->dregs, dregs, sizeof u->dregs);
    u->sp = dregs[7];
    u->stack = stack;
    u->len = len;
    if (!u->attached) {
        frames[0] = dregs[TF_KREGS_DWARF - 1];
        return 1;
    }
    u->tid = tid;
    u->frames = frames;
    u->n = 0;
    u->depth = depth;
    dwfl_getthread_frames(u->dwfl, (pid_t)tid, on_frame, u);
    if (!u->n) {
        frames[0] = dregs[TF_KREGS_DWARF - 1];
        u->n = 1;
    }
    return u->n;
}
