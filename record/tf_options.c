/* SPDX-License-Identifier: BSD-3-Clause */
/* The option table and its value parsers (no libxml2 here: this file is
 * linked into the application's process too). */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tf_options.h"

static const char *const sampler_names[] = {"auto", "perf", "posix", "none", NULL};
static const char *const unwind_names[] = {"libunwind", "fp", "none", NULL};
static const char *const fork_names[] = {"trace", "none", NULL};
static const char *const bool_names[] = {"no", "yes", NULL};
static const char *const capture_names[] = {"auto", "kernel", "signal", NULL};
static const char *const mem_names[] = {"auto", "pebs", "ibs", "software", "none", NULL};

#define NS_PER_MS 1000000ull
#define NS_PER_S  1000000000ull

const tf_option_desc tf_option_table[] = {
    {"output", "TRACEFOLD_OUTPUT", TF_OPT_STRING, "tracefold-%e-%p.h5", NULL, 0, 0,
     "trace file name pattern: %p pid, %r MPI rank, %h host, %e program name, %% a percent sign; "
     "its folders are made; one of several ranks gets its rank before the extension when %r is "
     "not used (t.h5: t.0002.h5)",
     offsetof(tf_options, output)},
    {"force", "TRACEFOLD_FORCE", TF_OPT_BOOL, "no", bool_names, 0, 0,
     "replace an existing trace of that name; a file that is not a tracefold trace is never "
     "replaced", offsetof(tf_options, force)},
    {"period", "TRACEFOLD_PERIOD", TF_OPT_DURATION, "5ms", NULL, 10000, 10 * NS_PER_S,
     "mean sampling period per thread, in thread CPU time (e.g. 5ms, 1ms, 100us)",
     offsetof(tf_options, period_ns)},
    {"jitter", "TRACEFOLD_JITTER", TF_OPT_UINT, "10", NULL, 0, 50,
     "random variation of each sampling period, in percent of the period",
     offsetof(tf_options, jitter_pct)},
    {"sampler", "TRACEFOLD_SAMPLER", TF_OPT_ENUM, "auto", sampler_names, 0, 0,
     "sampling mechanism: auto, perf (perf software clock), posix (per-thread CPU-time timer), none",
     offsetof(tf_options, sampler)},
    {"counters", "TRACEFOLD_COUNTERS", TF_OPT_STRING, "instructions,cycles", NULL, 0, 0,
     "comma-separated counters (libpfm4 names); unavailable ones are reported and replaced by "
     "software events", offsetof(tf_options, counters)},
    {"unwind", "TRACEFOLD_UNWIND", TF_OPT_ENUM, "libunwind", unwind_names, 0, 0,
     "call-stack method: libunwind, fp (frame pointers), none",
     offsetof(tf_options, unwind)},
    {"stack-depth", "TRACEFOLD_STACK_DEPTH", TF_OPT_UINT, "32", NULL, 0, 128,
     "maximum number of call-stack frames per sample", offsetof(tf_options, stack_depth)},
    {"buffer-size", "TRACEFOLD_BUFFER_SIZE", TF_OPT_SIZE, "4M", NULL, 64 * 1024, 1ull << 30,
     "shared-memory buffer per thread (K, M, G suffixes); records are dropped and counted when full",
     offsetof(tf_options, buffer_size)},
    {"flush-interval", "TRACEFOLD_FLUSH_INTERVAL", TF_OPT_DURATION, "1s", NULL, 10 * NS_PER_MS,
     3600 * NS_PER_S, "how often the writer makes the trace durable",
     offsetof(tf_options, flush_ns)},
    {"signal", "TRACEFOLD_SIGNAL", TF_OPT_UINT, "0", NULL, 0, 64,
     "sampling signal number; 0 picks a free real-time signal", offsetof(tf_options, signal)},
    {"fork", "TRACEFOLD_FORK", TF_OPT_ENUM, "trace", fork_names, 0, 0,
     "forked children: trace (own trace file) or none", offsetof(tf_options, fork)},
    {"autostart", "TRACEFOLD_AUTOSTART", TF_OPT_BOOL, "yes", bool_names, 0, 0,
     "start recording when the library is loaded (no: at the program's tracefold_init, "
     "for instrumented programs)",
     offsetof(tf_options, autostart)},
    {"capture", "TRACEFOLD_CAPTURE", TF_OPT_ENUM, "auto", capture_names, 0, 0,
     "where timer samples are taken: kernel (the perf event writes registers, counters and a "
     "stack copy to a ring the writer unwinds; no signal), signal (the handler), auto (kernel "
     "where it works and nothing needs the handler)", offsetof(tf_options, capture)},
    {"kernel-stack", "TRACEFOLD_KERNEL_STACK", TF_OPT_SIZE, "4K", NULL, 512, 32768,
     "capture kernel: bytes of user stack copied with each sample (512 to 32K; rounded "
     "down to a multiple of 8)",
     offsetof(tf_options, kernel_stack)},
    {"kernel-ring", "TRACEFOLD_KERNEL_RING", TF_OPT_SIZE, "512K", NULL, 16 * 1024, 64ull << 20,
     "capture kernel: each thread's perf ring (rounded up to a power of two); samples that do "
     "not fit between two drains are lost and counted", offsetof(tf_options, kernel_ring)},
    {"stats", "TRACEFOLD_STATS", TF_OPT_BOOL, "no", bool_names, 0, 0,
     "at the end, print the number of samples and the sampling handler's cost on stderr",
     offsetof(tf_options, stats)},
    {"mpi-calls", "TRACEFOLD_MPI_CALLS", TF_OPT_BOOL, "yes", bool_names, 0, 0,
     "MPI programs (under an MPI launcher, or linked with -ltracefold-mpi): record "
     "point-to-point and collective calls as events with partner, bytes and tag; no: only the "
     "rank and node layout",
     offsetof(tf_options, mpi_calls)},
    {"overflow", "TRACEFOLD_OVERFLOW", TF_OPT_STRING, "none", NULL, 0, 0,
     "sample on the overflow of this counter (libpfm4 name, e.g. cycles) every overflow-period "
     "events instead of every period of CPU time; none: time-based sampling",
     offsetof(tf_options, overflow)},
    {"overflow-period", "TRACEFOLD_OVERFLOW_PERIOD", TF_OPT_UINT, "10000000", NULL, 1000,
     4000000000u, "events between two samples with --overflow",
     offsetof(tf_options, overflow_period)},
    {"mem-sampler", "TRACEFOLD_MEM_SAMPLER", TF_OPT_ENUM, "auto", mem_names, 0, 0,
     "memory-reference sampling: auto (pebs, else ibs, else software), pebs, ibs, software "
     "(instruction decoded at each timer sample), none", offsetof(tf_options, mem_sampler)},
    {"ldlat", "TRACEFOLD_LDLAT", TF_OPT_UINT, "3", NULL, 1, 65535,
     "PEBS load-latency threshold in cycles: slower loads are sampled",
     offsetof(tf_options, ldlat)},
    {"mem-period", "TRACEFOLD_MEM_PERIOD", TF_OPT_UINT, "4000", NULL, 16, 1000000000,
     "PEBS: qualifying loads, and stores, between two memory samples",
     offsetof(tf_options, mem_period)},
    {"pmu-sysfs", "TRACEFOLD_PMU_SYSFS", TF_OPT_STRING, "/sys/bus/event_source/devices", NULL,
     0, 0, "where the kernel's PMU descriptions are read (type, events/, format/)",
     offsetof(tf_options, pmu_sysfs)},
    {"heap-threshold", "TRACEFOLD_HEAP_THRESHOLD", TF_OPT_SIZE, "32K", NULL, 0, 1ull << 40,
     "heap allocations and anonymous mmaps of at least this size are recorded as data objects; "
     "0: none", offsetof(tf_options, heap_threshold)},
    {"region", "TRACEFOLD_REGIONS", TF_OPT_STRING, "none", NULL, 0, 0,
     "a function whose every call is a region instance of that name, on every thread, "
     "without recompiling: a C name, a C++ name (ns::Class::method: every overload; with "
     "its signature: one), a Fortran name (solve, mod::solve); repeat the option or separate "
     "names with commas", offsetof(tf_options, region)},
    {"heap-stack-depth", "TRACEFOLD_HEAP_STACK_DEPTH", TF_OPT_UINT, "8", NULL, 0, 16,
     "frames of each recorded allocation's call stack", offsetof(tf_options, heap_stack_depth)},
    {"small-blocks", "TRACEFOLD_SMALL_BLOCKS", TF_OPT_UINT, "1048576", NULL, 0, 1u << 28,
     "heap blocks below heap-threshold kept (address, size, call site) so that they are "
     "attributed to their call site; blocks past it are counted and said at the end; 0: none",
     offsetof(tf_options, small_blocks)},
    {"alloc-wrapper", "TRACEFOLD_ALLOC_WRAPPER", TF_OPT_STRING, "none", NULL, 0, 0,
     "a routine of the program that allocates for its callers (xmalloc, a pool's get): kept "
     "in the trace, so that fold, info and paraver name the objects it allocates by its "
     "caller; its source name or linkage name; repeat the option or separate names with "
     "commas", offsetof(tf_options, alloc_wrapper)},
};
const unsigned tf_option_count = sizeof tf_option_table / sizeof tf_option_table[0];

