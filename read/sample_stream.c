/* SPDX-License-Identifier: BSD-3-Clause */
/* libtracefold-read: a thread's samples, streamed by the trace reader's
 * cursor (formats/trace_read.c) a batch at a time and handed out in the
 * public record. */
#include "config.h"

#include <stdlib.h>

#include "read_error.h"
#include "read_trace.h"

/* Samples converted per read of the trace's cursor. */
#define SAMPLE_BATCH 4096

struct tracefold_samples {
    tf_sample_cursor *cursor;
    tf_sample batch[SAMPLE_BATCH];
};

int tracefold_samples_open(tracefold_trace *t, uint32_t process, uint32_t thread,
                           tracefold_samples **out, tracefold_error *err)
{
    int rc = tf_read_check_thread(t, process, thread, err);
    if (rc < 0)
        return rc;
    tracefold_samples *s = malloc(sizeof *s);
    if (!s)
        return tf_read_fail(err, TF_ERR_NOMEM, "%s: out of memory opening the samples",
                            tf_trace_path(t->trace));
    tf_error e;
    if (tf_samples_open(t->trace, process, thread, &s->cursor, &e) < 0) {
        free(s);
        return tf_read_error(err, &e);
    }
    *out = s;
    return 0;
}

int tracefold_samples_read(tracefold_samples *s, tracefold_sample *buf, uint64_t *counters,
                           size_t max, size_t *n, tracefold_error *err)
{
    tf_error e;
    size_t got;
    if (tf_samples_read(s->cursor, s->batch, counters, max < SAMPLE_BATCH ? max : SAMPLE_BATCH,
                        &got, &e) < 0)
        return tf_read_error(err, &e);
    for (size_t i = 0; i < got; i++) {
        const tf_sample *in = &s->batch[i];
        buf[i] = (tracefold_sample){
            .time = in->time,
            .ip = in->ip,
            .address = in->addr,
            .data_source = in->data_source,
            .weight = in->weight,
            .stack_depth = in->stack_len,
            .kind = in->kind,
            .level = in->level,
            .flags = in->flags,
        };
    }
    *n = got;
    return 0;
}

void tracefold_samples_close(tracefold_samples *s)
{
    if (!s)
        return;
    tf_samples_close(s->cursor);
    free(s);
}
