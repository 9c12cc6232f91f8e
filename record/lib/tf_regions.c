/* SPDX-License-Identifier: BSD-3-Clause */
/* Regions by function name (option region): each call of a named function
 * is a region instance named as the user wrote it, on every thread,
 * without recompiling.
 *
 * Mechanism: a stop on the function's first bytes and, at each outermost
 * entry, one on the return address read from [rsp] (x86-64 psABI §3.2.2:
 * at entry rsp points to it), written through /proc/self/mem (which
 * writes read-only text, as debuggers do).  A stop is a jump to a
 * trampoline (tf_jump.c) where the code allows one, else a software
 * breakpoint (int3) whose SIGTRAP handler does the same work.  The text
 * is shared by all threads, so threads created later, by any means, meet
 * the same stops.  The instructions a stop covers run out of line
 * (tf_displace.c).  Hardware execute breakpoints (perf_event_open
 * PERF_TYPE_BREAKPOINT) were the first choice; on the virtual machine the
 * project is tested on they are accepted but never fire, and they are
 * limited to four addresses (docs/recorder.md, "Regions without source
 * changes").
 *
 * Per thread, a stack of open instances (function, stack pointer at entry,
 * return address):
 *   - entry: instances whose frame the stack has already left (a longjmp or
 *     an exception went past them) end here, marked as not seen to end; a
 *     function already open on the thread is a recursive call and is not a
 *     new instance;
 *   - return site: the instance ends when the stack pointer is one word
 *     above its entry's (the ret popped the return address); the same
 *     address reached by a deeper call is not its return.
 * The trampolines and the SIGTRAP handler write begin and end as
 * tracefold_region_begin/end do (tf_region_emit), async-signal-safe.
 *
 * A program built with -finstrument-functions (GCC, Clang) calls
 * __cyg_profile_func_enter(function, call site) after each function's
 * prologue and __cyg_profile_func_exit(function, call site) before it
 * returns, also when an exception unwinds through it; glibc defines both
 * as no-ops, and the recorder's definitions come first (preloaded or
 * linked ahead of libc).  A hash of the named functions' addresses is
 * looked up for every call; the others cost that lookup and nothing more.
 * The first time a named function's hook runs, the function is known to
 * be instrumented: its entry breakpoint is taken away (that call's own
 * trap has already opened the instance), and from then on its instances
 * are opened and closed by the hooks, with no trap.  A return-site
 * breakpoint an earlier trap set is taken away when the hooks close the
 * instance that set it.  The hooks find the function's entry stack
 * pointer from the return address they are given (entry_sp), so a longjmp
 * out of an instance is seen at the next entry as with breakpoints. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "tf_rec.h"
#include "tf_regions.h"

/* Open instances per thread; deeper ones are counted and not recorded. */
#define DEPTH_MAX   32
#define SITES_LOG2  12
#define SITES       (1u << SITES_LOG2)
#define RETURN_SITE UINT16_MAX
#define INT3        0xcc
/* How long a thread waits for another to set a breakpoint: a preempted
 * thread on a loaded machine takes scheduling periods, not microseconds. */
#define BUSY_WAIT_NS 2000000000ull

/* A site whose address is claimed is being set until READY or FAILED
 * (EMPTY the instant between the claim and BUSY). */
enum site_state { SITE_EMPTY, SITE_BUSY, SITE_READY, SITE_FAILED };

/* A breakpoint: a function's entry or a return address. */
struct site {
    _Atomic uint64_t addr;
    _Atomic uint8_t  state;     /* enum site_state */
    _Atomic bool     dormant;   /* its first byte given back: the hooks serve it */
    _Atomic bool     armed;     /* READY and its breakpoint written */
    bool     jumped;            /* a jump to its trampoline, not an int3 (tf_jump.c) */
    uint8_t  span;              /* bytes replaced: 1 for an int3 */
    uint8_t  orig[TF_ORIGINAL_BYTES];   /* the code before, from addr */
    uint16_t func;              /* index in funcs, or RETURN_SITE */
    uint16_t owner;             /* a return site: the function whose call set it */
    tf_displaced how;
};

struct func {
    char     name[256];         /* as the user wrote it: the region's name */
    uint32_t name_id;           /* interned in the current process */
    _Atomic bool pending;       /* not found at start: looked for at each dlopen */
};

