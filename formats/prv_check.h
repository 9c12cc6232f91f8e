/* SPDX-License-Identifier: BSD-3-Clause */
/* Checks a Paraver trace the way the tools that read it depend on: every
 * record well-formed (strict reader), records globally time-sorted, the
 * header's counts matching the .row and the records, every event type,
 * every labelled type's values and every state labelled in the .pcf. */
#ifndef TF_PRV_CHECK_H
#define TF_PRV_CHECK_H

#include <stdint.h>

#include "common/tf_error.h"

typedef struct tf_prv_check_report {
    uint64_t records;
    uint64_t types;        /* distinct event types used */
    uint64_t values;       /* distinct (type, value) pairs checked against labels */
    uint32_t threads;
} tf_prv_check_report;

/* 0 when the trace passes; the first problem otherwise (TF_ERR_FORMAT),
 * naming the file and the line. */
int tf_prv_check(const char *prv_path, tf_prv_check_report *rep, tf_error *err);

#endif
