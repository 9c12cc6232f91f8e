/* SPDX-License-Identifier: BSD-3-Clause */
/* The default report of a fold, as one call for `tracefold fold`. */
#include "config.h"

#include "render.h"
#include "report_load.h"

int tf_render_fold_report(const char *fold_path, const tf_fold_result *res,
                          const tf_analysis_set *analyses, const tf_cal_profile *machine,
                          const char *pdf_path, tf_error *err)
{
    tf_report r;
    int rc = tf_report_load_analysed(res, analyses, machine, fold_path, &r, err);
    if (rc < 0)
        return rc;
    rc = tf_render_cairo(&r, pdf_path, TF_FORMAT_PDF, 150, err);
    tf_report_free(&r);
    return rc;
}