/* An open instance.  sp: the function's stack pointer at entry; ret: the
 * return site whose breakpoint ends it, 0 for an instance the hooks
 * opened. */
struct frame {
    uint64_t sp, ret;
    uint32_t func;
    uint32_t nested;            /* recursive calls the hooks saw inside it */
    bool     hooked;            /* its own call's entry hook has run */
};

typedef struct tf_region_thread {
    struct tf_decoder *decoder;
    uint32_t depth;
    struct frame frame[DEPTH_MAX];
} tf_region_thread;

static struct site sites[SITES];
/* The named functions' entries by address, for the -finstrument-functions
 * hooks: open addressing, filled before hooks_armed is set. */
#define HOOKS_LOG2 7
#define HOOKS      (1u << HOOKS_LOG2)
static struct {
    _Atomic uint64_t addr;      /* set last: a reader that sees it sees func */
    uint16_t func;
} hooks[HOOKS];
static _Atomic bool hooks_armed;
static struct func funcs[TF_REGION_MAX_NAMES];
static unsigned nfuncs;
static int mem_fd = -1;
static struct sigaction previous;
static bool trap_handled;         /* on_trap is SIGTRAP's handler */
/* What could not be recorded, said at the end. */
static _Atomic uint64_t too_deep, no_return_site;

/* The site of addr; create: claim an empty one for it (its state is then
 * SITE_BUSY for the caller to fill), else NULL when absent. */
static struct site *site_of(uint64_t addr, bool create)
{
    uint64_t h = (addr * 0x9e3779b97f4a7c15ull) >> (64 - SITES_LOG2);
    for (uint32_t i = 0; i < SITES; i++) {
        struct site *s = &sites[(h + i) & (SITES - 1)];
        uint64_t a = atomic_load_explicit(&s->addr, memory_order_acquire);
        if (a == addr)
            return create ? NULL : s;
        if (a)
            continue;
        if (!create)
            return NULL;
        uint64_t empty = 0;
        if (atomic_compare_exchange_strong(&s->addr, &empty, addr))
            return s;
        if (empty == addr)
            return NULL;   /* another thread claimed it for the same address */
    }
    return NULL;
}

static int poke(uint64_t addr, uint8_t byte)
{
    return pwrite(mem_fd, &byte, 1, (off_t)addr) == 1 ? 0 : -1;
}

/* The code a READY site replaced (tf_original_bytes). */
static const uint8_t *original_bytes(uint64_t addr, size_t *span)
{
    const struct site *s = site_of(addr, false);
    if (!s || atomic_load_explicit(&s->state, memory_order_acquire) != SITE_READY)
        return NULL;
    *span = s->span;
    return s->orig;
}

/* Sets a breakpoint at addr (once): a jump to a trampoline where the
 * code allows one (tf_jump.c), else an int3.  The jump may replace
 * several instructions only when no branch of the function holding them
 * (an entry: its symbol's size bytes from addr, 0 unknown; a return site:
 * the function its unwind information gives) lands between them; one
 * instruction of 5 bytes or more needs no such look (no code lands inside
 * an instruction).  A jump into those bytes from elsewhere (a cold part
 * of the function looping back to its first instructions) is not looked
 * for: TRACEFOLD_REGION_TRAPS=1 keeps every site an int3.
 * Async-signal-safe with a decoder of the calling thread. */
