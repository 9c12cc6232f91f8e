/* SPDX-License-Identifier: BSD-3-Clause */
#include "mem_backend.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "pfm_load.h"
#include "sysfs_pmu.h"
#include "formats/trace.h"

const char *tf_mem_backend_name(int backend)
{
    switch (backend) {
    case TF_MEM_SOFTWARE: return "software";
    case TF_MEM_IBS:      return "ibs";
    case TF_MEM_PEBS:     return "pebs";
    case TF_MEM_AUTO:     return "auto";
    default:              return "unknown";
    }
}

void tf_mem_config_default(tf_mem_config *c)
{
    *c = (tf_mem_config){
        .sysfs = NULL, .ldlat = 3, .load_period = 4000, .store_period = 4000,
        .ibs_period = 65536, .callchain = false, .clockid = CLOCK_MONOTONIC,
    };
}

static const char *sysfs_root(const tf_mem_config *c)
{
    return c->sysfs ? c->sysfs : TF_SYSFS_PMU_ROOT;
}

/* What every memory-sampling event records. */
static void common_sampling(const tf_mem_config *c, uint64_t period,
                            struct perf_event_attr *a)
{
    a->size = sizeof *a;
    a->sample_period = period;
    a->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR |
                     PERF_SAMPLE_WEIGHT | PERF_SAMPLE_DATA_SRC |
                     (c->callchain ? PERF_SAMPLE_CALLCHAIN : 0);
    a->disabled = 1;
    a->exclude_kernel = 1;
    a->exclude_hv = 1;
    a->use_clockid = 1;
    a->clockid = c->clockid;
    a->wakeup_events = 1;
}

/* ---- PEBS ----------------------------------------------------------------- */

/* libpfm4 names, newest processors first (Intel SDM vol. 3B, chapter 20,
 * and libpfm4's event tables); each store name exists on some families. */
static const char *const pfm_load_events[] = { "MEM_TRANS_RETIRED:LOAD_LATENCY" };
static const char *const pfm_store_events[] = {
    "MEM_INST_RETIRED:ALL_STORES", "MEM_UOPS_RETIRED:ALL_STORES",
    "MEM_TRANS_RETIRED:PRECISE_STORE",
};

/* Encodes the first name libpfm4 knows; false when none. */
static bool pfm_encode(const char *const *names, size_t n, const char *modifier,
                       struct perf_event_attr *a, char *origin, size_t origin_size)
{
    for (size_t i = 0; i < n; i++) {
        char spec[128];
        snprintf(spec, sizeof spec, "%s%s", names[i], modifier);
        struct perf_event_attr tmp = { .size = sizeof tmp };
        pfm_perf_encode_arg_t arg = { .attr = &tmp, .size = sizeof arg };
        if (tf_pfm_encode(spec, PFM_PLM3, PFM_OS_PERF_EVENT_EXT, &arg) == PFM_SUCCESS) {
            a->type = tmp.type;
            a->config = tmp.config;
            a->config1 = tmp.config1;
            snprintf(origin, origin_size, "libpfm4 %s", spec);
            return true;
        }
    }
    return false;
}

static int sysfs_encode(const tf_mem_config *c, const char *event, const char *term,
                        uint64_t value, struct perf_event_attr *a, char *origin,
                        size_t origin_size, tf_error *err)
{
    int rc = tf_sysfs_pmu_encode(sysfs_root(c), "cpu", event, term, value, a, err);
    if (rc == 0)
        snprintf(origin, origin_size, "sysfs cpu/events/%s", event);
    return rc;
}

int tf_mem_pebs_events(const tf_mem_config *c, tf_mem_events *ev, tf_error *err)
{
    memset(ev, 0, sizeof *ev);
    ev->backend = TF_MEM_PEBS;
    const char *root = sysfs_root(c);
    char path[512];
    snprintf(path, sizeof path, "%s/cpu/type", root);
    if (access(path, R_OK) != 0)
        return tf_fail(err, TF_ERR_UNSUPPORTED,
                       "no core PMU (%s missing: no hardware PMU exposed, e.g. a virtual "
                       "machine)", path);
    int n = 0;
    /* Sapphire Rapids and later take load-latency events only in a group
     * led by mem-loads-aux (the kernel says so by exporting that event). */
    if (tf_sysfs_pmu_has_event(root, "cpu", "mem-loads-aux")) {
        struct perf_event_attr *a = &ev->attr[n];
        int rc = sysfs_encode(c, "mem-loads-aux", NULL, 0, a, ev->origin[n],
                              sizeof ev->origin[n], err);
        if (rc)
            return rc;
        a->size = sizeof *a;
        a->disabled = 1;
        a->exclude_kernel = 1;
        a->exclude_hv = 1;
        ev->leader[n] = -1;
        ev->kind[n] = TF_SAMPLE_TIMER;
        n++;
    }
    int load = n;
    struct perf_event_attr *a = &ev->attr[n];
    char modifier[32];
    snprintf(modifier, sizeof modifier, ":ldlat=%u", c->ldlat);
    /* The kernel's own encoding first (the PMU it drives, whatever this
     * library knows of the processor), libpfm4's tables when it has none. */
    if (tf_sysfs_pmu_has_event(root, "cpu", "mem-loads") ||
        !pfm_encode(pfm_load_events, sizeof pfm_load_events / sizeof *pfm_load_events,
                    modifier, a, ev->origin[n], sizeof ev->origin[n])) {
        int rc = sysfs_encode(c, "mem-loads", "ldlat", c->ldlat, a, ev->origin[n],
                              sizeof ev->origin[n], err);
        if (rc)
            return rc;
    }
    common_sampling(c, c->load_period, a);
    a->precise_ip = 2;   /* PEBS: the sampled instruction itself */
    ev->kind[n] = TF_SAMPLE_LOAD;
    ev->sampling[n] = true;
    ev->leader[n] = load > 0 ? 0 : -1;
    if (load > 0)
        a->disabled = 0;   /* enabled with its leader */
    n++;
    a = &ev->attr[n];
    if (tf_sysfs_pmu_has_event(root, "cpu", "mem-stores") ||
        !pfm_encode(pfm_store_events, sizeof pfm_store_events / sizeof *pfm_store_events, "",
                    a, ev->origin[n], sizeof ev->origin[n])) {
        int rc = sysfs_encode(c, "mem-stores", NULL, 0, a, ev->origin[n], sizeof ev->origin[n],
                              err);
        if (rc)
            return rc;
    }
    common_sampling(c, c->store_period, a);
    a->precise_ip = 2;
    ev->kind[n] = TF_SAMPLE_STORE;
    ev->sampling[n] = true;
    ev->leader[n] = -1;
    n++;
    ev->nevents = n;
    return 0;
}

