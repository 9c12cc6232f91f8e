/* SPDX-License-Identifier: BSD-3-Clause */
/* Two buffers handed in turn between a thread that fills them and one that
 * empties them (double buffering): the filler fills buffer k while the
 * other empties buffer k ^ 1.  Only the handing over is here; the buffers
 * are the caller's. */
#ifndef TF_HANDOFF_H
#define TF_HANDOFF_H

#include <pthread.h>
#include <stdbool.h>

typedef struct tf_handoff {
    pthread_mutex_t lock;
    pthread_cond_t  changed;
    bool            full[2];
    bool            end;     /* the filler made its last buffer */
    bool            stop;    /* the emptier wants no more */
} tf_handoff;

void tf_handoff_init(tf_handoff *h);
void tf_handoff_destroy(tf_handoff *h);

/* Filler: waits until buffer k is empty; false when the emptier stopped. */
bool tf_handoff_wait_empty(tf_handoff *h, unsigned k);
/* Filler: buffer k is full. */
void tf_handoff_put(tf_handoff *h, unsigned k);
/* Filler: no buffer comes after those put. */
void tf_handoff_end(tf_handoff *h);

/* Emptier: waits until buffer k is full; false once the filler ended and
 * every buffer put was taken. */
bool tf_handoff_take(tf_handoff *h, unsigned k);
/* Emptier: buffer k is empty again; stop: the filler should make no more. */
void tf_handoff_release(tf_handoff *h, unsigned k, bool stop);

#endif
