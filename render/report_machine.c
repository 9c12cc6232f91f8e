/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading /machine of fold.h5 (formats/fold_h5.h). */
#include "config.h"

#include "formats/fold_h5.h"
#include "report_machine.h"

int tf_report_machine_read(const char *fold_path, tf_report *r, tf_error *err)
{
    double bytes[TF_REPORT_CACHES];
    size_t n = 0;
    int rc = tf_fold_h5_machine_read_caches(fold_path, bytes, TF_REPORT_CACHES, &n, err);
    if (rc < 0 || n == 0)
        return rc;
    for (size_t i = 0; i < r->npages; i++) {
        r->pages[i].ncaches = n;
        for (size_t k = 0; k < n; k++)
            r->pages[i].cache_bytes[k] = bytes[k];
    }
    return 0;
}
