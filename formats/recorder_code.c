/* SPDX-License-Identifier: BSD-3-Clause */
/* Samples in the recorder's code moved to the program's call of it
 * (recorder_code.h). */
#include "recorder_code.h"

#include <stdlib.h>
#include <string.h>

bool tf_recorder_file(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    return !strncmp(base, "libtracefold", 12) && strstr(base, ".so") != NULL;
}

void tf_recorder_code_of(const tf_trace *tr, uint32_t proc, tf_recorder_code *code)
{
    const tf_process *p = tf_trace_process(tr, proc);
    code->n = 0;
    for (size_t m = 0; m < p->nmodules && code->n < TF_RECORDER_CODE_MAX; m++) {
        if (!tf_recorder_file(tf_trace_string(tr, p->modules[m].path)))
            continue;
        code->range[code->n].start = p->modules[m].start;
        code->range[code->n].end = p->modules[m].end;
        code->n++;
    }
}

bool tf_recorder_code_has(const tf_recorder_code *code, uint64_t ip)
{
    for (size_t i = 0; i < code->n; i++)
        if (ip >= code->range[i].start && ip < code->range[i].end)
            return true;
    return false;
}

/* The first frame of s's stack outside the recorder, as the address of
 * its call instruction, or 0.  frames[0] is the sample's own ip. */
static uint64_t caller_outside(const tf_recorder_code *code, const uint64_t *frames, size_t n)
{
    for (size_t f = 1; f < n; f++)
        if (frames[f] && !tf_recorder_code_has(code, frames[f]))
            return frames[f] - 1;
    return 0;
}

int tf_recorder_code_skip(tf_trace *tr, uint32_t proc, uint32_t thread,
                          const tf_recorder_code *code, tf_sample *s, size_t n, tf_error *err)
{
    if (code->n == 0)
        return 0;
    uint64_t *frames = NULL;
    size_t have = 0;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!s[i].ip || !tf_recorder_code_has(code, s[i].ip))
            continue;
        size_t len = s[i].stack_len;
        if (len > have) {
            uint64_t *bigger = realloc(frames, len * sizeof *frames);
            if (!bigger) {
                rc = tf_fail(err, TF_ERR_NOMEM, "out of memory for a call stack");
                break;
            }
            frames = bigger;
            have = len;
        }
        if (len > 0)
            rc = tf_trace_read_frames(tr, proc, thread, s[i].stack, len, frames, err);
        if (rc == 0)
            s[i].ip = caller_outside(code, frames, len);
    }
    free(frames);
    return rc;
}