static int set_site(struct tf_decoder *d, uint64_t addr, uint16_t func, uint16_t owner,
                    uint64_t size)
{
    struct site *s = site_of(addr, true);
    if (!s) {
        /* Another thread may be setting it, and be preempted there: a
         * call that returned meanwhile would be missed, so wait until its
         * breakpoint is written, not only its copy ready (bounded, giving
         * it the processor). */
        struct site *old = site_of(addr, false);
        uint64_t until = tf_now() + BUSY_WAIT_NS;
        struct timespec nap = {0, 20000};
        while (old && !atomic_load_explicit(&old->armed, memory_order_acquire) &&
               atomic_load_explicit(&old->state, memory_order_acquire) != SITE_FAILED &&
               tf_now() < until)
            nanosleep(&nap, NULL);
        return old && atomic_load_explicit(&old->armed, memory_order_acquire) ? 0 : -1;
    }
    atomic_store_explicit(&s->state, SITE_BUSY, memory_order_relaxed);
    s->func = func;
    s->owner = owner;
    uint64_t moved, tramp, start = addr;
    size_t covered;
    if (func == RETURN_SITE && !tf_unwind_function_of(addr, &start, &size))
        size = 0;
    /* read, not copied: the bytes past a site near the end of the text
     * may not be mapped */
    ssize_t got = pread(mem_fd, s->orig, sizeof s->orig, (off_t)addr);
    memset(s->orig + (got > 0 ? got : 0), 0, sizeof s->orig - (size_t)(got > 0 ? got : 0));
    int n = tf_jump_build(d, addr, s, &moved, &tramp, &covered);
    s->jumped = n == 1 || (n > 1 && size && !tf_displace_branches_into(d, start, size, addr,
                                                                        addr + covered,
                                                                        original_bytes));
    s->span = s->jumped ? (uint8_t)covered : 1;
    if (s->jumped) {
        /* a thread meeting the int3 while the jump is written runs the
         * trampoline's moved instructions */
        s->how = (tf_displaced){.how = TF_DISPLACE_COPY, .target = moved,
                                .first = *(const uint8_t *)(uintptr_t)addr};
    } else if (tf_displace(d, addr, &s->how)) {
        atomic_store_explicit(&s->state, SITE_FAILED, memory_order_release);
        return -1;
    }
    /* Ready before the breakpoint exists: a thread that hits it finds
     * the copy in place. */
    atomic_store_explicit(&s->state, SITE_READY, memory_order_release);
    if (s->jumped ? tf_jump_write(mem_fd, addr, tramp) : poke(addr, INT3)) {
        atomic_store_explicit(&s->state, SITE_FAILED, memory_order_release);
        return -1;
    }
    atomic_store_explicit(&s->armed, true, memory_order_release);
    return 0;
}

static void end_instance(tf_rec_thread *t, const struct frame *f, bool seen)
{
    tf_region_emit(t, false, funcs[f->func].name_id, seen ? 0 : TF_REGION_END_UNSEEN);
}

static void on_entry(tf_rec_thread *t, tf_region_thread *r, uint16_t func, uint64_t sp)
{
    while (r->depth && sp >= r->frame[r->depth - 1].sp)
        end_instance(t, &r->frame[--r->depth], false);
    for (uint32_t i = 0; i < r->depth; i++)
        if (r->frame[i].func == func)
            return;   /* recursion: the outermost call is the instance */
    if (r->depth == DEPTH_MAX) {
        atomic_fetch_add_explicit(&too_deep, 1, memory_order_relaxed);
        return;
    }
    uint64_t ret = *(const uint64_t *)(uintptr_t)sp;
    if (set_site(r->decoder, ret, RETURN_SITE, func, 0)) {
        atomic_fetch_add_explicit(&no_return_site, 1, memory_order_relaxed);
        return;
    }
    r->frame[r->depth++] = (struct frame){.sp = sp, .ret = ret, .func = func};
    tf_region_emit(t, true, funcs[func].name_id, 0);
}

static void on_return(tf_rec_thread *t, tf_region_thread *r, uint64_t addr, uint64_t sp)
{
    while (r->depth && sp > r->frame[r->depth - 1].sp) {
        const struct frame *f = &r->frame[--r->depth];
        end_instance(t, f, f->ret == addr && sp == f->sp + 8);
    }
}

/* Gives a breakpoint's first byte back for good: the hooks serve what it
 * did.  Its site stays ready, for a thread already on its way into the
 * handler. */
static void make_dormant(uint64_t addr)
{
    struct site *s = site_of(addr, false);
    if (s && atomic_load_explicit(&s->state, memory_order_acquire) == SITE_READY &&
        !atomic_exchange(&s->dormant, true) && !s->jumped)
        (void)poke(addr, s->how.first);   /* a jump stays: its trampoline sees dormant */
}

/* The named function at addr, or -1: the hooks' test of every call. */
static int hooked_func(uint64_t addr)
{
    uint32_t h = (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >> (64 - HOOKS_LOG2));
    for (uint32_t i = 0; i < HOOKS; i++) {
        uint32_t k = (h + i) & (HOOKS - 1);
        uint64_t a = atomic_load_explicit(&hooks[k].addr, memory_order_acquire);
        if (a == addr)
            return hooks[k].func;
        if (!a)
            return -1;
    }
    return -1;
}

