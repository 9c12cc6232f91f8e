/* SPDX-License-Identifier: BSD-3-Clause */
/* Counters of each thread through perf_event_open groups (perf_event_open(2)),
 * event names resolved with libpfm4 (pfm_get_os_event_encoding(3)), loaded
 * when a process first needs it (pfm_load.h), but for the kernel's
 * generic events (generic_events).
 * Hardware events are packed into groups of at most TF_GROUP_HW so that each
 * group fits the PMU; when there are more groups than the PMU holds, the
 * kernel time-multiplexes them and each value is scaled by
 * time_enabled / time_running (tf_counter_values.h).  Software events never multiplex and go into
 * one group of their own.  Values are cumulative since the thread's start. */
#include "config.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "record/mem/pfm_load.h"
#include "record/tf_counter_values.h"
#include "tf_rec.h"

#define TF_GROUP_HW 4

/* Resolved at setup, identical for every thread; the groups' shape, which
 * the handler reads, is tf_rec_g.groups. */
static struct {
    struct perf_event_attr attr[TF_SESSION_MAX_BASE];
    uint32_t group[TF_SESSION_MAX_BASE];     /* group index of counter i */
} layout;

static const char *const software_fallback[] = {"task-clock", "page-faults", "context-switches"};

static int perf_open(struct perf_event_attr *a, int group_fd)
{
    return (int)syscall(SYS_perf_event_open, a, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}

/* Software events that only the kernel raises, with the kernel's registers:
 * restricted to user space they never count (kernel/events/core.c,
 * perf_exclude_event), so they are opened with the kernel's part, which
 * perf_event_paranoid 1 or less (or CAP_PERFMON) allows.  At 2 the open
 * fails: the event is then reported unavailable, or left out of the
 * software fallback, rather than recorded as a column of zeros. */
static bool kernel_only(const struct perf_event_attr *a)
{
    return a->type == PERF_TYPE_SOFTWARE && (a->config == PERF_COUNT_SW_CONTEXT_SWITCHES ||
                                            a->config == PERF_COUNT_SW_CPU_MIGRATIONS);
}

/* The kernel's generic events by the names perf(1) gives them (its
 * "Hardware event" and "Software event" lists; include/uapi/linux/
 * perf_event.h), which libpfm4's perf pseudo-PMU encodes to the same
 * type and config.  Encoded here, the default counters and their software
 * fallback need no libpfm4: its loading and pfm_initialize were the
 * largest part of a recorded process's start (bench/RESULTS.md, "Recorder:
 * start and stop").  Matched without case, as libpfm4 matches; a name with
 * a PMU prefix or a modifier goes to libpfm4. */
static const struct generic_event {
    const char *name;
    uint32_t type;
    uint64_t config;
} generic_events[] = {
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"cpu-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
    {"bus-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES},
    {"stalled-cycles-frontend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND},
    {"stalled-cycles-backend", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND},
    {"ref-cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES},
    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cs", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"alignment-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS},
    {"emulation-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS},
};

/* Encodes name into a, restricted to user space (perf_event_paranoid 2
 * allows nothing else) but for the kernel_only events.  Returns 0 or a
 * libpfm4 error code. */
static int encode(const char *name, struct perf_event_attr *a)
{
    memset(a, 0, sizeof *a);
    const struct generic_event *g = NULL;
    for (size_t i = 0; !g && i < sizeof generic_events / sizeof generic_events[0]; i++)
        if (!strcasecmp(name, generic_events[i].name))
            g = &generic_events[i];
    if (g) {
        a->type = g->type;
        a->config = g->config;
    } else {
        pfm_perf_encode_arg_t arg;
        memset(&arg, 0, sizeof arg);
        arg.attr = a;
        arg.size = sizeof arg;
        int rc = tf_pfm_encode(name, PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
        if (rc != PFM_SUCCESS)
            return rc;
    }
    a->size = sizeof *a;
    a->exclude_kernel = !kernel_only(a);
    a->exclude_hv = 1;
    a->disabled = 0;
    a->read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
                     PERF_FORMAT_TOTAL_TIME_RUNNING;
    /* The kernel-capture sampling event times its samples on
     * CLOCK_MONOTONIC (tf_capture_kernel.c), and every event of a group
     * must use the same clock (perf_event_open(2) fails with EINVAL
     * otherwise: kernel/events/core.c compares the leader's clock). */
    a->use_clockid = 1;
    a->clockid = CLOCK_MONOTONIC;
    return 0;
}

/* The probes' events, held open until the first thread's counters are
 * (tf_counters_release_probes): the kernel switches a software event's
 * hooks in or out (a static key: the kernel's code patched, with an
 * interrupt to every CPU) when the first such event opens and when the
 * last one closes, and the start opened and closed each one three times
 * (here, in the kernel-capture probe, then for good): 3 % of the CPU of
 * a recorded `/bin/true` (bench/RESULTS.md, "Recorder: start and stop"). */
static int probe_fd[TF_SESSION_MAX_BASE + 8];
static unsigned nprobe;

/* Whether this process may count the event (tried on the calling thread). */
static bool usable(struct perf_event_attr *a)
{
    int fd = perf_open(a, -1);
    if (fd < 0)
        return false;
    if (nprobe < sizeof probe_fd / sizeof probe_fd[0])
        probe_fd[nprobe++] = fd;
    else
        close(fd);
    return true;
}

void tf_counters_release_probes(void)
{
    while (nprobe)
        close(probe_fd[--nprobe]);
}

static void add_counter(tf_shm_process *p, uint32_t *n, const char *name,
                        const struct perf_event_attr *a)
{
    layout.attr[*n] = *a;
    snprintf(p->base_name[*n], sizeof p->base_name[*n], "%s", name);
    bool is_time = a->type == PERF_TYPE_SOFTWARE &&
                   (a->config == PERF_COUNT_SW_TASK_CLOCK || a->config == PERF_COUNT_SW_CPU_CLOCK);
    snprintf(p->base_unit[*n], sizeof p->base_unit[*n], "%s", is_time ? "ns" : "events");
    p->base_kind[*n] = a->type == PERF_TYPE_SOFTWARE ? 1 /* TF_COUNTER_SOFTWARE */
                                                     : 0 /* TF_COUNTER_HARDWARE */;
    (*n)++;
}

/* Builds the groups: software events first in one group, then hardware
 * events TF_GROUP_HW at a time. */
static void build_groups(uint32_t n)
{
    tf_counter_groups *gr = &tf_rec_g.groups;
    struct perf_event_attr sorted[TF_SESSION_MAX_BASE];
    uint32_t k = 0;
    gr->ngroups = 0;
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < n; i++) {
            bool sw = layout.attr[i].type == PERF_TYPE_SOFTWARE;
            if (sw != (pass == 0))
                continue;
            uint32_t g = gr->ngroups ? gr->ngroups - 1 : 0;
            bool need_new = gr->ngroups == 0 ||
                            (layout.attr[gr->first[g]].type == PERF_TYPE_SOFTWARE) != sw ||
                            (!sw && gr->count[g] == TF_GROUP_HW);
            if (need_new && gr->ngroups < TF_MAX_GROUPS) {
                g = gr->ngroups++;
                gr->first[g] = k;
                gr->count[g] = 0;
            }
            sorted[k] = layout.attr[i];
            layout.group[k] = g;
            gr->count[g]++;
            k++;
        }
    }
    memcpy(layout.attr, sorted, k * sizeof sorted[0]);
}

void tf_counters_setup(const char *list, tf_shm_process *p, uint32_t *nbase)
{
    uint32_t n = 0, nhw = 0;
    char missing[512] = "";
    char names[sizeof ((tf_options *)0)->counters];
    snprintf(names, sizeof names, "%s", list);
    char *save = NULL;
    for (char *name = strtok_r(names, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
        struct perf_event_attr a;
        bool ok = encode(name, &a) == PFM_SUCCESS && usable(&a);
        if (ok && a.type != PERF_TYPE_SOFTWARE)
            ok = nhw++ < (TF_MAX_GROUPS - 1) * TF_GROUP_HW;
        if (ok && n < TF_SESSION_MAX_BASE) {
            add_counter(p, &n, name, &a);
            continue;
        }
        size_t len = strlen(missing);
        snprintf(missing + len, sizeof missing - len, "%s%s", len ? ", " : "", name);
    }
    if (missing[0]) {
        /* Said once per run by `tracefold record` (tf_writer.c), not by
         * every process of the run. */
        snprintf(p->counters_missing, sizeof p->counters_missing, "%s", missing);
        for (size_t i = 0; i < sizeof software_fallback / sizeof software_fallback[0]; i++) {
            struct perf_event_attr a;
            bool present = false;
            for (uint32_t j = 0; j < n; j++)
                present |= !strcmp(p->base_name[j], software_fallback[i]);
            if (!present && n < TF_SESSION_MAX_BASE &&
                encode(software_fallback[i], &a) == PFM_SUCCESS && usable(&a))
                add_counter(p, &n, software_fallback[i], &a);
        }
    }
    /* build_groups reorders the attributes: reorder the names the same way. */
    char nm[TF_SESSION_MAX_BASE][TF_SESSION_NAME_MAX], un[TF_SESSION_MAX_BASE][TF_SESSION_NAME_MAX];
    uint8_t kd[TF_SESSION_MAX_BASE];
    uint32_t k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < n; i++)
            if ((layout.attr[i].type == PERF_TYPE_SOFTWARE) == (pass == 0)) {
                memcpy(nm[k], p->base_name[i], sizeof nm[k]);
                memcpy(un[k], p->base_unit[i], sizeof un[k]);
                kd[k++] = p->base_kind[i];
            }
    memcpy(p->base_name, nm, sizeof nm[0] * n);
    memcpy(p->base_unit, un, sizeof un[0] * n);
    memcpy(p->base_kind, kd, n);
    build_groups(n);
    p->nbase = n;
    *nbase = n;
}

int tf_counters_open(tf_rec_thread *t)
{
    const tf_counter_groups *gr = &tf_rec_g.groups;
    for (uint32_t i = 0; i < TF_SESSION_MAX_BASE; i++)
        t->ctr_fd[i] = -1;
    for (uint32_t g = 0; g < gr->ngroups; g++) {
        uint32_t leader = gr->first[g];
        for (uint32_t i = leader; i < leader + gr->count[g]; i++) {
            t->ctr_fd[i] = perf_open(&layout.attr[i], i == leader ? -1 : t->ctr_fd[leader]);
            if (t->ctr_fd[i] < 0) {
                tf_counters_close(t);
                return -1;
            }
        }
    }
    return 0;
}

int tf_counters_encode(const char *name, struct perf_event_attr *a)
{
    return encode(name, a) == PFM_SUCCESS ? 0 : -1;
}

int tf_counters_group0_fd(const tf_rec_thread *t)
{
    const tf_counter_groups *gr = &tf_rec_g.groups;
    return gr->ngroups ? t->ctr_fd[gr->first[0]] : -1;
}

TF_HANDLER_CODE static void fill_group(tf_rec_thread *t, uint32_t g, const uint64_t *buf,
                                       size_t words, uint64_t *out)
{
    const tf_counter_groups *gr = &tf_rec_g.groups;
    uint32_t first = gr->first[g];
    tf_counter_group_values(buf, words, gr->count[g], t->ctr_last + first, out + first);
}

/* read(2) of a counter group issued from the recorder's own code: a
 * sample taken while the kernel serves it then has its instruction in
 * libtracefold, which the fold gives to the program's call of the
 * recorder (formats/recorder_code.h); through libc's read it would sit in
 * `__libc_read` and show in the report as a routine the program never
 * called.  It also leaves errno alone, which a signal handler must. */
TF_HANDLER_CODE static ssize_t group_read(int fd, uint64_t *buf, size_t len)
{
#if defined(__x86_64__)
    long ret;
    __asm__ volatile("syscall"
                     : "=a"(ret)
                     : "0"((long)SYS_read), "D"((long)fd), "S"(buf), "d"(len)
                     : "rcx", "r11", "memory");
    return ret;
#else
    return read(fd, buf, len);
#endif
}

TF_HANDLER_FIRST void tf_counters_read(tf_rec_thread *t, uint64_t *out, const uint64_t *group0)
{
    const tf_counter_groups *gr = &tf_rec_g.groups;
    for (uint32_t g = 0; g < gr->ngroups; g++) {
        if (g == 0 && group0) {
            fill_group(t, 0, group0, TF_GROUP_READ_WORDS, out);
            continue;
        }
        uint64_t buf[TF_GROUP_READ_WORDS];
        int fd = t->ctr_fd[gr->first[g]];
        ssize_t got = fd >= 0 ? group_read(fd, buf, sizeof buf) : -1;
        fill_group(t, g, got > 0 ? buf : NULL, got > 0 ? (size_t)got / sizeof buf[0] : 0, out);
    }
}

void tf_counters_close(tf_rec_thread *t)
{
    for (uint32_t i = 0; i < TF_SESSION_MAX_BASE; i++) {
        if (t->ctr_fd[i] >= 0)
            close(t->ctr_fd[i]);
        t->ctr_fd[i] = -1;
    }
}
