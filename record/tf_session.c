/* SPDX-License-Identifier: BSD-3-Clause */
/* Layout helpers of the shared-memory session (tf_session.h), used by both
 * the library and the writer. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "tf_session.h"

void tf_shm_buffer_layout(tf_shm_buffer *b, size_t size, uint32_t nbase, uint32_t depth)
{
    memset(b, 0, sizeof *b);
    b->magic = TF_SESSION_MAGIC;
    b->size = size;
    size_t ev = tf_event_slot_size(nbase), sm = tf_sample_slot_size(nbase, depth);
    size_t room = size - sizeof *b;
    /* Events get a quarter: region marks are far rarer than samples in a
     * coarse-sampled run, but every one of them matters to folding. */
    size_t ev_bytes = room / 4;
    b->events.slot_size = (uint32_t)ev;
    b->events.nslots = (uint32_t)(ev_bytes / ev);
    b->events.offset = sizeof *b - offsetof(tf_shm_buffer, events);
    b->samples.slot_size = (uint32_t)sm;
    b->samples.nslots = (uint32_t)((room - ev_bytes) / sm);
    b->samples.offset = sizeof *b + (size_t)b->events.nslots * ev - offsetof(tf_shm_buffer, samples);
}

int tf_session_buffer_name(char *buf, size_t size, const char *proc_file, uint32_t slot)
{
    int n = snprintf(buf, size, "%s.t%u", proc_file, slot);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}