/* Called at start and under load_lock: one writer at a time. */
static void hook_add(uint64_t addr, uint16_t func)
{
    uint32_t h = (uint32_t)((addr * 0x9e3779b97f4a7c15ull) >> (64 - HOOKS_LOG2));
    for (uint32_t i = 0; i < HOOKS; i++) {
        uint32_t k = (h + i) & (HOOKS - 1);
        uint64_t a = atomic_load_explicit(&hooks[k].addr, memory_order_relaxed);
        if (a == addr)
            return;
        if (!a) {
            hooks[k].func = func;
            atomic_store_explicit(&hooks[k].addr, addr, memory_order_release);
            return;
        }
    }
}

/* The function's stack pointer at entry, from its body's (the hook's
 * canonical frame address): the slot holding its return address (x86-64
 * psABI §3.2.2: [rsp] at entry), which the hook receives as call_site,
 * searched upwards within 64 words, the frames of loop bodies; a larger
 * frame keeps the body's, which orders instances by depth less exactly. */
__attribute__((no_sanitize_address))
static uint64_t entry_sp(uint64_t body_sp, uint64_t ret)
{
    const uint64_t *slot = (const uint64_t *)(uintptr_t)body_sp;
    for (unsigned i = 0; i < 64; i++)
        if (slot[i] == ret)
            return body_sp + 8 * i;
    return body_sp;
}

static void on_hook_entry(tf_rec_thread *t, tf_region_thread *r, uint16_t func, uint64_t fn,
                          uint64_t sp)
{
    make_dormant(fn);
    struct frame *top = r->depth ? &r->frame[r->depth - 1] : NULL;
    if (top && top->func == func && top->sp == sp && !top->hooked) {
        top->hooked = true;   /* this call's entry breakpoint opened it */
        return;
    }
    while (r->depth && sp >= r->frame[r->depth - 1].sp)
        end_instance(t, &r->frame[--r->depth], false);
    for (uint32_t i = 0; i < r->depth; i++)
        if (r->frame[i].func == func) {
            r->frame[i].nested++;   /* recursion: the outermost call is the instance */
            return;
        }
    if (r->depth == DEPTH_MAX) {
        atomic_fetch_add_explicit(&too_deep, 1, memory_order_relaxed);
        return;
    }
    r->frame[r->depth++] = (struct frame){.sp = sp, .func = func, .hooked = true};
    tf_region_emit(t, true, funcs[func].name_id, 0);
}

static void on_hook_exit(tf_rec_thread *t, tf_region_thread *r, uint16_t func)
{
    uint32_t k = r->depth;
    while (k && r->frame[k - 1].func != func)
        k--;
    if (!k)
        return;   /* opened before recording, or too deep */
    struct frame *f = &r->frame[k - 1];
    if (f->nested) {
        f->nested--;
        return;
    }
    /* deeper instances still open were left without their end */
    while (r->depth > k)
        end_instance(t, &r->frame[--r->depth], false);
    r->depth--;
    end_instance(t, f, true);
    if (f->ret) {
        struct site *s = site_of(f->ret, false);
        if (s && s->owner == func)
            make_dormant(f->ret);
    }
}

/* The thread a hook call concerns, with the named function's index, or
 * NULL for the calls of no interest (the lookup is all they cost). */
__attribute__((always_inline))
static inline tf_rec_thread *hooked_call(void *fn, uint16_t *func)
{
    if (!atomic_load_explicit(&hooks_armed, memory_order_relaxed))
        return NULL;
    int f = hooked_func((uint64_t)(uintptr_t)fn);
    tf_rec_thread *t = tf_self;
    if (f < 0 || !t || !t->regions || !tf_rec_active())
        return NULL;
    *func = (uint16_t)f;
    return t;
}

/* The -finstrument-functions hooks (see the top of this file). */
__attribute__((visibility("default"), no_instrument_function))
void __cyg_profile_func_enter(void *fn, void *call_site)
{
    uint16_t func;
    tf_rec_thread *t = hooked_call(fn, &func);
    if (t)
        on_hook_entry(t, t->regions, func, (uint64_t)(uintptr_t)fn,
                      entry_sp((uint64_t)(uintptr_t)__builtin_dwarf_cfa(),
                               (uint64_t)(uintptr_t)call_site));
}

