/* SPDX-License-Identifier: BSD-3-Clause */
#include "open_trace.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "prv_import.h"

static bool lenient;

void tf_cli_set_lenient(bool on) { lenient = on; }

bool tf_cli_is_paraver(const char *path)
{
    size_t n = strlen(path);
    return (n > 4 && !strcmp(path + n - 4, ".prv")) || (n > 7 && !strcmp(path + n - 7, ".prv.gz"));
}

/* Traces converted from Paraver, with the temporary folder that holds each,
 * removed when the trace is closed. */
typedef struct conversion {
    tf_trace *tr;
    char     *dir, *file;
} conversion;

static conversion *conversions;
static size_t nconversions;

static void remove_conversion(const char *dir, const char *file)
{
    unlink(file);
    rmdir(dir);
}

static void show_progress(void *arg, uint64_t done, uint64_t total)
{
    (void)arg;
    tf_progress("converting the Paraver trace", done, total);
}

static int open_paraver(const char *path, tf_trace **tr, tf_error *err)
{
    const char *tmp = getenv("TMPDIR");
    char *dir = NULL, *file = NULL;
    if (asprintf(&dir, "%s/tracefold-prv-XXXXXX", tmp && *tmp ? tmp : "/tmp") < 0)
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    if (!mkdtemp(dir)) {
        int rc = tf_fail(err, TF_ERR_IO, "%s: cannot create a folder for the conversion of %s",
                         dir, path);
        free(dir);
        return rc;
    }
    /* Named after the .prv, so messages about the conversion point at it. */
    const char *base = strrchr(path, '/');
    if (asprintf(&file, "%s/%s.h5", dir, base ? base + 1 : path) < 0) {
        rmdir(dir);
        free(dir);
        return tf_fail(err, TF_ERR_NOMEM, "out of memory");
    }
    tf_prv_import_stats st;
    int rc = tf_prv_import(path, file, lenient, show_progress, NULL, &st, err);
    tf_progress_done();
    if (rc == 0 && st.skipped)
        tf_msg_warn("%s: skipped %llu bad record%s (first: %s)", path,
                    (unsigned long long)st.skipped, st.skipped == 1 ? "" : "s", st.first_skip);
    if (rc == 0 && !st.have_pcf)
        tf_msg_warn("%s: no .pcf beside it: regions and routines are named by number", path);
    conversion *nc = NULL;
    if (rc == 0 && (rc = tf_trace_open(tr, file, err)) == 0 &&
        !(nc = realloc(conversions, (nconversions + 1) * sizeof *nc))) {
        tf_trace_close(*tr);
        *tr = NULL;
        rc = tf_fail(err, TF_ERR_NOMEM, "out of memory");
    }
    if (rc < 0) {
        remove_conversion(dir, file);
        free(dir);
        free(file);
        return rc;
    }
    conversions = nc;
    conversions[nconversions++] = (conversion){*tr, dir, file};
    return 0;
}

int tf_cli_open_trace(const char *path, tf_trace **tr, tf_error *err)
{
    *tr = NULL;
    if (tf_cli_is_paraver(path))
        return open_paraver(path, tr, err);
    return tf_trace_open(tr, path, err);
}

void tf_cli_close_trace(tf_trace *tr)
{
    if (!tr)
        return;
    tf_trace_close(tr);
    for (size_t i = 0; i < nconversions; i++) {
        if (conversions[i].tr != tr)
            continue;
        remove_conversion(conversions[i].dir, conversions[i].file);
        free(conversions[i].dir);
        free(conversions[i].file);
        conversions[i] = conversions[--nconversions];
        break;
    }
}

int tf_cli_region_name(const tf_trace *tr, const char *spec, char **name, tf_error *err)
{
    *name = NULL;
    if (strchr(spec, '=')) {
        int rc = tf_prv_region_resolve(tr, spec, name, err);
        uint32_t id;
        /* A region whose own name contains '=' is taken as it is. */
        if (rc == 0 || !tf_trace_find_string(tr, spec, &id))
            return rc;
        tf_error_clear(err);
    }
    *name = strdup(spec);
    return *name ? 0 : tf_fail(err, TF_ERR_NOMEM, "out of memory");
}
