/* SPDX-License-Identifier: BSD-3-Clause */
/* The software memory-sampling back end: at each timer sample, the memory
 * references of the interrupted instruction and of the one that just
 * completed, computed from the saved registers by record/mem/ea_decode
 * (docs/memory-sampling.md).  One decoder per thread, created here outside
 * signal context, used only by that thread's handler. */
#include "config.h"

#include <stdlib.h>

#include "tf_memsample.h"

static int soft_thread_start(tf_rec_thread *t, tf_error *err)
{
    tf_mem_thread *m = calloc(1, sizeof *m);
    if (!m)
        return tf_fail(err, TF_ERR_NOMEM, "memory-sampling state");
    int rc = tf_ea_decoder_create(&m->ea, err);
    if (!rc)
        rc = tf_ea_thread_bases(&m->fs_base, &m->gs_base, err);
    if (rc) {
        tf_ea_decoder_free(m->ea);
        free(m);
        return rc;
    }
    t->mem = m;
    return 0;
}

static void soft_decode(tf_rec_thread *t, const void *ucontext, const tf_sample_slot *timer)
{
    tf_mem_thread *m = t->mem;
    tf_ea_regs regs;
    tf_ea_regs_from_ucontext(&regs, ucontext, m->fs_base, m->gs_base);
    tf_ea_result r[TF_EA_LIVE_MAX];
    unsigned n = tf_ea_decode_live(m->ea, &regs, r);
    for (unsigned k = 0; k < n; k++)
        for (unsigned i = 0; i < r[k].naccess; i++) {
            tf_sample ms;
            tf_ea_to_sample(&r[k], i, &ms);
            tf_mem_store(t, &ms, timer, NULL, 0);
        }
}

static void soft_thread_stop(tf_rec_thread *t, bool forked)
{
    (void)forked;
    tf_ea_decoder_free(t->mem->ea);
    free(t->mem);
}

const tf_memsampler_ops tf_memsampler_software = {
    .name = "software",
    .thread_start = soft_thread_start,
    .drain = NULL,
    .decode = soft_decode,
    .thread_stop = soft_thread_stop,
};
