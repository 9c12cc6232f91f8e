/* SPDX-License-Identifier: BSD-3-Clause */
/* Reading /machine of fold.h5. */
#include "config.h"

#include <stdlib.h>

#include "formats/h5util.h"
#include "report_machine.h"

/* size_bytes, hit_ns, miss_penalty_ns, associativity (calibrate's profile) */
#define LEVEL_COLUMNS 4

int tf_report_machine_read(const char *fold_path, tf_report *r, tf_error *err)
{
    int64_t file = -1;
    int rc = tf_h5_file_open(fold_path, false, &file, err);
    if (rc < 0 || !tf_h5_exists(file, "machine/levels")) {
        tf_h5_close(file);
        return rc;
    }
    double *rows = NULL;
    size_t n = 0, cols = 0;
    rc = tf_h5_read_array(file, "machine/levels", TF_H5_DOUBLE, (void **)&rows, &n, &cols, err);
    if (rc == 0 && (n > TF_REPORT_CACHES || (n && cols != LEVEL_COLUMNS)))
        rc = tf_h5_fail(err, TF_ERR_FORMAT, file, "machine/levels",
                        "expected at most %d rows of %d columns, found %zu x %zu",
                        TF_REPORT_CACHES, LEVEL_COLUMNS, n, cols);
    for (size_t k = 0; rc == 0 && k < n; k++)
        if (!(rows[k * LEVEL_COLUMNS] > 0) ||
            (k && rows[k * LEVEL_COLUMNS] <= rows[(k - 1) * LEVEL_COLUMNS]))
            rc = tf_h5_fail(err, TF_ERR_FORMAT, file, "machine/levels",
                            "cache sizes must be positive and increasing (row %zu)", k);
    for (size_t i = 0; rc == 0 && i < r->npages; i++) {
        r->pages[i].ncaches = n;
        for (size_t k = 0; k < n; k++)
            r->pages[i].cache_bytes[k] = rows[k * LEVEL_COLUMNS];
    }
    free(rows);
    tf_h5_close(file);
    return rc;
}
