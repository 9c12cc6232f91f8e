/* SPDX-License-Identifier: BSD-3-Clause */
#include "input_report.h"

#include "formats/trace_input.h"
#include "msg.h"

void tf_cli_report_import(const char *path, const tf_prv_import_stats *st)
{
    if (st->skipped)
        tf_msg_warn("%s: skipped %llu bad record%s (first: %s)", path,
                    (unsigned long long)st->skipped, st->skipped == 1 ? "" : "s", st->first_skip);
    if (!st->have_pcf)
        tf_msg_warn("%s: no .pcf beside it: regions and routines are named by number", path);
}

static void show_progress(void *arg, uint64_t done, uint64_t total)
{
    (void)arg;
    tf_progress("converting the Paraver trace", done, total);
}

static void end_progress(void *arg)
{
    (void)arg;
    tf_progress_done();
}

static void report_import(void *arg, const char *path, const tf_prv_import_stats *st)
{
    (void)arg;
    tf_cli_report_import(path, st);
}

void tf_cli_input_report(void)
{
    tf_input_set_hooks(&(tf_input_hooks){.progress = show_progress, .done = end_progress,
                                         .imported = report_import});
}