const tf_option_desc *tf_option_find(const char *name)
{
    for (unsigned i = 0; i < tf_option_count; i++)
        if (!strcmp(tf_option_table[i].name, name))
            return &tf_option_table[i];
    return NULL;
}

void tf_options_defaults(tf_options *o)
{
    memset(o, 0, sizeof *o);
    for (unsigned i = 0; i < tf_option_count; i++) {
        int rc = tf_option_set(o, &tf_option_table[i], tf_option_table[i].deflt, NULL);
        (void)rc;   /* the defaults are valid by construction (tests/record/options.c) */
    }
}

int tf_parse_bool(const char *text, bool *value)
{
    /* The spellings people write in environment variables and XML; case
     * does not matter (YES, On).  Index parity is the value. */
    static const char *const spellings[] = {"no", "yes", "off", "on", "false", "true", "0", "1"};
    for (unsigned i = 0; i < sizeof spellings / sizeof spellings[0]; i++) {
        if (strcasecmp(text, spellings[i]))
            continue;
        *value = i % 2;
        return 0;
    }
    return -1;
}

/* A number with a unit suffix from units (name, multiplier), no suffix
 * meaning plain_mult. */
struct unit { const char *suffix; uint64_t mult; };

static int parse_scaled(const char *text, const struct unit *units, uint64_t plain_mult,
                        uint64_t *value)
{
    errno = 0;
    char *end;
    double v = strtod(text, &end);
    if (end == text || errno || !(v >= 0))
        return -1;
    uint64_t mult = 0;
    if (!*end) {
        mult = plain_mult;
    } else {
        for (const struct unit *u = units; u->suffix; u++)
            if (!strcmp(end, u->suffix))
                mult = u->mult;
    }
    if (!mult || v * (double)mult > 1.8e19)
        return -1;
    *value = (uint64_t)(v * (double)mult + 0.5);
    return 0;
}

