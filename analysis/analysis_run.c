/* SPDX-License-Identifier: BSD-3-Clause */
#include "analysis_run.h"

#include <stdio.h>
#include <stdlib.h>

#include "analysis_h5.h"
#include "from_fold.h"
#include "h5util.h"
#include "tables.h"

int tf_analysis_run(const tf_trace *tr, const tf_fold_result *res, const char *outdir,
                    const char *debug_dir, tf_error *err)
{
    size_t n = 0, done = 0;
    for (uint32_t r = 0; r < res->nregions; r++)
        n += res->regions[r].ngroups;
    tf_analysis *list = calloc(n + 1, sizeof *list);
    const tf_analysis **ptrs = calloc(n + 1, sizeof *ptrs);
    int64_t file = -1;
    int rc = 0;
    if (!list || !ptrs) {
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for the analysis");
        goto done;
    }
    for (uint32_t r = 0; r < res->nregions && !rc; r++)
        for (uint32_t g = 0; g < res->regions[r].ngroups && !rc; g++) {
            rc = tf_analysis_from_fold(&list[done], tr, &res->regions[r], g, debug_dir, NULL,
                                       err);
            if (!rc) {
                ptrs[done] = &list[done];
                done++;
            }
        }
    if (rc || (rc = tf_analysis_write_tables(ptrs, done, outdir, err)))
        goto done;
    char path[4096];
    snprintf(path, sizeof path, "%s/fold.h5", outdir);
    if ((rc = tf_h5_file_open(path, true, &file, err)))
        goto done;
    size_t k = 0;
    for (uint32_t r = 0; r < res->nregions && !rc; r++)
        for (uint32_t g = 0; g < res->regions[r].ngroups && !rc; g++, k++) {
            char name[64];
            int64_t grp;
            snprintf(name, sizeof name, "region/%u/group/%u", r, g);
            if ((rc = tf_h5_group_open(file, name, &grp, err)))
                break;
            rc = tf_analysis_write_h5(&list[k], grp, res->regions[r].groups[g].points.n, err);
            tf_h5_close(grp);
        }
done:
    tf_h5_close(file);
    for (size_t i = 0; list && i < done; i++)
        tf_analysis_clear(&list[i]);
    free(list);
    free(ptrs);
    return rc;
}
