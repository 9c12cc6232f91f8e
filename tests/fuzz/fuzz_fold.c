/* SPDX-License-Identifier: BSD-3-Clause */
/* Fuzz harness: fold.h5 as `tracefold render` reads it (render/report_load.c:
 * fold/fold_load.c, then each group's analysis and the machine profile). */
#include "fuzz.h"
#include "render/report_load.h"
#include "render/report_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[512];
    tf_fuzz_file("fold.h5", data, size, path, sizeof path);
    tf_error err = { 0 };
    tf_report report;
    if (tf_report_load(path, &report, &err) == 0)
        tf_report_free(&report);
    return 0;
}