__attribute__((visibility("default"), no_instrument_function))
void __cyg_profile_func_exit(void *fn, void *call_site)
{
    (void)call_site;
    uint16_t func;
    tf_rec_thread *t = hooked_call(fn, &func);
    if (t)
        on_hook_exit(t, t->regions, func);
}

/* The thread has reached site s (its stop, a jump or an int3) with the
 * stack pointer sp: an entry or a return, if it is recording. */
static void at_site(const struct site *s, uint64_t sp)
{
    tf_rec_thread *t = tf_self;
    tf_region_thread *r = t ? t->regions : NULL;
    if (!r || !tf_rec_active())
        return;
    if (s->func == RETURN_SITE)
        on_return(t, r, atomic_load_explicit(&s->addr, memory_order_relaxed), sp);
    else
        on_entry(t, r, s->func, sp);
}

/* Called by the trampolines' stub (tf_jump.c) with every register kept:
 * the site's breakpoint, as on_trap does for an int3, in the thread's
 * normal context. */
__attribute__((visibility("hidden"), used))
void tf_region_jumped(struct site *s, uint64_t sp);
void tf_region_jumped(struct site *s, uint64_t sp)
{
    if (atomic_load_explicit(&s->dormant, memory_order_relaxed))
        return;
    int saved = errno;
    at_site(s, sp);
    errno = saved;
}

/* Chains to the handler that was there before, or does what the default
 * would (an int3 that is not ours kills the program). */
static void not_ours(int sig, siginfo_t *si, void *uc)
{
    if (previous.sa_flags & SA_SIGINFO) {
        if (previous.sa_sigaction)
            previous.sa_sigaction(sig, si, uc);
        return;
    }
    if (previous.sa_handler == SIG_IGN)
        return;
    if (previous.sa_handler != SIG_DFL) {
        previous.sa_handler(sig);
        return;
    }
    signal(SIGTRAP, SIG_DFL);
    raise(SIGTRAP);
}

static void on_trap(int sig, siginfo_t *si, void *ucv)
{
    ucontext_t *uc = ucv;
    greg_t *g = uc->uc_mcontext.gregs;
    uint64_t addr = (uint64_t)g[REG_RIP] - 1;   /* int3 leaves rip past itself */
    struct site *s = si->si_code == SI_KERNEL ? site_of(addr, false) : NULL;
    if (!s || atomic_load_explicit(&s->state, memory_order_acquire) != SITE_READY) {
        not_ours(sig, si, ucv);
        return;
    }
    int saved = errno;
    at_site(s, (uint64_t)g[REG_RSP]);
    switch (s->how.how) {
    case TF_DISPLACE_CALL:
        g[REG_RSP] -= 8;
        *(uint64_t *)(uintptr_t)g[REG_RSP] = s->how.next;
        g[REG_RIP] = (greg_t)s->how.target;
        break;
    default:   /* the copy, or the jump's target */
        g[REG_RIP] = (greg_t)s->how.target;
        break;
    }
    errno = saved;
}

/* Splits the option's list at commas outside parentheses and angle
 * brackets (a C++ signature has commas of its own). */
static int split_names(const char *list, tf_error *err)
{
    nfuncs = 0;
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0;; i++) {
        char c = list[i];
        if (c == '(' || c == '<')
            depth++;
        else if ((c == ')' || c == '>') && depth > 0)
            depth--;
        if (c && (c != ',' || depth))
            continue;
        size_t b = start, e = i;
        while (b < e && (list[b] == ' ' || list[b] == '\t'))
            b++;
        while (e > b && (list[e - 1] == ' ' || list[e - 1] == '\t'))
            e--;
        if (e > b) {
            if (nfuncs == TF_REGION_MAX_NAMES)
                return tf_fail(err, TF_ERR_USAGE, "--region: at most %d functions",
                               TF_REGION_MAX_NAMES);
            if (e - b >= sizeof funcs[0].name)
                return tf_fail(err, TF_ERR_USAGE, "--region: name longer than %zu "
                               "characters: %.40s...", sizeof funcs[0].name - 1, list + b);
            memcpy(funcs[nfuncs].name, list + b, e - b);
            funcs[nfuncs].name[e - b] = '\0';
            nfuncs++;
        }
        if (!c)
            return 0;
        start = i + 1;
    }
}

