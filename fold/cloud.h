/* SPDX-License-Identifier: BSD-3-Clause */
/* One counter's folded cloud within one group: the view the fitting stages
 * (change points, reconstruction, bands) share. */
#ifndef TF_FOLD_CLOUD_H
#define TF_FOLD_CLOUD_H

#include <stddef.h>
#include <stdint.h>

typedef struct tf_fold_cloud {
    size_t ninst;              /* instances of the group */
    const uint32_t *rows;      /* [ninst] row in the region's instances */
    const size_t *first;       /* [ninst+1] each instance's points */
    const float *x;            /* normalised times of the points */
    const float *y;            /* this counter's values (NaN: none) */
    const uint8_t *valid;      /* [ninst] 1 when the counter is usable in the instance */
    const double *total;       /* [ninst] counter delta, events */
    const double *duration;    /* [ninst] ns */
} tf_fold_cloud;

#endif
