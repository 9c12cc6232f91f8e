/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel's description of its PMUs in sysfs
 * (Documentation/ABI/testing/sysfs-bus-event_source-devices-*):
 *   <root>/<pmu>/type            the perf_event_attr.type of the PMU
 *   <root>/<pmu>/events/<name>   "term=value,term=value,..." for a named event
 *   <root>/<pmu>/format/<term>   "config:0-7", "config1:0-15", "config:0-7,32-35"
 * root is normally /sys/bus/event_source/devices; tests point it at a
 * fixture tree.  Not for signal context. */
#ifndef TF_SYSFS_PMU_H
#define TF_SYSFS_PMU_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/tf_error.h"

#define TF_SYSFS_PMU_ROOT "/sys/bus/event_source/devices"

/* Reads <root>/<pmu>/type. */
int  tf_sysfs_pmu_type(const char *root, const char *pmu, uint32_t *type, tf_error *err)
    __attribute__((warn_unused_result));

/* True when <root>/<pmu>/events/<event> exists. */
bool tf_sysfs_pmu_has_event(const char *root, const char *pmu, const char *event);

/* Encodes the named event into attr->type/config/config1/config2, each
 * term placed by its format file.  A term named in override_term (may be
 * NULL) takes override_value instead of the event file's value; it is
 * added when the event does not mention it but the PMU has the format. */
int  tf_sysfs_pmu_encode(const char *root, const char *pmu, const char *event,
                         const char *override_term, uint64_t override_value,
                         struct perf_event_attr *attr, tf_error *err)
    __attribute__((warn_unused_result));

#endif
