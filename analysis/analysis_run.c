/* SPDX-License-Identifier: BSD-3-Clause */
#include "analysis_run.h"

#include <stdio.h>
#include <stdlib.h>

#include "analysis_h5.h"
#include "from_fold.h"
#include "formats/fold_h5.h"
#include "formats/h5util.h"
#include "tables.h"

int tf_analysis_run_groups(const tf_trace *tr, const tf_fold_result *res, const char *debug_dir,
                           const tf_analysis_params *params, tf_analysis_set *set, tf_error *err)
{
    size_t n = 0;
    for (uint32_t r = 0; r < res->nregions; r++)
        n += res->regions[r].ngroups;
    *set = (tf_analysis_set){ .list = calloc(n + 1, sizeof *set->list) };
    if (!set->list)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the analysis");
    tf_analysis_params defaults;
    if (!params) {
        tf_analysis_params_default(&defaults);
        params = &defaults;
    }
    int rc = tf_trace_names_create(&set->names, tr, debug_dir, &params->alloc_rules, err);
    for (uint32_t r = 0; r < res->nregions && !rc; r++)
        for (uint32_t g = 0; g < res->regions[r].ngroups && !rc; g++)
            if (!(rc = tf_analysis_from_fold(&set->list[set->n], tr, &res->regions[r], g,
                                             set->names, params, err)))
                set->n++;
    if (rc)
        tf_analysis_set_free(set);
    return rc;
}

int tf_analysis_save(const tf_analysis_set *set, const tf_fold_result *res, const char *outdir,
                     tf_error *err)
{
    const tf_analysis **ptrs = calloc(set->n + 1, sizeof *ptrs);
    if (!ptrs)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory for the analysis");
    for (size_t k = 0; k < set->n; k++)
        ptrs[k] = &set->list[k];
    int64_t file = -1;
    int rc = tf_analysis_write_tables(ptrs, set->n, outdir, err);
    free(ptrs);
    char path[4096];
    snprintf(path, sizeof path, "%s/fold.h5", outdir);
    if (rc || (rc = tf_h5_file_open(path, true, &file, err)))
        return rc;
    size_t k = 0;
    for (uint32_t r = 0; r < res->nregions && !rc; r++)
        for (uint32_t g = 0; g < res->regions[r].ngroups && k < set->n && !rc; g++, k++) {
            char name[TF_FOLD_H5_PATH];
            int64_t grp;
            if ((rc = tf_h5_group_open(file, tf_fold_h5_group_path(name, r, g, NULL), &grp, err)))
                break;
            rc = tf_analysis_write_h5(&set->list[k], &res->regions[r].groups[g], grp, err);
            tf_h5_close(grp);
        }
    tf_h5_close(file);
    return rc;
}

void tf_analysis_set_drop_samples(tf_analysis_set *set)
{
    for (size_t i = 0; i < set->n; i++) {
        free(set->list[i].samples);
        set->list[i].samples = NULL;
        set->list[i].nsamples = 0;
    }
}

void tf_analysis_set_free(tf_analysis_set *set)
{
    for (size_t i = 0; set->list && i < set->n; i++)
        tf_analysis_clear(&set->list[i]);
    free(set->list);
    tf_trace_names_free(set->names);
    *set = (tf_analysis_set){ 0 };
}
