/* SPDX-License-Identifier: BSD-3-Clause */
#include "tf_handoff.h"

void tf_handoff_init(tf_handoff *h)
{
    pthread_mutex_init(&h->lock, NULL);
    pthread_cond_init(&h->changed, NULL);
    h->full[0] = h->full[1] = h->end = h->stop = false;
}

void tf_handoff_destroy(tf_handoff *h)
{
    pthread_cond_destroy(&h->changed);
    pthread_mutex_destroy(&h->lock);
}

bool tf_handoff_wait_empty(tf_handoff *h, unsigned k)
{
    pthread_mutex_lock(&h->lock);
    while (h->full[k] && !h->stop)
        pthread_cond_wait(&h->changed, &h->lock);
    bool go = !h->stop;
    pthread_mutex_unlock(&h->lock);
    return go;
}

/* Sets *flag under the lock and wakes the other thread. */
static void announce(tf_handoff *h, bool *flag, bool value)
{
    pthread_mutex_lock(&h->lock);
    *flag = value;
    pthread_cond_broadcast(&h->changed);
    pthread_mutex_unlock(&h->lock);
}

void tf_handoff_put(tf_handoff *h, unsigned k)
{
    announce(h, &h->full[k], true);
}

void tf_handoff_end(tf_handoff *h)
{
    announce(h, &h->end, true);
}

bool tf_handoff_take(tf_handoff *h, unsigned k)
{
    pthread_mutex_lock(&h->lock);
    while (!h->full[k] && !h->end)
        pthread_cond_wait(&h->changed, &h->lock);
    bool full = h->full[k];
    pthread_mutex_unlock(&h->lock);
    return full;
}

void tf_handoff_release(tf_handoff *h, unsigned k, bool stop)
{
    pthread_mutex_lock(&h->lock);
    h->full[k] = false;
    h->stop = h->stop || stop;
    pthread_cond_broadcast(&h->changed);
    pthread_mutex_unlock(&h->lock);
}