/* ---- IBS ------------------------------------------------------------------ */

int tf_mem_ibs_events(const tf_mem_config *c, tf_mem_events *ev, tf_error *err)
{
    memset(ev, 0, sizeof *ev);
    ev->backend = TF_MEM_IBS;
    uint32_t type;
    int rc = tf_sysfs_pmu_type(sysfs_root(c), "ibs_op", &type, err);
    if (rc)
        return rc;
    if (c->ibs_period < 0x90 || c->ibs_period % 16)
        return tf_fail(err, TF_ERR_USAGE,
                       "IBS period %llu: must be a multiple of 16 and at least 144",
                       (unsigned long long)c->ibs_period);
    struct perf_event_attr *a = &ev->attr[0];
    a->type = type;
    a->config = 0;   /* count cycles between tagged ops (cnt_ctl = 0) */
    common_sampling(c, c->ibs_period, a);
    ev->kind[0] = TF_SAMPLE_LOAD;   /* each sample's data source says load or store */
    ev->sampling[0] = true;
    ev->leader[0] = -1;
    snprintf(ev->origin[0], sizeof ev->origin[0], "sysfs ibs_op/type %u", type);
    ev->nevents = 1;
    return 0;
}

/* ---- opening and probing -------------------------------------------------- */

int tf_mem_open_events(const tf_mem_events *ev, int *fds, tf_error *err)
{
    for (int i = 0; i < ev->nevents; i++)
        fds[i] = -1;
    for (int i = 0; i < ev->nevents; i++) {
        int group = ev->leader[i] >= 0 ? fds[ev->leader[i]] : -1;
        struct perf_event_attr a = ev->attr[i];
        fds[i] = (int)syscall(SYS_perf_event_open, &a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
        if (fds[i] < 0) {
            int e = errno;
            for (int j = 0; j < i; j++)
                close(fds[j]);
            return tf_fail(err, e == EACCES || e == EPERM ? TF_ERR_UNSUPPORTED : TF_ERR_IO,
                           "perf_event_open(%s, type %u config %#llx): %s%s", ev->origin[i],
                           a.type, (unsigned long long)a.config, strerror(e),
                           e == EACCES || e == EPERM
                               ? " (see /proc/sys/kernel/perf_event_paranoid)" : "");
        }
    }
    return 0;
}

/* Builds and test-opens one hardware back end. */
static int try_backend(const tf_mem_config *c, int backend, tf_mem_events *ev, tf_error *err)
{
    int rc = backend == TF_MEM_PEBS ? tf_mem_pebs_events(c, ev, err)
                                    : tf_mem_ibs_events(c, ev, err);
    if (rc)
        return rc;
    int fds[TF_MEM_MAX_EVENTS];
    rc = tf_mem_open_events(ev, fds, err);
    if (rc)
        return rc;
    for (int i = 0; i < ev->nevents; i++)
        close(fds[i]);
    return 0;
}

/* Appends "name verb detail" to the probe's reason, clauses separated by
 * "; ". */
static void add_reason(tf_mem_probe *out, const char *name, const char *verb,
                       const char *detail)
{
    size_t len = strlen(out->reason);
    snprintf(out->reason + len, sizeof out->reason - len, "%s%s %s%s", len ? "; " : "", name,
             verb, detail);
}

int tf_mem_probe_backend(const tf_mem_config *c, int requested, tf_mem_probe *out,
                         tf_mem_events *ev, tf_error *err)
{
    static const int order[] = { TF_MEM_PEBS, TF_MEM_IBS };
    tf_mem_events local;
    if (!ev)
        ev = &local;
    out->reason[0] = '\0';
    out->backend = TF_MEM_SOFTWARE;
    for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
        if (requested != TF_MEM_AUTO && requested != order[i])
            continue;
        tf_error why;
        if (try_backend(c, order[i], ev, &why) == 0) {
            out->backend = order[i];
            add_reason(out, tf_mem_backend_name(order[i]), "chosen: events open with ",
                       ev->origin[ev->nevents - 1]);
            return 0;
        }
        add_reason(out, tf_mem_backend_name(order[i]), "unavailable: ", why.msg);
        if (requested != TF_MEM_AUTO)
            return tf_fail(err, TF_ERR_UNSUPPORTED, "memory sampling back end %s: %s",
                           tf_mem_backend_name(requested), why.msg);
    }
    memset(ev, 0, sizeof *ev);
    ev->backend = TF_MEM_SOFTWARE;
    add_reason(out, "software", requested == TF_MEM_SOFTWARE ? "requested" : "chosen",
               ": instructions decoded at timer samples");
    return 0;
}