/* The code writer, the copy areas and the SIGTRAP handler. */
static int start_traps(tf_error *err)
{
    mem_fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
    if (mem_fd < 0)
        return tf_fail(err, TF_ERR_UNSUPPORTED, "--region: /proc/self/mem cannot be written "
                       "(%s): the breakpoints cannot be set", strerror(errno));
    if (tf_displace_setup(err))
        return -1;
    (void)tf_jump_setup();   /* else every site is an int3 */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_trap;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTRAP, &sa, &previous))
        return tf_fail(err, TF_ERR_UNSUPPORTED, "--region: cannot handle SIGTRAP: %s",
                       strerror(errno));
    trap_handled = true;
    return 0;
}

/* The breakpoints of addrs[0..n) (owner: their functions), with the
 * hooks' table.  0, or -1 with err naming the function. */
static int arm(const uint64_t *addrs, const uint64_t *sizes, const uint16_t *owner, unsigned n,
               tf_error *err)
{
    struct tf_decoder *d = tf_decoder_new();
    if (!d)
        return tf_fail(err, TF_ERR_NOMEM, "--region: cannot start the instruction decoder "
                       "(capstone not loadable, or out of memory)");
    for (unsigned i = 0; i < n; i++)
        hook_add(addrs[i], owner[i]);
    int rc = 0;
    for (unsigned i = 0; i < n && !rc; i++) {
        if (!set_site(d, addrs[i], owner[i], owner[i], sizes[i]))
            continue;
        rc = tf_fail(err, TF_ERR_UNSUPPORTED, "--region %s: no breakpoint can be set at its "
                     "entry %#llx (its first instruction cannot be run out of line, or the "
                     "code cannot be written)", funcs[owner[i]].name,
                     (unsigned long long)addrs[i]);
    }
    tf_decoder_free(d);
    return rc;
}

int tf_regions_setup(const char *list, tf_error *err)
{
    if (!list[0] || !strcmp(list, "none"))
        return 0;
    if (split_names(list, err))
        return -1;
    uint64_t addrs[TF_REGION_MAX_ADDRS], sizes[TF_REGION_MAX_ADDRS];
    uint16_t owner[TF_REGION_MAX_ADDRS];
    unsigned n = 0;
    int loads = -1;   /* the program calls dlopen: unknown yet */
    for (unsigned f = 0; f < nfuncs; f++) {
        unsigned before = n;
        if (tf_symbols_find(funcs[f].name, addrs, sizes, TF_REGION_MAX_ADDRS, &n, err)) {
            if (loads < 0)
                loads = tf_symbols_program_imports("dlopen");
            if (err->code != TF_ERR_NOTFOUND || !loads)
                return -1;
            /* It may be in a library the program loads later. */
            atomic_store(&funcs[f].pending, true);
            tf_error_clear(err);
            tf_rec_say(false, "--region %s: not in the program or the libraries loaded with it; "
                       "looked for in each library it loads with dlopen", funcs[f].name);
            continue;
        }
        for (unsigned i = before; i < n; i++)
            owner[i] = (uint16_t)f;
    }
    /* Once per process: a second tracefold_init keeps them (the handler,
     * set twice, would find itself as the program's). */
    if (!trap_handled && start_traps(err))
        return -1;
    /* Recording started again after tracefold_fini: the breakpoints it
     * took away go back (set_site leaves existing sites as they are). */
    for (uint32_t i = 0; i < SITES; i++)
        if (atomic_load(&sites[i].state) == SITE_READY && !atomic_load(&sites[i].dormant) &&
            !sites[i].jumped)
            (void)poke(atomic_load(&sites[i].addr), INT3);
    int rc = arm(addrs, sizes, owner, n, err);
    atomic_store(&hooks_armed, rc == 0);
    return rc;
}

