/* SPDX-License-Identifier: BSD-3-Clause */
/* Groups of instances by the process they ran in (fold --group-by): one
 * group per MPI rank, or per host, instead of the duration groups. */
#ifndef TF_FOLD_GROUP_BY_H
#define TF_FOLD_GROUP_BY_H

#include <stddef.h>
#include <stdint.h>

#include "fold_result.h"
#include "formats/trace.h"

/* "duration", "rank", "host"; -1 for an unknown name. */
int tf_fold_group_by_parse(const char *name);

/* Fills group[k] for the n instances cand[k] of ins: ranks ascending (a
 * process without a rank counts as its process index), hosts in the order
 * of their first process.  *ngroups is the number of distinct values. */
int tf_fold_group_by_process(const tf_trace *tr, const tf_fold_instance *ins,
                             const uint32_t *cand, size_t n, enum tf_fold_group_by by,
                             int32_t *group, uint32_t *ngroups, tf_error *err);

#endif