static const struct unit time_units[] = {
    {"ns", 1}, {"us", 1000}, {"ms", NS_PER_MS}, {"s", NS_PER_S}, {NULL, 0}};
static const struct unit size_units[] = {
    {"K", 1024}, {"k", 1024}, {"M", 1ull << 20}, {"G", 1ull << 30}, {"B", 1},
    {"KiB", 1024}, {"MiB", 1ull << 20}, {"GiB", 1ull << 30}, {NULL, 0}};

int tf_option_set(tf_options *o, const tf_option_desc *d, const char *text, tf_error *err)
{
    char *field = (char *)o + d->offset;
    uint64_t v = 0;
    switch (d->type) {
    case TF_OPT_STRING:
        if (strlen(text) >= sizeof o->output)
            return tf_fail(err, TF_ERR_USAGE, "%s: value longer than %zu characters", d->name,
                           sizeof o->output - 1);
        if (!*text)
            return tf_fail(err, TF_ERR_USAGE, "%s: empty value", d->name);
        memcpy(field, text, strlen(text) + 1);
        return 0;
    case TF_OPT_DURATION:
        if (parse_scaled(text, time_units, 0, &v))
            return tf_fail(err, TF_ERR_USAGE,
                           "%s: '%s' is not a duration (a number with ns, us, ms or s)",
                           d->name, text);
        break;
    case TF_OPT_SIZE:
        if (parse_scaled(text, size_units, 1, &v))
            return tf_fail(err, TF_ERR_USAGE,
                           "%s: '%s' is not a size (bytes, or a number with K, M or G)",
                           d->name, text);
        break;
    case TF_OPT_UINT: {
        char *end;
        errno = 0;
        unsigned long long u = strtoull(text, &end, 10);
        if (end == text || *end || errno || text[0] == '-')
            return tf_fail(err, TF_ERR_USAGE, "%s: '%s' is not a non-negative integer",
                           d->name, text);
        v = u;
        break;
    }
    case TF_OPT_BOOL:
        if (tf_parse_bool(text, (bool *)field))
            return tf_fail(err, TF_ERR_USAGE,
                           "%s: '%s' is not a yes/no value (yes, no, on, off, true, false, 1, 0)",
                           d->name, text);
        return 0;
    case TF_OPT_ENUM:
        for (int i = 0; d->choices[i]; i++) {
            if (strcmp(text, d->choices[i]))
                continue;
            *(int *)field = i;
            return 0;
        }
        {
            char list[256] = "";
            for (int i = 0; d->choices[i]; i++) {
                size_t len = strlen(list);
                snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", d->choices[i]);
            }
            return tf_fail(err, TF_ERR_USAGE, "%s: '%s' is not one of %s", d->name, text, list);
        }
    }
    if (v < d->min || v > d->max)
        return tf_fail(err, TF_ERR_USAGE, "%s: '%s' is out of range [%" PRIu64 ", %" PRIu64 "]%s",
                       d->name, text, d->min, d->max,
                       d->type == TF_OPT_DURATION ? " ns" : d->type == TF_OPT_SIZE ? " bytes" : "");
    if (d->type == TF_OPT_UINT)
        *(uint32_t *)field = (uint32_t)v;
    else
        *(uint64_t *)field = v;
    return 0;
}