void tf_regions_loaded(void)
{
    static atomic_flag load_lock = ATOMIC_FLAG_INIT;
    /* the search's own loads (the decoder's capstone) are not searched */
    static __thread bool searching __attribute__((tls_model("initial-exec")));
    bool any = false;
    for (unsigned f = 0; f < nfuncs; f++)
        any |= atomic_load_explicit(&funcs[f].pending, memory_order_relaxed);
    if (!any || searching || !atomic_load(&hooks_armed))
        return;
    searching = true;
    /* Two threads loading at once: the second waits for the first's search
     * (not in a signal handler: dlopen is not async-signal-safe either). */
    struct timespec nap = {0, 100000};
    while (atomic_flag_test_and_set_explicit(&load_lock, memory_order_acquire))
        nanosleep(&nap, NULL);
    for (unsigned f = 0; f < nfuncs; f++) {
        if (!atomic_load(&funcs[f].pending))
            continue;
        uint64_t addrs[TF_REGION_MAX_ADDRS], sizes[TF_REGION_MAX_ADDRS];
        uint16_t owner[TF_REGION_MAX_ADDRS];
        unsigned n = 0;
        tf_error err;
        tf_error_clear(&err);
        if (tf_symbols_find(funcs[f].name, addrs, sizes, TF_REGION_MAX_ADDRS, &n, &err))
            continue;
        for (unsigned i = 0; i < n; i++)
            owner[i] = (uint16_t)f;
        atomic_store(&funcs[f].pending, false);
        if (arm(addrs, sizes, owner, n, &err))
            tf_rec_say(true, "%s", err.msg);
    }
    atomic_flag_clear_explicit(&load_lock, memory_order_release);
    searching = false;
}

void tf_regions_intern(void)
{
    for (unsigned f = 0; f < nfuncs; f++)
        funcs[f].name_id = tf_intern(funcs[f].name);
}

void tf_regions_thread_start(tf_rec_thread *t)
{
    if (!nfuncs)
        return;
    tf_region_thread *r = calloc(1, sizeof *r);
    if (r && !(r->decoder = tf_decoder_new())) {
        free(r);
        r = NULL;
    }
    t->regions = r;
}

void tf_regions_thread_stop(tf_rec_thread *t)
{
    tf_region_thread *r = t->regions;
    t->regions = NULL;
    if (!r)
        return;
    tf_decoder_free(r->decoder);
    free(r);
}

void tf_regions_stop(void)
{
    if (!nfuncs)
        return;
    atomic_store(&hooks_armed, false);
    /* The first bytes of the int3s go back; the handler stays, for threads
     * already on their way to a breakpoint.  Jumps stay: their trampolines
     * do nothing while recording is off. */
    for (uint32_t i = 0; i < SITES; i++)
        if (atomic_load(&sites[i].state) == SITE_READY && !atomic_load(&sites[i].dormant) &&
            !sites[i].jumped)
            (void)poke(atomic_load(&sites[i].addr), sites[i].how.first);
    for (unsigned f = 0; f < nfuncs; f++) {
        if (!atomic_load(&funcs[f].pending))
            continue;
        /* searched again now, for the close names of every library loaded */
        uint64_t addrs[TF_REGION_MAX_ADDRS];
        unsigned n = 0;
        tf_error err;
        tf_error_clear(&err);
        if (tf_symbols_find(funcs[f].name, addrs, NULL, TF_REGION_MAX_ADDRS, &n, &err))
            tf_rec_say(true, "%s: no instance recorded", err.msg);
    }
    uint64_t deep = atomic_load(&too_deep), lost = atomic_load(&no_return_site);
    if (deep)
        tf_rec_say(true, "--region: %llu calls nested more than %d regions deep were not "
                   "recorded", (unsigned long long)deep, DEPTH_MAX);
    if (lost)
        tf_rec_say(true, "--region: %llu calls were not recorded: the instruction at their "
                   "return address cannot be run out of line", (unsigned long long)lost);
}

bool tf_regions_keep_handler(int sig, const struct sigaction *act, struct sigaction *old)
{
    if (sig != SIGTRAP || !trap_handled)
        return false;
    if (old)
        *old = previous;
    if (act)
        previous = *act;
    return true;
}

void tf_regions_forked(void)
{
    /* The inherited descriptor writes the parent's memory. */
    if (mem_fd < 0)
        return;
    close(mem_fd);
    mem_fd = open("/proc/self/mem", O_RDWR | O_CLOEXEC);
}
