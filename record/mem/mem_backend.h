/* SPDX-License-Identifier: BSD-3-Clause */
/* Choosing and setting up the memory-sampling back end:
 *   PEBS (Intel): load sampling with the load-latency facility (mem-loads
 *     with an ldlat threshold, default 3 cycles) and store sampling
 *     (mem-stores), precise_ip, sample address, weight, data source, time
 *     on CLOCK_MONOTONIC;
 *   IBS (AMD): op sampling through the ibs_op PMU, whose perf type is read
 *     from sysfs; loads and stores come from the same event;
 *   software: the effective-address decoder (ea_decode.h) at timer samples.
 * Selection: PEBS > IBS > software, each hardware back end proven by
 * opening its events once; the probe says which was chosen and why the
 * others were not.
 *
 * Event encodings come from libpfm4 where it knows the processor, else from
 * the kernel's own definitions in sysfs (<pmu>/events/mem-loads, format/
 * terms), which is what `perf mem` uses.  None of this runs in signal
 * context. */
#ifndef TF_MEM_BACKEND_H
#define TF_MEM_BACKEND_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/tf_error.h"

enum tf_mem_backend {
    TF_MEM_AUTO = -1,
    TF_MEM_SOFTWARE = 0,
    TF_MEM_IBS = 1,
    TF_MEM_PEBS = 2,
};

const char *tf_mem_backend_name(int backend);   /* "software", "ibs", "pebs", "auto" */

typedef struct tf_mem_config {
    const char *sysfs;        /* PMU directory; NULL: /sys/bus/event_source/devices */
    uint32_t ldlat;           /* load-latency threshold in cycles */
    uint64_t load_period;     /* qualifying loads per sample */
    uint64_t store_period;    /* stores per sample */
    uint64_t ibs_period;      /* ops (or cycles) per IBS sample; multiple of 16 */
    bool     callchain;       /* PERF_SAMPLE_CALLCHAIN too */
    int      clockid;         /* perf time clock: that of the instrumentation points */
} tf_mem_config;

/* ldlat 3, periods 4000 loads / 4000 stores / 65536 ops, no call chain,
 * CLOCK_MONOTONIC, the real sysfs. */
void tf_mem_config_default(tf_mem_config *c);

#define TF_MEM_MAX_EVENTS 3

/* The events to open, per thread (pid 0, cpu -1), in order; an event with
 * a leader >= 0 is opened in that event's group.  Non-sampling events (the
 * mem-loads-aux leader some Intel processors require) get no ring buffer. */
typedef struct tf_mem_events {
    int      backend;
    int      nevents;
    struct perf_event_attr attr[TF_MEM_MAX_EVENTS];
    uint8_t  kind[TF_MEM_MAX_EVENTS];      /* enum tf_sample_kind of the samples */
    int8_t   leader[TF_MEM_MAX_EVENTS];    /* index of the group leader, or -1 */
    bool     sampling[TF_MEM_MAX_EVENTS];
    char     origin[TF_MEM_MAX_EVENTS][160];  /* where the encoding came from */
} tf_mem_events;

int tf_mem_pebs_events(const tf_mem_config *c, tf_mem_events *ev, tf_error *err)
    __attribute__((warn_unused_result));
int tf_mem_ibs_events(const tf_mem_config *c, tf_mem_events *ev, tf_error *err)
    __attribute__((warn_unused_result));

typedef struct tf_mem_probe {
    int  backend;            /* enum tf_mem_backend chosen */
    char reason[768];        /* why: one clause per back end tried */
} tf_mem_probe;

/* Chooses the back end: requested = TF_MEM_AUTO tries PEBS, then IBS, and
 * falls back to software; a specific hardware back end that cannot be used
 * fails with TF_ERR_UNSUPPORTED and the reason.  ev (may be NULL) receives
 * the events of the chosen hardware back end. */
int tf_mem_probe_backend(const tf_mem_config *c, int requested, tf_mem_probe *out,
                         tf_mem_events *ev, tf_error *err);

/* Opens ev's events for the calling thread: fds[i], -1 for none.  On
 * failure every fd opened is closed. */
int tf_mem_open_events(const tf_mem_events *ev, int *fds, tf_error *err)
    __attribute__((warn_unused_result));

#endif