/* The options that are lists of names. */
static bool repeatable(const tf_option_desc *d)
{
    return d->offset == offsetof(tf_options, region) ||
           d->offset == offsetof(tf_options, alloc_wrapper);
}

int tf_option_add(tf_options *o, const tf_option_desc *d, const char *text, bool again,
                  tf_error *err)
{
    if (!again || !repeatable(d))
        return tf_option_set(o, d, text, err);
    char joined[sizeof o->output];
    if ((size_t)snprintf(joined, sizeof joined, "%s,%s", (const char *)o + d->offset, text) >=
        sizeof joined)
        return tf_fail(err, TF_ERR_USAGE, "%s: the names take more than %zu characters",
                       d->name, sizeof joined - 1);
    return tf_option_set(o, d, joined, err);
}

int tf_options_from_env(tf_options *o, tf_error *err)
{
    for (unsigned i = 0; i < tf_option_count; i++) {
        const char *v = getenv(tf_option_table[i].env);
        if (!v)
            continue;
        int rc = tf_option_set(o, &tf_option_table[i], v, err);
        if (rc) {
            tf_error_prefix(err, "environment variable %s: ", tf_option_table[i].env);
            return rc;
        }
    }
    return 0;
}

void tf_option_format(const tf_options *o, const tf_option_desc *d, char *buf, size_t size)
{
    const char *field = (const char *)o + d->offset;
    switch (d->type) {
    case TF_OPT_STRING:
        snprintf(buf, size, "%s", field);
        break;
    case TF_OPT_DURATION:
        snprintf(buf, size, "%" PRIu64 "ns", *(const uint64_t *)field);
        break;
    case TF_OPT_SIZE:
        snprintf(buf, size, "%" PRIu64, *(const uint64_t *)field);
        break;
    case TF_OPT_UINT:
        snprintf(buf, size, "%" PRIu32, *(const uint32_t *)field);
        break;
    case TF_OPT_ENUM:
        snprintf(buf, size, "%s", d->choices[*(const int *)field]);
        break;
    case TF_OPT_BOOL:
        snprintf(buf, size, "%s", d->choices[*(const bool *)field]);
        break;
    }
}
